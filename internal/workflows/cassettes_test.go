package workflows

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The cassette workflow keeps its cassettes in the Actions cache by suite and ISO week (docs/CASSETTES.md, "The
// nightly pattern"): it restores the newest of the week under a per-run key, records every task only when
// nothing of the week was restored, replays, checks drift, and saves under the key it restored with. Its steps
// need the network (live sites), so the local run does not play them; this checks the cache wiring.
func TestCassetteWorkflowCachesByWeek(t *testing.T) {
	b, err := os.ReadFile("../../.github/workflows/cassettes.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	job := wf.Jobs["replay"]
	if job == nil {
		t.Fatalf("no replay job: %v", wf.Jobs)
	}
	const key = "cassettes-${{ env.SUITE }}-${{ steps.week.outputs.week }}-${{ github.run_id }}"
	var restore, save, record, replay, diff int
	for i, s := range job.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/cache/restore@"):
			restore = i
			if s.ID != "restore" || s.With["key"] != key || s.With["restore-keys"] != strings.TrimSuffix(key, "${{ github.run_id }}") ||
				s.With["path"] != "${{ env.CASSETTES }}" {
				t.Errorf("restore step: %+v", s)
			}
		case strings.HasPrefix(s.Uses, "actions/cache/save@"):
			save = i
			if s.With["key"] != key || s.With["path"] != "${{ env.CASSETTES }}" || s.If != "always()" {
				t.Errorf("save step: %+v", s)
			}
		case strings.Contains(s.Run, "--record \"${CASSETTES}\" --out runs/record"):
			record = i
			if s.If != "steps.restore.outputs.cache-matched-key == ''" {
				t.Errorf("the full recording runs when %q, want only when nothing of the week was restored", s.If)
			}
		case strings.Contains(s.Run, "--replay \"${CASSETTES}\""):
			replay = i
		case strings.Contains(s.Run, "bench cassette diff \"${CASSETTES}\" --live"):
			diff = i
		}
	}
	if !(restore > 0 && restore < record && record < replay && replay < diff && diff < save) {
		t.Errorf("step order restore %d, record %d, replay %d, diff %d, save %d: want them in this order", restore, record,
			replay, diff, save)
	}
	if wf.Env["SUITE"] != "webvoyager" || wf.Env["CASSETTES"] == "" {
		t.Errorf("env %v", wf.Env)
	}
}
