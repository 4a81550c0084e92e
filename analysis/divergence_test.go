package analysis

import (
	"testing"

	"webbench/browser"
	"webbench/results"
)

// page is a result on a Zoo tenant's page: the tenant prefix and the port differ between attempts.
func page(tenant, title, snapshot string) browser.Result {
	port := "40837"
	if tenant[0] != '0' {
		port = "41999"
	}
	return browser.Result{URL: "http://127.0.0.1:" + port + "/t/" + tenant + "/shop/", Title: title,
		Snapshot: browser.Snapshot{YAML: snapshot}}
}

const snap = `- button "Buy" [ref=e1]`

// click is one step clicking ref with raw result raw (shown as is).
func click(i int, raw browser.Result) *results.Step {
	call := results.ToolCall{ID: "c", Name: "browser_click", Args: `{"element":"Buy","target":"e1"}`}
	return &results.Step{Index: i, ToolCalls: []results.ToolCall{call}, Results: []*results.ToolRecord{results.NewToolRecord(call, raw)}}
}

func traj(tenant string, steps ...*results.Step) *results.Trajectory {
	fo := page(tenant, "Home", snap)
	return &results.Trajectory{FirstObservation: &fo, Steps: steps, Finish: results.FinishRecord{Reason: results.FinishAnswered}}
}

// intercepted is a click's raw error with Playwright's call log; retries sets how often it retried (timing).
func intercepted(tenant string, retries string) browser.Result {
	r := page(tenant, "Home", "")
	r.Error = "playwright: timeout: Timeout 5000ms exceeded.\nCall log:\n  - attempting click action\n    " + retries +
		" × waiting for element to be visible, enabled and stable\n      - <div class=\"filter\"></div> intercepts pointer events\n    - retrying click action\n      - waiting 100ms"
	return r
}

func rec(id, variant string, st results.Status, mode results.FailureMode, steps int) *results.Attempt {
	return &results.Attempt{AttemptID: id, Variant: variant, TaskID: "t1", Status: st, FailureMode: mode, Steps: steps}
}

// Attempts of one pair differ in their tenant prefix, their port and the retries of Playwright's call log; none
// of that is a divergence.
func TestDivergeIgnoresVolatileParts(t *testing.T) {
	a := traj("0123456789abcdef0123456789abcdef", click(0, intercepted("0123456789abcdef0123456789abcdef", "2")))
	b := traj("fedcba9876543210fedcba9876543210", click(0, intercepted("fedcba9876543210fedcba9876543210", "7")))
	d := Diverge(rec("a", "base", results.StatusPass, "", 1), rec("b", "v", results.StatusFail, results.ModeGaveUp, 1), a, b, OutcomeBroke)
	if d.At != AtNone || d.Step != -1 || d.Guarded() {
		t.Fatalf("same pages on two tenants: got at=%s step=%d acted=%v, want none", d.At, d.Step, d.Acted)
	}
}

// A guard rewrote the baseline's result of the same click: the first divergence is that step's shown result,
// explained by the guard's event in the baseline.
func TestDivergeAtGuardRewrite(t *testing.T) {
	const ta, tb = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	sa, sb := click(1, intercepted(ta, "2")), click(1, intercepted(tb, "2"))
	hint := intercepted(ta, "2")
	hint.Error = "Click not delivered: a dialog covers it. Close it first."
	sa.Results[0].SetShown(hint)
	sa.Events = []results.Event{{Guard: "intercept_hint", Action: "condensed", Detail: "bytes_before=300", Step: 2}}
	a := traj(ta, click(0, page(ta, "Home", snap)), sa, &results.Step{Index: 2, Content: `{"ok":true}`})
	b := traj(tb, click(0, page(tb, "Home", snap)), sb, &results.Step{Index: 2, Content: `{"ok":false}`})
	b.Finish.Reason = results.FinishStalled
	d := Diverge(rec("a", "base", results.StatusPass, "", 3), rec("b", "no_hint", results.StatusFail, results.ModeIntercepted, 3), a, b, OutcomeBroke)
	if d.At != AtShownResult || d.Step != 1 {
		t.Fatalf("got at=%s step=%d, want shown_result at step 1", d.At, d.Step)
	}
	if d.Acted == nil || d.Acted.Guard != "intercept_hint" || d.Acted.Action != "condensed" || d.ActedIn != "a" {
		t.Fatalf("acted = %+v in %q, want intercept_hint condensed in a", d.Acted, d.ActedIn)
	}
	if d.B.Tool != "browser_click" || d.B.Raw != results.KindIntercepted || d.A.Shown != results.KindError || d.B.Shown != results.KindIntercepted {
		t.Fatalf("sides: A %+v, B %+v", d.A, d.B)
	}
	if d.A.Bytes != len(sa.Results[0].ShownText()) || d.B.Bytes != len(sb.Results[0].ShownText()) || d.A.Bytes >= d.B.Bytes {
		t.Fatalf("bytes: A %d, B %d", d.A.Bytes, d.B.Bytes)
	}
	if d.B.FirstCall || d.B.After != 2 || d.B.Tools["browser_click"] != 1 {
		t.Fatalf("B: first call %t (an earlier click exists), after %d, tools %v", d.B.FirstCall, d.B.After, d.B.Tools)
	}
}

// One arm ended where the other went on (a recovery call); the guard's event is on the step only one arm has.
func TestDivergeAtEnd(t *testing.T) {
	const ta, tb = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	rs := &results.Step{Index: 1, Recovery: true, Content: `{"ok":true,"final":"x"}`,
		Events: []results.Event{{Guard: "final_recovery", Action: "recover", Step: 1}}}
	a := traj(ta, click(0, page(ta, "Home", snap)), rs)
	b := traj(tb, click(0, page(tb, "Home", snap)))
	b.Finish.Reason = results.FinishEmptyOutput
	d := Diverge(rec("a", "base", results.StatusPass, "", 2), rec("b", "v", results.StatusFail, results.ModeNoJSON, 1), a, b, OutcomeBroke)
	if d.At != AtEnd || d.Step != 1 || d.B.Present || !d.A.Present || d.A.Raw != results.KindAnswer {
		t.Fatalf("got at=%s step=%d A=%+v B=%+v", d.At, d.Step, d.A, d.B)
	}
	if d.Acted == nil || d.Acted.Guard != "final_recovery" || d.ActedIn != "a" {
		t.Fatalf("acted = %+v in %q", d.Acted, d.ActedIn)
	}
}

// A guard acting on the first observation (its events precede every step) diverges at step −1; the same
// difference with no guard event is unguarded.
func TestDivergeAtFirstObservation(t *testing.T) {
	const ta, tb = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	a := traj(ta, click(0, page(ta, "Home", snap)))
	b := traj(tb, &results.Step{Index: 0, Content: `{"ok":false}`})
	empty := page(tb, "Home", "- generic [ref=e1]")
	b.FirstObservation = &empty
	a.Events = []results.Event{{Guard: "snapshot_ready", Action: "recapture", Step: 0}}
	ra, rb := rec("a", "base", results.StatusPass, "", 1), rec("b", "v", results.StatusFail, results.ModeEmptySnapshot, 1)
	d := Diverge(ra, rb, a, b, OutcomeBroke)
	if d.At != AtRawResult || d.Step != -1 || d.B.Raw != results.KindEmptySnapshot || d.A.Raw != results.KindOK {
		t.Fatalf("got at=%s step=%d A=%s B=%s", d.At, d.Step, d.A.Raw, d.B.Raw)
	}
	if d.Acted == nil || d.Acted.Guard != "snapshot_ready" {
		t.Fatalf("acted = %+v", d.Acted)
	}
	a.Events = nil
	if d := Diverge(ra, rb, a, b, OutcomeBroke); d.Guarded() || d.Step != -1 {
		t.Fatalf("no guard event: got acted %+v at step %d, want unguarded at −1", d.Acted, d.Step)
	}
}

// The harness judged the same step differently (a guard's progress verdict recorded outside the step, by its
// Event.Step): the divergence is that step's verdict.
func TestDivergeAtProgress(t *testing.T) {
	const ta, tb = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	sa, sb := click(0, page(ta, "Home", snap)), click(0, page(tb, "Home", snap))
	sa.Progress, sb.Stalled = true, true
	a, b := traj(ta, sa), traj(tb, sb)
	a.Events = []results.Event{{Guard: "visual_progress", Action: "action", Step: 1}}
	d := Diverge(rec("a", "base", results.StatusPass, "", 1), rec("b", "v", results.StatusFail, results.ModeStalled, 1), a, b, OutcomeBroke)
	if d.At != AtProgress || d.Step != 0 || d.Acted == nil || d.Acted.Guard != "visual_progress" {
		t.Fatalf("got at=%s step=%d acted=%+v", d.At, d.Step, d.Acted)
	}
}

func TestMaterialCost(t *testing.T) {
	at := func(steps, tokens int) results.Attempt {
		return results.Attempt{Steps: steps, Tokens: results.Tokens{Prompt: tokens}}
	}
	for _, c := range []struct {
		a, b results.Attempt
		want int
	}{
		{at(5, 1000), at(6, 1100), 0},
		{at(5, 1000), at(7, 1100), 1},
		{at(7, 1000), at(5, 1000), -1},
		{at(5, 1000), at(5, 1250), 1},
		{at(5, 1250), at(5, 1000), -1},
		{at(5, 1000), at(6, 1249), 0},
	} {
		if got := MaterialCost(c.a, c.b); got != c.want {
			t.Errorf("MaterialCost(%d steps %d tokens, %d steps %d tokens) = %d, want %d", c.a.Steps, c.a.Tokens.Prompt,
				c.b.Steps, c.b.Tokens.Prompt, got, c.want)
		}
	}
}

// Pairs with the same guard event and result kind at different tools are one group, counted by where; an
// unguarded pair is a group of its own and counts as noise.
func TestGroupCauses(t *testing.T) {
	acted := &GuardAction{Guard: "snapshot_ready", Action: "recapture"}
	mk := func(step int, tool string, g *GuardAction, mode results.FailureMode) Divergence {
		d := Divergence{Outcome: OutcomeBroke, At: AtRawResult, Step: step, Acted: g,
			A: ArmAt{Status: results.StatusPass, Bytes: 6000, Raw: results.KindOK},
			B: ArmAt{Status: results.StatusFail, FailureMode: mode, Bytes: 260, Raw: results.KindEmptySnapshot, Tool: tool}}
		if g != nil {
			d.ActedIn = "a"
		}
		return d
	}
	v := VariantWhy{Variant: "no_snapshot_ready", Pairs: []Divergence{
		mk(-1, "", acted, results.ModeEmptySnapshot), mk(2, "browser_press_key", acted, results.ModeEmptySnapshot),
		mk(-1, "", acted, results.ModeGaveUp), mk(-1, "", nil, results.ModeEmptySnapshot)}}
	v.count()
	v.Groups = groupCauses(v.Pairs)
	if v.Discordant != 4 || v.Unguarded != 1 || len(v.Groups) != 2 {
		t.Fatalf("discordant %d unguarded %d groups %+v", v.Discordant, v.Unguarded, v.Groups)
	}
	g := v.Groups[0]
	if g.Guard != "snapshot_ready" || len(g.Pairs) != 3 || g.ABytes != 6000 || g.BBytes != 260 {
		t.Fatalf("group 0 = %+v", g)
	}
	wantWhere := []Count{{WhereObservation, 2}, {"browser_press_key", 1}}
	wantEnd := []Count{{string(results.ModeEmptySnapshot), 2}, {string(results.ModeGaveUp), 1}}
	for i := range wantWhere {
		if g.Where[i] != wantWhere[i] || g.Endings[i] != wantEnd[i] {
			t.Fatalf("where %v endings %v, want %v %v", g.Where, g.Endings, wantWhere, wantEnd)
		}
	}
	if v.Groups[1].Guard != "" || len(v.Groups[1].Pairs) != 1 {
		t.Fatalf("group 1 = %+v, want the unguarded pair", v.Groups[1])
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:40837/t/c6c80dd37ca2e2d61224e1bed7400480/shop/": "http://#/t/#/shop/",
		"localhost:8080 and localhost: and 127.0.0.1":                     "# and localhost: and 127.0.0.1",
		"feedback deadbeef 0123456789abcde":                               "feedback deadbeef 0123456789abcde",
		"id=0123456789abcdef, ref=e12":                                    "id=#, ref=e12",
		"":                                                                "",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
