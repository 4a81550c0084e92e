package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"webbench/suites"
)

// WebVoyager result folders: the published agent writes one folder per task, "task<Site>--<N>/", holding
// interact_messages.json (the chat with the model: [{"role", "content"}], content a string or a list of parts
// {"type": "text", "text"} / {"type": "image_url", …}) and screenshot1.png, screenshot2.png, … The first user
// message starts "Now given a task: <task>  Please interact with <url> and get the answer."; the agent's
// answer is the last assistant message's "Action: ANSWER; …" (ExtractWebVoyagerAnswer).

var (
	wvTaskRe = regexp.MustCompile(`(?s)Now given a task:(.+?)Please interact with`)
	wvURLRe  = regexp.MustCompile(`Please interact with\s+(\S+?)\s+and get the answer`)
	// wvAnswerRe: an action that is an ANSWER (the whole keyword) and its text.
	wvAnswerRe     = regexp.MustCompile(`(?s)^ANSWER(?:\s*[;:]\s*|\s+|$)(.*)$`)
	wvScreenshotRe = regexp.MustCompile(`^screenshot(\d+)\.png$`)
)

// LoadWebVoyagerFolder reads one WebVoyager result folder into a judge Input: Task.Goal is the task text
// (from the first user message), Task.Start the URL it names, Task.ID and App come from the folder name
// ("taskAmazon--0" → ID "Amazon--0", App and Cluster "Amazon"; any other name is the ID as is), Final the
// answer of the last assistant message (ExtractWebVoyagerAnswer: its last "Action: ANSWER; …"; "" when that
// message's action is no answer, and then OK is false), Screenshots every screenshotN.png in numeric order of N.
// Errors: a missing or malformed interact_messages.json; returned with the otherwise complete Input, an error
// wrapping ErrNoTaskText when no user message gives the task, else one wrapping ErrUnreadableAnswer when the
// answer cannot be read (the caller records a judge error for the folder).
func LoadWebVoyagerFolder(dir string) (Input, error) {
	var in Input
	p := filepath.Join(dir, "interact_messages.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return in, fmt.Errorf("webvoyager folder: %w", err)
	}
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &msgs); err != nil {
		return in, fmt.Errorf("%s: not a list of chat messages: %v", p, err)
	}
	task, start := "", ""
	var answerErr error
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		text := messageText(m.Content)
		if mm := wvTaskRe.FindStringSubmatch(text); mm != nil {
			task = strings.TrimSpace(mm[1])
			if u := wvURLRe.FindStringSubmatch(text); u != nil {
				start = u[1]
			}
			break
		}
	}
	var taskErr error
	if task == "" {
		taskErr = fmt.Errorf("%w: %s has no user message with \"Now given a task: … Please interact with\"", ErrNoTaskText, p)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "assistant" {
			continue
		}
		if !isMessageText(msgs[i].Content) {
			answerErr = fmt.Errorf("%w: message %d's content is neither a string nor a list of text parts", ErrUnreadableAnswer, i)
			break
		}
		in.Final, answerErr = ExtractWebVoyagerAnswer(messageText(msgs[i].Content))
		break
	}
	in.OK = in.Final != ""

	id := filepath.Base(filepath.Clean(dir))
	if tid, ok := WebVoyagerTaskID(id); ok {
		id = tid
	}
	site := id
	if i := strings.LastIndex(id, "--"); i > 0 {
		site = id[:i]
	}
	in.Task = suites.Task{ID: id, Suite: "webvoyager", App: site, Cluster: site, Goal: task, Start: start, Source: p}

	ents, err := os.ReadDir(dir)
	if err != nil {
		return in, fmt.Errorf("webvoyager folder: %w", err)
	}
	type shot struct {
		n    int
		name string
	}
	var shots []shot
	for _, e := range ents {
		if m := wvScreenshotRe.FindStringSubmatch(e.Name()); m != nil && !e.IsDir() {
			n, _ := strconv.Atoi(m[1])
			shots = append(shots, shot{n, e.Name()})
		}
	}
	sort.Slice(shots, func(i, j int) bool { return shots[i].n < shots[j].n })
	for _, s := range shots {
		img, err := os.ReadFile(filepath.Join(dir, s.name))
		if err != nil {
			return in, fmt.Errorf("webvoyager folder: %w", err)
		}
		in.Screenshots = append(in.Screenshots, img)
	}
	if taskErr != nil && answerErr != nil {
		return in, errors.Join(taskErr, fmt.Errorf("%s: %w", p, answerErr))
	}
	if taskErr != nil {
		return in, taskErr
	}
	if answerErr != nil {
		return in, fmt.Errorf("%s: %w", p, answerErr)
	}
	return in, nil
}

// ErrUnreadableAnswer is returned (wrapped) by ExtractWebVoyagerAnswer, and by LoadWebVoyagerFolder with an
// otherwise complete Input, when the last assistant message names an ANSWER action that cannot be told apart
// from the rest: its last action is neither an answer nor one of the published agent's other actions. A judge
// records that as a judge error, not as a failed attempt.
var ErrUnreadableAnswer = errors.New("the last message names an ANSWER action that cannot be read")

// ErrNoTaskText is wrapped by LoadWebVoyagerFolder's error, returned with the otherwise complete Input (Goal
// and Start empty), when no user message of the folder gives the task ("Now given a task: …"): a caller that
// has the question from a tasks file judges with it, any other records a judge error for the folder.
var ErrNoTaskText = errors.New("no task text")

var (
	// wvMarkerRe: the published agent's markers (run.py: pattern = r'Thought:|Action:|Observation:'), with
	// Markdown emphasis around the word or the colon allowed ("**Action:**", "__Action__:").
	wvMarkerRe = regexp.MustCompile(`(?:\*\*|__)?\b(Thought|Action|Observation)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?`)
	// wvOtherActionRe: the published agent's other actions (utils.py extract_information: Click, Type, Scroll,
	// Wait, GoBack, Google).
	wvOtherActionRe = regexp.MustCompile(`^(?:Click|Type|Scroll|Wait|GoBack|Google)\b`)
	// wvAnyAnswerRe: an ANSWER action anywhere in a message.
	wvAnyAnswerRe = regexp.MustCompile(`\bAction[*_]*[ \t]*:[*_\s]*ANSWER\b`)
)

// ExtractWebVoyagerAnswer returns the answer of a WebVoyager assistant message. The published agent
// (MinorJerry/WebVoyager run.py, commit 0915445: re.split(r'Thought:|Action:|Observation:', res)[2], then
// utils.py extract_information's `ANSWER[; ]+\[?(.[^\]]*)\]?`) reads the text after the first "Action:"
// marker; here the action is the text after the message's LAST "Action:" marker — inline after a sentence or
// at a line start, Markdown emphasis allowed — up to the next "Thought:" or "Observation:" marker, so that an
// "Action: ANSWER; x" quoted in the thought of a message whose action is a Click is not taken for an answer
// (the published agent would have executed that ANSWER). When that action's keyword is
// ANSWER — the whole word: "ANSWERED" is not it — the answer is the rest of the action, a ";" or ":" after the
// keyword and one pair of surrounding brackets removed ("" for a bare ANSWER). "" with a nil error when the
// action is another one (Click, Type, Scroll, Wait, GoBack, Google) or the message has no ANSWER action at all.
// An error wrapping ErrUnreadableAnswer when the message has an ANSWER action but its last action is
// something else (e.g. a multi-line answer with a later line starting "Action:"): the caller cannot tell.
func ExtractWebVoyagerAnswer(msg string) (string, error) {
	msg = strings.ReplaceAll(msg, "\r\n", "\n")
	marks := wvMarkerRe.FindAllStringSubmatchIndex(msg, -1)
	last := -1
	for i, m := range marks {
		if msg[m[2]:m[3]] == "Action" {
			last = i
		}
	}
	if last < 0 {
		if wvAnyAnswerRe.MatchString(msg) {
			return "", fmt.Errorf("%w: no Action marker", ErrUnreadableAnswer)
		}
		return "", nil
	}
	end := len(msg)
	if last+1 < len(marks) {
		end = marks[last+1][0]
	}
	action := strings.TrimLeft(msg[marks[last][1]:end], " \t\n*_")
	am := wvAnswerRe.FindStringSubmatch(action)
	if am == nil {
		if wvOtherActionRe.MatchString(action) || !wvAnyAnswerRe.MatchString(msg) {
			return "", nil
		}
		return "", fmt.Errorf("%w: its last action is %q", ErrUnreadableAnswer, cut(firstLineOf(action), 40))
	}
	a := strings.TrimSpace(am[1])
	if strings.HasPrefix(a, "[") && strings.HasSuffix(a, "]") && strings.Count(a, "[") == 1 {
		a = strings.TrimSpace(a[1 : len(a)-1])
	}
	return a, nil
}

// isMessageText reports whether raw is a chat message content messageText can read: a string or a list of parts.
func isMessageText(raw json.RawMessage) bool {
	var s string
	var parts []json.RawMessage
	return json.Unmarshal(raw, &s) == nil || json.Unmarshal(raw, &parts) == nil
}

// messageText is a chat message's text: the string content, or its text parts joined by newlines.
func messageText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			if p.Type == "text" {
				out = append(out, p.Text)
			}
		}
		return strings.Join(out, "\n")
	}
	return ""
}

// ListWebVoyagerFolders returns the WebVoyager result folders under root, sorted (site, then task number):
// root itself when it holds interact_messages.json, else its subdirectories that do. An error when there are
// none.
func ListWebVoyagerFolders(root string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(root, "interact_messages.json")); err == nil {
		return []string{root}, nil
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, e.Name(), "interact_messages.json")); err == nil {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, errors.New(root + ": no WebVoyager result folders (interact_messages.json) in it")
	}
	key := func(p string) (string, int) {
		b := filepath.Base(p)
		if i := strings.LastIndex(b, "--"); i >= 0 {
			if n, err := strconv.Atoi(b[i+2:]); err == nil {
				return b[:i], n
			}
		}
		return b, -1
	}
	sort.Slice(out, func(i, j int) bool {
		si, ni := key(out[i])
		sj, nj := key(out[j])
		if si != sj {
			return si < sj
		}
		if ni != nj {
			return ni < nj
		}
		return out[i] < out[j]
	})
	return out, nil
}

// cut is s cut to n runes, "…" marking the cut.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// wvFolderNameRe: a result folder's name as WebVoyager writes it, "task<Site>--<N>", in any letter case, with a
// copy's suffix a file manager or a re-run adds (" (2)", "_2", " copy", "-copy").
var wvFolderNameRe = regexp.MustCompile(`(?i)^task(.+?--\d+)(?:\s*\(\d+\)|_\d+| copy(?: \d+)?|-copy)?$`)

// WebVoyagerTaskID is the task id a result folder's name gives ("taskAmazon--0", "taskAmazon--0 (2)" and
// "taskamazon--0_1" give "Amazon--0" and "amazon--0": letter case is the caller's to fold, LookupTask); ok is
// false for any other name.
func WebVoyagerTaskID(folder string) (id string, ok bool) {
	m := wvFolderNameRe.FindStringSubmatch(strings.TrimSpace(folder))
	if m == nil {
		return "", false
	}
	return m[1], true
}

// LookupTask finds the task id in tasks: exactly, else ignoring letter case ("apple--17" is Apple--17). ok is
// false when no task has that id.
func LookupTask(tasks map[string]suites.Task, id string) (suites.Task, bool) {
	if t, ok := tasks[id]; ok {
		return t, true
	}
	for k, t := range tasks {
		if strings.EqualFold(k, id) {
			return t, true
		}
	}
	return suites.Task{}, false
}
