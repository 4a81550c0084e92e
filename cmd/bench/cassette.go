package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"webbench/browser/cassette"
	"webbench/browser/drift"
	"webbench/judge"
	"webbench/results"
	"webbench/suites"
)

func init() { extraCommands = append(extraCommands, cassetteCmd) }

func cassetteCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "cassette",
		Short: "Show what a cassette holds, compare it with the live sites or a later recording, import a HAR",
		Long: "A cassette is a run's recorded network traffic (bench run --record DIR; docs/CASSETTES.md):\n" +
			"  ls      tasks, entries, bytes and record time per tape\n" +
			"  stats   per host and content type: entries, sizes, compression; secrets stripped\n" +
			"  diff    per task, the pages whose main text or reference answer changed (--live or --against)\n" +
			"  import  an HTTP Archive (HAR) as one task's tape",
		Args: cobra.NoArgs,
	}
	c.AddCommand(cassetteLsCmd(), cassetteStatsCmd(), cassetteDiffCmd(), cassetteImportCmd())
	return c
}

// openCassette opens a cassette for reading, a usage error naming it when it is none.
func openCassette(dir string) (*cassette.Cassette, error) {
	c, err := cassette.Open(dir)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return c, nil
}

func writeJSONOut(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// cassetteView is a command that reads one thing from a cassette (read) and prints it as JSON (--json: the
// value, or what asJSON makes of it) or as text (text).
func cassetteView[T any](use, short, jsonHelp string, read func(*cassette.Cassette) (T, error),
	asJSON func(dir string, c *cassette.Cassette, v T) any, text func(w io.Writer, dir string, c *cassette.Cassette, v T) error) *cobra.Command {
	var wantJSON bool
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			cas, err := openCassette(args[0])
			if err != nil {
				return err
			}
			v, err := read(cas)
			if err != nil {
				return withCode(exitInfra, err)
			}
			if wantJSON {
				return writeJSONOut(c.OutOrStdout(), asJSON(args[0], cas, v))
			}
			return text(c.OutOrStdout(), args[0], cas, v)
		},
	}
	c.Flags().BoolVar(&wantJSON, "json", false, jsonHelp)
	return c
}

func cassetteLsCmd() *cobra.Command {
	return cassetteView("ls CASSETTE", "List a cassette's tapes: task, entries, attempts, bytes served, record time",
		"print JSON: {cassette, manifest, tasks: [{task, entries, attempts, bytes, recorded_at}]}",
		(*cassette.Cassette).List,
		func(dir string, cas *cassette.Cassette, ls []cassette.TaskSummary) any {
			return map[string]any{"cassette": dir, "manifest": cas.Manifest(), "tasks": ls}
		},
		func(out io.Writer, dir string, cas *cassette.Cassette, ls []cassette.TaskSummary) error {
			fmt.Fprintf(out, "%s: %s, first recorded %s, secrets %s\n", dir, results.Count(len(ls), "task", "tasks"),
				cas.RecordedAt().Format(time.RFC3339), map[bool]string{true: "kept", false: "stripped"}[cas.Manifest().Secrets])
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TASK\tENTRIES\tATTEMPTS\tBYTES\tRECORDED")
			for _, t := range ls {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", t.Task, t.Entries, t.Attempts, sizeOf(t.Bytes),
					t.RecordedAt.Format(time.RFC3339))
			}
			return tw.Flush()
		})
}

func cassetteStatsCmd() *cobra.Command {
	return cassetteView("stats CASSETTE", "Sizes per host and content type, compression and dedup ratios, secrets stripped",
		"print JSON (the fields of docs/CASSETTES.md, \"bench cassette stats\")",
		(*cassette.Cassette).Stats,
		func(_ string, _ *cassette.Cassette, st cassette.Stats) any { return st },
		func(out io.Writer, dir string, _ *cassette.Cassette, st cassette.Stats) error {
			secrets := fmt.Sprintf("%d secrets stripped", st.Stripped)
			if st.Secrets {
				secrets = "secrets kept (--record-secrets)"
			}
			fmt.Fprintf(out, "%s: %s, %s; %s served, %s distinct, %s stored (compression %.1fx, dedup %.1fx); %s\n",
				dir, results.Count(st.Tasks, "task", "tasks"), results.Count(st.Entries, "entry", "entries"),
				sizeOf(st.Bytes), sizeOf(st.Unique), sizeOf(st.Stored), st.Compression, st.Dedup, secrets)
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "HOST\tCONTENT TYPE\tENTRIES\tSERVED\tDISTINCT\tSTORED\tRATIO")
			for _, g := range st.Groups {
				ratio := "-"
				if g.Stored > 0 {
					ratio = fmt.Sprintf("%.1fx", float64(g.Unique)/float64(g.Stored))
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", g.Host, cmpOr(g.ContentType, "-"), g.Entries,
					sizeOf(g.Bytes), sizeOf(g.Unique), sizeOf(g.Stored), ratio)
			}
			return tw.Flush()
		})
}

func cmpOr(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// sizeOf words a byte count in binary units (1.5 KiB).
func sizeOf(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

func cassetteImportCmd() *cobra.Command {
	var out, task string
	var secrets bool
	c := &cobra.Command{
		Use:   "import HAR --out CASSETTE --task ID",
		Short: "Import an HTTP Archive (HAR 1.2, plain or gzip) as one task's tape of a new cassette",
		Long: "The entries are stored in the HAR's order as one attempt; the tape's record time is its first\n" +
			"entry's start. Entries whose body the HAR left out (browsers omit binary bodies unless asked) are not stored:\n" +
			"a replay misses them. A 304 holding the cached body is stored as 200. Secrets are stripped as in a\n" +
			"recording unless --record-secrets.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" || task == "" {
				return usageErr("--out and --task are required")
			}
			f, err := os.Open(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			defer f.Close()
			st, err := cassette.ImportHAR(out, task, f, cassette.Options{Secrets: secrets})
			if err != nil {
				return usageErr("%s: %v", args[0], err)
			}
			fmt.Fprintf(c.OutOrStdout(), "imported %d of %s into %s (task %s): %d without a body in the HAR (replay misses them), "+
				"%d revalidations stored as 200, %d not HTTP\n", st.Imported, results.Count(st.Entries, "entry", "entries"),
				out, task, st.NoBody, st.Revalidated, st.Skipped)
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "cassette directory to create (or add the task to)")
	c.Flags().StringVar(&task, "task", "", "task id of the tape")
	c.Flags().BoolVar(&secrets, "record-secrets", false, "keep cookies, credentials and URL tokens the HAR holds")
	return c
}

// diffFlags are bench cassette diff's own flags (the suite's come from suiteFlags).
type diffFlags struct {
	against string
	live    bool
	format  string
	timeout time.Duration
}

func cassetteDiffCmd() *cobra.Command {
	var df diffFlags
	var sf suiteFlags
	c := &cobra.Command{
		Use:   "diff CASSETTE (--live | --against CASSETTE2)",
		Short: "Flag per task the pages whose main text or reference answer changed since the recording",
		Long: "Each task's HTML pages (2xx text/html responses, one per matching key) are compared with the live site\n" +
			"(--live: a plain GET, no cookies, no scripts run) or with a second recording (--against). A page drifted\n" +
			"when its main text changed (the page without scripts, styles, hidden elements, navigation, header,\n" +
			"footer and asides, dates, clock times, relative ages and view counters masked) or when the task's\n" +
			"reference answer was on it and is no longer: then the task's answer is marked for review. Reference\n" +
			"answers come from the suite named by --suite (and its flags, as for bench run); --suite has no default\n" +
			"here: without it no answer is checked. Tasks: unchanged, drifted (re-record them: --format json |\n" +
			"jq '.tasks[] | select(.status==\"drifted\")'), error (a page could not be read now: a network error,\n" +
			"HTTP 502/503/504; not drift, and the answer on it is unknown). Exit 0 whatever drifted.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runCassetteDiff(c, args[0], df, sf)
		},
	}
	c.Flags().StringVar(&df.against, "against", "", "a later recording of the same tasks to compare with")
	c.Flags().BoolVar(&df.live, "live", false, "compare with the live sites (fetches every recorded page)")
	c.Flags().StringVar(&df.format, "format", "text", "output: text, md, json (the drift report of docs/CASSETTES.md)")
	c.Flags().DurationVar(&df.timeout, "timeout", 30*time.Second, "--live: time limit per page")
	sf.register(c)
	// Reference answers are optional: a suite is checked only when named, so --suite has no default here.
	sf.suite = ""
	f := c.Flags().Lookup("suite")
	f.DefValue, f.Usage = "", "suite whose reference answers are looked for on the pages (default: none, no answer is checked)"
	return c
}

func runCassetteDiff(c *cobra.Command, dir string, df diffFlags, sf suiteFlags) error {
	if df.live == (df.against != "") {
		return usageErr("bench cassette diff needs one of --live or --against CASSETTE2")
	}
	if df.format != "text" && df.format != "md" && df.format != "json" {
		return usageErr("--format %q: want text, md or json", df.format)
	}
	cas, err := openCassette(dir)
	if err != nil {
		return err
	}
	later, against := drift.Live(&http.Client{Timeout: df.timeout}), "live"
	if df.against != "" {
		other, err := openCassette(df.against)
		if err != nil {
			return err
		}
		later, against = other.Later(), df.against
	}
	refs, err := diffReferences(c, sf)
	if err != nil {
		return err
	}
	ids, err := cas.Tasks()
	if err != nil {
		return withCode(exitInfra, err)
	}
	picked := make([]suites.Task, len(ids))
	for i, id := range ids {
		picked[i] = suites.Task{ID: id}
	}
	if picked, err = suites.Filter(picked, sf.tasks); err != nil {
		return usageErr("%v", err)
	}
	var in []drift.TaskInput
	for _, t := range picked {
		pages, err := cas.Pages(t.ID)
		if err != nil {
			return withCode(exitInfra, err)
		}
		ti := drift.TaskInput{ID: t.ID, Pages: pages}
		if ref, ok := refs[t.ID]; ok {
			if f, ok := judge.OnPage(ref.Check.Answer); ok {
				ti.Answer = f
			}
		}
		in = append(in, ti)
	}
	r := drift.Compare(c.Context(), against, in, later)
	out := c.OutOrStdout()
	switch df.format {
	case "json":
		return writeJSONOut(out, r)
	case "md":
		writeDriftMarkdown(out, dir, r)
	default:
		writeDriftText(out, dir, r)
	}
	return nil
}

// diffReferences are the suite's tasks by id when --suite was given (a live WebVoyager suite without its
// reachability probe: only its answers are read), else none.
func diffReferences(c *cobra.Command, sf suiteFlags) (map[string]suites.Task, error) {
	if sf.suite == "" {
		return nil, nil
	}
	if sf.suite == "webvoyager" {
		if sf.extra == nil {
			sf.extra = map[string]string{}
		}
		if _, set := sf.extra["probe_timeout"]; !set {
			sf.extra["probe_timeout"] = "off"
		}
	}
	sf.tasks = "" // --tasks picks the cassette's tasks (sf is a copy); every reference is loaded
	s, all, err := sf.open()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	refs := map[string]suites.Task{}
	for _, t := range all {
		refs[t.ID] = t
	}
	return refs, nil
}

// answerWord words a page's or task's answer presence before and after; why is the error that left it unknown
// now.
func answerWord(before, after drift.Presence, why string) string {
	word := func(p drift.Presence) string {
		switch p {
		case drift.Present:
			return "yes"
		case drift.Absent:
			return "no"
		case drift.Unknown:
			if why != "" {
				return "unknown (not read: " + why + ")"
			}
			return "unknown (not read)"
		}
		return "?"
	}
	if before == "" {
		return "no reference answer to look for"
	}
	return "reference answer on the page: recorded " + word(before) + ", now " + word(after)
}

// driftSummary is the report's count line: tasks and pages, then drifted, unchanged and unknown tasks (a page
// could not be read now), with the unread pages.
func driftSummary(r drift.Report) string {
	return fmt.Sprintf("%s, %s: %d drifted, %d unchanged, %d unknown (%s could not be read now)",
		results.Count(len(r.Tasks), "task", "tasks"), results.Count(r.Pages, "page", "pages"), r.Counts[drift.Drifted],
		r.Counts[drift.Unchanged], r.Counts[drift.Error], results.Count(r.Unread, "page", "pages"))
}

// writeDriftText is the text rendering: a summary, each task's status, and the changed pages of drifted tasks.
func writeDriftText(w io.Writer, dir string, r drift.Report) {
	fmt.Fprintf(w, "%s vs %s: %s\n", dir, r.Against, driftSummary(r))
	for _, t := range r.Tasks {
		review := ""
		if t.Review {
			review = "; REVIEW its reference answer"
		}
		fmt.Fprintf(w, "%-9s %s (%s%s)\n", t.Status, t.Task, answerWord(t.AnswerBefore, t.AnswerAfter, t.AnswerError), review)
		if t.Status == drift.Unchanged {
			continue
		}
		for _, p := range t.Pages {
			if p.Status == drift.Unchanged || p.Status == drift.NotCompared {
				continue
			}
			fmt.Fprintf(w, "  %-9s %s%s\n", p.Status, p.URL, pageDetail(p))
			for _, l := range p.Removed {
				fmt.Fprintf(w, "    - %s\n", l)
			}
			for _, l := range p.Added {
				fmt.Fprintf(w, "    + %s\n", l)
			}
		}
	}
}

// pageDetail is the parenthesis after a changed page's URL: its status code, line counts, error.
func pageDetail(p drift.PageDiff) string {
	switch p.Status {
	case drift.Gone:
		return fmt.Sprintf(" (HTTP %d)", p.HTTPStatus)
	case drift.Error:
		return " (" + p.Error + ")"
	}
	return fmt.Sprintf(" (%d lines removed, %d added; %s)", p.RemovedCount, p.AddedCount, answerWord(p.AnswerBefore, p.AnswerAfter, p.Error))
}

// writeDriftMarkdown is the Markdown rendering (a job summary): the counts, a table of the tasks that are not
// unchanged, the reviews.
func writeDriftMarkdown(w io.Writer, dir string, r drift.Report) {
	fmt.Fprintf(w, "## Cassette drift: `%s` vs %s\n\n%s\n\n", dir, r.Against, driftSummary(r))
	if r.Counts[drift.Drifted]+r.Counts[drift.Error] == 0 {
		return
	}
	fmt.Fprintln(w, "| task | status | page | change | reference answer |\n|---|---|---|---|---|")
	for _, t := range r.Tasks {
		for _, p := range t.Pages {
			if p.Status == drift.Unchanged || p.Status == drift.NotCompared {
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", t.Task, p.Status, mdCell(p.URL), mdCell(strings.TrimSpace(pageDetail(p))),
				mdCell(answerWord(p.AnswerBefore, p.AnswerAfter, p.Error)))
		}
	}
	if rv := r.Reviews(); len(rv) > 0 {
		fmt.Fprintf(w, "\nReference answers to review: %s\n", strings.Join(rv, ", "))
	}
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
