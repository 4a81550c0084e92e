package agent

import (
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

func msgsOf(contents ...string) []openai.ChatCompletionMessage {
	var out []openai.ChatCompletionMessage
	for _, c := range contents {
		out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, Content: c})
	}
	return out
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
