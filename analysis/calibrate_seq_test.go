package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"webbench/stats"
)

// The sequential rows in make test: a few A/A runs of a small setting, whose
// false efficacy stops (one variant, and seven with Holm) must stay within a
// binomial bound of α, and the repeated interval must cover 0 throughout as
// often as its level says.
func TestCalibrateSequentialAA(t *testing.T) {
	const runs = 120
	s := SeqCalSetting{Paired: Design{Mix: IssueMix, Tasks: 20, Rep: 2, Model: ModelIndependent}}
	one := stats.SeqDesign{Alpha: 0.05, Variants: 1, MaxUnits: 20}
	seven := stats.SeqDesign{Alpha: 0.05, Variants: CalVariants, MaxUnits: 20}
	rng := newRand(5)
	stops, any7, covered := 0, 0, 0
	for range runs {
		o := monitor(one, s.draw(rng, 1, 0))
		stops += int(b2f(o.stop[0] != stats.SeqUndecided))
		covered += int(b2f(o.covered[0]))
		o = monitor(seven, s.draw(rng, CalVariants, 0))
		hit := false
		for _, st := range o.stop {
			hit = hit || st != stats.SeqUndecided
		}
		any7 += int(b2f(hit))
	}
	bound := 0.05 + 3*math.Sqrt(0.05*0.95/runs)
	for name, x := range map[string]int{"false stops": stops, "family-wise false stops": any7, "misses of 0": runs - covered} {
		if r := float64(x) / runs; r > bound {
			t.Errorf("A/A %s %.3f > %.3f", name, r, bound)
		}
	}
}

// A variant that breaks every unit is stopped "worse" early, one that
// changes nothing is not, and the attempts count the baseline until the last
// variant stops.
func TestMonitorStopsAndAttempts(t *testing.T) {
	const k = 30
	x := seqDraw{diffs: [][]float64{make([]float64, k), make([]float64, k)}, reps: make([]int, k), delta: 0}
	for u := range k {
		x.diffs[0][u] = -1
		x.reps[u] = 2
	}
	o := monitor(stats.SeqDesign{Alpha: 0.05, MinEffect: 0.2, Variants: 2, MaxUnits: k}, x)
	if o.stop[0] != stats.SeqWorse || o.at[0] >= k || o.at[0] < 5 {
		t.Fatalf("broken variant: %q at %d", o.stop[0], o.at[0])
	}
	// The unchanged variant is futile (no drop of 20 pts) once its interval lies above −0.2.
	if o.stop[1] != stats.SeqFutile || o.at[1] >= k {
		t.Fatalf("unchanged variant: %q at %d", o.stop[1], o.at[1])
	}
	want := 2 * (o.at[0] + o.at[1] + max(o.at[0], o.at[1]))
	if o.attempts != want || o.fixedAttempts != 3*2*k {
		t.Fatalf("attempts %d (want %d), fixed %d (want %d)", o.attempts, want, o.fixedAttempts, 3*2*k)
	}
	if o.fixed[0] != stats.SeqWorse || o.fixed[1] != stats.SeqUndecided {
		t.Fatalf("fixed decisions %q", o.fixed)
	}
}

func TestSeqCalibrationMarkdownFlagsMisses(t *testing.T) {
	r := SeqCalResult{Setting: SeqSettings()[1], Runs: 400, FalseStop: 0.2, FWER7: 0.01, CoverAA: 0.99, CoverMDE: 0.97,
		MDE: 0.2, PowerSeq: 0.6, PowerFixed: 0.8, Saved2: 0.5}
	md := SeqCalibrationMarkdown([]SeqCalResult{r}, 0.05, "cmd", time.Second)
	for _, want := range []string{"| K=40 R=1 same_seed | 400 | 0.200 ✗ | 0.010 |", "power seq = 0.600", "false stop = 0.200"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "saved 2×MDE = ") {
		t.Errorf("a saving above the bound flagged:\n%s", md)
	}
}
