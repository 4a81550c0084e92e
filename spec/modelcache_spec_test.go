package spec

import (
	"path/filepath"
	"testing"
)

// The spec's model_cache key is read as the run's default model-cache directory, resolved against the spec
// file's folder as record and replay are.
func TestSpecModelCache(t *testing.T) {
	sp, err := ParseSpec(filepath.Join("specs", "spec.yaml"), []byte("name: n\nsuite: zoo\nreps: 1\nmodel_cache: .cache/models\n"+
		"baseline: {model: {kind: scripted}}\ndesign: leave-one-out\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sp.ModelCache != ".cache/models" {
		t.Errorf("model_cache %q", sp.ModelCache)
	}
	if got, want := sp.ModelCacheDir(), filepath.Join("specs", ".cache", "models"); got != want {
		t.Errorf("ModelCacheDir %q, want %q", got, want)
	}
	abs := &Spec{ModelCache: "/var/cache/models", file: "specs/spec.yaml"}
	if got := abs.ModelCacheDir(); got != "/var/cache/models" {
		t.Errorf("absolute ModelCacheDir %q", got)
	}
}
