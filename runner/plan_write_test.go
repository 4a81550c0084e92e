package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"webbench/results"
	"webbench/suites"
)

// WritePlan lists the attempts given, one line each after a count line, or as JSON with the shard and count;
// UsedTasks counts the tasks some arm runs on.
func TestWritePlanAndUsedTasks(t *testing.T) {
	tasks := []suites.Task{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	p := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, BaseSeed: 7,
		Variants: []Variant{{Name: "baseline", TaskIDs: map[string]bool{"a": true}}, {Name: "v", TaskIDs: map[string]bool{"b": true}}}}
	if n := p.UsedTasks(); n != 2 {
		t.Errorf("UsedTasks = %d, want 2 (c is no arm's)", n)
	}
	p.Variants[1].TaskIDs = nil
	if n := p.UsedTasks(); n != 3 {
		t.Errorf("UsedTasks with an arm on every task = %d, want 3", n)
	}
	atts, err := p.Expand()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WritePlan(&b, p, atts, Shard{1, 1}, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 1+len(atts) || lines[0] != "4 attempts, shard 1/1" {
		t.Fatalf("text plan:\n%s", b.String())
	}
	a := atts[0]
	if want := a.AttemptID + "  pair " + a.PairID + "  " + a.Variant + strings.Repeat(" ", 14-len(a.Variant)) + " " +
		a.TaskID + " rep 1"; lines[1] != want {
		t.Errorf("first attempt line %q, want %q", lines[1], want)
	}
	b.Reset()
	if err := WritePlan(&b, p, atts[:1], Shard{2, 3}, true); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Shard    string `json:"shard"`
		Count    int    `json:"count"`
		Attempts []struct {
			AttemptID string `json:"attempt_id"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil || doc.Shard != "2/3" || doc.Count != 1 ||
		len(doc.Attempts) != 1 || doc.Attempts[0].AttemptID != a.AttemptID {
		t.Errorf("JSON plan %s: %+v, %v", b.String(), doc, err)
	}
}

// A sequential plan's dry run lists its attempts in the units' look order, each with its unit.
func TestWritePlanSequentialUnitOrder(t *testing.T) {
	tasks := []suites.Task{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	p := Plan{Suite: "zoo", Tasks: tasks, Reps: 1, BaseSeed: 7, Variants: []Variant{{Name: "baseline"}, {Name: "v"}},
		Ablation: &results.Ablation{Sequential: &results.Sequential{Alpha: 0.05,
			Units: []results.SeqUnit{{Name: "c", Tasks: []string{"c"}}, {Name: "ab", Tasks: []string{"a", "b"}}}}}}
	atts, err := p.Expand()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WritePlan(&b, p, atts, Shard{1, 1}, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[1:]
	var got []string
	for _, l := range lines {
		f := strings.Fields(l)
		got = append(got, f[4]+" "+f[len(f)-1])
	}
	want := []string{"c 1/2", "c 1/2", "a 2/2", "a 2/2", "b 2/2", "b 2/2"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("task and unit per line %v, want %v:\n%s", got, want, b.String())
	}
	b.Reset()
	if err := WritePlan(&b, p, atts, Shard{1, 1}, true); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Attempts []struct {
			TaskID string `json:"task_id"`
			Unit   int    `json:"unit"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil || doc.Attempts[0].TaskID != "c" || doc.Attempts[0].Unit != 1 ||
		doc.Attempts[5].Unit != 2 {
		t.Errorf("JSON plan %s: %+v, %v", b.String(), doc, err)
	}
}
