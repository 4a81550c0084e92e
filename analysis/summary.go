package analysis

import (
	"math"
	"net/url"
	"slices"
	"strings"

	"webbench/results"
	"webbench/stats"
)

// Arm summarises one variant's final records (the last record of each attempt id).
type Arm struct {
	// Name of the variant.
	Name string `json:"name"`
	// Model is what the variant evaluated: "scripted:PROFILE", or "openai:NAME@HOST" with the base URL's host
	// once LabelModels has read the manifest ("openai:NAME" from the records alone).
	Model string `json:"model,omitempty"`
	// Attempts is the number of attempt ids recorded; N those judged (pass or fail); Errors those that
	// ended in error (infra or judge), excluded from N.
	Attempts int `json:"attempts"`
	N        int `json:"n"`
	Passes   int `json:"passes"`
	Errors   int `json:"errors"`
	// ErrorsByClass counts errors by error_class.
	ErrorsByClass map[string]int `json:"errors_by_class"`
	// Rate = Passes/N (0 when N = 0: undefined, shown as n/a and null in JSON); Wilson its 95% score interval
	// [lo, hi].
	Rate   float64    `json:"rate"`
	Wilson [2]float64 `json:"wilson"`
	// ClusteredSE is the cluster-robust SE (0 when fewer than two clusters) of the pass rate with tasks (or the suite's cluster) as clusters.
	ClusteredSE float64 `json:"clustered_se"`
	// Tasks is the number of distinct tasks; Clusters the number of distinct clusters they fall in (a task
	// without a cluster is its own), equal to Tasks when no two tasks share one.
	Tasks    int `json:"tasks"`
	Clusters int `json:"clusters"`
	// MeanSteps, MeanTokens (prompt+completion), MeanWallMS over judged attempts; CostUSD total.
	MeanSteps  float64 `json:"mean_steps"`
	MeanTokens float64 `json:"mean_tokens"`
	MeanWallMS float64 `json:"mean_wall_ms"`
	CostUSD    float64 `json:"cost_usd"`
	// MeanTokensPassed is the mean tokens (prompt+completion) over passed attempts, the "tokens per pass"
	// column: what a success costs, beside MeanTokens over all judged attempts. nil (JSON null) with no pass.
	MeanTokensPassed *float64 `json:"mean_tokens_passed"`
	// FailureModes counts failure_mode over failed attempts.
	FailureModes map[string]int `json:"failure_modes"`
	// GuardEvents sums guard event counts; GuardFired counts attempts in which each guard acted, and
	// GuardFiredPass how many of those passed.
	GuardEvents    map[string]int `json:"guard_events"`
	GuardFired     map[string]int `json:"guard_fired"`
	GuardFiredPass map[string]int `json:"guard_fired_pass"`
	// Recovered counts attempts whose final answer was recovered (final_recovery).
	Recovered int `json:"recovered"`
	// ModelCalls is the model calls (steps) of all the arm's attempts, errors included.
	ModelCalls int `json:"model_calls"`
	// ModelCache is what the model cache (--model-cache) replayed of the arm's calls; nil when no attempt of the
	// arm ran with one.
	ModelCache *ArmCache `json:"model_cache,omitempty"`
}

// ArmCache is an arm's use of the model cache over all its attempts (results.ModelCache summed). CostUSD and
// the tokens of the arm count every call, replayed or not: what the arm would have cost without the cache.
type ArmCache struct {
	// Replayed is the calls answered from the cache; Sent (ModelCalls − Replayed) those that reached the
	// endpoint.
	Replayed int `json:"replayed"`
	Sent     int `json:"sent"`
	// ReplayedTokens is the replayed calls' tokens (prompt + completion).
	ReplayedTokens int `json:"replayed_tokens"`
	// SavedUSD is the replayed calls' cost; PaidUSD the arm's CostUSD less SavedUSD, what this run paid.
	SavedUSD float64 `json:"saved_usd"`
	PaidUSD  float64 `json:"paid_usd"`
}

// Summarize groups final records by variant (in order of first appearance) and summarises each.
func Summarize(recs []results.Attempt) []Arm {
	var order []string
	by := map[string][]results.Attempt{}
	for _, r := range recs {
		if _, ok := by[r.Variant]; !ok {
			order = append(order, r.Variant)
		}
		by[r.Variant] = append(by[r.Variant], r)
	}
	out := make([]Arm, 0, len(order))
	for _, name := range order {
		out = append(out, SummarizeArm(name, by[name]))
	}
	return out
}

// SummarizeArm summarises one variant's records.
func SummarizeArm(name string, recs []results.Attempt) Arm {
	a := Arm{Name: name, Attempts: len(recs), FailureModes: map[string]int{}, GuardEvents: map[string]int{},
		GuardFired: map[string]int{}, GuardFiredPass: map[string]int{}, ErrorsByClass: map[string]int{}}
	tasks := map[string]bool{}
	var vals []float64
	var clusters []string
	var steps, toks, wall, passToks float64
	for _, r := range recs {
		tasks[r.TaskID] = true
		if a.Model == "" {
			a.Model = r.Model
		}
		a.CostUSD += r.CostUSD
		a.ModelCalls += r.Steps
		if mc := r.ModelCache; mc != nil {
			if a.ModelCache == nil {
				a.ModelCache = &ArmCache{}
			}
			a.ModelCache.Replayed += mc.Replayed
			a.ModelCache.ReplayedTokens += mc.Tokens.Prompt + mc.Tokens.Completion
			a.ModelCache.SavedUSD += mc.SavedUSD
		}
		if !r.Done() {
			a.Errors++
			a.ErrorsByClass[string(r.ErrorClass)]++
			continue
		}
		a.N++
		pass := r.Status == results.StatusPass
		v := 0.0
		if pass {
			a.Passes++
			v = 1
		} else if r.FailureMode != "" {
			a.FailureModes[string(r.FailureMode)]++
		}
		if r.RecoveredFrom != "" {
			a.Recovered++
		}
		vals = append(vals, v)
		c := r.Cluster
		if c == "" {
			c = r.TaskID
		}
		clusters = append(clusters, c)
		steps += float64(r.Steps)
		toks += float64(r.Tokens.Prompt + r.Tokens.Completion)
		if pass {
			passToks += float64(r.Tokens.Prompt + r.Tokens.Completion)
		}
		wall += float64(r.DurationMS)
		for g, n := range r.GuardEvents {
			a.GuardEvents[g] += n
			if n > 0 {
				a.GuardFired[g]++
				if pass {
					a.GuardFiredPass[g]++
				}
			}
		}
	}
	a.Tasks = len(tasks)
	if c := a.ModelCache; c != nil {
		c.Sent, c.PaidUSD = a.ModelCalls-c.Replayed, a.CostUSD-c.SavedUSD
	}
	if a.N > 0 {
		a.Rate = float64(a.Passes) / float64(a.N)
		a.MeanSteps, a.MeanTokens, a.MeanWallMS = steps/float64(a.N), toks/float64(a.N), wall/float64(a.N)
		if a.Passes > 0 {
			m := passToks / float64(a.Passes)
			a.MeanTokensPassed = &m
		}
		a.Clusters = len(slices.Compact(slices.Sorted(slices.Values(clusters))))
		if se := stats.ClusteredSE(vals, clusters); !math.IsNaN(se) && !math.IsInf(se, 0) {
			a.ClusteredSE = se
		}
	}
	lo, hi := stats.Wilson(a.Passes, a.N, stats.Z95)
	a.Wilson = [2]float64{lo, hi}
	return a
}

// ModelLabel names what a variant evaluated, compactly: "scripted:PROFILE", or "openai:NAME@HOST" (the base
// URL's host and port, no scheme or path).
func ModelLabel(m results.Model) string {
	s := m.String()
	if m.Kind == "scripted" || m.BaseURL == "" {
		return s
	}
	host := m.BaseURL
	if u, err := url.Parse(m.BaseURL); err == nil && u.Host != "" {
		host = u.Host
	}
	return s + "@" + host
}

// LabelModels sets each arm's Model to the ModelLabel of its variant in vs (the manifest's plan), so reports
// name the endpoint too — followed by " (agent: COMMAND ARGS)" for an arm played by an external agent, so a
// report never shows a Node-agent arm and a built-in arm under the same name; arms without a variant in vs keep
// the records' model.
func LabelModels(arms []Arm, vs []results.Variant) {
	by := map[string]string{}
	for _, v := range vs {
		if v.Model.Kind != "" { // manifests that record no model keep the records' model
			by[v.Name] = ModelLabel(v.Model)
			if v.Agent != nil {
				by[v.Name] += " (agent: " + strings.Join(v.Agent.Run, " ") + ")"
			}
		}
	}
	for i := range arms {
		if l, ok := by[arms[i].Name]; ok {
			arms[i].Model = l
		}
	}
}

// LabelModels sets the Model of every arm of a (Arms, BaseArm, each variant's Arm) as LabelModels does.
func (a *Analysis) LabelModels(vs []results.Variant) {
	LabelModels(a.Arms, vs)
	one := []Arm{a.BaseArm}
	LabelModels(one, vs)
	a.BaseArm = one[0]
	for i := range a.Variants {
		one[0] = a.Variants[i].Arm
		LabelModels(one, vs)
		a.Variants[i].Arm = one[0]
	}
}

// AllInfra lists the arms every one of whose attempts ended in an infrastructure error: their pass rate is
// undefined (n/a), and nothing about the agent can be read from them.
func AllInfra(arms []Arm) []string {
	var out []string
	for _, a := range arms {
		if a.Attempts > 0 && a.N == 0 && a.ErrorsByClass[string(results.ClassInfra)] == a.Attempts {
			out = append(out, a.Name)
		}
	}
	return out
}
