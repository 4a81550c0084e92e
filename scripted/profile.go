package scripted

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"webbench/srcerr"
)

// Profile is a fault profile: the probabilities with which the scripted policy reproduces the failure modes of
// the seeds (ZOO.md "The scripted policy", the fault table). Every probability is in [0,1]. "Drawn per" says
// when the coin is tossed: per step (one assistant message), per attempt (the request seed alone), per note,
// per request, or per empty snapshot.
type Profile struct {
	// Name is the profile's name ("clean", "observed", "harsh", or the file's name without extension).
	Name string `json:"name" yaml:"name"`
	// BlockedClickRawUnderstood: after a click failed with Playwright's raw call log ("intercepts pointer
	// events"), the policy understands the blocker and dismisses it (else it retries the same click or
	// re-snapshots). Drawn per step.
	BlockedClickRawUnderstood float64 `json:"blocked_click_raw_understood" yaml:"blocked_click_raw_understood"`
	// BlockedClickHintUnderstood: the same after intercept_hint's condensed "Click not delivered" message.
	// Drawn per step.
	BlockedClickHintUnderstood float64 `json:"blocked_click_hint_understood" yaml:"blocked_click_hint_understood"`
	// PostAnswerLoop: on a Q&A task, once the answer is in view, enter a no-op browser_evaluate loop instead
	// of answering. Drawn per attempt.
	PostAnswerLoop float64 `json:"post_answer_loop" yaml:"post_answer_loop"`
	// HeedRepeatNote: on a "### Repeated call" note, leave the loop and answer. Drawn per note.
	HeedRepeatNote float64 `json:"heed_repeat_note" yaml:"heed_repeat_note"`
	// WithheldNoUserTurnEmpty: a request with tools withheld and no user turn after the last tool result is
	// answered with empty content (else with the final JSON). Drawn per request.
	WithheldNoUserTurnEmpty float64 `json:"withheld_no_user_turn_empty" yaml:"withheld_no_user_turn_empty"`
	// WithheldUserTurnJSON: a request whose last message is final_recovery's user turn is answered with
	// valid final JSON (else prose, or now and then a tool call). Drawn per request.
	WithheldUserTurnJSON float64 `json:"withheld_user_turn_json" yaml:"withheld_user_turn_json"`
	// ProseFinal: the policy ends with Markdown prose instead of the final JSON. Drawn per attempt.
	ProseFinal float64 `json:"prose_final" yaml:"prose_final"`
	// EmptySnapshotGiveUp: facing a snapshot with no interactive ref, give up ("the accessibility tree is
	// incomplete"), else ask for a new snapshot. Drawn per empty snapshot.
	EmptySnapshotGiveUp float64 `json:"empty_snapshot_give_up" yaml:"empty_snapshot_give_up"`
	// StaleRefWithoutRefresh: after a stale-ref error that no fresh snapshot follows, act on a ref from the
	// old view (repeat the failed call), else ask for a snapshot. Drawn per step.
	StaleRefWithoutRefresh float64 `json:"stale_ref_without_refresh" yaml:"stale_ref_without_refresh"`
	// EvaluateOnHungPages: play a solution's evaluate steps (which hit the hung API / busy function); else
	// skip them. Drawn per attempt.
	EvaluateOnHungPages float64 `json:"evaluate_on_hung_pages" yaml:"evaluate_on_hung_pages"`
	// LatencyMS is simulated latency per call (0 by default).
	LatencyMS Latency `json:"latency_ms" yaml:"latency_ms"`
}

// Latency is a simulated per-call delay in milliseconds: uniform in [Mean-Jitter, Mean+Jitter], floored at 0,
// drawn per request from the request seed.
type Latency struct {
	Mean   float64 `json:"mean" yaml:"mean"`
	Jitter float64 `json:"jitter" yaml:"jitter"`
}

//go:embed profiles/*.yaml
var builtinFS embed.FS

// ProfileNames lists the built-in profiles, sorted: clean, harsh, observed.
func ProfileNames() []string {
	ents, _ := fs.ReadDir(builtinFS, "profiles")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Clean returns the built-in clean profile: every fault 0, every understood/heed/json probability 1.
func Clean() Profile {
	p, err := builtin("clean")
	if err != nil {
		panic(err) // the embedded file is part of the build
	}
	return p
}

func builtin(name string) (Profile, error) {
	data, err := builtinFS.ReadFile("profiles/" + name + ".yaml")
	if err != nil {
		return Profile{}, err
	}
	return parseProfile(data, "profiles/"+name+".yaml", name, false)
}

// LoadProfile returns a built-in profile by name (clean, observed, harsh) or reads a YAML file. A file uses the
// same keys as the built-ins; keys it leaves out take the values of its `base` profile (clean unless it names
// another built-in with `base: observed`), so a test file may set a single failure mode. An unknown key, a
// value that is not a number, or a probability outside [0,1] is an error naming the file, line and field.
func LoadProfile(nameOrPath string) (Profile, error) {
	for _, n := range ProfileNames() {
		if nameOrPath == n {
			return builtin(n)
		}
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(nameOrPath, "/\\.") {
			return Profile{}, srcerr.OneOf("fault profile", nameOrPath, ProfileNames(), "or a YAML file path")
		}
		return Profile{}, fmt.Errorf("fault profile: %w", err)
	}
	return ParseProfile(data, nameOrPath)
}

// ParseProfile parses profile YAML; source names it in errors (a file path). Missing keys take the values of
// the `base` profile (clean by default).
func ParseProfile(data []byte, source string) (Profile, error) {
	name := strings.TrimSuffix(filepath.Base(source), filepath.Ext(source))
	return parseProfile(data, source, name, true)
}

// probFields lists the probability keys and where they live in p.
func probFields(p *Profile) []struct {
	key string
	ptr *float64
} {
	return []struct {
		key string
		ptr *float64
	}{
		{"blocked_click_raw_understood", &p.BlockedClickRawUnderstood},
		{"blocked_click_hint_understood", &p.BlockedClickHintUnderstood},
		{"post_answer_loop", &p.PostAnswerLoop},
		{"heed_repeat_note", &p.HeedRepeatNote},
		{"withheld_no_user_turn_empty", &p.WithheldNoUserTurnEmpty},
		{"withheld_user_turn_json", &p.WithheldUserTurnJSON},
		{"prose_final", &p.ProseFinal},
		{"empty_snapshot_give_up", &p.EmptySnapshotGiveUp},
		{"stale_ref_without_refresh", &p.StaleRefWithoutRefresh},
		{"evaluate_on_hung_pages", &p.EvaluateOnHungPages},
	}
}

func parseProfile(data []byte, source, name string, allowBase bool) (Profile, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Profile{}, srcerr.FromYAML(source, data, err, nil)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return Profile{}, srcerr.At(source, 0, 0, "", "empty fault profile")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return Profile{}, srcerr.AtNode(source, root, "", "a fault profile is a mapping of keys to probabilities")
	}
	// The base comes first so that the file's keys override it wherever they appear.
	var p Profile
	baseSet := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "base" {
			continue
		}
		if !allowBase {
			return Profile{}, srcerr.AtNode(source, k, "base", "not allowed in a built-in profile")
		}
		b, err := builtin(v.Value)
		if err != nil {
			return Profile{}, srcerr.AtNode(source, v, "base", "%v", srcerr.OneOf("profile", v.Value, ProfileNames()))
		}
		p, baseSet = b, true
	}
	if !baseSet && allowBase {
		p = Clean()
	}
	p.Name = name
	fields := probFields(&p)
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			return Profile{}, srcerr.AtNode(source, k, k.Value, "given twice")
		}
		seen[k.Value] = true
		switch k.Value {
		case "base":
			continue
		case "name":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return Profile{}, srcerr.Mismatch(source, v, "name", "a non-empty string")
			}
			p.Name = v.Value
			continue
		case "latency_ms":
			lat, err := parseLatency(v, source)
			if err != nil {
				return Profile{}, err
			}
			p.LatencyMS = lat
			continue
		}
		found := false
		for _, f := range fields {
			if f.key != k.Value {
				continue
			}
			found = true
			x, ok := number(v)
			if !ok {
				return Profile{}, srcerr.Mismatch(source, v, k.Value, "a number")
			}
			if x < 0 || x > 1 {
				return Profile{}, srcerr.AtNode(source, v, k.Value, "probability %v outside [0,1]", x)
			}
			*f.ptr = x
		}
		if !found {
			return Profile{}, srcerr.AtNode(source, k, "", "%v", srcerr.OneOf("key", k.Value, validKeys()))
		}
	}
	return p, nil
}

func validKeys() []string {
	var p Profile
	keys := []string{"name", "base", "latency_ms"}
	for _, f := range probFields(&p) {
		keys = append(keys, f.key)
	}
	return keys
}

func parseLatency(v *yaml.Node, source string) (Latency, error) {
	var lat Latency
	if v.Kind != yaml.MappingNode {
		return lat, srcerr.Mismatch(source, v, "latency_ms", "a mapping {mean, jitter}")
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		var dst *float64
		switch k.Value {
		case "mean":
			dst = &lat.Mean
		case "jitter":
			dst = &lat.Jitter
		default:
			return lat, srcerr.AtNode(source, k, "latency_ms", "%v", srcerr.OneOf("key", k.Value, []string{"mean", "jitter"}))
		}
		x, ok := number(val)
		if !ok {
			return lat, srcerr.Mismatch(source, val, "latency_ms."+k.Value, "a number")
		}
		if x < 0 {
			return lat, srcerr.AtNode(source, val, "latency_ms."+k.Value, "%v ms is negative", x)
		}
		*dst = x
	}
	return lat, nil
}

// number is v as a finite number; false when it is not one.
func number(v *yaml.Node) (float64, bool) {
	var x float64
	if v.Kind != yaml.ScalarNode || v.Decode(&x) != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}
