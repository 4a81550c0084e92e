package ablation

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

func TestExplorePowerPrimary(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range []int{6, 12, 40, 100} {
		rates := IssueMix(rng, g)
		for _, r := range []int{1, 2, 5} {
			for _, m := range []string{ModelIndependent, ModelSameSeed, ModelSticky} {
				d := Design{Rates: rates, Rep: r, Model: m, Share: 0.8}
				t0 := time.Now()
				s := PowerPrimarySim(d, -0.1, 0.05, 400, 1)
				el := time.Since(t0)
				a := PowerPrimaryApprox(d, -0.1, 0.05)
				s0 := PowerPrimarySim(d, 0, 0.05, 400, 1)
				fmt.Printf("G=%3d R=%d %-11s sim %.3f approx %.3f size %.3f  %v\n", g, r, m, s, a, s0, el/400)
			}
		}
	}
}
