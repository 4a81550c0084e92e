package scripted

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"strings"

	"webbench/agent"
	"webbench/browser"
	"webbench/suites"

	openai "github.com/sashabaranov/go-openai"
)

// call is one tool call of an assistant message, with the model-facing result the agent sent back (read with
// browser.ParseResult, the inverse of the agent's formatting).
type call struct {
	id, name  string           // name as sent
	base      browser.ToolName // without any MCP prefix
	argsRaw   string
	args      map[string]any
	result    browser.Result
	hasResult bool
	msg       int // index of the tool message holding the result
	turnMsg   int // index of the assistant message that made the call
}

func (c *call) failed() bool { return c.hasResult && c.result.IsError() }

func (c *call) str(key string) string {
	s, _ := c.args[key].(string)
	return s
}

// turn is one assistant message (one "step").
type turn struct {
	msg     int
	content string
	calls   []*call
}

// conv is a request read the way a model reads it: the task, the assistant's own messages and tool calls, the
// tool results, the latest snapshot and page URL, and the tools on offer.
type conv struct {
	msgs     []openai.ChatCompletionMessage
	texts    []string // content of each message (text parts joined)
	seed     int64
	task     *suites.Task
	goal     string
	turns    []*turn
	step     int                         // number of assistant messages so far
	tools    map[browser.ToolName]string // offered: base name → name as offered
	results  []*browser.Result           // each user and tool message read with browser.ParseResult; nil for others
	snapText string                      // the latest whole snapshot YAML ("" when none); a diff is merged onto the one before
	snapMsg  int                         // message holding it
	snapURL  string                      // the page URL of that message's result
	// whole is, per message, the whole snapshot its result shows: its own, or, for a diff (observation mode
	// diff), the one before with the diff applied ("" for none, an elided one, or a diff with no base).
	whole []string
	// obsNone is set when the task message says observation mode none (agent.ObservationHeading): results show
	// no snapshot, so the policy asks for one when its view is out of date, as a model told so would.
	obsNone  bool
	snapshot *snap
	pageURL  string
	firstURL string
	prof     Profile
	// bare is set when the task was recognised from a first user message with no observation (the goal alone,
	// or "Task: <goal>" alone): an external agent's start. taskMsg is that message's index.
	bare    bool
	taskMsg int
}

// lastWhole returns the last snapshot of a result that was not elided.
func lastWhole(r *browser.Result) (string, bool) {
	if r.Refreshed != nil && !r.Refreshed.Elided {
		return r.Refreshed.YAML, true
	}
	if r.Snapshot.YAML != "" {
		return r.Snapshot.YAML, true
	}
	return "", false
}

// hasSnapshot reports whether a result shows a snapshot section, whole or elided.
func hasSnapshot(r *browser.Result) bool {
	return r.Snapshot.YAML != "" || r.Snapshot.Elided || r.Refreshed != nil
}

func messageText(m openai.ChatCompletionMessage) string {
	if m.Content != "" || len(m.MultiContent) == 0 {
		return m.Content
	}
	var parts []string
	for _, p := range m.MultiContent {
		if p.Type == openai.ChatMessagePartTypeText {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// readUser reads the user message i (its text, and res parsed from it): the task message ("Task: …" and the
// first observation), or, before any other user message, the goal alone (trimmed, exact) from an external
// agent that sends no observation.
func (c *conv) readUser(i int, text string, res *browser.Result, tasks map[string]*suites.Task, seenUser bool) {
	if c.task == nil && c.goal == "" && strings.HasPrefix(text, agent.TaskLead) {
		c.goal, c.task = findTask(text, tasks)
		c.taskMsg = i
		if res.URL != "" || res.Title != "" {
			c.firstURL = res.URL
		}
		c.bare = c.task != nil && res.URL == "" && res.Title == "" && !hasSnapshot(res)
		for _, n := range res.Notes {
			c.obsNone = c.obsNone || n.Heading == agent.ObservationHeading &&
				strings.HasPrefix(n.Body, string(agent.ObserveNone)+":")
		}
	} else if c.task == nil && c.goal == "" && !seenUser {
		// The goal alone (trimmed, exact): an external agent that sends no observation.
		if t := tasks[strings.TrimSpace(text)]; t != nil {
			c.goal, c.task, c.taskMsg, c.bare = strings.TrimSpace(text), t, i, true
		}
	}
}

// attachResult records the tool message i (res parsed from it) as the result of cl, the call its tool_call_id
// names; with no such call (or one already answered), of the first call of the latest turn still without a
// result.
func (c *conv) attachResult(cl *call, res *browser.Result, i int) {
	if cl == nil || cl.hasResult {
		cl = nil
		// No (or a reused) id: the first call of the latest turn still without a result.
		if n := len(c.turns); n > 0 {
			for _, x := range c.turns[n-1].calls {
				if !x.hasResult {
					cl = x
					break
				}
			}
		}
	}
	if cl != nil {
		cl.result, cl.hasResult, cl.msg = *res, true, i
	}
}

// readPage takes in the page a user or tool message i shows (res): the first page after a bare task message,
// the latest whole snapshot (a snapshot diff applied to the one before), and the page's URL.
func (c *conv) readPage(i int, res *browser.Result) {
	if c.bare && c.firstURL == "" && i > c.taskMsg && (res.URL != "" || res.Title != "") {
		// The first page the conversation shows after a bare task message stands for the first
		// observation (appRoot resolves the solution's relative URLs against it).
		c.firstURL = res.URL
	}
	if y, ok := lastWhole(res); ok {
		if browser.IsSnapshotDiff(y) {
			merged, ok := browser.ApplySnapshotDiff(c.snapText, y)
			if !ok || c.snapText == "" {
				merged = ""
			}
			y = merged
		}
		c.snapText, c.snapMsg, c.snapURL = y, i, res.URL
		c.whole[i] = y
	}
	if res.URL != "" || res.Title != "" {
		c.pageURL = res.URL
	}
}

// readConv parses a request. tasks maps trimmed goal texts to tasks.
func readConv(req *openai.ChatCompletionRequest, tasks map[string]*suites.Task, prof Profile) *conv {
	c := &conv{msgs: req.Messages, tools: map[browser.ToolName]string{}, snapMsg: -1, prof: prof}
	if req.Seed != nil {
		c.seed = int64(*req.Seed)
	}
	for _, t := range req.Tools {
		if t.Function != nil {
			c.tools[browser.BaseName(t.Function.Name)] = t.Function.Name
		}
	}
	byID := map[string]*call{}
	seenUser := false
	for i, m := range req.Messages {
		text := messageText(m)
		c.texts = append(c.texts, text)
		c.whole = append(c.whole, "")
		var res *browser.Result
		if m.Role == openai.ChatMessageRoleUser || m.Role == openai.ChatMessageRoleTool {
			r := browser.ParseResult(text)
			res = &r
		}
		c.results = append(c.results, res)
		switch m.Role {
		case openai.ChatMessageRoleUser:
			c.readUser(i, text, res, tasks, seenUser)
			seenUser = true
		case openai.ChatMessageRoleAssistant:
			t := &turn{msg: i, content: text}
			for _, tc := range m.ToolCalls {
				cl := &call{id: tc.ID, name: tc.Function.Name, base: browser.BaseName(tc.Function.Name),
					argsRaw: tc.Function.Arguments, args: map[string]any{}, msg: -1, turnMsg: i}
				_ = json.Unmarshal([]byte(tc.Function.Arguments), &cl.args)
				t.calls = append(t.calls, cl)
				if tc.ID != "" {
					byID[tc.ID] = cl
				}
			}
			c.turns = append(c.turns, t)
		case openai.ChatMessageRoleTool:
			c.attachResult(byID[m.ToolCallID], res, i)
		}
		if res != nil {
			c.readPage(i, res)
		}
	}
	if c.task == nil && c.goal == "" {
		c.goalWithin(tasks)
	}
	c.step = len(c.turns)
	if c.snapMsg >= 0 {
		c.snapshot = parseSnapshot(c.snapText)
	}
	return c
}

// goalWithin is the last way to recognise the task, for an external agent that wraps the goal in its own
// words ("Your task: <goal>. Use the browser tools.") or puts it in the system prompt: the longest task goal
// contained verbatim in a system, developer or user message before the first assistant message. A page the
// same message shows is the first observation; else, as for a bare goal, the policy asks for a snapshot first
// and the first page shown later stands for it.
func (c *conv) goalWithin(tasks map[string]*suites.Task) {
	best, at := "", -1
	for i, m := range c.msgs {
		if m.Role == openai.ChatMessageRoleAssistant {
			break
		}
		if m.Role != openai.ChatMessageRoleSystem && m.Role != openai.ChatMessageRoleDeveloper &&
			m.Role != openai.ChatMessageRoleUser {
			continue
		}
		for g := range tasks {
			if (len(g) > len(best) || len(g) == len(best) && g < best) && strings.Contains(c.texts[i], g) {
				best, at = g, i
			}
		}
	}
	if at < 0 {
		return
	}
	c.goal, c.task, c.taskMsg = best, tasks[best], at
	if r := c.results[at]; r != nil && (r.URL != "" || r.Title != "") {
		c.firstURL = r.URL
		return
	}
	c.bare = true
	for i := at + 1; i < len(c.results); i++ {
		if r := c.results[i]; r != nil && (r.URL != "" || r.Title != "") {
			c.firstURL = r.URL
			break
		}
	}
}

// findTask recognises the task by its goal: the text after agent.TaskLead up to the first blank line (or the first
// line), trimmed, compared exactly.
func findTask(text string, tasks map[string]*suites.Task) (string, *suites.Task) {
	body := strings.TrimPrefix(text, agent.TaskLead)
	body = strings.ReplaceAll(body, "\r\n", "\n")
	candidates := []string{}
	if i := strings.Index(body, "\n\n"); i >= 0 {
		candidates = append(candidates, strings.TrimSpace(body[:i]))
	} else {
		candidates = append(candidates, strings.TrimSpace(body))
	}
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		candidates = append(candidates, strings.TrimSpace(body[:i]))
	}
	for _, g := range candidates {
		if t := tasks[g]; t != nil {
			return g, t
		}
	}
	return candidates[0], nil
}

// lastTurn is the latest assistant message when the conversation has only tool (or system) messages after it,
// i.e. the policy is being asked to react to its results; nil otherwise.
func (c *conv) lastTurn() *turn {
	if len(c.turns) == 0 {
		return nil
	}
	t := c.turns[len(c.turns)-1]
	for i := t.msg + 1; i < len(c.msgs); i++ {
		if r := c.msgs[i].Role; r != openai.ChatMessageRoleTool && r != openai.ChatMessageRoleSystem {
			return nil
		}
	}
	return t
}

// lastNonSystem returns the role and text of the last message that is not a system message.
func (c *conv) lastNonSystem() (string, string) {
	for i := len(c.msgs) - 1; i >= 0; i-- {
		if c.msgs[i].Role != openai.ChatMessageRoleSystem {
			return c.msgs[i].Role, c.texts[i]
		}
	}
	return "", ""
}

// urlBefore is the page URL the conversation showed before the assistant message that made cl ("" when none).
func (c *conv) urlBefore(cl *call) string {
	for i := cl.turnMsg - 1; i >= 0; i-- {
		if r := c.results[i]; r != nil && r.URL != "" {
			return r.URL
		}
	}
	return ""
}

// snapshotBefore is the YAML of the latest whole snapshot the conversation showed before call cl's turn (a
// refreshed snapshot after an error counts; a diff counts merged, conv.whole); "" when there is none or it was
// elided.
func (c *conv) snapshotBefore(cl *call) string {
	for i := cl.turnMsg - 1; i >= 0; i-- {
		r := c.results[i]
		switch {
		case r == nil:
		case r.Refreshed != nil || r.Snapshot.YAML != "":
			return c.whole[i]
		case r.Snapshot.Elided:
			return ""
		}
	}
	return ""
}

// refAttr is a snapshot line's ref attribute (" [ref=…]"), the only part of a snapshot that changes when the
// page re-renders the same content.
var refAttr = regexp.MustCompile(` ?\[ref=[^\]]*\]`)

// sameButRefs reports whether two snapshots are equal once their refs are removed.
func sameButRefs(a, b string) bool {
	return refAttr.ReplaceAllString(a, "") == refAttr.ReplaceAllString(b, "")
}

// snapshotAfter reports whether a snapshot section (whole or elided) follows the error of message msg: in that
// result itself (a refreshed snapshot) or in a later user or tool message (a fresh view after an error).
func (c *conv) snapshotAfter(msg int) bool {
	for i := msg; i < len(c.msgs); i++ {
		if r := c.results[i]; r != nil && hasSnapshot(r) {
			return true
		}
	}
	return false
}

// rng returns the PRNG for one draw: seeded from (request seed, step, purpose); perAttempt draws use step -1,
// so they are the same for every request of an attempt.
func (c *conv) rng(purpose string, perAttempt bool) *rand.Rand {
	step := int64(c.step)
	if perAttempt {
		step = -1
	}
	h := fnv.New64a()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(c.seed))
	binary.LittleEndian.PutUint64(b[8:], uint64(step))
	h.Write(b[:])
	h.Write([]byte(purpose))
	s1 := h.Sum64()
	h.Write([]byte{0x5c})
	return rand.New(rand.NewPCG(s1, h.Sum64()))
}

// coin draws true with probability p (p=1 always true, p=0 never).
func (c *conv) coin(p float64, purpose string, perAttempt bool) bool {
	return c.rng(purpose, perAttempt).Float64() < p
}

// trailingReads counts the latest assistant messages, newest first, whose calls are all read-only tools
// (browser.Tool.ReadOnly: browser_snapshot, browser_wait_for …): how long the policy has been only looking.
func (c *conv) trailingReads() int {
	n := 0
	for i := len(c.turns) - 1; i >= 0; i-- {
		t := c.turns[i]
		if len(t.calls) == 0 {
			break
		}
		for _, cl := range t.calls {
			if def, _ := browser.LookupTool(string(cl.base)); !def.ReadOnly {
				return n
			}
		}
		n++
	}
	return n
}

// staleView reports, in observation mode none, whether the latest snapshot is out of date: there is none, the
// page URL changed since it, or (answer true, before reading an answer off it) a successful call that acts on the
// page came after it.
func (c *conv) staleView(answer bool) bool {
	if c.snapMsg < 0 || c.pageURL != c.snapURL {
		return true
	}
	if !answer {
		return false
	}
	for _, t := range c.turns {
		for _, cl := range t.calls {
			def, _ := browser.LookupTool(string(cl.base))
			if cl.msg > c.snapMsg && cl.hasResult && !cl.failed() && !def.ReadOnly {
				return true
			}
		}
	}
	return false
}
