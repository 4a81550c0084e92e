package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"webbench/browser"
)

// clickPhaseOrder is the order of a browser_click's parts (browser.Phase*) in the breakdown, as they run.
var clickPhaseOrder = []string{browser.PhaseProbe, browser.PhaseAction, browser.PhaseSettleRequests,
	browser.PhaseSettleDOM, browser.PhaseSettleDOMPage, browser.PhaseSettleQuietLeft, browser.PhaseCheck,
	browser.PhaseSnapshot, browser.PhasePageInfo}

// PhaseDist is one part of a tool call (a browser.Phase* name) over samples, ms; a part that ran several times
// in one call (a settle of several rounds) counts as their sum.
type PhaseDist struct {
	// Phase is a browser.Phase* name (in clickPhaseOrder), "other" (the call minus its parts) or "total".
	Phase string `json:"phase"`
	// Dist is the part's duration over samples, ms.
	Dist Dist `json:"dist"`
}

// phaseRecorder collects the parts of one tool call at a time (browser.SessionOptions.Phases); it records only
// between start and take.
type phaseRecorder struct {
	mu  sync.Mutex
	on  bool
	cur map[string]float64
}

// add is the browser.SessionOptions.Phases hook.
func (r *phaseRecorder) add(phase string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on {
		r.cur[phase] += ms(d)
	}
}

// start begins recording one call.
func (r *phaseRecorder) start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on, r.cur = true, map[string]float64{}
}

// take ends recording and returns the call's parts, ms.
func (r *phaseRecorder) take() map[string]float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.cur
}

// measureClickPhases clicks the page's checkbox n times on the webbench side (after setUp) and returns the
// breakdown of each click into its parts, in clickPhaseOrder, then "total" (the whole Session.Call) and
// "other" (total minus the sequential parts: Go-side work and what the parts' clocks do not cover). A part a
// click did not run counts as 0.
func measureClickPhases(ctx context.Context, s *sideState, sp pageSpec, rec *phaseRecorder, n int) ([]PhaseDist, error) {
	samples := map[string][]float64{}
	for i := 0; i < n; i++ {
		rec.start()
		r, d, err := timed(ctx, s.side, browser.ToolClick, map[string]any{"element": sp.clickLabel, "target": s.clickRef})
		parts := rec.take()
		if err == nil && r.isErr {
			err = fmt.Errorf("%s %s: %s", browser.ToolClick, s.clickRef, errorSection(r))
		}
		if err != nil {
			return nil, err
		}
		seq := 0.0
		for _, p := range clickPhaseOrder {
			samples[p] = append(samples[p], parts[p])
			switch p {
			case browser.PhaseSettleDOMPage, browser.PhaseSettleQuietLeft: // inside settle.dom
			default:
				seq += parts[p]
			}
		}
		samples["total"] = append(samples["total"], d)
		samples["other"] = append(samples["other"], d-seq)
	}
	var out []PhaseDist
	for _, p := range append(append([]string(nil), clickPhaseOrder...), "other", "total") {
		out = append(out, PhaseDist{Phase: p, Dist: NewDist(samples[p])})
	}
	return out, nil
}
