package runner

import (
	"reflect"
	"testing"

	"webbench/results"
)

// Resuming skips attempts whose last record is pass or fail and re-runs the others, counting their earlier
// records as retries so far.
func TestRemaining(t *testing.T) {
	recs := []results.Attempt{{AttemptID: "a1", Status: results.StatusError}, {AttemptID: "a2", Status: results.StatusError},
		{AttemptID: "a1", Status: results.StatusError}, {AttemptID: "a2", Status: results.StatusPass}}
	prev := &results.ReadResult{Records: recs, Latest: map[string]results.Attempt{"a1": recs[2], "a2": recs[3]}}
	sum := &Summary{}
	todo, retries := remaining([]Attempt{{AttemptID: "a1"}, {AttemptID: "a2"}, {AttemptID: "a3"}}, prev, sum)
	var ids []string
	for _, a := range todo {
		ids = append(ids, a.AttemptID)
	}
	if !reflect.DeepEqual(ids, []string{"a1", "a3"}) || !reflect.DeepEqual(retries, map[string]int{"a1": 2}) || sum.Skipped != 1 {
		t.Errorf("todo %v, retries %v, skipped %d", ids, retries, sum.Skipped)
	}
}
