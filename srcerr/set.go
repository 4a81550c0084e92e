package srcerr

import (
	"fmt"
	"slices"
	"strings"
)

// OneOf is the one check of a value against a closed set of names (a design, a scope, a suite, a profile, a
// judge, a format, a guard, …): nil when got is one of valid, else `unknown WHAT "got" (did you mean "x"?)
// (valid: a, b, c)`, the hint when one name is a near miss (Suggest). others, when given, is what is valid
// besides the names ("or a YAML file path"), appended to the list after a semicolon. The caller places it: a
// spec's file:line:col and field (At), or the flag it came from.
func OneOf(what, got string, valid []string, others ...string) error {
	if slices.Contains(valid, got) {
		return nil
	}
	list := strings.Join(valid, ", ")
	if len(others) > 0 {
		list += "; " + strings.Join(others, "; ")
	}
	return fmt.Errorf("unknown %s %q%s (valid: %s)", what, got, Suggest(got, valid), list)
}
