package guard

import (
	"fmt"
	"slices"

	"webbench/agent"
	"webbench/browser"
	"webbench/results"
)

// RepeatGuard stops no-progress loops (GUARDS.md §2, seed 001 first change). Per attempt it tracks two
// streaks (results.Streaks): identical calls (results.CallKey) with identical results (results.ResultFingerprint of
// the model-facing result), and no-op browser_evaluate calls (results.IsNoopEvaluate). From the 3rd call of a
// streak it appends a "### Repeated call" note (RepeatNote) to the tool's model-facing result (once per result); after the
// 5th, the next model request carries no tools and one system section asking for the final JSON object (not a
// user turn, as in the seed). Events: "note" and "withhold_tools".
type RepeatGuard struct{}

// NameRepeatGuard is the guard's name in specs, --guards and the records.
const NameRepeatGuard = "repeat_guard"

func init() {
	register(NameRepeatGuard, 20, false, func() agent.Hook { return RepeatGuard{} })
}

// Name implements agent.Hook.
func (RepeatGuard) Name() string { return NameRepeatGuard }

// RepeatNote is the heading of the note appended to a repeated call's result; RepeatNoteHeading is how it starts
// in the text form.
const (
	RepeatNote        = "Repeated call"
	RepeatNoteHeading = "### " + RepeatNote
)

// RepeatSystemSection is the system section sent, with tools withheld, after the 5th call of a streak.
const RepeatSystemSection = "You have repeated the same tool call several times without new information, so " +
	"tools are withheld for this turn. Using what you have already seen, reply now with only the final JSON " +
	`object: {"ok": true|false, "final": "<answer>", "page": "<url>", "error": null|"<reason>"}.`

type repeatState struct {
	streaks  results.Streaks
	withhold bool
	length   int
	kind     string
}

// AfterToolCall implements agent.AfterToolCaller.
func (RepeatGuard) AfterToolCall(a *agent.Attempt, call agent.ToolCall, res *agent.ToolResult) {
	st := agent.State(a, NameRepeatGuard, func() *repeatState { return &repeatState{} })
	n := st.streaks.Observe(call, res.Result)
	kind := "identical"
	if st.streaks.Noop > st.streaks.Identical {
		kind = "noop"
	}
	if n < results.RepeatNoteAt {
		return
	}
	if !slices.ContainsFunc(res.Result.Notes, func(x browser.Note) bool { return x.Heading == RepeatNote }) {
		res.Result.Notes = append(res.Result.Notes, browser.Note{Heading: RepeatNote, Body: fmt.Sprintf(
			"This call repeats the previous ones (%d in a row) and shows nothing new. If you already have the "+
				"answer, reply now with the final JSON object; otherwise do something different.", n)})
		a.Event(NameRepeatGuard, "note", fmt.Sprintf("kind=%s streak=%d tool=%s", kind, n, browser.BaseName(call.Name)))
	}
	if n >= results.RepeatWithholdAt {
		st.withhold, st.length, st.kind = true, n, kind
	}
}

// BeforeModelCall implements agent.BeforeModelCaller.
func (RepeatGuard) BeforeModelCall(a *agent.Attempt, req *agent.ModelRequest) {
	st := agent.State(a, NameRepeatGuard, func() *repeatState { return &repeatState{} })
	if !st.withhold {
		return
	}
	st.withhold = false
	req.Tools = nil
	req.SystemSections = append(req.SystemSections, RepeatSystemSection)
	a.Event(NameRepeatGuard, "withhold_tools", fmt.Sprintf("kind=%s streak=%d", st.kind, st.length))
}
