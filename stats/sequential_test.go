package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// seqPairDiff draws one unit's difference: R same-seed reps of a task with
// baseline rate p and variant rate q (shared draw with probability 0.8).
func seqPairDiff(rng *rand.Rand, p, q float64, reps int) float64 {
	k := 0
	for range reps {
		u := rng.Float64()
		v := u
		if rng.Float64() >= 0.8 {
			v = rng.Float64()
		}
		a, b := u < p, v < q
		switch {
		case b && !a:
			k++
		case a && !b:
			k--
		}
	}
	return float64(k) / float64(reps)
}

func TestSeqLookBasics(t *testing.T) {
	d := SeqDesign{Alpha: 0.05, Variants: 1, MaxUnits: 40}
	s := NewSeq(d)
	if l := s.Look(); l.N != 0 || l.P != 1 || l.Lo != -1 || l.Hi != 1 {
		t.Fatalf("empty look %+v", l)
	}
	prevP, prevLo, prevHi := 1.0, -1.0, 1.0
	for i := range 40 {
		s.Add(-1) // every unit: the variant fails where the baseline passes
		l := s.Look()
		if l.P > prevP || l.Lo < prevLo || l.Hi > prevHi {
			t.Fatalf("unit %d: p or interval not monotone: %+v", i+1, l)
		}
		prevP, prevLo, prevHi = l.P, l.Lo, l.Hi
	}
	l := s.Look()
	if l.N != 40 || l.Mean != -1 || l.P != d.Alpha/1000 || l.Hi > -0.8 || l.Lo != -1 {
		t.Fatalf("40 units of −1: %+v", l)
	}
	// Efficacy is reached after a handful of −1 units, not at the end.
	s = NewSeq(d)
	first := 0
	for i := 1; i <= 40 && first == 0; i++ {
		s.Add(-1)
		if SeqDecide(d, []SeqLook{s.Look()})[0] == SeqWorse {
			first = i
		}
	}
	if first < 10 || first > 16 {
		t.Fatalf("all-broken variant decided worse at unit %d, want 10–16 (the t³ spending spends little early)", first)
	}
}

func TestSeqAddPanicsOutOfRange(t *testing.T) {
	for _, x := range []float64{-1.0001, 1.5, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Add(%v) did not panic", x)
				}
			}()
			NewSeq(SeqDesign{Alpha: 0.05, Variants: 1}).Add(x)
		}()
	}
}

func TestSeqDecideHolm(t *testing.T) {
	d := SeqDesign{Alpha: 0.05, MinEffect: 0.1, Variants: 3}
	looks := []SeqLook{
		{N: 10, Mean: -0.3, P: 0.02, Lo: -0.6, Hi: 0.1}, // 0.02 < 0.05/2 after the first
		{N: 10, Mean: 0.4, P: 0.01, Lo: 0.05, Hi: 0.7},  // 0.01 < 0.05/3
		{N: 10, Mean: 0.0, P: 0.9, Lo: -0.05, Hi: 0.08}, // not rejected; Lo > −0.1: futile
	}
	got := SeqDecide(d, looks)
	want := []SeqStop{SeqWorse, SeqBetter, SeqFutile}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("SeqDecide = %q, want %q", got, want)
		}
	}
	// Step-down stops at the first non-rejection: 0.02 alone is not < 0.05/3.
	looks[1].P = 0.5
	got = SeqDecide(d, looks)
	if got[0] != SeqUndecided || got[1] != SeqFutile {
		t.Fatalf("SeqDecide without the smallest p = %q", got)
	}
	// Futility off.
	d.MinEffect = 0
	if got = SeqDecide(d, looks); got[2] != SeqUndecided {
		t.Fatalf("futility with MinEffect 0: %q", got)
	}
}

// TestSeqAAFalseStops monitors A/A variants after every unit: the share of
// runs with any efficacy stop must stay within a binomial bound of α (the
// betting sequence is conservative, so the bound is loose in practice), and
// the sequence must cover 0 at every unit as often.
func TestSeqAAFalseStops(t *testing.T) {
	const runs, units, variants = 200, 40, 3
	d := SeqDesign{Alpha: 0.05, Variants: variants, MaxUnits: units}
	rng := rand.New(rand.NewPCG(7, 8))
	stops, misses := 0, 0
	for range runs {
		ss := make([]*SeqState, variants)
		for v := range ss {
			ss[v] = NewSeq(d)
		}
		stopped, missed := false, false
		looks := make([]SeqLook, variants)
		for range units {
			p := []float64{1, 0, 0.5, 0.7}[rng.IntN(4)]
			for v, s := range ss {
				s.Add(seqPairDiff(rng, p, p, 2))
				looks[v] = s.Look()
				missed = missed || looks[v].Lo > 0 || looks[v].Hi < 0
			}
			for _, st := range SeqDecide(d, looks) {
				stopped = stopped || st == SeqWorse || st == SeqBetter
			}
		}
		stops += b2i(stopped)
		misses += b2i(missed)
	}
	bound := 0.05 + 3*math.Sqrt(0.05*0.95/runs)
	if r := float64(stops) / runs; r > bound {
		t.Errorf("A/A false efficacy stops %.3f > %.3f", r, bound)
	}
	if r := float64(misses) / runs; r > bound {
		t.Errorf("A/A some sequence missed 0 in %.3f of runs > %.3f", r, bound)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSeqSkipTakesFinalLook: a last planned unit that gave no difference
// still takes the final look, which spends the rest of α exactly as a unit
// of 0 would; without it the same differences stop short of the level.
func TestSeqSkipTakesFinalLook(t *testing.T) {
	d := SeqDesign{Alpha: 0.05, Variants: 1, MaxUnits: 20}
	skipped, zero, short := NewSeq(d), NewSeq(d), NewSeq(d)
	for i := range 19 {
		x := 0.0
		if i < 8 {
			x = -1 // 8 units where the variant fails and the baseline passes, then 11 ties
		}
		skipped.Add(x)
		zero.Add(x)
		short.Add(x)
	}
	if p := short.Look().P; p != 0.2 {
		t.Fatalf("19 of 20 units: P = %v, want 0.2 (the last look not yet taken)", p)
	}
	skipped.Skip()
	zero.Add(0)
	ls, lz := skipped.Look(), zero.Look()
	if ls.P != d.Alpha || lz.P != d.Alpha {
		t.Fatalf("final look: skipped P = %v, unit of 0 P = %v, want both %v", ls.P, lz.P, d.Alpha)
	}
	if ls.N != 19 || ls.Mean != -8.0/19 {
		t.Fatalf("a skipped unit moved the estimate: %+v", ls)
	}
	if st := SeqDecide(d, []SeqLook{ls})[0]; st != SeqWorse {
		t.Fatalf("decision after the skipped last unit %q, want %q", st, SeqWorse)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("Skip past MaxUnits did not panic")
		}
	}()
	skipped.Skip()
}

// TestSeqSkipKeepsPower: on the same draws, a 20-unit design whose last unit
// gave no difference (Skip) decides "worse" as often as a 19-unit design
// that spends all of α on the same 19 units, and more often than the same
// state left without its last look.
func TestSeqSkipKeepsPower(t *testing.T) {
	const sims = 1000
	d20 := SeqDesign{Alpha: 0.05, Variants: 1, MaxUnits: 20}
	d19 := d20
	d19.MaxUnits = 19
	rng := rand.New(rand.NewPCG(3, 4))
	worse := func(s *SeqState) int {
		if SeqDecide(d20, []SeqLook{s.Look()})[0] == SeqWorse {
			return 1
		}
		return 0
	}
	var noLook, skipped, short int
	for range sims {
		a, b, c := NewSeq(d20), NewSeq(d20), NewSeq(d19)
		for range 19 {
			x := seqPairDiff(rng, 0.9, 0.65, 2)
			a.Add(x)
			b.Add(x)
			c.Add(x)
		}
		b.Skip()
		noLook, skipped, short = noLook+worse(a), skipped+worse(b), short+worse(c)
	}
	if d := skipped - short; d < -sims/100 || d > sims/100 {
		t.Errorf("worse in %d of %d runs with the last unit skipped, %d with a 19-unit design: want within %d",
			skipped, sims, short, sims/100)
	}
	if skipped-noLook < sims/50 {
		t.Errorf("the skipped last unit's look added %d stops (%d → %d of %d), want ≥ %d", skipped-noLook, noLook,
			skipped, sims, sims/50)
	}
}
