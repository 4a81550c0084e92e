package runner

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"webbench/browser"
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
// and the endpoints' preflight findings. Resuming a run that has records (prev) keeps what its manifest
// already holds: the first start time, and the earlier preflights' endpoints (mergeEndpoints).
func startManifest(w *results.Writer, plan Plan, opts Options, endpoints []results.Endpoint, prev *results.ReadResult) (*results.Manifest, error) {
	host, _ := os.Hostname()
	id := opts.RunID
	if id == "" {
		id = filepath.Base(filepath.Clean(w.Dir()))
	}
	m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: id, Plan: plan.Record(),
		Webbench: Version, GitSHA: gitSHA(), GoVersion: runtime.Version(), Playwright: playwrightVersion(),
		Chromium: chromiumVersion(opts), Host: host, StartedAt: time.Now().UTC().Format(time.RFC3339),
		Shard: opts.Shard.String(), Endpoints: endpoints, Sources: sourcesOf(opts)}
	if opts.BrowserEndpoint != "" {
		// Remote from the start (no browser connected yet); the end of the run completes it.
		m.Browser = browserInfo(opts, nil, 0, nil)
	}
	if prev != nil && len(prev.Records) > 0 {
		if old, err := results.ReadManifest(w.Dir()); err == nil {
			if old.StartedAt != "" {
				m.StartedAt = old.StartedAt
			}
			m.Endpoints = mergeEndpoints(old.Endpoints, endpoints)
		}
	}
	return m, results.WriteManifest(w.Dir(), m)
}

// manifestVersion is the schema_version of dir's manifest as written on disk (0 when there is none or it does not
// parse): results.ReadManifest converts older versions, which the first write then rewrites as the current one.
func manifestVersion(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		return 0
	}
	var head struct {
		SchemaVersion int `json:"schema_version"`
	}
	if json.Unmarshal(b, &head) != nil {
		return 0
	}
	return head.SchemaVersion
}

// mergeEndpoints is the endpoints of a resumed run: this invocation's preflights (cur) after the earlier ones
// (old) that still describe a variant cur does not — an earlier entry loses the variants cur preflighted again
// and is dropped only when none is left. Nothing recorded about a variant is lost when a resume preflights
// fewer variants (those whose attempts are all done are not preflighted again).
func mergeEndpoints(old, cur []results.Endpoint) []results.Endpoint {
	again := map[string]bool{}
	for _, e := range cur {
		for _, v := range e.Variants {
			again[v] = true
		}
	}
	var out []results.Endpoint
	for _, e := range old {
		var keep []string
		for _, v := range e.Variants {
			if !again[v] {
				keep = append(keep, v)
			}
		}
		if len(keep) > 0 {
			e.Variants = keep
			out = append(out, e)
		}
	}
	return append(out, cur...)
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

// chromiumVersion runs `<chromium> --version` (the binary browser.FindChromium picks for opts.Chromium); "" with
// a remote browser, which runs no local Chromium (the manifest's browser section has the version it reported).
func chromiumVersion(opts Options) string {
	if opts.BrowserEndpoint != "" {
		return ""
	}
	p, _, err := browser.FindChromium(opts.Chromium, true)
	if err != nil {
		return ""
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
