package analysis

import (
	"testing"

	"webbench/results"
)

// The infra gate groups its errors by cause, numbers masked, most attempts first, with an attempt's own text.
func TestInfraCauses(t *testing.T) {
	infra := func(msg string) results.Attempt {
		return results.Attempt{Status: results.StatusError, ErrorClass: results.ClassInfra, Error: msg}
	}
	recs := []results.Attempt{
		infra("site unreachable: dial tcp 127.0.0.1:41001: connect: connection refused"),
		{Status: results.StatusFail},
		infra("browser closed"),
		infra("site unreachable: dial tcp 127.0.0.1:41877: connect: connection refused"),
		infra("site unreachable: dial tcp 127.0.0.1:40112: connect: connection refused"),
	}
	g := CheckInfra(recs)
	if g.Infra != 4 || !g.Failed || len(g.Causes) != 2 {
		t.Fatalf("gate %+v", g)
	}
	want := ErrorCause{Text: "site unreachable: dial tcp N.N.N.N:N: connect: connection refused",
		Example: "site unreachable: dial tcp 127.0.0.1:41001: connect: connection refused", N: 3}
	if g.Causes[0] != want || g.Causes[1].N != 1 || g.Causes[1].Example != "browser closed" {
		t.Errorf("causes %+v", g.Causes)
	}
}
