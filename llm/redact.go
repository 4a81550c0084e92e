package llm

import "regexp"

// keyPattern matches common API-key shapes: OpenAI/OpenRouter "sk-…" keys and bearer tokens.
var keyPattern = regexp.MustCompile(`(?i)(sk-[A-Za-z0-9_\-]{8,}|bearer\s+[A-Za-z0-9._\-]{8,})`)
