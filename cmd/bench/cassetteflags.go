package main

import (
	"errors"
	"fmt"
	"io"
	"maps"

	"github.com/spf13/cobra"

	"webbench/browser/cassette"
	"webbench/report"
	"webbench/results"
	"webbench/spec"
	"webbench/suites"
	"webbench/suites/webvoyager"
)

// cassetteFlags are --record, --record-secrets, --replay and --record-missing (docs/CASSETTES.md), shared by run
// and ablate.
type cassetteFlags struct {
	record, replay string
	secrets        bool
	// missing is --record-missing: a replay fetches its misses live and appends them (cassette.OpenFill).
	missing bool
	// secretsAt is where the spec set record_secrets ("FILE:LINE:COL", fromSpec), "" when the flag or the
	// default decided the secrets mode: a refusal names the setting to change.
	secretsAt string
	// secretsFlag is set when --record-secrets was given (fromSpec; without a spec, secrets kept can only
	// come from the flag).
	secretsFlag bool
}

func (f *cassetteFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.record, "record", "", "record every attempt's network traffic into the cassette DIR, one "+
		"tape per task (a task played again replaces its tape); cookies, credentials and URL tokens are not "+
		"stored (docs/CASSETTES.md)")
	c.Flags().BoolVar(&f.secrets, "record-secrets", false, "with --record: keep cookies, Authorization and "+
		"similar headers, and tokens in URLs in the cassette")
	c.Flags().StringVar(&f.replay, "replay", "", "answer every request from the cassette DIR (nothing leaves the "+
		"machine): an unrecorded request gets a 404 and is counted in the record's cassette_misses; pages see "+
		"the record time (docs/CASSETTES.md)")
	c.Flags().BoolVar(&f.missing, "record-missing", false, "with --replay (and network): fetch a request the "+
		"cassette has no entry for live and append it to its task's tape, so the next replay finds it (still "+
		"counted in cassette_misses)")
}

// check refuses --record with --replay, --record-secrets without --record, and --record-missing without
// --replay (usage errors).
func (f *cassetteFlags) check() error {
	switch {
	case f.record != "" && f.replay != "":
		return usageErr("--record and --replay: give one (record once with network, then replay)")
	case f.secrets && f.record == "":
		return usageErr("--record-secrets needs --record DIR")
	case f.missing && f.replay == "":
		return usageErr("--record-missing needs --replay DIR (it fills a replay's misses)")
	}
	return nil
}

// open is the cassette the flags name (check them first), nil without --record or --replay; a cassette that
// does not open is a usage error.
func (f *cassetteFlags) open() (*cassette.Cassette, error) {
	switch {
	case f.record != "":
		c, err := cassette.Create(f.record, cassette.Options{Secrets: f.secrets})
		if sm := (*cassette.SecretsModeError)(nil); errors.As(err, &sm) {
			return nil, usageErr("--record: %v: %s", err, f.secretsRemedy(sm.Recorded))
		}
		if err != nil {
			return nil, usageErr("--record: %v", err)
		}
		return c, nil
	case f.replay != "":
		open := cassette.Open
		if f.missing {
			open = cassette.OpenFill
		}
		c, err := open(f.replay)
		if err != nil {
			return nil, usageErr("--replay: %v", err)
		}
		return c, nil
	}
	return nil, nil
}

// suiteOptions are a suite's options for a replay of c: WebVoyager's gain the record date as its stale-date
// "today" and no reachability probe (webvoyager.ReplayOptions), unless the options set them. Other suites' and
// a recording's options come back as they are.
func suiteOptions(suite string, o suites.Options, c *cassette.Cassette) suites.Options {
	if c == nil || c.Mode() != cassette.Replay || suite != webvoyager.Name {
		return o
	}
	out := suites.Options{}
	maps.Copy(out, o)
	return webvoyager.ReplayOptions(out, c.RecordedAt())
}

// secretsRemedy says where this recording's secrets mode came from — --record-secrets, the spec's
// record_secrets at its line, or the default — and what would record into a cassette whose mode is recorded.
func (f *cassetteFlags) secretsRemedy(recorded bool) string {
	want := map[bool]string{true: "true", false: "false"}[recorded]
	switch {
	case f.secretsFlag || f.secrets && f.secretsAt == "":
		return fmt.Sprintf("--record-secrets=%v asks for that; record into another directory, or give "+
			"--record-secrets=%s", f.secrets, want)
	case f.secretsAt != "":
		return fmt.Sprintf("%s: record_secrets: %v asks for that; record into another directory, or set "+
			"record_secrets: %s there (or give --record-secrets=%s)", f.secretsAt, f.secrets, want, want)
	}
	return "secrets are stripped by default; record into another directory, or give --record-secrets"
}

// fromSpec takes the spec's record, replay and record_secrets (spec.Spec.CassetteDirs) unless --record or
// --replay is given; --record-secrets, when given, replaces record_secrets.
func (f *cassetteFlags) fromSpec(c *cobra.Command, sp *spec.Spec) {
	f.secretsFlag = c.Flags().Changed("record-secrets")
	if c.Flags().Changed("record") || c.Flags().Changed("replay") {
		return
	}
	f.record, f.replay = sp.CassetteDirs()
	if !c.Flags().Changed("record-secrets") {
		f.secrets, f.secretsAt = sp.RecordSecrets, sp.At("record_secrets")
	}
}

// printCassetteSession prints, on w, the one line a run with --record or --record-missing ends with: what it
// added to the cassette (cassette.Session) and how to replay it; nothing for a plain replay or no cassette.
func printCassetteSession(w io.Writer, c *cassette.Cassette) {
	if c == nil {
		return
	}
	s := c.Session()
	bodies := fmt.Sprintf("%s new (%s stored)", results.Count(s.NewBlobs, "body", "bodies"), sizeOf(s.NewBytes))
	replay := "; replay with --replay " + report.ShellQuote(c.Dir())
	switch {
	case s.Mode == cassette.Record:
		secrets := fmt.Sprintf("secrets stripped (%d left out)", s.Stripped)
		if s.Secrets {
			secrets = "secrets kept (--record-secrets)"
		}
		fmt.Fprintf(w, "recorded into cassette %s: %s, %s, %s; %s%s\n", c.Dir(),
			results.Count(s.Tasks, "task", "tasks"), results.Count(s.Entries, "entry", "entries")+" (requests)", bodies,
			secrets, replay)
	case c.Fills():
		fmt.Fprintf(w, "filled cassette %s: %s fetched live and appended to %s, %s%s\n", c.Dir(),
			results.Count(s.Filled, "missed request", "missed requests"),
			results.Count(s.FilledTasks, "task's tape", "tasks' tapes"), bodies, replay)
	}
}
