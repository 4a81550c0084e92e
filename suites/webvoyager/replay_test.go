package webvoyager

import (
	"testing"
	"time"

	"webbench/suites"
)

// TestReplayOptions: a replay judges stale dates at the record date and probes no site, unless the options say
// otherwise; a task stale today is not stale on the record date.
func TestReplayOptions(t *testing.T) {
	at := time.Date(2023, 11, 20, 15, 4, 5, 0, time.UTC)
	c, err := ConfigFromOptions(ReplayOptions(suites.Options{}, at))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Today.Equal(time.Date(2023, 11, 20, 0, 0, 0, 0, time.UTC)) || c.ProbeTimeout >= 0 {
		t.Errorf("today %v, probe %v; want 2023-11-20 and the probe off", c.Today, c.ProbeTimeout)
	}
	kept := ReplayOptions(suites.Options{"today": "2024-01-02", "probe_timeout": "2s"}, at)
	if kept["today"] != "2024-01-02" || kept["probe_timeout"] != "2s" {
		t.Errorf("given options replaced: %v", kept)
	}
	goal := "Book a hotel in Paris from December 1 to December 3, 2023."
	then, later := FindDates(goal, c.Today).Stale(), FindDates(goal, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)).Stale()
	if then || !later {
		t.Errorf("stale on the record date %v, in 2025 %v; want false, true", then, later)
	}
}
