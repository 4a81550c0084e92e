package analysis

// The first divergence of a pair: the two arms of a (task, rep) pair share the task, the rep and the seed, so
// under a deterministic policy (and largely under a real model at temperature 0) their trajectories are the
// same until something differs — a guard acting in one arm only, or, for a sampled model or a flaky page,
// something else. Align the two trajectories step by step and name the first step where what the model was
// sent, what it did or what it was shown differs, with the guard events at or just before it.

import (
	"crypto/sha256"
	"encoding/json"
	"slices"
	"strings"

	"webbench/results"
)

// DivergedAt names the part of a step in which two aligned trajectories first differ, in the order they are
// compared within a step.
type DivergedAt string

// The parts of a step (Divergence.At).
const (
	// AtRequest: the model requests differ (tools withheld, a system section or an appended user message, a
	// recovery call in one arm only).
	AtRequest DivergedAt = "request"
	// AtCall: the model's replies differ (another tool, other arguments, or another text or final answer).
	AtCall DivergedAt = "call"
	// AtRawResult: the same calls returned different results before any guard rewrote them (the page, or a
	// guard that runs the call itself such as evaluate_isolation). For the first observation (Step −1), the
	// page the model was first shown differs.
	AtRawResult DivergedAt = "raw_result"
	// AtShownResult: the same raw results were shown to the model differently (a guard rewrote one).
	AtShownResult DivergedAt = "shown_result"
	// AtProgress: the steps are the same to the model, but the harness judged them differently — one counted
	// as progress (or stalled) and the other not: a guard that changes the stall detector's verdict
	// (visual_progress), whose effect shows steps later when the other arm hits the stall limit.
	AtProgress DivergedAt = "progress"
	// AtEnd: one arm ended at this step (answered, stalled, out of steps …) and the other went on.
	AtEnd DivergedAt = "end"
	// AtNone: the trajectories are the same throughout (the outcomes differ by the judge or the final state).
	AtNone DivergedAt = "none"
	// AtUnread: a trajectory could not be read (Divergence.Err).
	AtUnread DivergedAt = "unread"
)

// GuardAction is one guard event without its volatile detail's timing: which guard did what.
type GuardAction struct {
	Guard  string `json:"guard"`
	Action string `json:"action"`
	// Detail is the event's detail as recorded (byte counts, the tool …).
	Detail string `json:"detail,omitempty"`
}

// DivergenceTextCap is the most bytes of a model-facing text a Divergence keeps (ArmAt.Text); the pair page
// reads the trajectories for the whole texts.
const DivergenceTextCap = 400

// ArmAt is one arm's side of a pair at its first divergence.
type ArmAt struct {
	// AttemptID is the arm's attempt; Status, FailureMode and Steps its record's.
	AttemptID   string              `json:"attempt_id"`
	Status      results.Status      `json:"status"`
	FailureMode results.FailureMode `json:"failure_mode,omitempty"`
	Steps       int                 `json:"steps"`
	// Present is false when the arm has no step at the divergence (it had ended before it).
	Present bool `json:"present"`
	// Tool is the base name of the step's first tool call that differs from the other arm's (its first call
	// when the calls are the same), "" for a reply without tool calls; Target the call's element or ref
	// argument; Args its arguments (canonical JSON, cut to DivergenceTextCap).
	Tool   string `json:"tool,omitempty"`
	Target string `json:"target,omitempty"`
	Args   string `json:"args,omitempty"`
	// FirstCall is true when no earlier call of the arm used Tool.
	FirstCall bool `json:"first_call,omitempty"`
	// Raw is the kind of the call's raw result, Shown of the result as the model was shown it.
	Raw   results.ResultKind `json:"raw"`
	Shown results.ResultKind `json:"shown"`
	// Text is the model-facing text at the divergence (the result as shown, or the reply's text), cut to
	// DivergenceTextCap bytes; Bytes its whole length, bytes.
	Text  string `json:"text,omitempty"`
	Bytes int    `json:"bytes"`
	// Events are the guard events of the step and of the step before (for the first observation, those
	// recorded before the first step), in order.
	Events []GuardAction `json:"events,omitempty"`
	// Screenshots are the kept screenshots of the step, paths relative to the arm's run directory.
	Screenshots []string `json:"screenshots,omitempty"`
	// After is the number of steps the arm made from the divergence to its end (0 when it ended there).
	After int `json:"after"`
	// Tools counts the arm's tool calls from the divergence on, by tool base name.
	Tools map[string]int `json:"tools,omitempty"`
}

// Divergence is the first divergence of one pair's two trajectories: A the baseline (run A), B the variant
// (run B).
type Divergence struct {
	// Variant is the arm compared with the baseline; Task, Cluster and Rep the pair's.
	Variant string `json:"variant"`
	Task    string `json:"task"`
	Cluster string `json:"cluster,omitempty"`
	Rep     int    `json:"rep"`
	// Outcome is why the pair is examined: broke, fixed, costlier or cheaper.
	Outcome PairOutcome `json:"outcome"`
	// At is the part of the step the arms first differ in; Step the step's 0-based index, −1 for the first
	// observation (and for AtNone and AtUnread).
	At   DivergedAt `json:"at"`
	Step int        `json:"step"`
	// A and B are the arms' sides at the divergence.
	A ArmAt `json:"a"`
	B ArmAt `json:"b"`
	// Acted is the guard event at the divergence or at the step before it that only one arm has (the first
	// such, the one that explains it), nil when none: the arms diverged before any guard acted. ActedIn says
	// which arm it is in: "a" or "b".
	Acted   *GuardAction `json:"acted,omitempty"`
	ActedIn string       `json:"acted_in,omitempty"`
	// Err says why a trajectory could not be read (At is AtUnread).
	Err string `json:"error,omitempty"`
}

// Guarded reports whether a guard acting in one arm only explains the divergence (Acted is set).
func (d *Divergence) Guarded() bool { return d.Acted != nil }

// Focus is the arm that went wrong: the variant when it broke the pair or cost more, the baseline when the
// variant fixed it or cost less.
func (d *Divergence) Focus() *ArmAt {
	if d.Outcome == OutcomeFixed || d.Outcome == OutcomeCheaper {
		return &d.A
	}
	return &d.B
}

// normalize replaces the parts of s that differ between attempts of the same pair without meaning anything
// with "#": runs of 16 or more lower-case hex digits (the Zoo's per-attempt tenant prefix, ids) and local
// server ports, "127.0.0.1:PORT" and "localhost:PORT" (two runs). A hand-written scan: a regular expression
// over every snapshot of every examined trajectory doubled the report's time.
func normalize(s string) string {
	var b strings.Builder
	last := 0 // s[last:i] is not yet written
	for i := 0; i < len(s); {
		if n := hexRun(s[i:]); n >= 16 {
			b.WriteString(s[last:i])
			b.WriteByte('#')
			i += n
			last = i
			continue
		}
		if n := hostPort(s[i:]); n > 0 {
			b.WriteString(s[last:i])
			b.WriteByte('#')
			i += n
			last = i
			continue
		}
		if isHex(s[i]) { // skip the rest of a short hex run: a long run starts only after a non-hex byte
			for i < len(s) && isHex(s[i]) {
				i++
			}
			continue
		}
		i++
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// hexRun is the length of the run of lower-case hex digits s starts with.
func hexRun(s string) int {
	n := 0
	for n < len(s) && isHex(s[n]) {
		n++
	}
	return n
}

// hostPort is the length of the local "127.0.0.1:PORT" or "localhost:PORT" s starts with, 0 for none.
func hostPort(s string) int {
	for _, h := range []string{"127.0.0.1:", "localhost:"} {
		if strings.HasPrefix(s, h) {
			n := len(h)
			for n < len(s) && s[n] >= '0' && s[n] <= '9' {
				n++
			}
			if n > len(h) {
				return n
			}
		}
	}
	return 0
}

// resultText is the normalized text of a result (results.StableText).
func resultText(r results.ToolRecord, shown bool) string {
	res := r.Raw
	if shown {
		res = r.ShownResult()
	}
	return normalize(results.StableText(res))
}

// callKey is results.CallKey of c, normalized.
func callKey(c results.ToolCall) string { return normalize(results.CallKey(c)) }

// requestKey is what a step's request carried beyond the conversation, normalized.
func requestKey(s *results.Step) string {
	r := s.Request
	b, _ := json.Marshal([]any{r.ToolsWithheld, r.SystemSections, r.Appended, s.Recovery})
	return normalize(string(b))
}

// replyKey is a step's reply: its tool calls (callKey), or its text when it made none.
func replyKey(s *results.Step) string {
	if len(s.ToolCalls) == 0 {
		return "text " + normalize(s.Content)
	}
	keys := make([]string, len(s.ToolCalls))
	for i, c := range s.ToolCalls {
		keys[i] = callKey(c)
	}
	return strings.Join(keys, "\n")
}

// stepEvents returns the guard events of t by step index, and under index −1 those recorded before the first
// step (the first observation's: snapshot_ready on the start page). An event no step holds is placed by its
// Event.Step, which counts the model calls made when it was recorded: 0 before the first, k during the tool
// calls of step k−1.
func stepEvents(t *results.Trajectory) map[int][]results.Event {
	out := map[int][]results.Event{}
	held := map[results.Event]int{}
	for _, s := range t.Steps {
		if s == nil {
			continue
		}
		out[s.Index] = s.Events
		for _, e := range s.Events {
			held[e]++
		}
	}
	for _, e := range t.Events {
		if held[e] > 0 {
			held[e]--
			continue
		}
		out[max(e.Step, 0)-1] = append(out[max(e.Step, 0)-1], e)
	}
	return out
}

// steps returns t's non-nil steps in order.
func steps(t *results.Trajectory) []*results.Step {
	return slices.DeleteFunc(slices.Clone(t.Steps), func(s *results.Step) bool { return s == nil })
}

// aligned is a trajectory prepared for alignment, once per trajectory however many pairs it is in: its non-nil
// steps, its guard events by step (stepEvents), its first observation's normalized text, and each step's keys
// (normalized, hashed), computed when first compared.
type aligned struct {
	t      *results.Trajectory
	steps  []*results.Step
	events map[int][]results.Event
	obs    string
	keys   []*stepKeys
}

// stepKeys are what the alignment compares of a step: its request and reply keys and its results' texts, raw
// and as shown, each the SHA-256 of the normalized text.
type stepKeys struct {
	request, reply [32]byte
	raw, shown     [][32]byte
}

// prepare returns t prepared for alignment.
func prepare(t *results.Trajectory) *aligned {
	st := steps(t)
	return &aligned{t: t, steps: st, events: stepEvents(t), obs: normalize(t.FirstObservationText()), keys: make([]*stepKeys, len(st))}
}

// key returns step i's keys, computing them on first use.
func (a *aligned) key(i int) *stepKeys {
	if a.keys[i] == nil {
		s := a.steps[i]
		k := &stepKeys{request: sha256.Sum256([]byte(requestKey(s))), reply: sha256.Sum256([]byte(replyKey(s)))}
		for _, r := range s.Results {
			if r != nil {
				k.raw = append(k.raw, sha256.Sum256([]byte(resultText(*r, false))))
				k.shown = append(k.shown, sha256.Sum256([]byte(resultText(*r, true))))
			}
		}
		a.keys[i] = k
	}
	return a.keys[i]
}

// firstDivergence aligns a (arm A) and b (arm B) step by step and returns where they first differ and at
// which step (−1: the first observation).
func firstDivergence(a, b *aligned) (DivergedAt, int) {
	if !sameActions(a.events[-1], b.events[-1]) || a.obs != b.obs {
		return AtRawResult, -1
	}
	for i := 0; i < max(len(a.steps), len(b.steps)); i++ {
		if i >= len(a.steps) || i >= len(b.steps) {
			return AtEnd, i
		}
		ka, kb := a.key(i), b.key(i)
		sa, sb := a.steps[i], b.steps[i]
		switch {
		case ka.request != kb.request:
			return AtRequest, i
		case ka.reply != kb.reply:
			return AtCall, i
		case !slices.Equal(ka.raw, kb.raw):
			return AtRawResult, i
		case !slices.Equal(ka.shown, kb.shown):
			return AtShownResult, i
		case sa.Stalled != sb.Stalled || sa.Progress != sb.Progress:
			return AtProgress, i
		}
	}
	if a.t.Finish.Reason != b.t.Finish.Reason {
		return AtEnd, max(len(a.steps), len(b.steps))
	}
	return AtNone, -1
}

// sameActions reports whether two event lists hold the same (guard, action)s, in any order.
func sameActions(a, b []results.Event) bool {
	return len(actionDiff(a, b)) == 0 && len(actionDiff(b, a)) == 0
}

// actionDiff returns the events of a whose (guard, action) b lacks (as a multiset), in a's order.
func actionDiff(a, b []results.Event) []results.Event {
	left := map[[2]string]int{}
	for _, e := range b {
		left[[2]string{e.Guard, e.Action}]++
	}
	var out []results.Event
	for _, e := range a {
		k := [2]string{e.Guard, e.Action}
		if left[k] > 0 {
			left[k]--
			continue
		}
		out = append(out, e)
	}
	return out
}

// actedAt returns the first guard event at step i or at the step before it that one arm has and the other
// lacks, and the arm it is in ("a" or "b"); ok is false when there is none. For the first observation (i = −1)
// the window is the events before the first step.
func actedAt(ea, eb map[int][]results.Event, i int) (GuardAction, string, bool) {
	window := []int{i}
	if i > 0 {
		window = []int{i - 1, i}
	} else if i == 0 {
		window = []int{-1, 0}
	}
	for _, j := range window {
		if d := actionDiff(ea[j], eb[j]); len(d) > 0 {
			return guardAction(d[0]), "a", true
		}
		if d := actionDiff(eb[j], ea[j]); len(d) > 0 {
			return guardAction(d[0]), "b", true
		}
	}
	return GuardAction{}, "", false
}

func guardAction(e results.Event) GuardAction {
	return GuardAction{Guard: e.Guard, Action: e.Action, Detail: e.Detail}
}

// armAt fills s, one arm's record side, with its step i (−1: the first observation) of at, other being the
// other arm's (to pick the call that differs).
func armAt(s ArmAt, at, other *aligned, i int) ArmAt {
	for _, j := range []int{i - 1, i} {
		if j >= -1 {
			for _, e := range at.events[j] {
				s.Events = append(s.Events, guardAction(e))
			}
		}
	}
	t, st := at.t, at.steps
	if i == -1 {
		if t.FirstObservation != nil {
			s.Present = true
			s.Raw, s.Shown = results.ResultKindOf(*t.FirstObservation), results.ResultKindOf(*t.FirstObservation)
			s.setText(t.FirstObservationText())
		}
		s.After = len(st)
		s.Tools = toolCounts(st)
		return s
	}
	if i >= len(st) {
		return s
	}
	s.Present, s.After, s.Tools = true, len(st)-i, toolCounts(st[i:])
	s.Screenshots = shotsAt(t, st[i].Index)
	step := st[i]
	var os *results.Step
	if i < len(other.steps) {
		os = other.steps[i]
	}
	k := differingCall(step, os)
	if k < 0 {
		s.Raw, s.Shown = results.KindAnswer, results.KindAnswer
		s.setText(step.Content)
		return s
	}
	c := step.ToolCalls[k]
	s.Tool, s.Target = (results.BaseTool(c.Name)), callTarget(c.Args)
	s.FirstCall = toolCounts(st[:i])[s.Tool] == 0 && !slices.ContainsFunc(step.ToolCalls[:k], func(x results.ToolCall) bool {
		return (results.BaseTool(x.Name)) == s.Tool
	})
	s.Args = cut(normalize(results.CallKey(c)[len(results.BaseTool(c.Name))+1:]))
	if k < len(step.Results) && step.Results[k] != nil {
		res := step.Results[k]
		s.Raw, s.Shown = results.ResultKindOf(res.Raw), results.ResultKindOf(res.ShownResult())
		s.setText(res.ShownText())
	} else {
		s.Raw, s.Shown = results.KindNone, results.KindNone
	}
	return s
}

func (s *ArmAt) setText(t string) { s.Bytes, s.Text = len(t), cut(t) }

// differingCall returns the index of s's first tool call whose key or results differ from other's call at
// the same position, −1 when s made no tool call. When none differs (the harness judged the same calls
// differently, AtProgress) it is the last call, the one the step's verdict was reached on.
func differingCall(s, other *results.Step) int {
	if len(s.ToolCalls) == 0 {
		return -1
	}
	if other == nil {
		return 0
	}
	for k, c := range s.ToolCalls {
		if k >= len(other.ToolCalls) || callKey(c) != callKey(other.ToolCalls[k]) {
			return k
		}
		if k < len(s.Results) && k < len(other.Results) && s.Results[k] != nil && other.Results[k] != nil &&
			resultText(*s.Results[k], true) != resultText(*other.Results[k], true) {
			return k
		}
	}
	return len(s.ToolCalls) - 1
}

// callTarget is a call's element description, else its ref ("target" or "ref"), "" when it has neither.
func callTarget(args string) string {
	var a map[string]any
	if json.Unmarshal([]byte(args), &a) != nil {
		return ""
	}
	for _, k := range []string{"element", "target", "ref"} {
		if v, ok := a[k].(string); ok && v != "" {
			return cut(v)
		}
	}
	return ""
}

// toolCounts counts the tool calls of steps by base name.
func toolCounts(st []*results.Step) map[string]int {
	m := map[string]int{}
	for _, s := range st {
		for _, c := range s.ToolCalls {
			m[(results.BaseTool(c.Name))]++
		}
	}
	return m
}

// shotsAt are t's kept screenshots of step index (Trajectory.ScreenshotSteps), relative to its run directory.
func shotsAt(t *results.Trajectory, index int) []string {
	if len(t.ScreenshotSteps) != len(t.Screenshots) {
		return nil
	}
	var out []string
	for k, s := range t.ScreenshotSteps {
		if s == index {
			out = append(out, t.Screenshots[k])
		}
	}
	return out
}

// cut is s cut to DivergenceTextCap bytes at a rune start, with "…" when cut.
func cut(s string) string {
	if len(s) <= DivergenceTextCap {
		return s
	}
	n := DivergenceTextCap
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// Diverge aligns the trajectories ta (the baseline's record ra) and tb (the variant's rb) of one pair and
// returns its first divergence, with outcome o; Variant is rb's. Either trajectory nil with err set gives
// AtUnread.
func Diverge(ra, rb *results.Attempt, ta, tb *results.Trajectory, o PairOutcome) Divergence {
	d := Divergence{Variant: rb.Variant, Task: ra.TaskID, Cluster: ra.Cluster, Rep: ra.Rep, Outcome: o, Step: -1,
		A: ArmAt{AttemptID: ra.AttemptID, Status: ra.Status, FailureMode: ra.FailureMode, Steps: ra.Steps, Raw: results.KindNone, Shown: results.KindNone},
		B: ArmAt{AttemptID: rb.AttemptID, Status: rb.Status, FailureMode: rb.FailureMode, Steps: rb.Steps, Raw: results.KindNone, Shown: results.KindNone}}
	if ta == nil || tb == nil {
		d.At = AtUnread
		return d
	}
	return diverge(d, prepare(ta), prepare(tb))
}

// diverge fills d, whose records' trajectories are a and b, with their first divergence.
func diverge(d Divergence, a, b *aligned) Divergence {
	d.At, d.Step = firstDivergence(a, b)
	if d.At == AtNone {
		return d
	}
	d.A, d.B = armAt(d.A, a, b, d.Step), armAt(d.B, b, a, d.Step)
	if g, arm, ok := actedAt(a.events, b.events, d.Step); ok {
		d.Acted, d.ActedIn = &g, arm
	}
	return d
}
