package browser

import (
	"bytes"
	"image/png"
	"testing"
)

// A browser launched with NoSoftwareGLFlag (the runner's launches for a suite whose pages need no WebGL) still
// takes screenshots that show the page, and has no WebGL; one launched without it (DefaultLaunchArgs only) has
// WebGL.
func TestScreenshotWithoutSoftwareGL(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test (needs Chromium)")
	}
	const page = `<!doctype html><title>GL</title><body style="margin:0;background:rgb(255,0,0)"><p>red</p></body>`
	const hasWebGL = `() => document.createElement('canvas').getContext('webgl') !== null`
	b, err := testDriver.Launch(LaunchOptions{Headless: true, Args: []string{NoSoftwareGLFlag}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Kill() })
	for _, c := range []struct {
		name  string
		b     *Browser
		webgl bool
	}{{"with " + NoSoftwareGLFlag, b, false}, {"default flags", testBrowser, true}} {
		s, err := c.b.NewSession(SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Page().SetContent(page); err != nil {
			t.Fatal(err)
		}
		got, err := s.Page().Evaluate(hasWebGL)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.webgl {
			t.Errorf("%s: canvas.getContext('webgl') non-null = %v, want %v", c.name, got, c.webgl)
		}
		shot, err := s.Screenshot()
		if err != nil {
			t.Fatalf("%s: screenshot: %v", c.name, err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatalf("%s: screenshot is no PNG: %v", c.name, err)
		}
		bounds := img.Bounds()
		r, g, bl, _ := img.At(bounds.Dx()-5, bounds.Dy()-5).RGBA()
		if bounds.Dx() != DefaultViewportWidth || r>>8 != 255 || g>>8 != 0 || bl>>8 != 0 {
			t.Errorf("%s: screenshot %v, corner pixel rgb(%d,%d,%d): want the %d px wide viewport and the red page",
				c.name, bounds, r>>8, g>>8, bl>>8, DefaultViewportWidth)
		}
	}
}
