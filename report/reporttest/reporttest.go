// Package reporttest holds the fixtures of the report packages' tests: an ablation's records, a run
// directory with trajectories, and checks of the HTML they render.
package reporttest

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"webbench/analysis"
	"webbench/analysis/analysistest"
	"webbench/results"
)

// reportFixture: two variants over 14 tasks plus one 11-rep task "z", with
// guard events and an infra error.
func ReportFixture() ([]results.Attempt, analysis.Inputs) {
	recs := analysistest.Cat(analysistest.TasksOf("base", "FFFFFPPPPPFFPP"), analysistest.TasksOf("no_x", "PPPPPPPPPPFFPP"), analysistest.TasksOf("no_y", "FFFFFPPPPPFPPI"),
		analysistest.RecsOf("base", "z", 0, "PPFPPPPFPPP"), analysistest.RecsOf("no_x", "z", 0, "PPPPPPPPPPP"), analysistest.RecsOf("no_y", "z", 0, "PPPPPPPPFPP"))
	recs[14].GuardEvents = map[string]int{"repeat_guard": 3}
	recs[3].GuardEvents = map[string]int{"repeat_guard": 1, "final_recovery": 1}
	tags := map[string][]string{"t0": {"x"}, "t1": {"x"}, "t2": {"x"}, "z": {"y"}}
	return recs, analysis.Inputs{Baseline: "base", Switched: map[string][]string{"no_x": {"x"}, "no_y": {"y"}}, TaskTags: tags,
		FailIfWorse: 0.05, SpecWarnings: []results.SpecWarning{{Kind: results.SpecVariantIdentical, Variant: "w"}}}
}

// WriteTraj writes a trajectory for attempt id under runDir.
func WriteTraj(t *testing.T, runDir, id string, tr results.Trajectory) {
	t.Helper()
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(runDir, results.TrajectoryPath(id))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteRunDir makes runDir a run directory of recs (a manifest of their arms, attempts.jsonl with every
// record's trajectory path except noTraj's) and opens it.
func WriteRunDir(t *testing.T, runDir string, recs []results.Attempt, noTraj string) *results.Run {
	t.Helper()
	plan := results.Plan{Suite: "zoo", Reps: 1, Baseline: recs[0].Variant}
	for _, r := range recs {
		if _, ok := plan.Variant(r.Variant); !ok {
			plan.Variants = append(plan.Variants, results.Variant{Name: r.Variant})
		}
	}
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteManifest(runDir, &results.Manifest{RunID: "html", Plan: plan}); err != nil {
		t.Fatal(err)
	}
	w, err := results.OpenWriter(runDir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, r := range recs {
		if r.AttemptID != noTraj {
			r.Trajectory = results.TrajectoryPath(r.AttemptID)
		}
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	run, err := results.Open(runDir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

var linkRE = regexp.MustCompile(`(?i)\b(href|src)="([^"]*)"`)

// CheckLinks asserts that every href/src of the page at path resolves to a
// file that exists and that nothing is loaded from the network; it returns
// the links.
func CheckLinks(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	low := strings.ToLower(s)
	for _, bad := range []string{`src="http`, `href="http`, `src="//`, `href="//`, "url(", "@import", "<script", "<link",
		"<iframe"} {
		if strings.Contains(low, bad) {
			t.Errorf("%s contains %q", filepath.Base(path), bad)
		}
	}
	var links []string
	for _, m := range linkRE.FindAllStringSubmatch(s, -1) {
		u := m[2]
		if strings.HasPrefix(u, "#") {
			continue
		}
		links = append(links, u)
		if strings.Contains(u, ":") {
			t.Errorf("%s: absolute link %q", filepath.Base(path), u)
			continue
		}
		target := filepath.Join(filepath.Dir(path), filepath.FromSlash(u))
		if _, err := os.Stat(target); err != nil {
			t.Errorf("%s: link %q does not resolve: %v", filepath.Base(path), u, err)
		}
	}
	return links
}

// CheckSVG asserts that every <svg>…</svg> block of s is well-formed XML and
// returns their number.
func CheckSVG(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for {
		i := strings.Index(s, "<svg")
		if i < 0 {
			return n
		}
		j := strings.Index(s[i:], "</svg>")
		if j < 0 {
			t.Fatal("unterminated <svg>")
		}
		block := s[i : i+j+len("</svg>")]
		d := xml.NewDecoder(strings.NewReader(block))
		d.Strict = true
		for {
			_, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("svg %d not well-formed: %v", n, err)
			}
		}
		n++
		s = s[i+j:]
	}
}

// InOrder fails the test unless every string of want occurs in s, each after the one before; name names s in
// the message.
func InOrder(t *testing.T, name, s string, want []string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(s[at:], w)
		if i < 0 {
			t.Errorf("%s lacks %q after byte %d:\n%s", name, w, at, s)
			return
		}
		at += i + len(w)
	}
}
