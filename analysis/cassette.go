package analysis

import (
	"webbench/results"
)

// WarnCassetteMisses: in a run replayed from a cassette (--replay), a variant's requests without a recorded
// response differ from the baseline's (Misses) — one arm browsed pages the recording never saw, answered by a
// 404 the other arm did not meet, so the outcomes differ partly by what the cassette holds.
const WarnCassetteMisses WarningKind = "cassette_misses"

// ArmMisses is one arm's cassette misses in a replayed run: Misses requests without a recorded response over
// Attempts replayed attempts (results.Attempt.CassetteMisses set), Missing of which met at least one.
type ArmMisses struct {
	Arm                       string
	Misses, Missing, Attempts int
}

// armMisses counts recs' cassette misses; ok is false when none of them was replayed.
func armMisses(arm string, recs []results.Attempt) (m ArmMisses, ok bool) {
	m.Arm = arm
	for _, r := range recs {
		if r.CassetteMisses == nil {
			continue
		}
		m.Attempts++
		m.Misses += *r.CassetteMisses
		if *r.CassetteMisses > 0 {
			m.Missing++
		}
	}
	return m, m.Attempts > 0
}

// cassetteWarnings are the cassette_misses warnings: each variant whose replayed attempts met a different
// number of misses, or had a different number of attempts with one, than the baseline's (Misses: the
// baseline's counts, then the variant's). Arms that were not replayed get none.
func cassetteWarnings(a *Analysis, by map[string][]results.Attempt, add func(Warning)) {
	base, ok := armMisses(a.Baseline, by[a.Baseline])
	if !ok {
		return
	}
	for _, v := range a.Variants {
		m, ok := armMisses(v.Name, by[v.Name])
		if !ok || m.Misses == base.Misses && m.Missing == base.Missing {
			continue
		}
		add(Warning{Kind: WarnCassetteMisses, Variants: []string{v.Name}, Misses: []ArmMisses{base, m}})
	}
}
