package llm

import "strings"

// Phrase is one entry of a classification table: a lower-cased fragment of an error body (its message, type,
// code or raw bytes) and where a server was seen to send it. Every entry names its source so the table can be
// kept: a doc URL, a source file, or an issue thread quoting the body.
type Phrase struct {
	// Text is the fragment, lower-case.
	Text string
	// Source is where the wording comes from.
	Source string
}

// PhraseTable is a named classification table, for tests and docs (PhraseTables).
type PhraseTable struct {
	// Name says what a match means ("quota", "content_filter", …).
	Name string
	// Phrases are the entries.
	Phrases []Phrase
}

// PhraseTables lists every phrase table the classifier reads, so a test can check that each entry has a
// source and that the recorded shapes exercise it.
func PhraseTables() []PhraseTable {
	return []PhraseTable{{"quota", quotaPhrases}, {"quota_code", quotaCodes}, {"daily_limit", dailyLimitPhrases},
		{"content_filter", contentFilterPhrases}, {"auth", authPhrases}, {"history_arguments", historyArgumentPhrases}}
}

// quotaPhrases mark an account out of quota, credit or budget, in any status but 5xx: waiting does not help,
// the run stops and says what the server said.
var quotaPhrases = []Phrase{
	{"exceeded your current quota", "OpenAI insufficient_quota, https://platform.openai.com/docs/guides/error-codes"},
	{"exceeded current quota", "Moonshot/Kimi 403, https://github.com/MoonshotAI/Kimi-K2/issues/5"},
	{"insufficient credit", "OpenRouter 402 \"Insufficient credits\", https://openrouter.ai/docs/api/reference/errors-and-debugging"},
	{"insufficient_credit", "OpenRouter code spelling, same page"},
	{"out of credit", "generic gateway wording, kept from the first round's table"},
	{"credit balance is too low", "Anthropic 400, https://docs.anthropic.com/en/api/errors"},
	{"insufficient balance", "DeepSeek 402 https://api-docs.deepseek.com/quick_start/error_codes; Kimi 429 https://github.com/continuedev/continue/issues/11443"},
	{"exceeded your monthly included credits", "Hugging Face router 402, https://huggingface.co/docs/inference-providers/pricing"},
	{"enforced_spend_limit_reached", "Anthropic 429 error.details.error_code, https://docs.anthropic.com/en/api/errors"},
	{"used all available credits", "xAI 429, https://github.com/continuedev/continue/issues/10373"},
	{"monthly spending limit", "xAI 429, https://github.com/continuedev/continue/issues/10740"},
	{"have any credits", "xAI 403 for a team without credits (\"doesn't have any credits yet\")"},
	{"purchase more credits", "xAI 429, https://github.com/continuedev/continue/issues/10373"},
	{"budget has been exceeded", "LiteLLM proxy 400/429, https://github.com/BerriAI/litellm/issues/4208 and #36729"},
	{"exceeded budget", "LiteLLM per-model budgets (\"LiteLLM User: …, exceeded budget for model=…\"), https://github.com/OWASP/OpenCRE/pull/1102 quoting docs.litellm.ai"},
	{"over budget", "LiteLLM end-user budgets (\"ExceededBudget: End User=… over budget\"), same source"},
	{"crossed budget", "LiteLLM router (\"No deployments available - crossed budget\"), https://github.com/BerriAI/litellm/issues/14144"},
	{"recharge your account", "Kimi 429, https://github.com/continuedev/continue/issues/11443"},
	{"check your plan and billing details", "OpenAI 429 insufficient_quota and Kimi 403/429 (the same sentence), https://github.com/MoonshotAI/Kimi-K2/issues/5"},
}

// quotaCodes are error codes or types (matched exactly, any case, on the body's code and type fields) of an
// account out of quota.
var quotaCodes = []Phrase{
	{"insufficient_quota", "OpenAI, https://platform.openai.com/docs/guides/error-codes"},
	{"billing_hard_limit_reached", "OpenAI, https://github.com/openai/openai-python/issues/1054"},
	{"budget_exceeded", "LiteLLM proxy error.type, https://github.com/BerriAI/litellm/issues/36729"},
	{"exceeded_current_quota_error", "Moonshot/Kimi error.type, https://github.com/MoonshotAI/Kimi-K2/issues/5"},
	{"3036", "Cloudflare Workers AI \"Account limited\" (429), https://developers.cloudflare.com/workers-ai/platform/errors/"},
}

// dailyLimitPhrases mark a limit that lasts the day, on a 429: waiting it out inside a run is not possible.
var dailyLimitPhrases = []Phrase{
	{"per day (tpd)", "Groq 429 tokens per day, https://github.com/continuedev/continue/issues/10920"},
	{"per day (rpd)", "Groq's documented limit name (no captured body), https://console.groq.com/docs/rate-limits"},
	{"tokens per day", "Groq, as above"},
	{"requests per day", "Groq's documented limit name (no captured body)"},
	{"free-models-per-day", "OpenRouter 429, https://github.com/Gitlawb/openclaude/issues/936 and #1549"},
	{"daily free allocation", "Cloudflare Workers AI 3036, https://developers.cloudflare.com/workers-ai/platform/errors/"},
	{"perdayperproject", "Gemini QuotaFailure quotaId GenerateRequestsPerDayPerProjectPerModel, https://github.com/BerriAI/litellm/issues/9035"},
	{"_per_day", "Gemini QuotaFailure quotaMetric …generate_requests_per_model_per_day, same issue"},
}

// contentFilterPhrases mark a moderation layer refusing the request's content, in any status: the attempt
// fails with content_filter and the run goes on.
var contentFilterPhrases = []Phrase{
	{"content_filter", "Azure OpenAI 400 code content_filter, https://learn.microsoft.com/en-us/azure/ai-services/openai/concepts/content-filter"},
	{"responsibleaipolicyviolation", "Azure OpenAI innererror.code, same page"},
	{"invalid_prompt", "OpenAI 400 code invalid_prompt, https://platform.openai.com/docs/guides/error-codes"},
	{"content management policy", "Azure OpenAI message, same page as content_filter"},
	{"flagged_input", "OpenRouter 403 moderation metadata, https://openrouter.ai/docs/api/reference/errors-and-debugging"},
	{"violated guardrail policy", "LiteLLM guardrails, https://docs.litellm.ai/docs/proxy/guardrails/bedrock and https://github.com/BerriAI/litellm/issues/13321"},
	{"contentpolicyviolationerror", "LiteLLM exception mapping, https://docs.litellm.ai/docs/exception_mapping"},
}

// authPhrases mark a refused key in a 4xx other than 401/403 (xAI and Gemini answer a bad key with 400).
var authPhrases = []Phrase{
	{"api_key_invalid", "Gemini 400 reason API_KEY_INVALID, https://ai.google.dev/gemini-api/docs/troubleshooting"},
	{"api key not valid", "Gemini 400 message, same page"},
	{"incorrect api key provided", "xAI 400, https://github.com/continuedev/continue/issues/10778; OpenAI 401"},
	{"invalid api key", "generic (OpenAI-compatible gateways), https://github.com/charmbracelet/crush/issues/1100"},
}

// historyArgumentPhrases mark a server refusing the conversation because a tool call sent back has arguments
// that are not valid JSON: the model's malformed call, replayed. Class agent (the attempt ends, the run goes on).
var historyArgumentPhrases = []Phrase{
	{"failed to parse tool call arguments as json", "llama.cpp common/chat.cpp func_args_not_string(), HTTP 500, https://github.com/ggml-org/llama.cpp/issues/25510"},
	{"extra data: line", "Python json on concatenated objects, vLLM _postprocess_messages, https://github.com/vllm-project/vllm/pull/48922"},
	{"unterminated string starting at", "Python json on cut arguments, vLLM, same PR"},
}

// matchPhrase reports whether any fragment of ps occurs in one of texts.
func matchPhrase(ps []Phrase, texts ...string) bool {
	for _, p := range ps {
		for _, t := range texts {
			if strings.Contains(t, p.Text) {
				return true
			}
		}
	}
	return false
}

// matchCode reports whether code or typ equals (any case) one of ps.
func matchCode(ps []Phrase, code, typ string) bool {
	for _, p := range ps {
		if strings.EqualFold(code, p.Text) || strings.EqualFold(typ, p.Text) {
			return true
		}
	}
	return false
}

// providerFailureFinish are finish_reason values meaning the provider failed while producing the reply (infra,
// retried), not that the model stopped.
var providerFailureFinish = map[string]string{
	"insufficient_system_resource": "DeepSeek, https://api-docs.deepseek.com/api/create-chat-completion",
	"error":                        "OpenRouter (with choices[].error), https://openrouter.ai/docs/api/reference/errors-and-debugging",
	"abort":                        "vLLM v1 FinishReason ABORT (vllm/v1/engine/__init__.py)",
}

// finishSpellings maps other servers' spellings of finish_reason (lower-cased) to OpenAI's: Gemini's
// FinishReason enum (https://ai.google.dev/api/generate-content#FinishReason) and Anthropic's stop_reason
// (https://docs.anthropic.com/en/api/messages), which gateways pass through.
var finishSpellings = map[string]string{
	"max_tokens": "length", "stop_sequence": "stop", "end_turn": "stop", "tool_use": "tool_calls",
	"safety": "content_filter", "recitation": "content_filter", "blocklist": "content_filter",
	"prohibited_content": "content_filter", "spii": "content_filter", "image_safety": "content_filter",
}

// NormalizeFinishReason is finish_reason in OpenAI's vocabulary ("stop", "length", "tool_calls",
// "content_filter", …): lower-cased, with Gemini's and Anthropic's spellings mapped (finishSpellings); other
// values are returned lower-cased.
func NormalizeFinishReason(s string) string {
	l := strings.ToLower(strings.TrimSpace(s))
	if m, ok := finishSpellings[l]; ok {
		return m
	}
	return l
}
