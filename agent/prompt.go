package agent

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
)

//go:embed prompts/system_v1.txt
var defaultPrompt string

// DefaultSystemPrompt returns the embedded, versioned system prompt (prompts/system_v1.txt). It contains the
// recovery rule the seeds' agents had ("wait for the next page snapshot, it will arrive automatically"), which is
// only true when the stale_ref_refresh guard is on (seed 002).
func DefaultSystemPrompt() string { return defaultPrompt }

// LoadPrompt reads a system prompt file (the `agent.prompt: FILE` variant knob); "" returns the default.
func LoadPrompt(path string) (string, error) {
	if path == "" {
		return defaultPrompt, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("system prompt %s: %w", path, err)
	}
	if len(b) == 0 {
		return "", fmt.Errorf("system prompt %s: file is empty", path)
	}
	return string(b), nil
}

// PromptSHA256 is the hex SHA-256 of a prompt text, recorded in manifests and trajectories.
func PromptSHA256(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}
