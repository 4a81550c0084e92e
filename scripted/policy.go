package scripted

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"webbench/agent/guard"
	"webbench/browser"
	"webbench/llm"
	"webbench/suites"
)

// Step kinds of a solution (suites.Step.Kind, ZOO.md).
const (
	kindNavigate    = "navigate"
	kindClick       = "click"
	kindFill        = "fill"
	kindSelect      = "select"
	kindPress       = "press"
	kindHover       = "hover"
	kindVisualClick = "visual_click"
	kindEvaluate    = "evaluate"
	kindAnswer      = "answer"
)

// Texts the policy writes. What it recognises are the guards' own texts, imported: guard.RecoveryPhrase
// (final_recovery's user turn, GUARDS.md §3), guard.RepeatNote (repeat_guard's note, §2),
// guard.InterceptHintPrefix and guard.InterceptCoveredBy (intercept_hint's condensed error, §1) and
// results.InterceptPhrase (Playwright's raw call log).
const (
	// giveUpEmpty is the seed's words when a snapshot has no refs (seed 002).
	giveUpEmpty = "the accessibility tree is incomplete; I cannot proceed without valid element references"
	// recoveryActShare is the share of non-JSON recovery replies that still emit a tool call.
	recoveryActShare = 0.25
	// maxLooks bounds the snapshots the policy asks for while its target is missing (then it gives up);
	// maxEmptyLooks the same for an empty snapshot.
	maxLooks      = 2
	maxEmptyLooks = 3
	// maxUnchangedRetries bounds the re-clicks of a click that left the page unchanged (retryUnchanged).
	maxUnchangedRetries = 1
)

// toolCall is one call the policy makes, by base name (the reply uses the name the request offered).
type toolCall struct {
	name browser.ToolName
	args map[string]any
}

// reply is the policy's answer to one request: content, tool calls, or both empty (empty output).
type reply struct {
	content string
	calls   []toolCall
}

// finalAnswer is the closing JSON object (DESIGN.md "Final answer").
type finalAnswer struct {
	OK    bool    `json:"ok"`
	Final string  `json:"final"`
	Page  string  `json:"page"`
	Error *string `json:"error"`
}

// progress is the plan's state, replayed from the assistant's tool calls and their results.
type progress struct {
	i         int  // next solution step; len(solution) when all are done
	loopCalls int  // no-op evaluate calls made at the answer step (the post-answer loop)
	vcMsgs    int  // messages of the visual-click sequence at the current step
	vcMouse   bool // the visual click (browser_mouse_click_xy) was made at the current step
	vcGuesses []string
	// doneBy is the call that completed the latest done step, solution step doneStep; nil before the first.
	doneBy   *call
	doneStep int
	// redos counts the calls since then that perform step doneStep again (retryUnchanged's re-clicks).
	redos int
}

var loopFuncRe = regexp.MustCompile(`^\(\)\s*=>\s*('ok'|document\.title|'done\d+')$`)

// decide is the policy: what the model says to this request.
func (c *conv) decide() reply {
	if c.task == nil && c.tools[llm.PreflightTool] != "" {
		// The endpoint preflight (llm.Client.Preflight): a tool call, as a model that supports tools makes.
		return reply{calls: []toolCall{{name: llm.PreflightTool, args: map[string]any{"ok": true}}}}
	}
	if c.task == nil {
		return c.jsonReply(finalAnswer{OK: false, Page: c.pageURL, Error: strp("unknown task")})
	}
	if len(c.task.Solution) == 0 {
		return c.jsonReply(finalAnswer{OK: false, Page: c.pageURL, Error: strp("no scripted solution for this task")})
	}
	role, text := c.lastNonSystem()
	if role == "user" && strings.Contains(text, guard.RecoveryPhrase) {
		return c.recovery()
	}
	if len(c.tools) == 0 {
		if role != "user" {
			// Tools withheld with no user turn after the last tool result (repeat_guard's system section).
			if c.coin(c.prof.WithheldNoUserTurnEmpty, "withheld_no_user_turn_empty", false) {
				return reply{}
			}
		}
		return c.jsonReply(c.forcedFinal())
	}
	if c.needsFirstLook() {
		return c.calls(toolCall{browser.ToolSnapshot, map[string]any{}})
	}
	return c.act()
}

// needsFirstLook reports whether the policy should ask for a snapshot before anything else: the task came
// without an observation (conv.bare: an external agent's first user message with the goal alone),
// the conversation has shown no page yet, and the policy has asked for fewer than maxEmptyLooks looks
// (all its turns so far read-only), so that an agent whose snapshots keep failing is not asked forever. A
// conversation whose task message carries the first observation (the built-in agent's) is never bare.
func (c *conv) needsFirstLook() bool {
	if !c.bare || c.snapMsg >= 0 || c.pageURL != "" || !c.offers(browser.ToolSnapshot) {
		return false
	}
	return c.trailingReads() == len(c.turns) && len(c.turns) < maxEmptyLooks
}

// recovery answers final_recovery's user turn: valid JSON with probability withheld_user_turn_json, else prose
// or, now and then when the plan is unfinished, a tool call anyway.
func (c *conv) recovery() reply {
	if c.coin(c.prof.WithheldUserTurnJSON, "withheld_user_turn_json", false) {
		return c.jsonReply(c.forcedFinal())
	}
	f := c.forcedFinal()
	if !f.OK || c.inLoop() {
		if c.coin(recoveryActShare, "recovery_act", false) {
			if r := c.act(); len(r.calls) > 0 {
				return r
			}
		}
	}
	return reply{content: prose(f)}
}

// forcedFinal is the final answer from what was seen so far, for requests that ask for it.
func (c *conv) forcedFinal() finalAnswer {
	sol := c.task.Solution
	pr := c.replay()
	if pr.i >= len(sol) {
		return finalAnswer{OK: true, Final: c.doneText(), Page: c.pageURL}
	}
	if st := sol[pr.i]; st.Kind == kindAnswer {
		if ans, ok := c.answerText(&st); ok {
			return finalAnswer{OK: true, Final: ans, Page: c.pageURL}
		}
		return finalAnswer{OK: false, Page: c.pageURL, Error: strp("the answer was not found on the page")}
	}
	return finalAnswer{OK: false, Page: c.pageURL,
		Error: strp("the task is not finished: the next step was to " + c.stepDesc(&sol[pr.i]))}
}

func (c *conv) doneText() string {
	return "Completed the task: " + c.goal
}

// inLoop reports whether the policy is in the post-answer loop.
func (c *conv) inLoop() bool {
	pr := c.replay()
	return pr.loopCalls > 0
}

// offers reports whether the request offers tool name. A request without tools (withheld) counts as
// offering all, so that the policy's idea of its plan does not change when tools are withheld.
func (c *conv) offers(name browser.ToolName) bool {
	if len(c.tools) == 0 {
		return true
	}
	_, ok := c.tools[name]
	return ok
}

// takeEvaluates is the per-attempt decision to play evaluate steps.
func (c *conv) takeEvaluates() bool {
	if !c.offers(browser.ToolEvaluate) {
		return false
	}
	return c.coin(c.prof.EvaluateOnHungPages, "evaluate_on_hung_pages", true)
}

// replay works out the plan's state from the tool calls and results so far. A step is done when a call that
// performs it succeeded (no "### Error"); detours (dismissals, snapshots, failed retries) do not advance it.
// Evaluate steps are done once called (even when they fail) or skipped by the per-attempt draw; a visual-click
// step is done after the message that follows its mouse click.
func (c *conv) replay() progress {
	sol := c.task.Solution
	var pr progress
	takeEval := c.takeEvaluates()
	advance := func() {
		pr.doneStep = pr.i
		pr.i++
		pr.loopCalls, pr.vcMsgs, pr.vcMouse, pr.vcGuesses, pr.doneBy, pr.redos = 0, 0, false, nil, nil, 0
		for pr.i < len(sol) && sol[pr.i].Kind == kindEvaluate && !takeEval {
			pr.i++
		}
	}
	pr.i = -1
	advance()
	for _, t := range c.turns {
		vcMsg, mouse := false, false
		for _, cl := range t.calls {
			if pr.i >= len(sol) {
				break
			}
			st := &sol[pr.i]
			if pr.doneBy != nil && !c.performs(st, cl) && c.performs(&sol[pr.doneStep], cl) {
				pr.redos++
			}
			switch st.Kind {
			case kindVisualClick:
				switch {
				case cl.base == browser.ToolMouseClickXY:
					vcMsg, mouse = true, true
				case cl.base == browser.ToolClick && cl.str("element") == vcDesc(st.Target):
					vcMsg = true
					pr.vcGuesses = append(pr.vcGuesses, cl.str("target"))
				}
			case kindEvaluate:
				if cl.base == browser.ToolEvaluate && sameFunc(cl.str("function"), st.Function) {
					advance()
				}
			case kindAnswer:
				if cl.base == browser.ToolEvaluate && loopFuncRe.MatchString(strings.TrimSpace(cl.str("function"))) {
					pr.loopCalls++
				}
			default:
				if c.performs(st, cl) && cl.hasResult && !cl.failed() {
					advance()
					pr.doneBy = cl
				}
			}
		}
		if pr.i < len(sol) && sol[pr.i].Kind == kindVisualClick && vcMsg {
			if pr.vcMouse && !mouse {
				advance() // message (3), the verification, closes the sequence
				continue
			}
			pr.vcMsgs++
			pr.vcMouse = pr.vcMouse || mouse
		}
	}
	return pr
}

func sameFunc(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }

// performs reports whether a tool call is an attempt at step st (by tool, element and arguments).
func (c *conv) performs(st *suites.Step, cl *call) bool {
	switch st.Kind {
	case kindNavigate:
		return cl.base == browser.ToolNavigate && (cl.str("url") == c.resolveURL(st.URL) || cl.str("url") == st.URL)
	case kindPress:
		return cl.base == browser.ToolPressKey && cl.str("key") == st.Key
	case kindClick:
		return cl.base == browser.ToolClick && elementMatches(cl.str("element"), st.Target, true)
	case kindFill:
		return cl.base == browser.ToolType && elementMatches(cl.str("element"), st.Target, false) &&
			cl.str("text") == st.Text
	case kindSelect:
		return cl.base == browser.ToolSelectOption && elementMatches(cl.str("element"), st.Target, false)
	case kindHover:
		return cl.base == browser.ToolHover && elementMatches(cl.str("element"), st.Target, false)
	}
	return false
}

var elementRe = regexp.MustCompile(`^(label of )?([A-Za-z]+)(?: (".*"))?$`)

// elementMatches reports whether an `element` description the policy wrote (`role "name"`, or
// `label of role "name"` for a click on an input's visible label) names target t.
func elementMatches(el string, t *suites.Target, allowLabel bool) bool {
	if t == nil {
		return false
	}
	m := elementRe.FindStringSubmatch(el)
	if m == nil || m[1] != "" && !allowLabel {
		return false
	}
	if t.Role != "" && !strings.EqualFold(m[2], t.Role) {
		return false
	}
	name := ""
	if m[3] != "" {
		u, err := strconv.Unquote(m[3])
		if err != nil {
			return false
		}
		name = u
	}
	return nameMatches(name, t)
}

// vcDesc is the element description of a visual-click target (role, plus its name when the target has one).
func vcDesc(t *suites.Target) string {
	if t == nil {
		return ""
	}
	if t.Name != "" {
		return t.Role + " " + strconv.Quote(t.Name)
	}
	return t.Role
}

// act is the policy with tools on offer.
func (c *conv) act() reply {
	sol := c.task.Solution
	pr := c.replay()
	var st *suites.Step
	if pr.i < len(sol) {
		st = &sol[pr.i]
	}
	if st != nil && st.Kind == kindVisualClick {
		return c.visualClick(st, &pr)
	}
	if last := c.lastTurn(); last != nil && st != nil {
		if r, ok := c.onBlocked(last, st); ok {
			return r
		}
		if r, ok := c.onStale(last); ok {
			return r
		}
	}
	if st == nil {
		return c.final(finalAnswer{OK: true, Final: c.doneText(), Page: c.pageURL})
	}
	if looksAtPage(st.Kind) && c.obsNone && c.trailingReads() < maxLooks && c.staleView(st.Kind == kindAnswer) &&
		c.offers(browser.ToolSnapshot) {
		// Observation mode none: the results showed no page since the view went out of date.
		return c.calls(toolCall{browser.ToolSnapshot, map[string]any{}})
	}
	switch st.Kind {
	case kindNavigate:
		return c.calls(toolCall{browser.ToolNavigate, map[string]any{"url": c.resolveURL(st.URL)}})
	case kindPress:
		return c.calls(toolCall{browser.ToolPressKey, map[string]any{"key": st.Key}})
	case kindEvaluate:
		return c.calls(toolCall{browser.ToolEvaluate, map[string]any{"function": st.Function}})
	case kindAnswer:
		return c.answer(st, &pr)
	case kindClick, kindFill, kindSelect, kindHover:
		n, r, ok := c.locate(st, &pr)
		if !ok {
			return r
		}
		args := map[string]any{"target": n.ref, "element": n.desc()}
		switch st.Kind {
		case kindClick:
			return c.calls(toolCall{browser.ToolClick, args})
		case kindFill:
			args["text"] = st.Text
			return c.calls(toolCall{browser.ToolType, args})
		case kindSelect:
			vals := append([]string{}, st.Values...)
			args["values"] = vals
			return c.calls(toolCall{browser.ToolSelectOption, args})
		default:
			return c.calls(toolCall{browser.ToolHover, args})
		}
	}
	return c.final(finalAnswer{OK: false, Page: c.pageURL, Error: strp("unsupported solution step " + st.Kind)})
}

// locate finds an action step's target in the latest snapshot. When it cannot, it returns what to do instead:
// give up on an empty snapshot (with the profile's probability) or look again (a bounded number of times).
func (c *conv) locate(st *suites.Step, pr *progress) (*node, reply, bool) {
	if c.snapshot == nil || !c.snapshot.hasInteractive() {
		if c.snapshot != nil && c.coin(c.prof.EmptySnapshotGiveUp, "empty_snapshot_give_up", false) ||
			c.trailingReads() >= maxEmptyLooks {
			return nil, c.final(finalAnswer{OK: false, Page: c.pageURL, Error: strp(giveUpEmpty)}), false
		}
		calls := []toolCall{}
		if c.offers(browser.ToolWaitFor) {
			calls = append(calls, toolCall{browser.ToolWaitFor, map[string]any{"time": 1}})
		}
		calls = append(calls, toolCall{browser.ToolSnapshot, map[string]any{}})
		return nil, c.calls(calls...), false
	}
	n := c.snapshot.find(st.Target, true)
	if n == nil {
		if r, ok := c.retryUnchanged(pr); ok {
			return nil, r, false
		}
		return nil, c.lookAgain("could not find " + targetDesc(st.Target) + " on the page"), false
	}
	return n, reply{}, true
}

// retryUnchanged is what a model does when its click "succeeded" and nothing happened: the step's
// target is missing (the caller looked), the page is still at the URL it had before that click, the latest
// snapshot is the one before that click apart from its refs (sameButRefs: nothing on the page changed; a page
// that changed did something, and a model would read it rather than click again; an elided earlier snapshot
// counts as unknown, no retry), and the control it clicked is still on the page — so it clicks it again, on its ref in the latest snapshot, at most
// maxUnchangedRetries times per step; after that it looks again and gives up as before. Only clicks: a fill or a
// selection shows its value in the snapshot, a click that did nothing looks like a click that did its work
// off-screen until the next step's target fails to appear.
func (c *conv) retryUnchanged(pr *progress) (reply, bool) {
	if pr == nil || pr.doneBy == nil || pr.redos >= maxUnchangedRetries || c.snapshot == nil {
		return reply{}, false
	}
	prev := &c.task.Solution[pr.doneStep]
	if prev.Kind != kindClick {
		return reply{}, false
	}
	u := pr.doneBy.result.URL
	if u == "" || u != c.urlBefore(pr.doneBy) || c.pageURL != u {
		return reply{}, false
	}
	if before := c.snapshotBefore(pr.doneBy); before == "" || !sameButRefs(before, c.snapshot.src.YAML) {
		return reply{}, false
	}
	n := c.snapshot.find(prev.Target, true)
	if n == nil {
		return reply{}, false
	}
	return c.calls(toolCall{browser.ToolClick, map[string]any{"target": n.ref, "element": n.desc()}}), true
}

// lookAgain asks for a snapshot, or gives up with reason after maxLooks snapshots in a row.
func (c *conv) lookAgain(reason string) reply {
	if c.trailingReads() >= maxLooks {
		return c.final(finalAnswer{OK: false, Page: c.pageURL, Error: strp(reason)})
	}
	return c.calls(toolCall{browser.ToolSnapshot, map[string]any{}})
}

// answer plays an answer step: on Q&A tasks perhaps the post-answer loop, else the final answer.
func (c *conv) answer(st *suites.Step, pr *progress) reply {
	ans, ok := c.answerText(st)
	if !ok {
		if r, ok := c.retryUnchanged(pr); ok {
			return r
		}
		return c.lookAgain("the answer was not found on the page")
	}
	if c.task.Check.Answer != nil && c.offers(browser.ToolEvaluate) && c.coin(c.prof.PostAnswerLoop, "post_answer_loop", true) {
		last := c.lastTurn()
		noted := false
		if last != nil {
			for _, cl := range last.calls {
				noted = noted || cl.result.HasNote(guard.RepeatNote)
			}
		}
		if !noted || !c.coin(c.prof.HeedRepeatNote, "heed_repeat_note", false) {
			return c.calls(toolCall{browser.ToolEvaluate, map[string]any{"function": c.loopFunc(pr.loopCalls)}})
		}
	}
	return c.final(finalAnswer{OK: true, Final: ans, Page: c.pageURL})
}

// loopFunc is the j-th no-op evaluate of the post-answer loop; the pattern is drawn per attempt
// (seed 001: `() => 'ok'`, `() => document.title`, counters 'done19', 'done20' …).
func (c *conv) loopFunc(j int) string {
	switch c.rng("loop_pattern", true).IntN(4) {
	case 0:
		return "() => 'ok'"
	case 1:
		return "() => document.title"
	case 2:
		return fmt.Sprintf("() => 'done%d'", 19+j)
	}
	switch j {
	case 0:
		return "() => 'ok'"
	case 1:
		return "() => document.title"
	}
	return fmt.Sprintf("() => 'done%d'", 17+j)
}

// answerText is an answer step's value: the literal, or the first capture group of name_regex over the
// target node's name (the whole name when the regex has no group, or there is no regex).
func (c *conv) answerText(st *suites.Step) (string, bool) {
	if st.Target == nil {
		return st.Literal, st.Literal != ""
	}
	n := c.snapshot.find(st.Target, false)
	if n == nil {
		if st.Literal != "" {
			return st.Literal, true
		}
		return "", false
	}
	name := n.label()
	if st.Literal != "" {
		return st.Literal, true
	}
	if st.Target.NameRegex != "" {
		if re, err := regexp.Compile(st.Target.NameRegex); err == nil {
			if m := re.FindStringSubmatch(name); len(m) > 1 {
				return m[1], true
			}
		}
	}
	return name, true
}

// resolveURL makes a navigate step's URL absolute: absolute URLs stay; others are relative to the app root,
// derived from the first observation's URL minus the task's start path (ZOO.md: paths are relative to the
// tenant's app root).
func (c *conv) resolveURL(u string) string {
	if pu, err := url.Parse(u); err == nil && pu.IsAbs() {
		return u
	}
	root := c.appRoot()
	if root == "" {
		return u
	}
	return strings.TrimRight(root, "/") + "/" + strings.TrimLeft(u, "/")
}

var tenantRootRe = regexp.MustCompile(`^(https?://[^/]+/t/[^/]+/[^/?#]+)`)

func (c *conv) appRoot() string {
	first := c.firstURL
	if first == "" {
		return ""
	}
	first, _, _ = strings.Cut(first, "#")
	start := strings.TrimLeft(c.task.Start, "/")
	if pu, err := url.Parse(c.task.Start); err == nil && pu.IsAbs() {
		start = ""
		if fu, err := url.Parse(first); err == nil {
			return fu.Scheme + "://" + fu.Host
		}
	}
	if start != "" && strings.HasSuffix(first, "/"+start) {
		return strings.TrimSuffix(first, start)
	}
	if start == "" {
		if q := strings.IndexByte(first, '?'); q >= 0 {
			first = first[:q]
		}
		if strings.HasSuffix(first, "/") {
			return first
		}
	}
	if m := tenantRootRe.FindStringSubmatch(first); m != nil {
		return m[1]
	}
	if fu, err := url.Parse(first); err == nil && fu.Host != "" {
		return fu.Scheme + "://" + fu.Host
	}
	return ""
}

// stepDesc describes a step in words, for give-up messages.
func (c *conv) stepDesc(st *suites.Step) string {
	t := targetDesc(st.Target)
	switch st.Kind {
	case kindNavigate:
		return "open " + st.URL
	case kindPress:
		return "press " + st.Key
	case kindEvaluate:
		return "read data from the page"
	case kindAnswer:
		return "read the answer from " + t
	case kindFill:
		return "fill " + t
	case kindSelect:
		return "select in " + t
	case kindHover:
		return "hover " + t
	}
	return "click " + t
}

// targetDesc describes a target in words: `role "name"`, `role matching "regex"`, or the role.
func targetDesc(t *suites.Target) string {
	if t == nil {
		return "the target"
	}
	d := t.Role
	switch {
	case t.Name != "":
		d += " " + strconv.Quote(t.Name)
	case t.NameRegex != "":
		d += " matching " + strconv.Quote(t.NameRegex)
	}
	if t.Nth > 0 {
		d += fmt.Sprintf(" (#%d)", t.Nth+1)
	}
	return d
}

// calls is a reply with tool calls.
func (c *conv) calls(cs ...toolCall) reply { return reply{calls: cs} }

// wireName is the name under which the request offered a tool (its MCP prefix kept), else the base name.
func (c *conv) wireName(name browser.ToolName) string {
	if full, ok := c.tools[name]; ok {
		return full
	}
	return string(name)
}

// final ends the attempt: the final JSON, or Markdown prose with probability prose_final (per attempt).
func (c *conv) final(f finalAnswer) reply {
	if c.coin(c.prof.ProseFinal, "prose_final", true) {
		return reply{content: prose(f)}
	}
	return c.jsonReply(f)
}

func (c *conv) jsonReply(f finalAnswer) reply {
	b, _ := json.Marshal(f)
	return reply{content: string(b)}
}

// prose renders a final answer as Markdown prose, the way a model that ignores the JSON contract ends.
func prose(f finalAnswer) string {
	var b strings.Builder
	if f.OK {
		b.WriteString("## Done\n\nI completed the task.")
		if f.Final != "" {
			b.WriteString("\n\n**Answer:** " + f.Final)
		}
	} else {
		b.WriteString("## Could not finish\n\nI was not able to complete the task")
		if f.Error != nil {
			b.WriteString(": " + *f.Error)
		}
		b.WriteString(".")
	}
	if f.Page != "" {
		b.WriteString("\n\nLast page: " + f.Page)
	}
	return b.String()
}

func strp(s string) *string { return &s }

// looksAtPage reports whether a solution step of kind k needs the page's snapshot (its target's ref, or the
// answer's text).
func looksAtPage(k string) bool {
	switch k {
	case kindClick, kindFill, kindSelect, kindHover, kindAnswer:
		return true
	}
	return false
}
