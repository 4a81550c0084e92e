package judge

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sync"

	"webbench/srcerr"
	"webbench/suites"
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

// taskJudge is a judge registered with RegisterForTasks: one of a task's own judges (ForTask).
type taskJudge struct {
	name    string
	order   int
	applies func(suites.Task) bool
	j       Judge // built once with the zero Options
}

var (
	regMu    sync.RWMutex
	registry = map[string]Factory{}
	// taskJudges are the judges registered with RegisterForTasks, by ascending order.
	taskJudges []taskJudge
)

// Register makes the judge name available to bench judge (New, Names). Judges register from an init function
// in their own file. Registering a name twice, or the reserved name "original" (the run's own verdicts), panics.
func Register(name string, f Factory) {
	regMu.Lock()
	defer regMu.Unlock()
	register(name, f)
}

// register is Register with regMu held.
func register(name string, f Factory) {
	if name == "" || name == "original" {
		panic(fmt.Sprintf("judge.Register: name %q is reserved", name))
	}
	if _, dup := registry[name]; dup {
		panic("judge.Register: " + name + " registered twice")
	}
	registry[name] = f
}

// RegisterForTasks registers name as Register does and makes it one of the judges bench run applies: ForTask
// picks it for every task t with applies(t) true (the task has the check it reads), in ascending order among
// the picked judges (the state judge is 10, the answer judge 20). The judge bench run applies is built once,
// from f with the zero Options, and shared by all attempts: its Judge method must be safe for concurrent use. A
// factory that fails on the zero Options, a nil applies, an order already taken, or a name Register refuses
// panics.
func RegisterForTasks(name string, f Factory, order int, applies func(t suites.Task) bool) {
	if applies == nil {
		panic("judge.RegisterForTasks: " + name + " has no applies function")
	}
	j, err := f(Options{})
	if err != nil {
		panic(fmt.Sprintf("judge.RegisterForTasks: %s: the zero Options: %v", name, err))
	}
	regMu.Lock()
	defer regMu.Unlock()
	for _, tj := range taskJudges {
		if tj.order == order {
			panic(fmt.Sprintf("judge.RegisterForTasks: %s: order %d is %s's", name, order, tj.name))
		}
	}
	register(name, f)
	taskJudges = append(taskJudges, taskJudge{name: name, order: order, applies: applies, j: j})
	slices.SortFunc(taskJudges, func(a, b taskJudge) int { return cmp.Compare(a.order, b.order) })
}

// New builds the registered judge name with opts. An unknown name is an error listing the registered ones.
func New(name string, opts Options) (Judge, error) {
	regMu.RLock()
	f, ok := registry[name]
	regMu.RUnlock()
	if !ok {
		return nil, srcerr.OneOf("judge", name, Names())
	}
	return f(opts)
}

// Names lists the registered judges, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	return slices.Sorted(maps.Keys(registry))
}
