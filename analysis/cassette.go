package analysis

import (
	"webbench/results"
)

// WarnCassetteMisses: in a run replayed from a cassette (--replay), a variant's requests without a recorded
// response differ from the baseline's (Misses) — one arm browsed pages the recording never saw, answered by a
// 404 the other arm did not meet, so the outcomes differ partly by what the cassette holds.
const WarnCassetteMisses WarningKind = "cassette_misses"

// ArmMisses is one arm's cassette misses in a replayed run, on the (task, rep) pairs both compared arms replayed
// (results.Attempt.CassetteMisses set on both sides): Misses requests without a recorded response over
// Attempts such attempts, Missing of which met at least one. Counting on common pairs only keeps a variant
// scoped to some tasks from being compared with the baseline's misses on tasks it never played.
type ArmMisses struct {
	Arm                       string
	Misses, Missing, Attempts int
}

// replayed maps pair keys (PairKey) to the records of recs that were replayed (the last per key wins).
func replayed(recs []results.Attempt) map[string]*results.Attempt {
	m, _ := index(recs, func(r results.Attempt) bool { return r.CassetteMisses != nil })
	return m
}

// commonMisses counts the misses of the baseline's records a and the variant's b on the pairs both hold; ok is
// false when they share none.
func commonMisses(baseline, variant string, a, b map[string]*results.Attempt) (ma, mb ArmMisses, ok bool) {
	ma.Arm, mb.Arm = baseline, variant
	for k, rb := range b {
		ra, both := a[k]
		if !both {
			continue
		}
		for _, x := range []struct {
			m *ArmMisses
			n int
		}{{&ma, *ra.CassetteMisses}, {&mb, *rb.CassetteMisses}} {
			x.m.Attempts++
			x.m.Misses += x.n
			if x.n > 0 {
				x.m.Missing++
			}
		}
	}
	return ma, mb, ma.Attempts > 0
}

// cassetteWarnings are the cassette_misses warnings: each variant whose replayed attempts met a different
// number of misses, or had a different number of attempts with one, than the baseline's on the pairs both
// replayed (Misses: the baseline's counts, then the variant's). Arms that were not replayed get none.
func cassetteWarnings(a *Analysis, by map[string][]results.Attempt, add func(Warning)) {
	base := replayed(by[a.Baseline])
	if len(base) == 0 {
		return
	}
	for _, v := range a.Variants {
		mb, mv, ok := commonMisses(a.Baseline, v.Name, base, replayed(by[v.Name]))
		if !ok || mv.Misses == mb.Misses && mv.Missing == mb.Missing {
			continue
		}
		add(Warning{Kind: WarnCassetteMisses, Variants: []string{v.Name}, Misses: []ArmMisses{mb, mv}})
	}
}
