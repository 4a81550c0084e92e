package results

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestAblationSpecWarningsJSON: a new manifest stores the spec's warnings typed under spec_warnings; an old
// manifest's sentences under warnings still read back as stored.
func TestAblationSpecWarningsJSON(t *testing.T) {
	a := Ablation{Spec: "s.yaml", SpecWarnings: []SpecWarning{{Kind: SpecVariantNoTask, Variant: "v", Guards: []string{"g"}, Tasks: 2},
		{Kind: SpecVariantIdentical, Variant: "w"}}}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"spec":"s.yaml","alpha":0,"power":0,"min_effect":0,"spec_warnings":[{"kind":"variant_no_task","variant":"v","guards":["g"],"tasks":2},{"kind":"variant_identical","variant":"w"}]}`
	if string(b) != want {
		t.Errorf("written:\n got %s\nwant %s", b, want)
	}
	var old Ablation
	if err := json.Unmarshal([]byte(`{"spec":"s.yaml","warnings":["variant w is identical to the baseline: it can only measure noise"]}`), &old); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(old.Warnings, []string{"variant w is identical to the baseline: it can only measure noise"}) || old.SpecWarnings != nil {
		t.Errorf("old manifest read as %+v", old)
	}
}
