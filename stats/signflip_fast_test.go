package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// signFlipCountSlow is SignFlip's original per-sign loop.
func signFlipCountSlow(rng *rand.Rand, nz []float64, samples int, thr float64) int {
	count := 0
	for range samples {
		s := 0.0
		var word uint64
		for i, v := range nz {
			if i%64 == 0 {
				word = rng.Uint64()
			}
			if word&1 != 0 {
				s -= v
			} else {
				s += v
			}
			word >>= 1
		}
		if math.Abs(s) >= thr {
			count++
		}
	}
	return count
}

// The table kernel draws the same flips as the per-sign loop.
func TestSignFlipCountSameAsLoop(t *testing.T) {
	src := rand.New(rand.NewPCG(7, 7))
	for _, g := range []int{1, 7, 8, 9, 63, 64, 65, 130, 700} {
		nz := make([]float64, g)
		obs := 0.0
		for i := range nz {
			nz[i] = float64(src.IntN(5)+1) / 5
			if src.IntN(3) == 0 {
				nz[i] = -nz[i]
			}
			obs += nz[i]
		}
		thr := math.Abs(obs) - 1e-9*float64(g)
		a := signFlipCount(rand.New(rand.NewPCG(1, 0x9e3779b97f4a7c15)), nz, 3000, thr)
		b := signFlipCountSlow(rand.New(rand.NewPCG(1, 0x9e3779b97f4a7c15)), nz, 3000, thr)
		if a != b {
			t.Errorf("G'=%d: table kernel %d, loop %d", g, a, b)
		}
	}
}
