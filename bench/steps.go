package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"webbench/browser"
)

// toolSide is one implementation of the Playwright MCP tool surface: webbench's browser Session, or the
// @playwright/mcp server over stdio.
type toolSide interface {
	// call runs a tool and returns its outcome.
	call(ctx context.Context, tool browser.ToolName, args map[string]any) (sideResult, error)
	close()
}

// sideResult is one tool call's outcome on a side: its sections, the model-facing text (whose size is
// measured) and whether the tool reported an error.
type sideResult struct {
	res   browser.Result
	text  string
	isErr bool
}

// webbenchSide is browser: Session.Call, text = Result.Format().
type webbenchSide struct{ s *browser.Session }

func (w webbenchSide) call(ctx context.Context, tool browser.ToolName, args map[string]any) (sideResult, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return sideResult{}, err
	}
	r := w.s.Call(ctx, string(tool), raw)
	return sideResult{res: r, text: r.Format(), isErr: r.IsError()}, nil
}

func (w webbenchSide) close() { _ = w.s.Close() }

// mcpSide is @playwright/mcp over stdio.
type mcpSide struct{ c *MCPClient }

// call reads the server's text into its sections with browser.ParseResult as it comes (the input boundary:
// no ANSI stripping, no snapshot file read, unlike the tool backend's reading in browser/mcptools), so that
// each side's figures are of the text the model would get.
func (m mcpSide) call(ctx context.Context, tool browser.ToolName, args map[string]any) (sideResult, error) {
	r, err := m.c.CallTool(ctx, string(tool), args)
	return sideResult{res: browser.ParseResult(r.Text), text: r.Text, isErr: r.IsError}, err
}

func (m mcpSide) close() { _ = m.c.Close() }

// StepOptions size the per-step comparison.
type StepOptions struct {
	// Samples of each measurement on each side, interleaved (default 15).
	Samples int
	// PhaseSamples is the number of webbench clicks on the checkout page timed part by part (default 31).
	PhaseSamples int
	// MCP locates the @playwright/mcp install.
	MCP MCPOptions
	// Log receives progress lines (nil: none).
	Log func(format string, args ...any)
}

// StepFigures are one side's measurements on one page.
type StepFigures struct {
	Snapshot Dist `json:"snapshot"`
	// Click is a browser_click on a checkbox that toggles without navigating (the result's snapshot is
	// included in the time on both sides: inline for webbench, written to a file by MCP 0.0.83).
	Click Dist `json:"click"`
	// Type is browser_type into a text box (checkout page only; MCP 0.0.83 takes no snapshot after it).
	Type Dist `json:"type"`
	// StaleUnknown is browser_click on a ref that was never in the snapshot (e99999).
	StaleUnknown Dist `json:"stale_unknown"`
	// StaleRemoved is browser_click on a ref of the last snapshot whose node was removed since (by a
	// browser_evaluate that does not capture a snapshot).
	StaleRemoved Dist `json:"stale_removed"`
	// Refs is the number of refs in the page's snapshot.
	Refs int
	// SnapshotBytes is the size of browser_snapshot's model-facing text; ClickBytes of browser_click's.
	SnapshotBytes, ClickBytes int
	// DiffClickBytes is the size of browser_click's text as the model sees it in observation mode diff
	// (agent.ObserveDiff): its snapshot replaced by browser.DiffSnapshot against the browser_snapshot just before
	// it; 0 when the side's result carries no inline snapshot (MCP's, a link to a file).
	DiffClickBytes int
	// StaleText is the stale-ref error text of the removed-node case (first sample), shortened.
	StaleText string
}

// PageFigures compare the two sides on one page.
type PageFigures struct {
	Page     string      `json:"page"`
	Webbench StepFigures `json:"webbench"`
	MCP      StepFigures `json:"mcp"`
	// Ratios are medians over samples i of (MCP latency_i / webbench latency_i) per measurement, where
	// sample i ran on both sides back to back.
	SnapshotRatio, ClickRatio, TypeRatio, StaleUnknownRatio, StaleRemovedRatio float64
	// ClickPhases break webbench's browser_click into its parts (measureClickPhases), on the page whose
	// click has a latency goal; nil on the others.
	ClickPhases []PhaseDist `json:"click_phases,omitempty"`
}

// pageSpec says what to do on a page: its path, the checkbox to click, the text box to type into ("" = no
// type measurement), the element to remove for the stale-ref case (an id and its label in the snapshot), and
// the issue-14 goals its rows are printed beside.
type pageSpec struct {
	name, path       string
	clickLabel       string // checkbox accessible name
	typeLabel        string // textbox accessible name, "" for none
	removeID, remove string // element id and its snapshot line pattern (role "name")
	goals            stepGoals
}

var stepPages = []pageSpec{
	{name: "checkout (40 controls)", path: "/checkout", clickLabel: "Send me offers by email",
		typeLabel: "City", removeID: "coupon", remove: `textbox "Discount code"`,
		goals: stepGoals{click: GoalClick, typ: GoalType}},
	{name: "results (2,000 results)", path: "/results", clickLabel: "Free cancellation",
		removeID: "pets-allowed", remove: `checkbox "Pets allowed"`,
		goals: stepGoals{clickBytes: GoalClickObservation}},
}

// refOf returns the ref of the first snapshot line containing pattern (e.g. `checkbox "Pool"`).
func refOf(snapshot, pattern string) (string, error) {
	for _, line := range strings.Split(snapshot, "\n") {
		if strings.Contains(line, pattern) {
			if m := browser.RefPattern.FindStringSubmatch(line); m != nil {
				return m[1], nil
			}
		}
	}
	return "", fmt.Errorf("no ref for %s in the snapshot", pattern)
}

var spaceRE = regexp.MustCompile(`\s+`)

// errorSection returns the error of a result, else its text before the first heading, on one line, at most
// 160 bytes.
func errorSection(r sideResult) string {
	e := r.res.Error
	if e == "" {
		e, _, _ = strings.Cut(r.text, "###")
	}
	t := strings.TrimSpace(spaceRE.ReplaceAllString(e, " "))
	if len(t) > 160 {
		t = t[:160] + "…"
	}
	return t
}

// timed calls a tool on side and returns its outcome and latency in ms.
func timed(ctx context.Context, side toolSide, tool browser.ToolName, args map[string]any) (sideResult, float64, error) {
	t0 := time.Now()
	r, err := side.call(ctx, tool, args)
	return r, ms(time.Since(t0)), err
}

// mustOK calls a tool that must succeed.
func mustOK(ctx context.Context, side toolSide, tool browser.ToolName, args map[string]any) (string, error) {
	r, _, err := timed(ctx, side, tool, args)
	if err != nil {
		return "", err
	}
	if r.isErr {
		return "", fmt.Errorf("%s: %s", tool, errorSection(r))
	}
	return r.text, nil
}

// sideState is one side's page state during a measurement: the latest snapshot and refs.
type sideState struct {
	side     toolSide
	name     string
	clickRef string
	typeRef  string
	lastSnap string // the YAML of the side's last browser_snapshot ("" when its results carry none)
	figs     *StepFigures
	samples  map[string][]float64
}

// op is one timed operation of a measurement on one side; it returns the latency (ms) and the result text.
type op func(ctx context.Context, s *sideState, i int) (float64, string, error)

// MeasureSteps compares webbench's tools with @playwright/mcp on the checkout and results pages: per tool
// call latency (median, p90), stale-ref error latency and observation size. Each side keeps one browser for
// the whole measurement (webbench: a driver, a browser and one Session; MCP: one server with --isolated),
// warmed by a first navigation. Calls are interleaved — sample i of a measurement runs on both sides back to
// back, the side going first alternating — so that load changes on the machine hit both sides alike; a ratio
// is the median over i of MCP's latency over webbench's.
func MeasureSteps(ctx context.Context, o StepOptions) ([]PageFigures, error) {
	if o.Samples <= 0 {
		o.Samples = 15
	}
	if o.PhaseSamples <= 0 {
		o.PhaseSamples = 31
	}
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	pages, err := StartPages()
	if err != nil {
		return nil, err
	}
	defer pages.Close()
	rec := &phaseRecorder{}
	wb, mp, stop, err := startSides(ctx, o.MCP, rec)
	if err != nil {
		return nil, err
	}
	defer stop()
	// Warm-up: MCP launches its browser on the first call; both sides load each page once.
	for _, side := range []toolSide{wb, mp} {
		for _, sp := range stepPages {
			if _, err := mustOK(ctx, side, browser.ToolNavigate, map[string]any{"url": pages.URL(sp.path)}); err != nil {
				return nil, fmt.Errorf("warm-up: %w", err)
			}
		}
	}
	var out []PageFigures
	for _, sp := range stepPages {
		pf, err := measurePage(ctx, sp, pages.URL(sp.path), wb, mp, o.Samples, logf)
		if err != nil {
			return nil, err
		}
		if sp.goals.click != "" {
			logf("steps: %s: browser_click part by part × %d (webbench)", sp.name, o.PhaseSamples)
			s := &sideState{side: wb, name: "webbench", figs: &StepFigures{}}
			if err := s.setUp(ctx, sp, pages.URL(sp.path)); err != nil {
				return nil, err
			}
			if pf.ClickPhases, err = measureClickPhases(ctx, s, sp, rec, o.PhaseSamples); err != nil {
				return nil, err
			}
		}
		out = append(out, pf)
	}
	return out, nil
}

// startSides starts both tool sides: webbench (a driver, a browser and one Session reporting its parts to rec)
// and an MCP server. stop closes whatever was started, in reverse order.
func startSides(ctx context.Context, mo MCPOptions, rec *phaseRecorder) (wb webbenchSide, mp mcpSide, stop func(), err error) {
	var undo []func()
	stop = func() {
		for _, f := range slices.Backward(undo) {
			f()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	drv, err := browser.StartDriver(browser.DriverOptions{})
	if err != nil {
		return wb, mp, stop, err
	}
	undo = append(undo, func() { _ = drv.Stop() })
	b, err := drv.Launch(browser.LaunchOptions{ExecutablePath: chromiumPath(), Headless: true})
	if err != nil {
		return wb, mp, stop, err
	}
	undo = append(undo, func() { _ = b.Close() })
	sess, err := b.NewSession(browser.SessionOptions{Phases: rec.add})
	if err != nil {
		return wb, mp, stop, err
	}
	wb = webbenchSide{sess}
	undo = append(undo, wb.close)
	mc, err := StartMCP(ctx, mo)
	if err != nil {
		return wb, mp, stop, err
	}
	mp = mcpSide{mc}
	undo = append(undo, mp.close)
	return wb, mp, stop, nil
}

// setUp puts a side on the page with a snapshot and finds the refs it will use.
func (s *sideState) setUp(ctx context.Context, sp pageSpec, url string) error {
	if _, err := mustOK(ctx, s.side, browser.ToolNavigate, map[string]any{"url": url}); err != nil {
		return err
	}
	text, err := mustOK(ctx, s.side, browser.ToolSnapshot, nil)
	if err != nil {
		return err
	}
	s.figs.Refs = len(browser.Refs(text))
	if s.clickRef, err = refOf(text, `checkbox "`+sp.clickLabel+`"`); err != nil {
		return err
	}
	if sp.typeLabel != "" {
		if s.typeRef, err = refOf(text, `textbox "`+sp.typeLabel+`"`); err != nil {
			return err
		}
	}
	return nil
}

// measurePage runs every measurement of one page, n samples per side, interleaved.
func measurePage(ctx context.Context, sp pageSpec, url string, wb, mp toolSide, n int,
	logf func(string, ...any)) (PageFigures, error) {
	pf := PageFigures{Page: sp.name}
	sides := []*sideState{
		{side: wb, name: "webbench", figs: &pf.Webbench, samples: map[string][]float64{}},
		{side: mp, name: "@playwright/mcp", figs: &pf.MCP, samples: map[string][]float64{}},
	}
	for _, s := range sides {
		if err := s.setUp(ctx, sp, url); err != nil {
			return pf, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	ratios := map[string][]float64{}
	for _, m := range stepOps(sp, url) {
		if m.skip {
			continue
		}
		logf("steps: %s: %s × %d per side", sp.name, m.key, n)
		for i := 0; i < n; i++ {
			order := sides
			if i%2 == 1 {
				order = []*sideState{sides[1], sides[0]}
			}
			var d [2]float64
			for _, s := range order {
				v, _, err := m.run(ctx, s, i)
				if err != nil {
					return pf, fmt.Errorf("%s on %s, %s: %w", s.name, sp.name, m.key, err)
				}
				s.samples[m.key] = append(s.samples[m.key], v)
				if s == sides[0] {
					d[0] = v
				} else {
					d[1] = v
				}
			}
			if d[0] > 0 {
				ratios[m.key] = append(ratios[m.key], d[1]/d[0])
			}
		}
	}
	for _, s := range sides {
		s.figs.Snapshot = NewDist(s.samples["snapshot"])
		s.figs.Click = NewDist(s.samples["click"])
		s.figs.Type = NewDist(s.samples["type"])
		s.figs.StaleUnknown = NewDist(s.samples["stale_unknown"])
		s.figs.StaleRemoved = NewDist(s.samples["stale_removed"])
	}
	pf.SnapshotRatio = Median(ratios["snapshot"])
	pf.ClickRatio = Median(ratios["click"])
	pf.TypeRatio = Median(ratios["type"])
	pf.StaleUnknownRatio = Median(ratios["stale_unknown"])
	pf.StaleRemovedRatio = Median(ratios["stale_removed"])
	return pf, nil
}

// stepOp is one measurement: its key in the samples, whether the page skips it, and one timed run.
type stepOp struct {
	key  string
	skip bool
	run  op
}

// stepOps returns the measurements of a page, in order.
func stepOps(sp pageSpec, url string) []stepOp {
	return []stepOp{
		{key: "snapshot", run: func(ctx context.Context, s *sideState, i int) (float64, string, error) {
			r, d, err := timed(ctx, s.side, browser.ToolSnapshot, nil)
			if err == nil && r.isErr {
				err = fmt.Errorf("%s: %s", browser.ToolSnapshot, errorSection(r))
			}
			s.figs.SnapshotBytes = len(r.text)
			s.lastSnap = r.res.Snapshot.YAML
			return d, r.text, err
		}},
		{key: "click", run: func(ctx context.Context, s *sideState, i int) (float64, string, error) {
			r, d, err := timed(ctx, s.side, browser.ToolClick, map[string]any{"element": sp.clickLabel, "target": s.clickRef})
			if err == nil && r.isErr {
				err = fmt.Errorf("%s %s: %s", browser.ToolClick, s.clickRef, errorSection(r))
			}
			s.figs.ClickBytes = len(r.text)
			if cur := r.res.Snapshot.YAML; cur != "" && s.lastSnap != "" {
				diff, ok := browser.DiffSnapshot(s.lastSnap, cur)
				if diff == "" {
					diff = browser.NoChangesYAML
				}
				if ok && len(diff) < len(cur) { // as agent's observer: the whole snapshot when the diff is no shorter
					s.figs.DiffClickBytes = len(r.text) - len(cur) + len(diff)
				} else {
					s.figs.DiffClickBytes = len(r.text)
				}
			}
			return d, r.text, err
		}},
		{key: "type", skip: sp.typeLabel == "", run: func(ctx context.Context, s *sideState, i int) (float64, string, error) {
			r, d, err := timed(ctx, s.side, browser.ToolType, map[string]any{"element": sp.typeLabel,
				"target": s.typeRef, "text": fmt.Sprintf("Portland %d", i)})
			if err == nil && r.isErr {
				err = fmt.Errorf("%s %s: %s", browser.ToolType, s.typeRef, errorSection(r))
			}
			return d, r.text, err
		}},
		{key: "stale_unknown", run: func(ctx context.Context, s *sideState, i int) (float64, string, error) {
			r, d, err := timed(ctx, s.side, browser.ToolClick, map[string]any{"element": "gone", "target": "e99999"})
			if err == nil && !r.isErr {
				err = fmt.Errorf("click on unknown ref e99999 succeeded: %.200s", r.text)
			}
			return d, r.text, err
		}},
		// Removed node: fresh page, snapshot (the ref is current), remove the node by script, click the ref.
		{key: "stale_removed", run: func(ctx context.Context, s *sideState, i int) (float64, string, error) {
			return staleRemoved(ctx, s, sp, url)
		}},
	}
}

// staleRemoved times a click on a ref whose node a script removed since the snapshot (on a fresh page).
func staleRemoved(ctx context.Context, s *sideState, sp pageSpec, url string) (float64, string, error) {
	if _, err := mustOK(ctx, s.side, browser.ToolNavigate, map[string]any{"url": url}); err != nil {
		return 0, "", err
	}
	snap, err := mustOK(ctx, s.side, browser.ToolSnapshot, nil)
	if err != nil {
		return 0, "", err
	}
	ref, err := refOf(snap, sp.remove)
	if err != nil {
		return 0, "", err
	}
	if _, err := mustOK(ctx, s.side, browser.ToolEvaluate, map[string]any{
		"function": "() => { document.getElementById('" + sp.removeID + "').remove(); return 'removed'; }"}); err != nil {
		return 0, "", err
	}
	r, d, err := timed(ctx, s.side, browser.ToolClick, map[string]any{"element": sp.remove, "target": ref})
	if err == nil && !r.isErr {
		err = fmt.Errorf("click on removed node %s succeeded: %.200s", ref, r.text)
	}
	if err == nil && s.figs.StaleText == "" {
		s.figs.StaleText = errorSection(r)
	}
	return d, r.text, err
}
