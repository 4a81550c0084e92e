package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"webbench/results"
)

// Version is webbench's version.
const Version = "0.1.0"

// Summary is what Run did (results.Summary, recorded in the manifest).
type Summary = results.Summary

func gitSHA() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	// Built with -buildvcs=false: ask git in the checkout the binary was built in (bin/bench of a clone), never
	// the current directory, which may be another repository.
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	out, err := exec.Command("git", "-C", filepath.Dir(exe), "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// startManifest writes the manifest of a starting (or resumed) run: the plan as expanded, the stack's versions
// and the endpoints' preflight findings.
func startManifest(w *results.Writer, plan Plan, opts Options, endpoints []results.Endpoint) (*results.Manifest, error) {
	host, _ := os.Hostname()
	id := opts.RunID
	if id == "" {
		id = filepath.Base(filepath.Clean(w.Dir()))
	}
	m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: id, Plan: plan.Record(),
		Webbench: Version, GitSHA: gitSHA(), GoVersion: runtime.Version(), Playwright: playwrightVersion(),
		Chromium: chromiumVersion(opts.Chromium), Host: host, StartedAt: time.Now().UTC().Format(time.RFC3339),
		Shard: opts.Shard.String(), Endpoints: endpoints}
	return m, results.WriteManifest(w.Dir(), m)
}

// finishManifest records the end time and the summary.
func finishManifest(w *results.Writer, m *results.Manifest, s *Summary) {
	m.EndedAt = time.Now().UTC().Format(time.RFC3339)
	m.Summary = s
	_ = results.WriteManifest(w.Dir(), m)
}

// playwrightVersion is the playwright-go module version (its driver is playwright-core 1.64.1).
func playwrightVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if strings.Contains(d.Path, "playwright-go") {
				return d.Path + " " + d.Version
			}
		}
	}
	return ""
}

// chromiumVersion runs `<chromium> --version` (the configured binary, WEBBENCH_CHROMIUM, or Debian's).
func chromiumVersion(path string) string {
	for _, p := range []string{path, os.Getenv("WEBBENCH_CHROMIUM"), "/usr/lib/chromium/chromium", "chromium"} {
		if p == "" {
			continue
		}
		out, err := exec.Command(p, "--version").Output()
		if err == nil {
			return strings.TrimSpace(string(out))
		}
	}
	return ""
}
