package results

import "testing"

func TestIDsDistinct(t *testing.T) {
	if PairID("zoo", "a", 1) == PairID("zoo", "a", 2) || AttemptID("x", "p") == AttemptID("y", "p") {
		t.Fatal("ids collide")
	}
}
