package spec

import "testing"

// The spec's model_cache key is read as the run's default model-cache directory.
func TestSpecModelCache(t *testing.T) {
	sp, err := ParseSpec("spec.yaml", []byte("name: n\nsuite: zoo\nreps: 1\nmodel_cache: .cache/models\n"+
		"baseline: {model: {kind: scripted}}\ndesign: leave-one-out\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sp.ModelCache != ".cache/models" {
		t.Errorf("model_cache %q", sp.ModelCache)
	}
}
