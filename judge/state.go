package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"webbench/suites"
)

// State judges a Zoo attempt by the app's final state: the task's Check.State must be a subset of the state
// JSON. Maps match as subsets (every expected key present and matching); lists must have the same length and
// each expected item must match a distinct actual item (order-free); strings compare case-insensitively after
// trimming; numbers compare exactly.
type State struct{}

func init() {
	RegisterForTasks("state", func(Options) (Judge, error) { return State{}, nil }, 10,
		func(t suites.Task) bool { return t.Check.State != nil })
}

// Name is "state".
func (State) Name() string { return "state" }

// Judge implements Judge. A task without a state check, or an attempt without state, is a judge error verdict.
func (State) Judge(_ context.Context, in Input) (Verdict, error) {
	v := Verdict{Judge: "state"}
	if in.Task.Check.State == nil {
		v.Error = "task has no state check"
		return v, nil
	}
	if len(in.State) == 0 {
		v.Error = "no app state recorded for this attempt"
		return v, nil
	}
	var actual any
	if err := json.Unmarshal(in.State, &actual); err != nil {
		v.Error = "app state is not JSON: " + err.Error()
		return v, nil
	}
	var expected any
	b, _ := json.Marshal(in.Task.Check.State)
	_ = json.Unmarshal(b, &expected)
	if why := Match(expected, actual, "state"); why != "" {
		v.Reason = why
		return v, nil
	}
	v.Pass = true
	v.Reason = "state matches the expected " + summarize(expected)
	return v, nil
}

// Match reports "" when expected is a subset of actual (rules of State), else the first mismatch with its
// JSON path.
func Match(expected, actual any, path string) string {
	switch e := expected.(type) {
	case map[string]any:
		a, ok := actual.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: expected an object, got %s", path, short(actual))
		}
		keys := make([]string, 0, len(e))
		for k := range e {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			av, ok := a[k]
			if !ok {
				return fmt.Sprintf("%s.%s: missing", path, k)
			}
			if why := Match(e[k], av, path+"."+k); why != "" {
				return why
			}
		}
		return ""
	case []any:
		a, ok := actual.([]any)
		if !ok {
			return fmt.Sprintf("%s: expected a list, got %s", path, short(actual))
		}
		if len(a) != len(e) {
			return fmt.Sprintf("%s: expected %d item(s), got %d", path, len(e), len(a))
		}
		used := make([]bool, len(a))
		for i, ev := range e {
			found := false
			var firstWhy string
			for j, av := range a {
				if used[j] {
					continue
				}
				why := Match(ev, av, fmt.Sprintf("%s[%d]", path, i))
				if why == "" {
					used[j], found = true, true
					break
				}
				if firstWhy == "" {
					firstWhy = why
				}
			}
			if !found {
				return fmt.Sprintf("%s[%d]: no matching item (%s)", path, i, firstWhy)
			}
		}
		return ""
	case string:
		if as, ok := actual.(string); ok && strings.EqualFold(strings.TrimSpace(as), strings.TrimSpace(e)) {
			return ""
		}
		if af, ok := actual.(float64); ok && fmt.Sprint(af) == strings.TrimSpace(e) {
			return ""
		}
		return fmt.Sprintf("%s: expected %q, got %s", path, e, short(actual))
	case float64:
		if af, ok := actual.(float64); ok && math.Abs(af-e) < 1e-9 {
			return ""
		}
		return fmt.Sprintf("%s: expected %v, got %s", path, e, short(actual))
	default:
		if reflect.DeepEqual(expected, actual) {
			return ""
		}
		return fmt.Sprintf("%s: expected %s, got %s", path, short(expected), short(actual))
	}
}

func short(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func summarize(v any) string { return short(v) }
