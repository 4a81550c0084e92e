package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"webbench/agent"
	"webbench/results"
)

// Version is webbench's version.
const Version = "0.1.0"

// Manifest is manifest.json: written at start, completed at end.
type Manifest struct {
	SchemaVersion int    `json:"schema_version"`
	RunID         string `json:"run_id"`
	// Spec is the spec as given (flags or YAML); Plan the expanded plan summary.
	Spec any          `json:"spec"`
	Plan PlanManifest `json:"plan"`
	// Versions of the harness and the stack.
	Webbench   string `json:"webbench_version"`
	GitSHA     string `json:"git_sha,omitempty"`
	GoVersion  string `json:"go_version"`
	Playwright string `json:"playwright_version,omitempty"`
	Chromium   string `json:"chromium_version,omitempty"`
	// SystemPrompts maps variant name → SHA-256 of its system prompt.
	SystemPrompts map[string]string `json:"system_prompt_sha256"`
	Host          string            `json:"host"`
	StartedAt     string            `json:"started_at"`
	EndedAt       string            `json:"ended_at,omitempty"`
	Shard         string            `json:"shard"`
	// Summary is filled at the end of a run.
	Summary *Summary `json:"summary,omitempty"`
}

// PlanManifest is the expanded plan: suite, tasks, reps, variants, seed, and the planned attempt ids.
type PlanManifest struct {
	Suite    string    `json:"suite"`
	Tasks    []string  `json:"tasks"`
	Reps     int       `json:"reps"`
	BaseSeed int64     `json:"base_seed"`
	Variants []Variant `json:"variants"`
	Attempts int       `json:"attempts"`
}

func planManifest(p Plan) PlanManifest {
	pm := PlanManifest{Suite: p.Suite, Reps: p.Reps, BaseSeed: p.BaseSeed, Variants: p.Variants}
	for _, t := range p.Tasks {
		pm.Tasks = append(pm.Tasks, t.ID)
	}
	if atts, err := p.Expand(); err == nil {
		pm.Attempts = len(atts)
	}
	return pm
}

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

func startManifest(w *results.Writer, plan Plan, opts Options) (*Manifest, error) {
	host, _ := os.Hostname()
	id := opts.RunID
	if id == "" {
		id = filepath.Base(filepath.Clean(w.Dir()))
	}
	m := &Manifest{SchemaVersion: results.SchemaVersion, RunID: id, Spec: opts.Spec, Plan: planManifest(plan),
		Webbench: Version, GitSHA: gitSHA(), GoVersion: runtime.Version(), Playwright: playwrightVersion(),
		Chromium: chromiumVersion(opts.Chromium), SystemPrompts: map[string]string{}, Host: host,
		StartedAt: time.Now().UTC().Format(time.RFC3339), Shard: opts.Shard.String()}
	for _, v := range plan.Variants {
		if p, err := agent.LoadPrompt(v.PromptFile); err == nil {
			m.SystemPrompts[v.Name] = agent.PromptSHA256(p)
		}
	}
	return m, w.WriteJSON(results.ManifestFile, m)
}

func finishManifest(w *results.Writer, m *Manifest, s *Summary) {
	m.EndedAt = time.Now().UTC().Format(time.RFC3339)
	m.Summary = s
	_ = w.WriteJSON(results.ManifestFile, m)
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
