package guard

import (
	"fmt"
	"slices"
	"strings"

	"webbench/agent"
	"webbench/srcerr"
)

// entry is one registered guard: its name, its place in the hook order, whether it acts on a tool call and its
// result only (tool-level: a server of the browser tools can apply it to any agent's calls), and its constructor.
type entry struct {
	name      string
	order     int
	toolLevel bool
	mk        func() agent.Hook
}

// registry lists every guard in registry order (the order the loop calls their hooks), as the guards' files
// register them.
var registry []entry

// register adds a guard to the registry; each guard's file calls it from init, so a new guard is one file.
// order places its hooks among the others' (lower first); the order matters where two guards act on the same
// result (intercept_hint rewrites an error before repeat_guard fingerprints it). A duplicate name or order panics
// at start-up.
func register(name string, order int, toolLevel bool, mk func() agent.Hook) {
	for _, g := range registry {
		if g.name == name || g.order == order {
			panic(fmt.Sprintf("guard: %s registered twice, or at %s's order %d", name, g.name, order))
		}
	}
	registry = append(registry, entry{name, order, toolLevel, mk})
	slices.SortFunc(registry, func(a, b entry) int { return a.order - b.order })
}

// Names returns the guard names in registry order: intercept_hint, repeat_guard, final_recovery,
// snapshot_ready, stale_ref_refresh, evaluate_isolation, visual_progress.
func Names() []string {
	out := make([]string, len(registry))
	for i, g := range registry {
		out[i] = g.name
	}
	return out
}

// Default returns the default settings: every guard on.
func Default() map[string]bool {
	m := make(map[string]bool, len(registry))
	for _, g := range registry {
		m[g.name] = true
	}
	return m
}

func known(name string) bool { return slices.Contains(Names(), name) }

func unknownErr(name string) error {
	return fmt.Errorf("guard: %w", srcerr.OneOf("guard", name, Names()))
}

// ParseSwitch parses an on/off value: on|true|yes|1 and off|false|no|0 (case-insensitive).
func ParseSwitch(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1":
		return true, nil
	case "off", "false", "no", "0":
		return false, nil
	}
	return false, fmt.Errorf("guard: %q is not on/off", v)
}

// Parse reads a --guards spec: comma-separated items applied left to right over Default(). An item is
// "name=on|off" (also true/false, yes/no, 1/0), a bare "name" (= on), "all=on|off", or "none" (= all off).
// An empty spec is Default(). An unknown name or value is an error that lists the valid names.
// Example: "repeat_guard=off,intercept_hint=on"; "none,visual_progress=on".
func Parse(spec string) (map[string]bool, error) {
	m := Default()
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, hasVal := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		on := true
		if hasVal {
			v, err := ParseSwitch(val)
			if err != nil {
				return nil, fmt.Errorf("%w in %q", err, item)
			}
			on = v
		}
		switch {
		case name == "none" && !hasVal:
			on = false
			fallthrough
		case name == "all":
			for k := range m {
				m[k] = on
			}
		case known(name):
			m[name] = on
		default:
			return nil, unknownErr(name)
		}
	}
	return m, nil
}

// Build returns the hooks of the guards that are on, in registry order. Names absent from settings take their
// default (on); a nil map is Default(). An unknown name is an error listing the valid names. A guard that is
// off is simply absent: the agent then behaves exactly as before its fix.
func Build(settings map[string]bool) ([]agent.Hook, error) {
	for name := range settings {
		if !known(name) {
			return nil, unknownErr(name)
		}
	}
	var hooks []agent.Hook
	for _, g := range registry {
		if on, ok := settings[g.name]; ok && !on {
			continue
		}
		hooks = append(hooks, g.mk())
	}
	return hooks, nil
}

// ToolLevel returns the names of the tool-level guards in registry order: those that act on a tool call and its
// result only, so that a server of the browser tools can apply them to any agent's calls (agent/mcpserver):
// intercept_hint, snapshot_ready, stale_ref_refresh, evaluate_isolation. The others (repeat_guard,
// final_recovery, visual_progress) act on the model conversation or the loop's stall detector: an external agent
// runs its own (WEBBENCH_GUARDS).
func ToolLevel() []string {
	var out []string
	for _, g := range registry {
		if g.toolLevel {
			out = append(out, g.name)
		}
	}
	return out
}

// BuildToolLevel is Build restricted to the tool-level guards (ToolLevel): the hooks of those that are on, in
// registry order. settings is the variant's whole guard map (the model-level names are accepted and ignored);
// an unknown name is an error listing the valid names.
func BuildToolLevel(settings map[string]bool) ([]agent.Hook, error) {
	hooks, err := Build(settings)
	if err != nil {
		return nil, err
	}
	var out []agent.Hook
	for _, h := range hooks {
		if slices.Contains(ToolLevel(), h.Name()) {
			out = append(out, h)
		}
	}
	return out, nil
}
