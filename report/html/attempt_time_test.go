package html

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"webbench/results"
)

// TestAttemptPageEventTimes: guard events are stamped in Unix ms (agent hooks); the attempt page shows each as
// the time since the attempt's start, not the raw stamp, and "-" when the record has no start time.
func TestAttemptPageEventTimes(t *testing.T) {
	rec := results.Attempt{TaskID: "t", Variant: "baseline", StartedAt: "2026-12-05T10:00:00Z", Status: results.StatusPass}
	at := time.Date(2026, 12, 5, 10, 0, 12, 345e6, time.UTC).UnixMilli()
	traj := &results.Trajectory{Events: []results.Event{{Guard: "repeat_guard", Action: "note", Step: 3, AtMS: at}}}
	vm := attemptPage(rec, nil, nil, "")
	vm.Traj = traj
	var b bytes.Buffer
	if err := attemptTmpl.Execute(&b, vm); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); !strings.Contains(page, "<td>3</td><td>12.3 s</td>") || strings.Contains(page, fmt.Sprint(at)) {
		t.Errorf("event time not shown as time since the start:\n%s", page[strings.Index(page, "All guard events"):])
	}
	rec.StartedAt = ""
	vm = attemptPage(rec, nil, nil, "")
	vm.Traj = traj
	b.Reset()
	if err := attemptTmpl.Execute(&b, vm); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); !strings.Contains(page, "<td>3</td><td>-</td>") {
		t.Errorf("no start time: want '-':\n%s", page[strings.Index(page, "All guard events"):])
	}
}
