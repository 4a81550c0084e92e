package webvoyager

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// sharedDataset locates the WebVoyager dataset the repository does not ship: $WEBBENCH_SHARED/datasets/webvoyager,
// else ../shared/datasets/webvoyager relative to the repository root (CI's layout). It skips the test when absent.
func sharedDataset(t *testing.T) (tasksFile, answersFile string) {
	t.Helper()
	var dirs []string
	if s := os.Getenv("WEBBENCH_SHARED"); s != "" {
		dirs = append(dirs, filepath.Join(s, "datasets", "webvoyager"))
	}
	if root := repoRoot(); root != "" {
		dirs = append(dirs, filepath.Join(root, "..", "shared", "datasets", "webvoyager"))
	}
	for _, d := range dirs {
		tf, af := filepath.Join(d, "WebVoyager_data.jsonl"), filepath.Join(d, "reference_answer.json")
		if _, err := os.Stat(tf); err == nil {
			if _, err := os.Stat(af); err == nil {
				return tf, af
			}
		}
	}
	t.Skipf("WebVoyager dataset not found (looked in %v): set WEBBENCH_SHARED to the shared/ directory that holds "+
		"datasets/webvoyager/WebVoyager_data.jsonl and reference_answer.json", dirs)
	return "", ""
}

// repoRoot is the directory holding go.mod, searched upward from the working directory.
func repoRoot() string {
	d, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			return ""
		}
		d = p
	}
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 12, 0, 0, 0, time.UTC) }
