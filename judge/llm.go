package judge

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"webbench/llm"
)

// DefaultScreenshots is how many of the last screenshots the LLM judge sees when NewLLM gets k <= 0 (the
// value WebVoyager's evaluations use).
const DefaultScreenshots = 15

// llmSeed is the seed of every judge call (WebVoyager's auto_eval.py sends seed=42); Config.NoSeed drops it.
const llmSeed = 42

// LLM is the WebVoyager judge protocol (He et al., 2024, §4 and the published evaluation/auto_eval.py): a
// vision model is shown the task, the agent's final answer and the last k screenshots (oldest first), at
// temperature 0, and must end with a verdict of SUCCESS or NOT SUCCESS. The screenshots are evidence that
// outranks the answer where they disagree; content the answer gives that the screenshots do not show is
// believed. The prompt is this package's own wording of that protocol.
//
// Verdicts: SUCCESS → pass; NOT SUCCESS → fail; a reply with neither (or with both on the verdict line) is a
// judge error (Verdict.Error set), never a pass. An empty final answer fails without a model call, as in
// auto_eval.py ("no answer"). Verdict.Reason is the judge's whole reply. A failed model call is returned as
// an error (infrastructure), never as a verdict.
type LLM struct {
	client *llm.Client
	k      int
}

func init() { Register("llm", newLLMFromOptions) }

// newLLMFromOptions is the llm judge's factory: a client for opts.Model ("openai:NAME") at opts.BaseURL, key
// from opts.KeyEnv, showing the last opts.Screenshots screenshots.
func newLLMFromOptions(opts Options) (Judge, error) {
	kind, name, _ := strings.Cut(opts.Model, ":")
	if kind != "openai" || name == "" {
		return nil, fmt.Errorf("--judge llm needs --judge-model openai:NAME (and --judge-base-url)")
	}
	base := opts.BaseURL
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	cl, err := llm.New(llm.Config{Model: name, BaseURL: base, APIKeyEnv: opts.KeyEnv})
	if err != nil {
		return nil, err
	}
	return NewLLM(cl, opts.Screenshots), nil
}

// NewLLM builds the judge over client, showing the last k screenshots (k <= 0 means DefaultScreenshots).
func NewLLM(client *llm.Client, k int) *LLM {
	if k <= 0 {
		k = DefaultScreenshots
	}
	return &LLM{client: client, k: k}
}

// Name is "llm".
func (*LLM) Name() string { return "llm" }

// K is the number of last screenshots shown.
func (j *LLM) K() int { return j.k }

const llmSystemPrompt = `You grade the work of an automated web-browsing agent. For one attempt you receive:

1. The task: an instruction in natural language for something to do or find on a website (search, look up,
   compare, check availability, fill a form, and so on).
2. The agent's final answer: the text the agent reported when it stopped browsing.
3. Screenshots: the last pages the agent saw, oldest first. They are real captures of the browser.

How to judge:
- Do not try to carry out the task yourself; judge only what the answer and the screenshots show.
- Do not assume facts that neither the screenshots nor the answer contain.
- Every part of the task counts. If the task asks for several things (for example, find an item and report two
  of its properties) and any one is missing or wrong, the attempt is not a success.
- Where the answer contradicts the screenshots, trust the screenshots.
- Where the answer states something the screenshots do not show (the agent may have read it on an earlier page),
  accept it unless the screenshots contradict it.
- Constraints in the task (dates, prices, ratings, sizes, counts, sort orders) must be met by what the agent
  chose, not just mentioned.

First explain your reasoning briefly. Then end your reply with one last line that is exactly one of:
VERDICT: SUCCESS
VERDICT: NOT SUCCESS`

// Judge implements Judge.
func (j *LLM) Judge(ctx context.Context, in Input) (Verdict, error) {
	v := Verdict{Judge: j.Name()}
	final := strings.TrimSpace(in.Final)
	if final == "" {
		v.Reason = "no final answer (WebVoyager protocol: an attempt without an answer is not a success)"
		return v, nil
	}
	shots := in.Screenshots
	if len(shots) > j.k {
		shots = shots[len(shots)-j.k:]
	}
	resp, err := j.client.Chat(ctx, llm.Request{Messages: LLMMessages(in.Task.Goal, final, shots),
		Temperature: new(float32), Seed: seedPtr()})
	if err != nil {
		return v, fmt.Errorf("llm judge: %w", err)
	}
	reply := strings.TrimSpace(resp.Message.Content)
	v.Reason = reply
	pass, ok := ParseVerdict(reply)
	if !ok {
		v.Error = "judge reply has no verdict line (SUCCESS or NOT SUCCESS): " + clip(firstLineOf(reply))
		return v, nil
	}
	v.Pass = pass
	return v, nil
}

// JudgeWithReference implements ReferenceJudge: the answer judge's fallback. The model sees the task, the
// answer, the reference answer, the rule the answer judge checked and its doubt, and the last screenshots; it
// decides whether the answer states the reference. Verdicts as Judge.
func (j *LLM) JudgeWithReference(ctx context.Context, in Input, ref Reference) (Verdict, error) {
	v := Verdict{Judge: j.Name()}
	final := strings.TrimSpace(in.Final)
	if final == "" {
		v.Reason = "no final answer"
		return v, nil
	}
	shots := in.Screenshots
	if len(shots) > j.k {
		shots = shots[len(shots)-j.k:]
	}
	resp, err := j.client.Chat(ctx, llm.Request{Messages: LLMReferenceMessages(in.Task.Goal, final, ref, shots),
		Temperature: new(float32), Seed: seedPtr()})
	if err != nil {
		return v, fmt.Errorf("llm judge: %w", err)
	}
	reply := strings.TrimSpace(resp.Message.Content)
	v.Reason = reply
	pass, ok := ParseVerdict(reply)
	if !ok {
		v.Error = "judge reply has no verdict line (SUCCESS or NOT SUCCESS): " + clip(firstLineOf(reply))
		return v, nil
	}
	v.Pass = pass
	return v, nil
}

var _ ReferenceJudge = (*LLM)(nil)

const llmReferenceSystemPrompt = `You grade the final answer of an automated web-browsing agent against the benchmark's reference
answer. For one attempt you receive the task, the agent's final answer, the reference answer (what the benchmark
records as correct), the rule an automatic checker applied, the reason that checker could not decide, and
possibly screenshots of the last pages the agent saw.

How to judge:
- The answer succeeds when it states what the reference states: paraphrases, other units or formats of the same
  value (within the reference's precision), other word order and extra context are fine.
- The answer does not succeed when it states a different value or item as its answer, hedges between the
  reference and something else, negates or takes back the reference, gives only a bound ("more than 12") where
  the reference is exact, adds wrong items to a list, or leaves out a part the task asks for.
- The checker's doubt tells you where to look; decide it, do not repeat it.
- Use the screenshots, if any, only to understand the answer; the reference decides what is correct.

First explain your reasoning briefly. Then end your reply with one last line that is exactly one of:
VERDICT: SUCCESS
VERDICT: NOT SUCCESS`

// LLMReferenceMessages builds the fallback conversation of JudgeWithReference: the reference system prompt,
// then one user message with the task, the answer, the reference answer, the rule and the doubt, the
// screenshots (oldest first) and a closing text part.
func LLMReferenceMessages(task, answer string, ref Reference, screenshots [][]byte) []openai.ChatCompletionMessage {
	intro := fmt.Sprintf("TASK: %s\n\nFINAL ANSWER OF THE AGENT: %s\n\nREFERENCE ANSWER: %s\n\n", task, answer, ref.Answer)
	if ref.Rule != "" && ref.Rule != ref.Answer {
		intro += fmt.Sprintf("RULE THE CHECKER APPLIED: %s\n\n", ref.Rule)
	}
	if ref.Doubt != "" {
		intro += fmt.Sprintf("WHY THE CHECKER COULD NOT DECIDE: %s\n\n", ref.Doubt)
	}
	return judgeConversation(llmReferenceSystemPrompt, intro, screenshots)
}

// Preflight sends one judge request for a made-up attempt without screenshots — the judge's own request
// shape (temperature 0, its seed), so what the endpoint refuses in it is found before any verdict — and
// returns the call's error (*llm.Error), nil when the endpoint answered. The reply itself is not judged.
func (j *LLM) Preflight(ctx context.Context) error {
	_, err := j.client.Chat(ctx, llm.Request{Messages: LLMMessages("Open the home page of example.com.",
		"The home page of example.com is open.", nil), Temperature: new(float32), Seed: seedPtr()})
	if err != nil {
		return fmt.Errorf("llm judge: %w", err)
	}
	return nil
}

var _ Preflighter = (*LLM)(nil)

func seedPtr() *int { s := llmSeed; return &s }

// LLMMessages builds the judge's conversation: the system prompt, then one user message whose parts are the
// task and answer text, each screenshot as an image part (a data: URL, oldest first), and a closing text part.
func LLMMessages(task, answer string, screenshots [][]byte) []openai.ChatCompletionMessage {
	intro := fmt.Sprintf("TASK: %s\n\nFINAL ANSWER OF THE AGENT: %s\n\n", task, answer)
	return judgeConversation(llmSystemPrompt, intro, screenshots)
}

// judgeConversation is the judge's conversation: the system prompt, then one user message whose parts are intro
// (the text before the screenshots) with a line saying how many screenshots follow, each screenshot as an image
// part (a data: URL, oldest first), and a closing text part asking for the reasoning and the verdict line.
func judgeConversation(system, intro string, screenshots [][]byte) []openai.ChatCompletionMessage {
	if len(screenshots) == 0 {
		intro += "No screenshots were recorded for this attempt."
	} else {
		intro += fmt.Sprintf("The last %d screenshot(s) of the attempt follow, oldest first.", len(screenshots))
	}
	parts := []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: intro}}
	for _, b := range screenshots {
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
			ImageURL: &openai.ChatMessageImageURL{URL: DataURL(b)}})
	}
	parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText,
		Text: "Your reasoning, then the verdict line:"})
	return []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: system},
		{Role: openai.ChatMessageRoleUser, MultiContent: parts},
	}
}

// DataURL encodes an image as a data: URL, its media type sniffed from the bytes (image/png for PNG).
func DataURL(b []byte) string {
	mt := http.DetectContentType(b)
	if !strings.HasPrefix(mt, "image/") {
		mt = "image/png"
	}
	return "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(b)
}

var (
	// verdictLineRe: a line that states the verdict, e.g. "VERDICT: NOT SUCCESS", "**Verdict:** SUCCESS",
	// "Final verdict - success".
	verdictLineRe = regexp.MustCompile(`(?i)^[\s*_#>-]*(?:final\s+)?verdict[\s*_]*[:\-–]?[\s*_]*(not[\s_-]+success|success)\b`)
	// bareRe: a line that is only the verdict, e.g. "SUCCESS", "**NOT SUCCESS**", "NOT SUCCESS."
	bareRe = regexp.MustCompile(`(?i)^[\s*_#>"'-]*(not[\s_-]+success|success)[\s*_."'!]*$`)
	// tokenRe: the verdict words in capitals anywhere on a line.
	tokenRe = regexp.MustCompile(`\bNOT[\s_-]+SUCCESS\b|\bSUCCESS\b`)
)

// ParseVerdict reads the verdict of a judge reply: ok is false when there is none. The verdict is taken from
// the last line that states it ("VERDICT: …", any case, Markdown emphasis allowed), else from the last line
// that is only the verdict words, else from the last non-empty line if it carries the capitalised verdict
// words of exactly one kind ("… the task is NOT SUCCESS."). "NOT SUCCESS" contains "SUCCESS": each line is
// matched as a whole, never by substring, and a line with both is not a verdict.
func ParseVerdict(reply string) (pass, ok bool) {
	lines := strings.Split(strings.ReplaceAll(reply, "\r\n", "\n"), "\n")
	word := func(m string) bool { return !strings.HasPrefix(strings.ToLower(m), "not") }
	for i := len(lines) - 1; i >= 0; i-- {
		if m := verdictLineRe.FindStringSubmatch(lines[i]); m != nil {
			return word(m[1]), true
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if m := bareRe.FindStringSubmatch(lines[i]); m != nil {
			return word(m[1]), true
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		kinds := map[bool]bool{}
		for _, m := range tokenRe.FindAllString(l, -1) {
			kinds[word(m)] = true
		}
		if len(kinds) == 1 {
			for k := range kinds {
				return k, true
			}
		}
		break
	}
	return false, false
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
