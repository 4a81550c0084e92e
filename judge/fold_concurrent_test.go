package judge

import (
	"sync"
	"testing"
)

// TestFoldConcurrent calls fold from many goroutines at once, as the runner's workers judge in parallel. A
// shared transform.Chain panicked here with "slice bounds out of range" in CI: it panicked at once here
// without -race too, and fails reliably under -race;
// vavallee/bindery#1374 is the same failure in another project.
func TestFoldConcurrent(t *testing.T) {
	inputs := map[string]string{
		"efímero café naïve":                  "efimero cafe naive",
		"Crème brûlée costs 9\u00a0675 €":     "Creme brulee costs 9,675 €",
		"Ångström won’t say — it’s São Paulo": "Angstrom will not say  -  it's Sao Paulo",
	}
	var wg sync.WaitGroup
	errs := make(chan string, 16*200)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				for in, want := range inputs {
					if got := fold(in); got != want {
						errs <- in + " → " + got + ", want " + want
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
