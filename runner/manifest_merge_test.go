package runner

import (
	"encoding/json"
	"testing"

	"webbench/results"
)

// Endpoints of a resumed run: this invocation's preflights after the earlier entries of the variants it did not
// preflight again; nothing is dropped.
func TestMergeEndpointsKeepsEarlierVariants(t *testing.T) {
	old := []results.Endpoint{{Variants: []string{"a", "b"}, BaseURL: "u", Model: "m"}, {Variants: []string{"c"}, BaseURL: "u2", Model: "m2"}}
	got := mergeEndpoints(old, []results.Endpoint{{Variants: []string{"b"}, BaseURL: "u", Model: "m"}})
	b, _ := json.Marshal(got)
	want := `[{"variants":["a"],"base_url":"u","model":"m"},{"variants":["c"],"base_url":"u2","model":"m2"},{"variants":["b"],"base_url":"u","model":"m"}]`
	if string(b) != want {
		t.Errorf("merged endpoints %s\nwant %s", b, want)
	}
	if got := mergeEndpoints(old, nil); len(got) != 2 {
		t.Errorf("a resume that preflighted nothing dropped endpoints: %+v", got)
	}
}
