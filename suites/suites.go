// Package suites defines tasks, the Suite interface every web-task suite implements, a registry of suites by
// name, and task filters. One subpackage per suite (zoo, webvoyager) registers itself.
package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"webbench/srcerr"
)

// Task is one web task: a goal the agent is told, where it starts, how it is judged, and (for suites that have
// one) a solution the scripted policy plays. Durations are Go durations; MaxSteps counts model calls.
type Task struct {
	// ID is unique within the suite, e.g. "shop-checkout-yoga-mat-express" or "Allrecipes--0".
	ID string `json:"id"`
	// Suite is the name of the suite the task belongs to ("zoo", "webvoyager").
	Suite string `json:"suite"`
	// App is the Zoo app ("shop", …) or the WebVoyager site name ("Allrecipes").
	App string `json:"app"`
	// Cluster is the unit for clustered standard errors (STATS.md): the task id by default, the site for
	// WebVoyager.
	Cluster string `json:"cluster"`
	// Goal is the text the agent is told. Unique within a suite.
	Goal string `json:"goal"`
	// Start is where the attempt begins: a path relative to the tenant's app root (Zoo) or an absolute URL.
	Start string `json:"start"`
	// Tags name the guards the task exercises (GUARDS.md), plus free labels.
	Tags []string `json:"tags,omitempty"`
	// Mutations are the Zoo page conditions switched on for this task (ZOO.md).
	Mutations []string `json:"mutations,omitempty"`
	// MaxSteps overrides the agent's model-call budget when > 0.
	MaxSteps int `json:"max_steps,omitempty"`
	// Timeout overrides the attempt's wall-clock budget when > 0.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Check says how the attempt is judged.
	Check Check `json:"check"`
	// Solution is the scripted policy's plan. Never shown to an agent.
	Solution []Step `json:"-"`
	// Source is "file:line" of the task's definition, for error messages.
	Source string `json:"source,omitempty"`
	// Meta holds suite-specific extras (e.g. WebVoyager's stale-date flags, original text).
	Meta map[string]any `json:"meta,omitempty"`
}

// HasTag reports whether the task carries tag t.
func (t Task) HasTag(tag string) bool {
	for _, x := range t.Tags {
		if x == tag {
			return true
		}
	}
	return false
}

// Check is a task's success criterion: a state predicate (Zoo) and/or an answer rule.
type Check struct {
	// State is an expected subset of the app's state JSON, e.g. {"orders": [{"email": "a@b"}]}. Maps match
	// as subsets; lists must have the same length and each expected item must match a distinct actual item.
	State map[string]any `json:"state,omitempty" yaml:"state,omitempty"`
	// Answer is a rule over the agent's final answer text.
	Answer *AnswerRule `json:"answer,omitempty" yaml:"answer,omitempty"`
}

// AnswerRule matches a final answer against a reference. All set fields must hold.
type AnswerRule struct {
	// Exact: the answer, trimmed and case-folded, equals this.
	Exact string `json:"exact,omitempty" yaml:"exact,omitempty"`
	// MustInclude: every string appears in the answer as a phrase of whole tokens (judge.Grade: case,
	// punctuation, diacritics, plurals and abbreviations folded; numbers by value; " |OR| " separates
	// alternatives; a URL by scheme, host and whole path segments).
	MustInclude []string `json:"must_include,omitempty" yaml:"must_include,omitempty"`
	// Number: some number in the answer is within Tolerance (absolute) of it, in Unit when set.
	Number *float64 `json:"number,omitempty" yaml:"number,omitempty"`
	// Tolerance for Number, absolute, in Number's unit. Zero means exact.
	Tolerance float64 `json:"tolerance,omitempty" yaml:"tolerance,omitempty"`
	// Unit of Number, as written ("MB", "kg", "bpm", "%"; judge.Grade knows data sizes, lengths, masses, times,
	// food energy, temperatures, currencies and bpm): an answer in another unit of the same family is converted
	// (0.19 GB for 192 MB); "" = whatever unit the question asks for, else any.
	Unit string `json:"unit,omitempty" yaml:"unit,omitempty"`
	// Reference is a free-text reference answer (WebVoyager "possible" answers), for the LLM judge and reports.
	Reference string `json:"reference,omitempty" yaml:"reference,omitempty"`
	// Type is "golden" or "possible" for WebVoyager answers; empty elsewhere.
	Type string `json:"type,omitempty" yaml:"type,omitempty"`
}

// Target finds one node in an AI-mode aria snapshot by role and accessible name (ZOO.md "solution").
type Target struct {
	Role      string  `json:"role,omitempty" yaml:"role,omitempty"`
	Name      string  `json:"name,omitempty" yaml:"name,omitempty"`
	NameRegex string  `json:"name_regex,omitempty" yaml:"name_regex,omitempty"`
	Nth       int     `json:"nth,omitempty" yaml:"nth,omitempty"`
	Within    *Target `json:"within,omitempty" yaml:"within,omitempty"`
}

// Step is one solution step. Kind is one of navigate, click, fill, select, press, hover, visual_click,
// evaluate, answer (ZOO.md). In YAML a step is a one-key map: `- click: {role: link, name: Yoga Mat}`.
type Step struct {
	Kind string `json:"kind"`
	// Target for click, fill, select, hover, visual_click; the node to read for answer (with NameRegex).
	Target *Target `json:"target,omitempty"`
	// Text for fill; URL for navigate (relative to the app root or absolute); Key for press.
	Text string `json:"text,omitempty"`
	URL  string `json:"url,omitempty"`
	Key  string `json:"key,omitempty"`
	// Values for select.
	Values []string `json:"values,omitempty"`
	// Function for evaluate (a JS function source).
	Function string `json:"function,omitempty"`
	// Literal answer for answer steps (when From is nil).
	Literal string `json:"literal,omitempty"`
}

// Env is one attempt's environment, prepared by a suite: a Zoo tenant, or nothing for a live site.
type Env interface {
	// StartURL is the absolute URL the attempt's page opens first.
	StartURL() string
	// Allowed reports whether the browser may load url (the Zoo allows only its tenant's paths). A suite that
	// allows everything returns true.
	Allowed(url string) bool
	// State returns the app's state as JSON for the state judge; (nil, nil) when the suite has no state.
	State(ctx context.Context) (json.RawMessage, error)
	// Close releases the environment (deletes the tenant). Safe to call twice.
	Close(ctx context.Context) error
}

// PatternEnv is an Env that names, by a pattern, the URLs its Allowed may refuse: a browser asks Allowed about
// those only and loads the others without asking (browser.SessionOptions.AskOnly; asking costs a round trip
// through the browser driver per request). A wrapper that changes Allowed must not pass MustAsk on (embedding
// the Env interface does not).
type PatternEnv interface {
	Env
	// MustAsk matches every URL for which Allowed may return false (it may match more). Its syntax means the
	// same in Go (RE2) and in JavaScript, where the browser driver matches it: literal characters, escapes,
	// character classes, groups, alternation and the anchors ^ and $, no flags.
	MustAsk() *regexp.Regexp
}

// VolatileEnv is an Env whose pages carry strings that differ between two runs of the same attempt (a tenant
// id in every path): the model cache (--model-cache) keys requests with them replaced by placeholders, so an
// unchanged attempt replays in the next run.
type VolatileEnv interface {
	Env
	// Volatile lists the literal strings of this environment that another run of the attempt would not share.
	Volatile() []string
}

// Volatile is the strings of env that change from run to run: env's own list when it is a VolatileEnv, plus
// the start URL's origin when its host is loopback (a server on a port chosen at start: the Zoo, WebVoyager's
// fixture sites). Nil when none.
func Volatile(env Env) []string {
	var out []string
	if u, err := url.Parse(env.StartURL()); err == nil && u.Port() != "" {
		switch h := u.Hostname(); {
		case h == "localhost", strings.HasPrefix(h, "127."), h == "::1":
			out = append(out, u.Scheme+"://"+u.Host)
		}
	}
	if v, ok := env.(VolatileEnv); ok {
		out = append(out, v.Volatile()...)
	}
	return out
}

// AskOnly is env's MustAsk when env is a PatternEnv, else nil (Allowed is asked about every URL).
func AskOnly(env Env) *regexp.Regexp {
	if p, ok := env.(PatternEnv); ok {
		return p.MustAsk()
	}
	return nil
}

// Suite is a set of tasks and the means to run them. Implementations are safe for concurrent use.
type Suite interface {
	// Name is the registry name ("zoo", "webvoyager").
	Name() string
	// Tasks lists every task of the suite in a stable order.
	Tasks() []Task
	// Open prepares a fresh environment for one attempt of t. Errors are infrastructure errors.
	Open(ctx context.Context, t Task, attemptID string) (Env, error)
	// Close stops servers the suite started.
	Close() error
}

// WebGLNeeds is implemented by a suite that states whether its pages may need WebGL. The runner launches the
// browsers of a run whose suite says no with --disable-software-rasterizer: the headless browser then loads no
// software GL (SwiftShader, 9–10 MiB of anonymous memory per worker), and canvas.getContext("webgl") returns null.
type WebGLNeeds interface {
	// NeedsWebGL is false when no page of the suite draws with WebGL.
	NeedsWebGL() bool
}

// NeedsWebGL reports whether s's pages may need WebGL: s's own answer (WebGLNeeds), and true for a suite that
// does not say — a live site may draw with it (Google Maps does), and a page without it fails in ways an agent
// cannot tell from the site's own faults.
func NeedsWebGL(s Suite) bool {
	if n, ok := s.(WebGLNeeds); ok {
		return n.NeedsWebGL()
	}
	return true
}

// Options configure a suite at construction (flags and config): file paths and suite-specific settings.
type Options map[string]string

// Factory builds a suite from options. It returns an error naming the file and line of bad input.
type Factory func(opts Options) (Suite, error)

var (
	mu        sync.Mutex
	factories = map[string]Factory{}
)

// Register makes a suite available by name. Suites call it from init; a duplicate name panics.
func Register(name string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := factories[name]; dup {
		panic("suites: duplicate suite " + name)
	}
	factories[name] = f
}

// clusterUnits holds each suite's noun for its Task.Cluster (RegisterClusterUnit).
var clusterUnits = map[string]string{}

// RegisterClusterUnit names what a suite's Task.Cluster groups tasks by, as a singular noun the reports use
// for the unit of analysis ("family" for the Zoo's task families, "site" for WebVoyager). A suite registers it
// from init, beside Register; a suite without one is worded "cluster".
func RegisterClusterUnit(suite, noun string) {
	mu.Lock()
	defer mu.Unlock()
	clusterUnits[suite] = noun
}

// ClusterUnit returns the noun RegisterClusterUnit gave the suite, or "" when it gave none.
func ClusterUnit(suite string) string {
	mu.Lock()
	defer mu.Unlock()
	return clusterUnits[suite]
}

// Names lists the registered suites, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for n := range factories {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Open builds the named suite. An unknown name is an error listing the valid names.
func Open(name string, opts Options) (Suite, error) {
	mu.Lock()
	f, ok := factories[name]
	mu.Unlock()
	if !ok {
		return nil, srcerr.OneOf("suite", name, Names())
	}
	return f(opts)
}

// Filter returns the tasks whose id matches any of the comma-separated globs (path.Match syntax; empty
// matches all): the one task selection by id, of --tasks, a spec's tasks and target_tasks. A glob that
// matches nothing is an error, so a typo never silently runs zero tasks; errors name the glob, and the caller
// says where it came from.
func Filter(tasks []Task, globs string) ([]Task, error) {
	out, unmatched, err := Match(tasks, globs)
	if err != nil {
		return nil, err
	}
	if len(unmatched) > 0 {
		return nil, fmt.Errorf("glob %q matches no task", unmatched[0])
	}
	return out, nil
}

// Match is Filter without the error for a glob that matches nothing: it returns such globs, in order, for a
// caller whose tasks were narrowed first (a spec's target_tasks under --tasks). Bad syntax is still an error.
func Match(tasks []Task, globs string) (out []Task, unmatched []string, err error) {
	if strings.TrimSpace(globs) == "" {
		return tasks, nil, nil
	}
	pats, err := Globs(globs)
	if err != nil {
		return nil, nil, err
	}
	hit := make([]bool, len(pats))
	for _, t := range tasks {
		matched := false
		for i, p := range pats {
			if ok, _ := path.Match(p, t.ID); ok {
				hit[i] = true
				matched = true
			}
		}
		if matched {
			out = append(out, t)
		}
	}
	for i, p := range pats {
		if !hit[i] {
			unmatched = append(unmatched, p)
		}
	}
	return out, unmatched, nil
}

// Globs splits comma-separated task id globs and checks each one's path.Match syntax (Filter's globs, checked
// before any task is at hand); blanks between commas are skipped.
func Globs(globs string) ([]string, error) {
	var pats []string
	for _, g := range strings.Split(globs, ",") {
		if g = strings.TrimSpace(g); g != "" {
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("bad glob %q: %v", g, err)
			}
			pats = append(pats, g)
		}
	}
	return pats, nil
}
