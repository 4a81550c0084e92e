package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"webbench/agent"
	"webbench/agent/llm"
	"webbench/judge"
	"webbench/results"
	"webbench/runner"
	"webbench/suites"
)

func init() { extraCommands = append(extraCommands, judgeCmd) }

// verdictLine is one line of verdicts-<judge>.jsonl, written beside attempts.jsonl by bench judge.
type verdictLine struct {
	SchemaVersion int           `json:"schema_version"`
	AttemptID     string        `json:"attempt_id"`
	TaskID        string        `json:"task_id"`
	Variant       string        `json:"variant,omitempty"`
	Verdict       judge.Verdict `json:"verdict"`
}

func judgeCmd() *cobra.Command {
	var which, model, baseURL, keyEnv string
	var k int
	var agreement []string
	var sf suiteFlags
	c := &cobra.Command{
		Use:   "judge DIR",
		Short: "Re-score existing attempts (a run directory, or WebVoyager result folders) without re-running",
		Long: "DIR is a run directory: every final attempt is judged again by --judge and the verdicts are written to\n" +
			"DIR/verdicts-<judge>.jsonl beside the original ones. Or DIR holds WebVoyager result folders (task*/ with\n" +
			"interact_messages.json and screenshotN.png): each gets <folder>/verdict-<judge>.json.\n" +
			"--agreement A B prints Cohen's κ and the confusion table between two judges' verdicts in DIR ('original'\n" +
			"names the verdicts recorded during the run).\n" +
			"The llm judge has its own model block: --judge-model openai:NAME --judge-base-url URL, key from\n" +
			"--judge-key-env (default OPENAI_API_KEY).",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dir := args[0]
			if len(agreement) > 0 {
				if len(agreement) != 2 {
					return usageErr("--agreement takes two judge names")
				}
				return printAgreement(c, dir, agreement[0], agreement[1])
			}
			var j judge.Judge
			switch which {
			case "answer":
				j = judge.Answer{}
			case "state":
				j = judge.State{}
			case "llm":
				m, err := runner.ParseModel(model, baseURL, "")
				if err != nil || m.Kind != "openai" {
					return usageErr("--judge llm needs --judge-model openai:NAME (and --judge-base-url)")
				}
				cfg := m.LLMConfig("")
				cfg.APIKeyEnv = keyEnv
				cl, err := llm.New(cfg)
				if err != nil {
					return usageErr("%v", err)
				}
				j = judge.NewLLM(cl, k)
			default:
				return usageErr("--judge %q: expected llm, answer or state", which)
			}
			if _, err := os.Stat(filepath.Join(dir, results.AttemptsFile)); err == nil {
				return rescoreRun(c, dir, j, sf)
			}
			return rescoreFolders(c, dir, j)
		},
	}
	sf.register(c)
	c.Flags().StringVar(&which, "judge", "llm", "judge: llm, answer or state")
	c.Flags().StringVar(&model, "judge-model", "", "judge model openai:NAME")
	c.Flags().StringVar(&baseURL, "judge-base-url", "", "judge endpoint (OpenAI-compatible)")
	c.Flags().StringVar(&keyEnv, "judge-key-env", "OPENAI_API_KEY", "environment variable holding the judge's API key")
	c.Flags().IntVar(&k, "screenshots", 15, "last k screenshots shown to the llm judge")
	c.Flags().StringSliceVar(&agreement, "agreement", nil, "two judge names: print Cohen's κ and the confusion table")
	return c
}

func rescoreRun(c *cobra.Command, dir string, j judge.Judge, sf suiteFlags) error {
	var m runner.Manifest
	_ = readJSON(filepath.Join(dir, results.ManifestFile), &m)
	if !c.Flags().Changed("suite") && m.Plan.Suite != "" {
		sf.suite = m.Plan.Suite
	}
	if spec, ok := m.Spec.(map[string]any); ok {
		for key, dst := range map[string]*string{"tasks_file": &sf.tasksFile, "answers": &sf.answers} {
			if v, ok := spec[key].(string); ok && *dst == "" {
				*dst = v
			}
		}
	}
	s, err := suites.Open(sf.suite, suiteOpts(sf))
	if err != nil {
		return usageErr("%v", err)
	}
	defer s.Close()
	tasks := map[string]suites.Task{}
	for _, t := range s.Tasks() {
		tasks[t.ID] = t
	}
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		return usageErr("%v", err)
	}
	path := filepath.Join(dir, "verdicts-"+j.Name()+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		return withCode(exitInfra, err)
	}
	defer f.Close()
	pass, n, errs := 0, 0, 0
	for _, r := range rr.Final() {
		t, ok := tasks[r.TaskID]
		if !ok || !r.Done() {
			continue
		}
		in := judge.Input{Task: t, Final: r.Final, OK: r.OK}
		var tr agent.Trajectory
		if r.Trajectory != "" && readJSON(filepath.Join(dir, r.Trajectory), &tr) == nil {
			in.State = tr.State
			for _, rel := range tr.Screenshots {
				if b, err := os.ReadFile(filepath.Join(dir, rel)); err == nil {
					in.Screenshots = append(in.Screenshots, b)
				}
			}
		}
		v, err := j.Judge(c.Context(), in)
		if err != nil {
			v = judge.Verdict{Judge: j.Name(), Error: llm.RedactString(err.Error())}
		}
		n++
		if v.Error != "" {
			errs++
		} else if v.Pass {
			pass++
		}
		b, _ := json.Marshal(verdictLine{SchemaVersion: results.SchemaVersion, AttemptID: r.AttemptID, TaskID: r.TaskID,
			Variant: r.Variant, Verdict: v})
		if _, err := f.Write(append(b, '\n')); err != nil {
			return withCode(exitInfra, err)
		}
	}
	if err := f.Sync(); err != nil {
		return withCode(exitInfra, err)
	}
	fmt.Fprintf(c.OutOrStdout(), "%s: %d attempt(s) judged by %s: %d pass, %d fail, %d judge error(s)\n", path, n, j.Name(),
		pass, n-pass-errs, errs)
	return nil
}

func suiteOpts(sf suiteFlags) suites.Options {
	o := suites.Options{}
	for k, v := range map[string]string{"tasks_file": sf.tasksFile, "answers": sf.answers, "stale_dates": sf.staleDates} {
		if v != "" {
			o[k] = v
		}
	}
	return o
}

func rescoreFolders(c *cobra.Command, dir string, j judge.Judge) error {
	var folders []string
	if _, err := os.Stat(filepath.Join(dir, "interact_messages.json")); err == nil {
		folders = []string{dir}
	} else {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return usageErr("%v", err)
		}
		for _, e := range ents {
			if e.IsDir() {
				if _, err := os.Stat(filepath.Join(dir, e.Name(), "interact_messages.json")); err == nil {
					folders = append(folders, filepath.Join(dir, e.Name()))
				}
			}
		}
	}
	if len(folders) == 0 {
		return usageErr("%s: neither a run directory (attempts.jsonl) nor WebVoyager result folders (interact_messages.json)", dir)
	}
	sort.Strings(folders)
	for _, fd := range folders {
		in, err := judge.LoadWebVoyagerFolder(fd)
		if err != nil {
			return usageErr("%v", err)
		}
		v, err := j.Judge(c.Context(), in)
		if err != nil {
			v = judge.Verdict{Judge: j.Name(), Error: llm.RedactString(err.Error())}
		}
		out := filepath.Join(fd, "verdict-"+j.Name()+".json")
		if err := results.WriteJSONFile(out, map[string]any{"schema_version": results.SchemaVersion,
			"task": in.Task.Goal, "answer": in.Final, "screenshots": len(in.Screenshots), "verdict": v}); err != nil {
			return withCode(exitInfra, err)
		}
		status := "fail"
		if v.Error != "" {
			status = "judge error"
		} else if v.Pass {
			status = "pass"
		}
		fmt.Fprintf(c.OutOrStdout(), "%s: %s (%s)\n", out, status, firstLine(v.Reason+v.Error))
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

// loadVerdicts reads the verdicts of judge name in dir ("original" = the run's own verdicts).
func loadVerdicts(dir, name string) (map[string]judge.Verdict, error) {
	out := map[string]judge.Verdict{}
	if name == "original" {
		rr, err := results.ReadAttempts(dir)
		if err != nil {
			return nil, err
		}
		for _, r := range rr.Final() {
			if r.Done() {
				out[r.AttemptID] = r.Verdict
			}
		}
		return out, nil
	}
	f, err := os.Open(filepath.Join(dir, "verdicts-"+name+".jsonl"))
	if err != nil {
		return nil, fmt.Errorf("no verdicts of judge %q in %s (run bench judge %s --judge %s first): %v", name, dir, dir, name, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var v verdictLine
		if json.Unmarshal(sc.Bytes(), &v) == nil {
			out[v.AttemptID] = v.Verdict
		}
	}
	return out, sc.Err()
}

func printAgreement(c *cobra.Command, dir, a, b string) error {
	va, err := loadVerdicts(dir, a)
	if err != nil {
		return usageErr("%v", err)
	}
	vb, err := loadVerdicts(dir, b)
	if err != nil {
		return usageErr("%v", err)
	}
	var xa, xb []bool
	skipped := 0
	for id, x := range va {
		y, ok := vb[id]
		if !ok || x.Error != "" || y.Error != "" {
			skipped++
			continue
		}
		xa = append(xa, x.Pass)
		xb = append(xb, y.Pass)
	}
	if len(xa) == 0 {
		return usageErr("no attempt has a verdict from both %s and %s", a, b)
	}
	kappa, tab := judge.CohenKappa(xa, xb)
	ks := fmt.Sprintf("%.3f", kappa)
	if math.IsNaN(kappa) {
		ks = "undefined (a judge gave the same verdict every time)"
	}
	t := results.Table{Title: fmt.Sprintf("agreement %s vs %s over %d attempt(s) (%d skipped: missing or judge error); Cohen's κ = %s",
		a, b, len(xa), skipped, ks),
		Header: []string{"", b + " pass", b + " fail"},
		Rows: [][]string{{a + " pass", fmt.Sprint(tab[0][0]), fmt.Sprint(tab[0][1])},
			{a + " fail", fmt.Sprint(tab[1][0]), fmt.Sprint(tab[1][1])}}}
	return t.Render(c.OutOrStdout())
}
