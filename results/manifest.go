package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"webbench/llm"
)

// Manifest is manifest.json: the one record of what a run planned and what ran it. Written when a run starts,
// completed (EndedAt, Summary) when it ends. Schema version 2; version 1 manifests (with their ablation.json)
// are converted on read (ReadManifest).
type Manifest struct {
	// SchemaVersion is SchemaVersion (a version 1 manifest is converted on read).
	SchemaVersion int `json:"schema_version"`
	// RunID names the run (default: the run directory's base name).
	RunID string `json:"run_id"`
	// Plan is the plan as expanded: everything a re-run, bench judge and the analysis need.
	Plan Plan `json:"plan"`
	// Webbench is the harness version; GitSHA its commit when known.
	Webbench string `json:"webbench_version"`
	GitSHA   string `json:"git_sha,omitempty"`
	// GoVersion, Playwright and Chromium are the versions of the stack that ran the attempts.
	GoVersion  string `json:"go_version"`
	Playwright string `json:"playwright_version,omitempty"`
	Chromium   string `json:"chromium_version,omitempty"`
	// Browser says where the attempts' browsers came from: launched here, or a remote Playwright browser server.
	// Written at the start for a remote browser (no launch counted yet), completed at the end of the run; absent
	// in manifests written before it existed and in a local run that has not ended.
	Browser *BrowserInfo `json:"browser,omitempty"`
	// Host is the machine's host name.
	Host string `json:"host"`
	// StartedAt and EndedAt are RFC 3339 times; EndedAt is empty while the run is going (or was killed).
	StartedAt string `json:"started_at"`
	EndedAt   string `json:"ended_at,omitempty"`
	// Shard is "i/n", or "merged from N shards" after bench merge ("shard(s)" before 2026-12-04).
	Shard string `json:"shard"`
	// Summary is filled at the end of a run.
	Summary *Summary `json:"summary,omitempty"`
	// Endpoints are the preflight findings of the run's model endpoints, one per distinct endpoint (base URL and
	// model) of the arms that talk to a real model (the in-process scripted policy is not preflighted). Absent
	// in manifests written before the preflight existed and in scripted-only runs.
	Endpoints []Endpoint `json:"endpoints,omitempty"`
	// Sources is where the attempts took the web and the model's replies from other than live: the cassette and
	// the model cache the run was started with (a resume is refused when they changed: runner). Absent in
	// manifests written before it, which a resume then does not compare.
	Sources *Sources `json:"sources,omitempty"`
}

// Sources is a run's cassette (--record, --replay, --record-secrets, --record-missing, or the spec's keys) and
// model cache (--model-cache, model_cache); each field empty or false when unused. Directories are as given,
// cleaned (filepath.Clean).
type Sources struct {
	// Cassette is "record" or "replay" ("" without a cassette); CassetteDir its directory.
	Cassette    string `json:"cassette,omitempty"`
	CassetteDir string `json:"cassette_dir,omitempty"`
	// RecordSecrets: the recording keeps secrets; RecordMissing: the replay fetches its misses live and appends
	// them.
	RecordSecrets bool `json:"record_secrets,omitempty"`
	RecordMissing bool `json:"record_missing,omitempty"`
	// ModelCache is the model-call cache directory ("" without one).
	ModelCache string `json:"model_cache,omitempty"`
}

// BrowserInfo is the browser section of the manifest: how this invocation's workers got their browsers. A
// resumed run overwrites it with the resuming invocation's (its launches count that invocation's only); bench
// merge keeps the first shard's, with the shards' Launches added up and their Versions joined.
type BrowserInfo struct {
	// Remote is true when every attempt ran in a remote Playwright browser server (bench --browser-endpoint;
	// nothing is launched locally then), false when each worker launched Chromium here.
	Remote bool `json:"remote"`
	// Endpoint is the server's URL with its credentials (user info) and query values replaced by "REDACTED" and
	// its path by "/REDACTED" (a launchServer's wsPath is its secret; browser.RedactEndpoint): scheme, host and
	// port remain; "" for a local launch.
	Endpoint string `json:"endpoint,omitempty"`
	// ExposeNetwork is the connect's exposeNetwork rules (--browser-expose-network), "" when none.
	ExposeNetwork string `json:"expose_network,omitempty"`
	// Headers are the names, never the values, of the HTTP headers sent with the connect request
	// (--browser-header, --browser-header-env), sorted.
	Headers []string `json:"headers,omitempty"`
	// Versions are the browser versions the launched or connected browsers reported (e.g. "156.0.8078.108"),
	// distinct, in the order first seen: more than one when a reconnect found another server.
	Versions []string `json:"versions,omitempty"`
	// Args are the Chromium flags the local launches got after the harness's own (browser.DefaultLaunchArgs):
	// runner.Options.BrowserArgs, then --disable-software-rasterizer when the suite's pages need no WebGL
	// (suites.NeedsWebGL), with secrets in flag values redacted (browser.RedactArgs: a URL's user info, path and
	// query values; bare user info). Empty with a remote browser, whose flags its server chose, and in manifests
	// written before it existed.
	Args []string `json:"args,omitempty"`
	// Launches counts the browsers launched or connected (one per worker, plus one per relaunch after a crash or
	// reconnect after a lost server).
	Launches int `json:"launches"`
}

// Endpoint is one model endpoint's preflight (llm.Client.Preflight): what it supports, or the error that was
// not fatal (an unreachable endpoint is retried by the attempts).
type Endpoint struct {
	// Variants names the arms that use the endpoint; BaseURL and Model identify it.
	Variants []string `json:"variants"`
	BaseURL  string   `json:"base_url"`
	Model    string   `json:"model"`
	// Capabilities is what the preflight found (nil when it failed).
	Capabilities *Capabilities `json:"capabilities,omitempty"`
	// Error is the preflight's error (redacted) when it failed without stopping the run; ErrorClass its class.
	Error      string         `json:"error,omitempty"`
	ErrorClass llm.ErrorClass `json:"error_class,omitempty"`
}

// Capabilities is what a preflight found an endpoint supports (llm.Capabilities as recorded).
type Capabilities struct {
	// Tools: the reply carried a tool call; Seed: a seed was sent and accepted (false also when none was sent);
	// Usage: the reply reported usage (false: tokens and cost are estimated from bytes).
	Tools bool `json:"tools"`
	Seed  bool `json:"seed"`
	Usage bool `json:"usage"`
	// ReasoningField is where the reply's reasoning came from ("reasoning_content", "reasoning",
	// "content_array", "think_tag"; "" when it had none).
	ReasoningField string `json:"reasoning_field,omitempty"`
	// MaxTokensField is the request field the preflight sent its completion cap in (llm.Config.MaxTokensFieldFor):
	// "max_tokens", "max_completion_tokens", "both" (only when configured so), or "" when none was sent (no
	// max_tokens configured, or omit: [max_tokens]). It is what was sent, not a finding about what the endpoint
	// reads.
	MaxTokensField string `json:"max_tokens_field,omitempty"`
	// Model is the model name the request named (the arm's model), not the name the reply gave (servers answer
	// with a resolved or dated name); LatencyMS the preflight call's wall time including retries, ms.
	Model     string `json:"model,omitempty"`
	LatencyMS int64  `json:"latency_ms"`
	// FinishReason is the preflight reply's finish_reason as sent ("tool_calls", "stop", "length", …).
	FinishReason string `json:"finish_reason,omitempty"`
	// Notes are the preflight's findings worth acting on: a rejected parameter and the setting that avoids it,
	// a reply without a tool call or without usage, a truncated reply.
	Notes []string `json:"notes,omitempty"`
}

// Summary is what one invocation of the runner did: attempt counts of the (sharded) plan. The JSON field names
// are snake_case (planned, skipped, …); manifests written before them carry the Go names (Planned, Skipped, …),
// which ReadManifest still reads: encoding/json matches object keys to fields case-insensitively, and
// DisallowUnknownFields only refuses keys that match no field.
type Summary struct {
	Planned int `json:"planned"`
	Skipped int `json:"skipped"`
	Ran     int `json:"ran"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	// Errors counts the attempts that ended in an error (infrastructure, judge, dataset), Uncertain the ones
	// the judge could not decide (status error, class uncertain: ClassUncertain), apart from Errors.
	Errors    int `json:"errors"`
	Uncertain int `json:"uncertain"`
	// Stopped is set when the run stopped early (quota, cost limit, interrupt) and says why.
	Stopped string `json:"stopped"`
	// Budget is the budget the run stopped on (BudgetCost, BudgetAttempts; "" when none): no attempt was
	// started after it was reached, those in flight finished and were recorded. Absent in older manifests.
	Budget string `json:"budget,omitempty"`
	// SeqSkips are the planned attempts a sequential design left unrun, per arm, as of the end of this
	// invocation (the whole run's, resumed invocations included); absent for a fixed-size run.
	SeqSkips []SeqSkip `json:"seq_skips,omitempty"`
	// Budgets are the budgets this invocation ran under (nil: none; absent in older manifests); in a merged run,
	// the shards' budgets added up (SumBudgets), each shard's in ShardBudgets.
	Budgets      *Budgets      `json:"budgets,omitempty"`
	ShardBudgets []ShardBudget `json:"shard_budgets,omitempty"`
}

// Plan is the expanded plan: suite and its options, tasks, reps, base seed, the arms as data, and for an
// ablation its analysis parameters.
type Plan struct {
	// Suite is the suite's name (suites.Open).
	Suite string `json:"suite"`
	// SuiteOptions are the options the suite was opened with (suites.Options: tasks_file, answers,
	// stale_dates, …), so bench judge and re-runs open the same tasks.
	SuiteOptions map[string]string `json:"suite_options,omitempty"`
	// TaskFilter is the task selection as given (comma-separated globs; "" = all).
	TaskFilter string `json:"task_filter,omitempty"`
	// ClusterUnit is the singular noun for what the attempts' cluster groups tasks by ("family", "site";
	// suites.RegisterClusterUnit), the word the reports use for the unit of analysis when tasks share
	// clusters; "" (a suite without one, or a run recorded before it existed) is worded "cluster".
	ClusterUnit string `json:"cluster_unit,omitempty"`
	// Tasks are the selected task ids, in plan order.
	Tasks []string `json:"tasks"`
	// TaskTags maps a task id to its tags (suites.Task.Tags); a guard's target tasks are those tagged with it.
	TaskTags map[string][]string `json:"task_tags,omitempty"`
	// Reps is the number of repetitions of every (arm, task).
	Reps int `json:"reps"`
	// BaseSeed is the base seed; attempt seeds derive from it and pair_id (Seed).
	BaseSeed int64 `json:"base_seed"`
	// Baseline names the arm the others are compared with: the ablation's baseline, or the only variant.
	Baseline string `json:"baseline"`
	// Variants are the arms in plan order, the baseline first.
	Variants []Variant `json:"variants"`
	// Attempts is the number of planned attempts of the whole (unsharded) plan.
	Attempts int `json:"attempts"`
	// Ablation holds the analysis parameters of a bench ablate run; nil for bench run.
	Ablation *Ablation `json:"ablation,omitempty"`
}

// Variant is one arm as data: its name, model, guard switches, prompt, budgets, seed mode and scope.
type Variant struct {
	// Name names the arm; Model is its model.
	Name  string `json:"name"`
	Model Model  `json:"model"`
	// Guards maps guard names to on (true) / off (false); absent guards take their defaults.
	Guards map[string]bool `json:"guards"`
	// PromptFile is the system prompt file ("" = the embedded default); PromptSHA256 the SHA-256 of its text
	// (agent.PromptSHA256), hex.
	PromptFile   string `json:"prompt,omitempty"`
	PromptSHA256 string `json:"prompt_sha256,omitempty"`
	// MaxSteps and Timeout override the agent's budgets (0 = the task's or the agent's default).
	MaxSteps int           `json:"max_steps,omitempty"`
	Timeout  time.Duration `json:"timeout,omitempty"`
	// Seed is the seed mode: "" derives the seed from pair_id and the base seed, "none" sends none, a number
	// fixes it.
	Seed string `json:"seed,omitempty"`
	// Scope is "all", "target" or "union of variant targets" (an ablation baseline); "" for bench run.
	Scope string `json:"scope,omitempty"`
	// Switched lists the guards this arm switches relative to the baseline (spec.Arms.Switched).
	Switched []string `json:"switched,omitempty"`
	// TargetTasks are the task ids the arm runs on, sorted; null (nil) means every task of the plan, [] none.
	TargetTasks []string `json:"target_tasks"`
	// Agent is the external agent the arm runs instead of the built-in one (nil: the built-in agent).
	Agent *AgentCmd `json:"agent,omitempty"`
	// Tools is the built-in agent's tool backend when it is not webbench's own browser session (nil: webbench's
	// tools); recorded, so resuming with other tools is refused.
	Tools *ToolsBackend `json:"tools,omitempty"`
	// Observation is the built-in agent's observation mode (full, diff or none; omitted: full).
	Observation string `json:"observation,omitempty"`
}

// ToolsBackend is the built-in agent's tool backend other than webbench's own browser session (DESIGN.md
// "Tool backends"): kind "mcp" runs Command, a Playwright MCP server
// (https://github.com/microsoft/playwright-mcp), once per attempt over stdio, with its own isolated headless
// browser restricted to the attempt's tenant, and the agent's tool calls go to it (browser/mcptools). Spec form:
// `tools: {kind: mcp, command: [npx, @playwright/mcp@VERSION, FLAGS…]}`.
type ToolsBackend struct {
	// Kind is "mcp" (the only kind).
	Kind string `json:"kind" yaml:"kind"`
	// Command is the server command and its arguments (no shell): [npx, @playwright/mcp@VERSION, FLAGS…] runs
	// the pinned install .cache/mcp/VERSION when `make setup` made it (npx as written otherwise), any other
	// command as written.
	Command []string `json:"command" yaml:"command"`
}

// AgentCmd is an external agent (DESIGN.md "External agents"): a command the runner starts
// once per attempt, with the attempt's MCP server, goal, deadline and model endpoint in WEBBENCH_* environment
// variables; its answer is the last line of its standard output that parses as the built-in agent's final JSON
// object. Spec form: `agent: {kind: command, run: [COMMAND, ARGS…], env: {K: V}}`; flag form: --agent-cmd
// "COMMAND ARGS" and --agent-env K=V.
type AgentCmd struct {
	// Kind is "command" (the only kind).
	Kind string `json:"kind" yaml:"kind"`
	// Run is the command and its arguments (no shell). A relative command path (one with a slash) is
	// resolved against Dir.
	Run []string `json:"run" yaml:"run"`
	// Env are extra environment variables for the command; a value may reference webbench's own environment as
	// ${VAR} or $VAR (os.Expand at run time). The manifest records the values unexpanded, so a secret passed
	// as ${VAR} never reaches the run directory.
	Env map[string]string `json:"env,omitempty" yaml:"env"`
	// Dir is the command's working directory and the folder its relative path resolves against: the spec
	// file's folder, or the current directory for --agent-cmd ("" = the current directory). Not recorded: the
	// same agent may be resumed from another folder.
	Dir string `json:"-" yaml:"-"`
}

// String names the agent for records and reports: "command: " and the run words joined by spaces (env left
// out: it may carry secrets), e.g. "command: node node/dist/agent.js".
func (a *AgentCmd) String() string {
	if a == nil {
		return ""
	}
	return "command: " + strings.Join(a.Run, " ")
}

// Model selects the model of an arm. Kind "scripted" runs the scripted policy in-process with Profile; kind
// "openai" talks to BaseURL (any OpenAI-compatible endpoint) with the key from the environment variable
// APIKeyEnv. The key itself is never recorded.
type Model struct {
	// Kind is "scripted" or "openai"; Name the model's name; BaseURL the endpoint (openai).
	Kind    string `json:"kind" yaml:"kind"`
	Name    string `json:"name" yaml:"name"`
	BaseURL string `json:"base_url,omitempty" yaml:"base_url"`
	// Profile is the scripted policy's fault profile: a name (clean, observed, harsh) or a YAML file.
	Profile string `json:"profile,omitempty" yaml:"profile"`
	// APIKeyEnv names the environment variable holding the API key.
	APIKeyEnv string `json:"api_key_env,omitempty" yaml:"api_key_env"`
	// Temp, TopP and MaxTokens are the sampling parameters sent (nil = the endpoint's default).
	Temp      *float32 `json:"temperature,omitempty" yaml:"temperature"`
	TopP      *float32 `json:"top_p,omitempty" yaml:"top_p"`
	MaxTokens *int     `json:"max_tokens,omitempty" yaml:"max_tokens"`
	// PriceIn and PriceOut are USD per million prompt / completion tokens (0 = unknown).
	PriceIn  float64 `json:"price_in,omitempty" yaml:"price_in"`
	PriceOut float64 `json:"price_out,omitempty" yaml:"price_out"`
	// CallTimeout bounds one model HTTP call including reading its body (0 = the client's 120 s); a call that
	// exceeds it is an infrastructure error (retried).
	CallTimeout time.Duration `json:"call_timeout,omitempty" yaml:"call_timeout"`
	// MaxConnections caps the concurrent requests to the model's endpoint (base URL + model) across all workers
	// (0 = no cap); the cap adapts down on HTTP 429 (llm.Limiter). Recorded, but not part of the plan's identity:
	// a run may be resumed with another cap.
	MaxConnections int `json:"max_connections,omitempty" yaml:"max_connections"`
	// Omit lists request fields never sent to this model: "temperature", "top_p", "seed", "max_tokens"
	// (llm.Config.Omit).
	Omit []string `json:"omit,omitempty" yaml:"omit"`
	// MaxTokensField is the request field max_tokens is sent in: "max_tokens", "max_completion_tokens", "both",
	// or "" for the client's default for the host (llm.Config.MaxTokensField, MaxTokensFieldFor).
	MaxTokensField string `json:"max_tokens_field,omitempty" yaml:"max_tokens_field"`
}

// Priced reports whether the model has a price (PriceIn or PriceOut above 0): an unpriced model's attempts
// record cost_usd $0, whatever they spent.
func (m Model) Priced() bool { return m.PriceIn > 0 || m.PriceOut > 0 }

// String is "scripted:PROFILE" or "KIND:NAME" (no URL, no key): the model field of attempt records.
func (m Model) String() string {
	if m.Kind == "scripted" {
		return "scripted:" + m.Profile
	}
	return m.Kind + ":" + m.Name
}

// Ablation is what the analysis of a bench ablate run needs beyond the plan's arms (STATS.md).
type Ablation struct {
	// Spec is the spec file's path as given on the command line.
	Spec string `json:"spec"`
	// Alpha is the two-sided level of every test, Power the target power, MinEffect the failure-rate change
	// the power analysis asks about (analysis.Inputs).
	Alpha     float64 `json:"alpha"`
	Power     float64 `json:"power"`
	MinEffect float64 `json:"min_effect"`
	// FailIfWorse is the gate margin the run was made with (0 = none), so reports show the gate.
	FailIfWorse float64 `json:"fail_if_worse,omitempty"`
	// FailIfCostlier is the cost gate the run was made with: per cost outcome, the relative increase it
	// tolerates (spec fail_if_costlier; nil = none).
	FailIfCostlier map[CostOutcome]float64 `json:"fail_if_costlier,omitempty"`
	// SpecWarnings were found while expanding the spec (a variant identical to the baseline, one that runs on
	// no task); the reports word them.
	SpecWarnings []SpecWarning `json:"spec_warnings,omitempty"`
	// Warnings are the spec's warnings as sentences, as manifests written before spec_warnings stored them;
	// the reports print them as stored. New manifests leave it empty.
	Warnings []string `json:"warnings,omitempty"`
	// Replays names the same-seed A/A arms (spec `aa: same-seed`, spec.Arms.Replays): copies of the baseline
	// with its own seeds, whose disagreement with it is the environment's flake rate.
	Replays []string `json:"replays,omitempty"`
	// Sequential is the sequential design (nil: every planned attempt runs, one test at the end).
	Sequential *Sequential `json:"sequential,omitempty"`
	// Copies names the other-seeds A/A arms (spec `aa: true`, spec.Arms.AA): copies of the baseline with
	// other seeds, whose Δ is the run's noise floor. Manifests written before it have none; the analysis then
	// recognises such arms from the plan (analysis.AACopies).
	Copies []string `json:"copies,omitempty"`
}

// SpecWarningKind is a stable code of a problem found while expanding an ablation spec (SpecWarning).
type SpecWarningKind string

// The kinds of SpecWarning.
const (
	// SpecVariantNoTask: a target-scoped variant none of whose selected tasks is tagged with a guard it
	// switches, so it runs on no task.
	SpecVariantNoTask SpecWarningKind = "variant_no_task"
	// SpecVariantIdentical: a variant identical to the baseline, which can only measure noise.
	SpecVariantIdentical SpecWarningKind = "variant_identical"
)

// SpecWarning is a problem bench ablate found while expanding the spec, as the manifest stores it
// (Ablation.SpecWarnings).
type SpecWarning struct {
	// Kind says what the problem is.
	Kind SpecWarningKind `json:"kind"`
	// Variant is the variant it concerns.
	Variant string `json:"variant"`
	// Guards are the guards the variant switches (SpecVariantNoTask).
	Guards []string `json:"guards,omitempty"`
	// Tasks is the number of selected tasks, none tagged with Guards (SpecVariantNoTask).
	Tasks int `json:"tasks,omitempty"`
}

// VariantNames lists the arms' names in plan order.
func (p Plan) VariantNames() []string {
	out := make([]string, 0, len(p.Variants))
	for _, v := range p.Variants {
		out = append(out, v.Name)
	}
	return out
}

// Variant returns the arm named name.
func (p Plan) Variant(name string) (Variant, bool) {
	for _, v := range p.Variants {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// Switched maps every arm that switches guards to them (analysis.Inputs.Switched).
func (p Plan) Switched() map[string][]string {
	out := map[string][]string{}
	for _, v := range p.Variants {
		if len(v.Switched) > 0 {
			out[v.Name] = v.Switched
		}
	}
	return out
}

// Targets maps every arm restricted to some tasks to their ids (analysis.Inputs.Targets); arms on all tasks
// are absent.
func (p Plan) Targets() map[string][]string {
	out := map[string][]string{}
	for _, v := range p.Variants {
		if v.TargetTasks != nil {
			out[v.Name] = v.TargetTasks
		}
	}
	return out
}

// ErrNoManifest is wrapped by Open and ReadManifest when the directory has no manifest.json (it also matches
// os.ErrNotExist).
var ErrNoManifest = errors.New("not a run directory (no " + ManifestFile + ")")

// ErrBadManifest is wrapped by Open and ReadManifest when manifest.json (or a version 1 ablation.json) cannot be
// read as a manifest: malformed JSON, a field of the wrong type, an unknown field or schema version.
var ErrBadManifest = errors.New("bad manifest")

type noManifestError struct{ path string }

func (e noManifestError) Error() string { return e.path + ": " + ErrNoManifest.Error() }
func (e noManifestError) Is(t error) bool {
	return t == ErrNoManifest || t == os.ErrNotExist
}

// ReadManifest reads dir/manifest.json. Version 2 is decoded strictly (unknown fields are errors); version 1 is
// converted, with dir/ablation.json when present (readV1). Errors name the file, the line and the field.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, noManifestError{path}
	}
	if err != nil {
		return nil, err
	}
	var head struct {
		SchemaVersion int `json:"schema_version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, badManifest(path, b, err)
	}
	switch head.SchemaVersion {
	case SchemaVersion:
		var m Manifest
		if err := decodeStrict(b, &m); err != nil {
			return nil, badManifest(path, b, err)
		}
		if err := m.validate(); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrBadManifest, path, err)
		}
		return &m, nil
	case schemaV1:
		return readV1(dir, path, b)
	}
	return nil, fmt.Errorf("%w: %s: schema_version %d, this bench reads 1 and %d", ErrBadManifest, path,
		head.SchemaVersion, SchemaVersion)
}

// validate checks what every manifest must hold.
func (m *Manifest) validate() error {
	switch {
	case m.Plan.Suite == "":
		return errors.New("field plan.suite is empty")
	case len(m.Plan.Variants) == 0:
		return errors.New("field plan.variants is empty")
	}
	for i, v := range m.Plan.Variants {
		if v.Name == "" {
			return fmt.Errorf("field plan.variants[%d].name is empty", i)
		}
	}
	if _, ok := m.Plan.Variant(m.Plan.Baseline); !ok {
		return fmt.Errorf("field plan.baseline %q names no variant", m.Plan.Baseline)
	}
	return nil
}

// WriteManifest writes m to dir/manifest.json atomically, as schema version SchemaVersion.
func WriteManifest(dir string, m *Manifest) error {
	m.SchemaVersion = SchemaVersion
	return WriteJSONFile(filepath.Join(dir, ManifestFile), m)
}

func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

func badManifest(path string, b []byte, err error) error {
	return fmt.Errorf("%w: %s", ErrBadManifest, jsonError(path, b, 0, err))
}

// jsonError words a decoding error of b (read from path, starting at line firstLine; 0 = count lines of b) as
// "path:line: field F: …". Line numbers are 1-based.
func jsonError(path string, b []byte, firstLine int, err error) string {
	var off int64 = -1
	field := ""
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off, field = te.Offset, te.Field
	}
	loc := path
	if firstLine > 0 {
		loc = fmt.Sprintf("%s:%d", path, firstLine)
	} else if off >= 0 {
		loc = fmt.Sprintf("%s:%d", path, 1+bytes.Count(b[:min(int(off), len(b))], []byte{'\n'}))
	}
	msg := err.Error()
	if field != "" {
		return fmt.Sprintf("%s: field %s: %s", loc, field, msg)
	}
	return fmt.Sprintf("%s: %s", loc, msg)
}
