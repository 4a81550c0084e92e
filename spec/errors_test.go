package spec

import (
	"testing"
)

// TestSpecTypeErrors: a value of the wrong type anywhere in a spec — top-level keys, the baseline's and a
// variant's blocks, the model block, the sequential block — is named by its field path with what was wanted and
// what was written, at the value's line and column.
func TestSpecTypeErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"name: x\nreps: two\n", `s.yaml:2:7: reps: want an integer, got "two"`},
		{"name: x\nseed: 1\nworkers: [2]\n", `s.yaml:3:10: workers: want an integer, got a list`},
		{"name: x\nalpha: five percent\n", `s.yaml:2:8: alpha: want a number, got "five percent"`},
		{"name: x\nbaseline:\n  model: {kind: openai, name: m, temperature: warm}\n",
			`s.yaml:3:47: baseline.model.temperature: want a number, got "warm"`},
		{"name: x\nbaseline:\n  max_steps: lots\n", `s.yaml:3:14: baseline.max_steps: want an integer, got "lots"`},
		{"name: x\nvariants:\n  - name: a\n  - name: b\n    guards:\n      repeat_guard: perhaps\n",
			`s.yaml:6:21: variants[1].guards.repeat_guard: want true or false, got "perhaps"`},
		{"name: x\nvariants:\n  - name: a\n    timeout: ninety\n",
			`s.yaml:4:14: variants[0].timeout: want a duration like 90s, got "ninety"`},
		{"name: x\nvariants:\n  - name: a\n    model:\n      max_tokens: 1k\n",
			`s.yaml:5:19: variants[0].model.max_tokens: want an integer, got "1k"`},
		{"name: x\nvariants:\n  name: a\n", `s.yaml:3:3: variants: want a list, got a mapping`},
		{"name: x\ndesign: leave-one-out\nsequential: {min_effect: small}\n",
			`s.yaml:3:26: sequential.min_effect: want a number, got "small"`},
		{"name: x\nfail_if_costlier: {tokens: twenty}\n",
			`s.yaml:2:28: fail_if_costlier.tokens: want a number, got "twenty"`},
		{"name: [x]\n", `s.yaml:1:7: name: want a string, got a list`},
	} {
		_, err := ParseSpec("s.yaml", []byte(c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// TestSpecClosedSets: a value outside a closed set (design, scope, a variant's scope, the model's kind, a guard,
// an observation mode, a sequential key) is named with the valid values and the nearest one, at its line.
func TestSpecClosedSets(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"name: x\ndesign: leave-on-out\n", `s.yaml:2:9: design: unknown design "leave-on-out" (did you mean ` +
			`"leave-one-out"?) (valid: leave-one-out, add-one, explicit)`},
		{"name: x\ndesign: add-one\nscope: targt\n", `s.yaml:3:8: scope: unknown scope "targt" (did you mean ` +
			`"target"?) (valid: all, target)`},
		{"name: x\nvariants:\n  - name: a\n    scope: al\n", `s.yaml:4:12: variant a: scope: unknown scope "al" ` +
			`(did you mean "all"?) (valid: all, target)`},
		{"name: x\nbaseline:\n  model: {kind: opena}\nvariants:\n  - name: a\n",
			`s.yaml:3:3: baseline.model: kind: unknown model kind "opena" (did you mean "openai"?) (valid: scripted, openai)`},
		{"name: x\nvariants:\n  - name: a\n    guards: {final_recovry: false}\n",
			`s.yaml:4:14: unknown guard "final_recovry" (did you mean "final_recovery"?) (valid: ` +
				"intercept_hint, repeat_guard, final_recovery, snapshot_ready, stale_ref_refresh, evaluate_isolation, " +
				"visual_progress)"},
		{"name: x\nvariants:\n  - name: a\n    observation: {snapshot: dif}\n",
			`s.yaml:4:5: variant a: observation: unknown snapshot mode "dif" (did you mean "diff"?) (valid: full, diff, none)`},
	} {
		_, err := ParseSpec("s.yaml", []byte(c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}
