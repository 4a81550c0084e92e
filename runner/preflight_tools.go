package runner

import "webbench/llm"

// noToolCalls is the endpoint error that stops a run whose preflight reply carried no tool call: the agent acts
// only through tool calls, so every attempt would end as fail/no_json and the run would report 0 % for a
// server setting (vLLM without --enable-auto-tool-choice, a chat template without tools). It is a config error
// (exit 2) with the preflight's own finding and bench doctor's advice. A reply cut by the preflight's small
// completion cap before any call (a reasoning model thinking long) proves nothing and stops nothing: nil.
func noToolCalls(caps *llm.Capabilities) *llm.Error {
	if caps == nil || caps.Tools {
		return nil
	}
	if caps.FinishReason == "length" {
		return nil
	}
	msg := "the reply to the preflight's tool-calling request had no tool call: the agent acts only through tool " +
		"calls, so every attempt would fail (no_json)"
	return &llm.Error{Class: llm.ErrorConfig, Message: msg,
		Hint: "enable tool calling on the server (vLLM: --enable-auto-tool-choice --tool-call-parser <parser>; " +
			"llama.cpp: --jinja; Ollama, LM Studio: a model whose chat template supports tools), then check it with " +
			"bench doctor --model openai:NAME --base-url URL"}
}
