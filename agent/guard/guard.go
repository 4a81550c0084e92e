// Package guard holds the seven guards of GUARDS.md, each a type implementing agent.Hook and the hook
// interfaces it needs, and a registry by name (Names, Default, Parse, Build). Every guard is on by default;
// a guard that is off is simply absent from the hook list, so the agent behaves exactly as before the fix the
// guard reproduces. Guards keep their state in the attempt (agent.State), never in the hook value, so one
// hook value serves concurrent attempts. Every action a guard takes is recorded with Attempt.Event.
package guard

import (
	"strings"
)

// Guard names, in registry order.
const (
	NameInterceptHint     = "intercept_hint"
	NameRepeatGuard       = "repeat_guard"
	NameFinalRecovery     = "final_recovery"
	NameSnapshotReady     = "snapshot_ready"
	NameStaleRefRefresh   = "stale_ref_refresh"
	NameEvaluateIsolation = "evaluate_isolation"
	NameVisualProgress    = "visual_progress"
)

// resultSections are the section headings of browser.Result.Format.
var resultSections = map[string]bool{"Error": true, "Result": true, "Page": true, "Snapshot": true, "Events": true}

// errorSection locates the "### Error" section of a formatted tool result: text[start:end] is the error body
// (without the heading line), ending where the next known section ("### Result", "### Page", …) starts. When
// the text has no "### Error" heading, ok is false.
func errorSection(text string) (start, end int, ok bool) {
	const h = "### Error\n"
	switch {
	case strings.HasPrefix(text, h):
		start = len(h)
	default:
		i := strings.Index(text, "\n"+h)
		if i < 0 {
			return 0, 0, false
		}
		start = i + 1 + len(h)
	}
	end = len(text)
	for i := start; i < len(text); {
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			break
		}
		j := i + nl + 1
		if line := text[j:]; strings.HasPrefix(line, "### ") {
			name := line[4:]
			if k := strings.IndexByte(name, '\n'); k >= 0 {
				name = name[:k]
			}
			if resultSections[strings.TrimSpace(name)] {
				end = i + nl // the newline before the heading
				break
			}
		}
		i = j
	}
	return start, end, true
}
