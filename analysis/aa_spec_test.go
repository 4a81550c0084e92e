package analysis

import (
	"maps"
	"slices"
	"testing"

	"webbench/results"
	"webbench/runner"
	"webbench/spec"
	"webbench/suites"
)

// An aa arm is the baseline with seeds offset by results.AASeedOffset; its records
// are recognised as an A/A copy and the report prints the noise floor.
func TestSpecAAArm(t *testing.T) {
	s, err := spec.ParseSpec("aa.yaml", []byte("name: x\nreps: 2\nbaseline:\n  guards: {repeat_guard: false}\nvariants:\n  - name: aa1\n    aa: true\n  - name: aa2\n    aa: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	arms, err := s.Expand(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(arms.AA) != 2 || arms.Variants[1].Seed != "+1000003" || arms.Variants[2].Seed != "+2000006" ||
		!maps.Equal(arms.Variants[1].Guards, arms.Variants[0].Guards) || len(arms.Warnings) != 0 {
		t.Fatalf("aa arms: %+v %+v", arms.AA, arms.Variants)
	}
	// The runner derives the aa arm's seeds from the base seed + the offset.
	plan := runner.Plan{Suite: "zoo", Tasks: []suites.Task{{ID: "a"}}, Reps: 2, Variants: arms.Variants, BaseSeed: 5}
	atts, err := plan.Expand()
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range atts {
		want := results.Seed(at.PairID, 5)
		switch at.Variant {
		case "aa1":
			want = results.Seed(at.PairID, 5+results.AASeedOffset)
		case "aa2":
			want = results.Seed(at.PairID, 5+2*results.AASeedOffset)
		}
		if at.Seed == nil || *at.Seed != want {
			t.Errorf("%s rep %d: seed %v, want %d", at.Variant, at.Rep, at.Seed, want)
		}
	}
	if _, err := spec.ParseSpec("bad.yaml", []byte("name: x\nvariants:\n  - name: aa\n    aa: true\n    guards: {repeat_guard: false}\n")); err == nil {
		t.Error("an aa arm with guards must be an error")
	}
	// Records: the aa arm has other seeds on the same pairs.
	d := Design{Rates: []float64{0.5, 0.9, 0.2, 1, 0}, Rep: 2, Model: ModelIndependent}
	recs := SimRecords(d, []string{"baseline", "aa1"}, SimOutcomes(newRand(3), d, [][]float64{d.Rates, d.Rates}), 1)
	for i := range recs {
		if recs[i].Variant == "aa1" {
			s := *recs[i].Seed + 1
			recs[i].Seed = &s
		}
	}
	// The plan names the A/A arms (AACopies), the records do not.
	copies := AACopies(plan.Record())
	if !slices.Equal(copies, []string{"aa1", "aa2"}) {
		t.Fatalf("AACopies = %v, want [aa1 aa2]", copies)
	}
	a := Analyze(recs, Inputs{Baseline: "baseline", Copies: copies})
	if w := a.Warning(WarnNoiseFloor); w == nil || !slices.Equal(w.Variants, []string{"aa1"}) || w.Comparison == nil ||
		w.Comparison.Delta != a.Variants[0].All.Delta {
		t.Errorf("noise floor: %+v", a.Warnings)
	}
	// Records with other seeds but no A/A arm in the plan: no noise-floor line (a variant with a fixed seed is
	// a variant under test).
	if w := (Analyze(recs, Inputs{Baseline: "baseline"})).Warning(WarnNoiseFloor); w != nil {
		t.Errorf("records alone flagged as A/A: %+v", w)
	}
}
