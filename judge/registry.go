package judge

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Options are what a judge's factory may be configured with: the flags of bench judge. A judge ignores the
// options it has no use for.
type Options struct {
	// Model is the judge model as "openai:NAME" (the llm judge); BaseURL its OpenAI-compatible endpoint ("" =
	// https://api.openai.com/v1); KeyEnv the environment variable holding its API key.
	Model, BaseURL, KeyEnv string
	// Screenshots is how many of the last screenshots a vision judge sees (<= 0: its default).
	Screenshots int
}

// Factory builds a judge from opts. An error is a usage error (an option the judge needs is missing or bad)
// and is shown to the user as is.
type Factory func(opts Options) (Judge, error)

var (
	regMu    sync.RWMutex
	registry = map[string]Factory{}
)

// Register makes the judge name available to bench judge (New, Names). Judges register from an init function
// in their own file. Registering a name twice, or the reserved name "original" (the run's own verdicts), panics.
func Register(name string, f Factory) {
	regMu.Lock()
	defer regMu.Unlock()
	if name == "" || name == "original" {
		panic(fmt.Sprintf("judge.Register: name %q is reserved", name))
	}
	if _, dup := registry[name]; dup {
		panic("judge.Register: " + name + " registered twice")
	}
	registry[name] = f
}

// New builds the registered judge name with opts. An unknown name is an error listing the registered ones.
func New(name string, opts Options) (Judge, error) {
	regMu.RLock()
	f, ok := registry[name]
	regMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("judge %q: expected one of %s", name, strings.Join(Names(), ", "))
	}
	return f(opts)
}

// Names lists the registered judges, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	return slices.Sorted(maps.Keys(registry))
}
