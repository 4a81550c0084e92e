package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Exit codes of a Diagnosis beside the error classes' own (ErrorClass.ExitCode): the process exit codes bench
// doctor ends with.
const (
	// DiagnosisNoTools: the endpoint answered, but without a tool call (the agent cannot run on it).
	DiagnosisNoTools = 1
	// DiagnosisUnreachable: no usable answer after the retries (rate limited or unreachable).
	DiagnosisUnreachable = 3
)

// Diagnosis is what one preflight found about an endpoint, for printing (bench doctor; its --json output).
// The API key itself is never part of it.
type Diagnosis struct {
	// Endpoint and Model are the configuration's base URL and model name.
	Endpoint string `json:"endpoint"`
	Model    string `json:"model"`
	// APIKeyEnv names the environment variable the key is read from; APIKeySet: it is set (non-empty).
	APIKeyEnv string `json:"api_key_env"`
	APIKeySet bool   `json:"api_key_set"`
	// Capabilities is what the preflight found (nil when Preflight returned none).
	Capabilities *Capabilities `json:"capabilities,omitempty"`
	// MaxTokensField is the field a completion cap goes out in under this configuration
	// (Config.MaxTokensFieldFor), also when none is configured; OmitsMaxTokens: omit has max_tokens.
	MaxTokensField string `json:"max_tokens_field"`
	OmitsMaxTokens bool   `json:"omits_max_tokens,omitempty"`
	// Error is the preflight's error, nil when it succeeded.
	Error *DiagnosisError `json:"error,omitempty"`
	// ExitCode is the process exit code the finding calls for: 0 ready, DiagnosisNoTools, the error class's
	// (ErrorClass.ExitCode; a context overflow counts as a config error), else DiagnosisUnreachable.
	ExitCode int `json:"exit_code"`
}

// DiagnosisError is a failed preflight's *Error, for printing.
type DiagnosisError struct {
	// Class is the error's class (Error.Class).
	Class ErrorClass `json:"class"`
	// Status is the HTTP status (0: no HTTP answer).
	Status int `json:"status,omitempty"`
	// Type and Code are the error body's type and code fields, as sent.
	Type string `json:"type,omitempty"`
	Code string `json:"code,omitempty"`
	// Message is the server's message, or the transport error's text when there was none.
	Message string `json:"message"`
	// Hint says what to change (Error.Hint; for a context overflow, Diagnose's overflowHint).
	Hint string `json:"hint,omitempty"`
}

// Diagnose sends client's preflight (Client.Preflight) and, when it answered with a tool call, a second turn
// (secondTurn): the call and its result sent back with any reasoning and provider fields, as every later turn
// of a run does, so that what a single preflight cannot show (an endpoint refusing what webbench echoes, a
// history it cannot parse) shows before a run. Provider failures inside a 200 are errors Chat retries, so
// they are retried before anything is advised. It says what it found, with the exit code that calls for.
// overflowHint replaces the hint of a context overflow (in the returned error too: one hint wherever it is
// printed): even the small check does not fit, so a run would stop at its first call, as on a configuration
// error. The error is returned unredacted.
func Diagnose(ctx context.Context, client *Client, overflowHint string) (Diagnosis, error) {
	cfg := client.Config()
	env := cfg.KeyEnv()
	d := Diagnosis{Endpoint: cfg.BaseURL, Model: cfg.Model, APIKeyEnv: env, APIKeySet: os.Getenv(env) != "",
		MaxTokensField: cfg.MaxTokensFieldFor(), OmitsMaxTokens: slices.Contains(cfg.Omit, "max_tokens")}
	caps, run, perr := client.preflight(ctx)
	d.Capabilities = caps
	if perr == nil && caps.Tools && run != nil {
		perr = secondTurn(ctx, run, caps)
	}
	switch {
	case perr != nil:
		d.setError(perr, overflowHint)
	case !caps.Tools && caps.FinishReason != "length":
		// A reply cut before any call (a reasoning model thinking long) proves nothing either way; bench run
		// goes ahead on it too (the note says so).
		d.ExitCode = DiagnosisNoTools
	}
	return d, perr
}

// secondTurn sends run's request again with its reply and a result for each tool call appended, the reply's
// Extra (reasoning_content, thought signatures) echoed as a run echoes it, and records the outcome in
// caps.SecondTurn (and the echoes the client stopped sending in caps.Notes). The error is the second call's.
func secondTurn(ctx context.Context, run *preflightRun, caps *Capabilities) error {
	req := run.req
	req.Messages = append(slices.Clone(req.Messages), run.resp.Message)
	req.Extras = map[int]*Extra{len(req.Messages) - 1: run.resp.Extra}
	for _, tc := range run.resp.Message.ToolCalls {
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool,
			ToolCallID: tc.ID, Content: `{"ok": true}`})
	}
	req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser,
		Content: "The check passed. Reply with the single word done."})
	_, err := run.client.Chat(ctx, req)
	// What went back on the try that counted: the fields the client still sends after any refusal.
	sent := []string{"the tool result"}
	if ex := run.resp.Extra; ex != nil {
		if ex.ReasoningContent != nil && run.client.echo.sends("reasoning_content") {
			sent = append(sent, "reasoning_content")
		}
		for _, k := range slices.Sorted(maps.Keys(ex.Fields)) {
			if run.client.echo.sends(k) {
				sent = append(sent, k)
			}
		}
		if len(ex.ToolCallFields) > 0 && run.client.echo.sends("extra_content") {
			sent = append(sent, "the tool calls' provider fields")
		}
	}
	for _, off := range run.client.EchoesOff() {
		caps.Notes = append(caps.Notes, "not sent back: "+off)
	}
	if err != nil {
		caps.SecondTurn = "failed: " + oneLine("", err)
		return err
	}
	caps.SecondTurn = "ok: " + strings.Join(sent, ", ") + " went back and the endpoint answered"
	return nil
}

// setError records the preflight's error perr and the exit code its class calls for.
func (d *Diagnosis) setError(perr error, overflowHint string) {
	var e *Error
	if !errors.As(perr, &e) {
		e = &Error{Class: ErrorInfra, Err: perr}
	}
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	d.Error = &DiagnosisError{Class: e.Class, Status: e.StatusCode, Type: e.Type, Code: e.Code,
		Message: msg, Hint: e.Hint}
	d.ExitCode = e.Class.ExitCode()
	if e.Class == ErrorContextOverflow {
		// Even the small check does not fit: a run would stop at its first call, as a config error.
		d.ExitCode = ErrorConfig.ExitCode()
		d.Error.Hint, e.Hint = overflowHint, overflowHint
	}
	if d.ExitCode == 0 {
		d.ExitCode = DiagnosisUnreachable // rate limited or unreachable after the retries
	}
}

// WriteText writes the findings, one "key: value" line each.
func (d Diagnosis) WriteText(w io.Writer) {
	line := func(k, v string) { fmt.Fprintf(w, "%-12s %s\n", k+":", v) }
	line("endpoint", d.Endpoint)
	line("model", d.Model)
	if d.APIKeySet {
		line("api key", "$"+d.APIKeyEnv+" is set")
	} else {
		line("api key", "$"+d.APIKeyEnv+" is not set: no Authorization header sent")
	}
	if c := d.Capabilities; c != nil {
		d.writeCapabilities(line, c)
	}
	if e := d.Error; e != nil {
		status := string(e.Class)
		if e.Status != 0 {
			status += fmt.Sprintf(" (HTTP %d)", e.Status)
		}
		line("error", status)
		if e.Type != "" || e.Code != "" {
			line("type, code", strings.Trim(e.Type+", "+e.Code, ", "))
		}
		line("message", e.Message)
		if e.Hint != "" {
			line("hint", e.Hint)
		}
	}
	line("result", d.result())
}

// writeCapabilities writes what the preflight's reply showed: tools, seed, usage, reasoning, the max tokens
// field, latency and the notes.
func (d Diagnosis) writeCapabilities(line func(k, v string), c *Capabilities) {
	line("tools", yesNo(c.Tools, "yes: the reply called the tool", "no: the reply carried no tool call"))
	line("seed", yesNo(c.Seed, "accepted", "not sent"))
	line("usage", yesNo(c.Usage, "reported", "missing: tokens and cost will be estimated from bytes"))
	reasoning := c.ReasoningField
	if reasoning == "" {
		reasoning = "none seen"
	}
	line("reasoning", reasoning)
	switch {
	case c.MaxTokensField == "" && d.OmitsMaxTokens:
		line("max tokens", "not sent (omit: [max_tokens])")
	case c.MaxTokensField == "":
		line("max tokens", "no cap configured, none sent (--max-tokens N would send one as "+d.MaxTokensField+")")
	case c.MaxTokensField == "both":
		line("max tokens", "sent as max_tokens and max_completion_tokens")
	default:
		line("max tokens", "sent as "+c.MaxTokensField)
	}
	line("latency", fmt.Sprintf("%d ms", c.LatencyMS))
	if c.SecondTurn != "" {
		line("second turn", c.SecondTurn)
	}
	for _, n := range c.Notes {
		line("note", n)
	}
}

// result is the closing verdict line: ready, no tool calls, or why a run would stop and what to do.
func (d Diagnosis) result() string {
	switch d.ExitCode {
	case 0:
		return "ready for bench run"
	case DiagnosisNoTools:
		return "the endpoint answers but without tool calls: the agent cannot run on it (exit 1)"
	}
	switch {
	case d.Error != nil && d.Error.Class.Fatal():
		return fmt.Sprintf("a run on this endpoint would stop at its first call (exit %d)", d.ExitCode)
	case d.Error != nil && d.Error.Class == ErrorContextOverflow:
		return fmt.Sprintf("the model's context window cannot hold even this small request: a run would stop "+
			"at its first call; raise the context (vLLM --max-model-len, llama.cpp -c, Ollama num_ctx) or use a larger model (exit %d)",
			d.ExitCode)
	case d.Error != nil && d.Error.Class == ErrorInfra && d.Error.Status >= 200 && d.Error.Status < 300:
		return fmt.Sprintf("the endpoint answered 200 but reported a failure of its own (the message above) on every "+
			"try: a provider-side problem, not the model's output; try later (exit %d)", d.ExitCode)
	case d.Error != nil && d.Error.Class == ErrorRateLimit:
		return fmt.Sprintf("still rate-limited after the retries: try later, or lower --max-connections / --workers (exit %d)", d.ExitCode)
	default:
		return fmt.Sprintf("no usable answer after the retries: is the server up, is the base URL right? (exit %d)", d.ExitCode)
	}
}

// yesNo is yes when b holds, else no.
func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}
