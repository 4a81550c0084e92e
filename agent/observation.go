package agent

import (
	"strings"

	"webbench/browser"
	"webbench/srcerr"
)

// Observation is what a tool result shows the model of the page after an action (Config.Observation; the spec
// key `observation: {snapshot: …}`, bench run's --observation; DESIGN.md "Observation modes").
type Observation string

// The observation modes.
const (
	// ObserveFull (the default, "" too): every result of an action carries the whole snapshot, as Playwright MCP
	// ≤0.0.68 does.
	ObserveFull Observation = "full"
	// ObserveDiff: after an action on the same page (same URL), only what changed since the snapshot the model
	// last saw (browser.DiffSnapshot: Playwright's incremental format, "- <changed> …" chunks with
	// "ref=eN [unchanged]" elisions; browser.NoChangesYAML when nothing changed). The whole snapshot when the
	// model asks (browser_snapshot), when the URL changed (a navigation), when the diff cannot be said (the
	// top level changed) or would not be shorter. Render keeps the base and every diff after it whole.
	ObserveDiff Observation = "diff"
	// ObserveNone: results of actions carry the Page section (URL, title) only, the first observation too; the
	// model sees the page only through browser_snapshot (and a guard's refreshed snapshot).
	ObserveNone Observation = "none"
)

// Observations are the mode names as written in specs and flags.
var Observations = []Observation{ObserveFull, ObserveDiff, ObserveNone}

// ObservationNames are Observations as strings, the closed set a spec's or flag's mode is checked against.
func ObservationNames() []string {
	out := make([]string, len(Observations))
	for i, o := range Observations {
		out[i] = string(o)
	}
	return out
}

// ParseObservation reads a mode name ("" is ObserveFull); any other is an error listing the valid ones
// (srcerr.OneOf).
func ParseObservation(s string) (Observation, error) {
	switch o := Observation(strings.TrimSpace(s)); o {
	case "", ObserveFull:
		return ObserveFull, nil
	case ObserveDiff, ObserveNone:
		return o, nil
	}
	return "", srcerr.OneOf("observation snapshot mode", s, ObservationNames())
}

// ObservationHeading is the heading of the note on the first observation that tells the model the mode (diff
// and none only: full mode adds nothing). The scripted policy reads the mode from it.
const ObservationHeading = "Observation mode"

// ObservationNote is the body of the ObservationHeading note for mode o ("" for full).
func ObservationNote(o Observation) string {
	switch o {
	case ObserveDiff:
		return "diff: after an action on the same page, the snapshot shows only what changed since the last " +
			"snapshot you saw: each `- <changed>` node replaces the node with its ref, and `ref=… [unchanged]` " +
			"stands for that node as you last saw it. You get the whole snapshot when the page URL changes and when " +
			"you call browser_snapshot."
	case ObserveNone:
		return "none: tool results show the page URL and title only; call browser_snapshot to see the page " +
			"and its refs."
	}
	return ""
}

// observer applies an observation mode to one attempt's results: it remembers the page the model last saw
// whole or through diffs (seen, at seenURL).
type observer struct {
	mode    Observation
	seen    string
	seenURL string
}

// first shapes the first observation (first, the whole snapshot taken by the loop).
func (o *observer) first(r *browser.Result) {
	o.seen, o.seenURL = r.Snapshot.YAML, r.URL
	switch o.mode {
	case ObserveNone:
		r.Snapshot = browser.Snapshot{}
		o.seen = ""
	case ObserveDiff:
	default:
		return
	}
	r.Notes = append(r.Notes, browser.Note{Heading: ObservationHeading, Body: ObservationNote(o.mode)})
}

// result shapes a tool result r of tool before the model sees it (a refreshed snapshot stays whole).
func (o *observer) result(tool string, r *browser.Result) {
	snap := r.Snapshot.YAML
	explicit := browser.BaseName(tool) == browser.ToolSnapshot
	switch {
	case snap == "":
	case o.mode == ObserveNone && !explicit:
		r.Snapshot = browser.Snapshot{}
	case o.mode == ObserveDiff && !explicit && o.seen != "" && r.URL == o.seenURL:
		if d, ok := browser.DiffSnapshot(o.seen, snap); ok && len(d) < len(snap) {
			if d == "" {
				d = browser.NoChangesYAML
			}
			r.Snapshot = browser.Snapshot{YAML: d}
		}
		o.seen, o.seenURL = snap, r.URL
	default:
		o.seen, o.seenURL = snap, r.URL
	}
	if r.Refreshed != nil && r.Refreshed.YAML != "" {
		o.seen, o.seenURL = r.Refreshed.YAML, r.URL
	}
}
