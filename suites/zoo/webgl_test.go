package zoo

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// NeedsWebGL's false holds while no Zoo page can draw with WebGL: a WebGL context is only had from a canvas's
// getContext (an HTMLCanvasElement's or an OffscreenCanvas's), so no page source (the Go that writes the pages,
// the served assets) may call it.
func TestNoZooPageUsesWebGL(t *testing.T) {
	if (&Suite{}).NeedsWebGL() {
		t.Fatal("NeedsWebGL() = true, want false (the Zoo's browsers launch without software GL)")
	}
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		src := strings.ToLower(string(b))
		for _, s := range []string{"getcontext", "webglrenderingcontext", "webgl2renderingcontext"} {
			if strings.Contains(src, s) {
				t.Errorf("%s contains %q: a Zoo page may draw with WebGL, so Suite.NeedsWebGL must say true", path, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Errorf("scanned %d files, want the Zoo's sources and assets (≥ 20)", files)
	}
}
