package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"webbench/agent/guard"
	"webbench/results"
	"webbench/scripted"
	"webbench/suites"
)

// check checks the flags c was given and returns the run directory (--out, or runs/mcp-<UTC time>) and the
// guard switches (--guards). Errors are usage errors, or an infrastructure error reading --out.
func (f *mcpServeFlags) check(c *cobra.Command) (out string, g map[string]bool, err error) {
	if f.timeout < 0 || (f.timeout == 0 && c.Flags().Changed("timeout")) {
		return "", nil, usageErr("--timeout %v: must be above 0 (default: the task's, else 600s)", f.timeout)
	}
	if f.maxSteps < 0 || (f.maxSteps == 0 && c.Flags().Changed("max-steps")) {
		return "", nil, usageErr("--max-steps %d: must be above 0 (default: the task's max_steps, else %d)",
			f.maxSteps, defaultMaxSteps)
	}
	out = f.out
	if out == "" {
		out = filepath.Join("runs", "mcp-"+time.Now().UTC().Format("20060102-150405"))
	}
	// A dev attempt is never appended into a real run (its records would join the run's attempts).
	if _, err := os.Stat(filepath.Join(out, results.ManifestFile)); err == nil {
		return "", nil, usageErr("--out %s: holds a run (%s); choose another --out", out, results.ManifestFile)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", nil, withCode(exitInfra, fmt.Errorf("--out %s: %w", out, err))
	}
	if g, err = guard.Parse(f.guards); err != nil {
		return "", nil, usageErr("--guards: %v", err)
	}
	if _, err := scripted.LoadProfile(f.profile); err != nil {
		return "", nil, usageErr("--profile: %v", err)
	}
	return out, g, nil
}

// oneTask is the one task --tasks names: a glob matching none is the suite filter's error, more than one is
// refused listing them.
func (f *mcpServeFlags) oneTask() (suites.Suite, suites.Task, error) {
	if strings.TrimSpace(f.sf.tasks) == "" {
		return nil, suites.Task{}, usageErr("--tasks: give exactly one task id (bench suites lists them)")
	}
	s, tasks, err := f.sf.open()
	if err != nil {
		return nil, suites.Task{}, err
	}
	if len(tasks) != 1 {
		s.Close()
		ids := make([]string, 0, len(tasks))
		for _, t := range tasks {
			ids = append(ids, t.ID)
		}
		if len(ids) > 10 {
			ids = append(ids[:10], fmt.Sprintf("… (%d in all)", len(tasks)))
		}
		return nil, suites.Task{}, usageErr("--tasks %s: matches %d tasks (%s); give exactly one", f.sf.tasks,
			len(tasks), strings.Join(ids, ", "))
	}
	return s, tasks[0], nil
}

// announce says on stderr which tool-level guards act in the server and what is served until when.
func (f *mcpServeFlags) announce(stderr io.Writer, taskID, url string, g map[string]bool, deadline time.Time,
	trPath string) {
	transport := "MCP at " + url
	if f.stdio {
		transport = "MCP on standard input/output"
	}
	fmt.Fprintf(stderr, "tool-level guards in the server: %s\n", guardList(g, guard.ToolLevel()))
	fmt.Fprintf(stderr, "serving task %s (%s) until %s or Ctrl-C; trajectory → %s\n", taskID, transport,
		deadline.Format(time.RFC3339), trPath)
}

// abortOnSecondSignal makes a second Ctrl-C (or SIGTERM) while the attempt is closed, judged and written exit
// at once (main's signal context is already done); call the returned func to stop listening.
func abortOnSecondSignal(stderr io.Writer) func() {
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-again; ok {
			fmt.Fprintln(stderr, "interrupted again: exiting without writing the trajectory")
			os.Exit(exitInterrupt)
		}
	}()
	return func() { signal.Stop(again) }
}

// cmpDuration is d, or def when d is not positive.
func cmpDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// guardList is "name=on|off" of names, comma-separated, from g (guard.Parse's map: every guard present).
func guardList(g map[string]bool, names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		v := "off"
		if on, ok := g[n]; !ok || on {
			v = "on"
		}
		parts[i] = n + "=" + v
	}
	return strings.Join(parts, ",")
}

// verdictLine is "pass|fail|uncertain|error (judge): reason".
func verdictLine(rec results.Attempt) string {
	v := rec.Verdict
	word := string(rec.Status)
	if v.Uncertain {
		word = "uncertain"
	}
	reason := v.Reason
	if v.Error != "" {
		reason = v.Error
	}
	return fmt.Sprintf("%s (%s judge): %s", word, v.Judge, reason)
}
