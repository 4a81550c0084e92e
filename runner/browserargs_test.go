package runner

import (
	"slices"
	"testing"

	"webbench/browser"
	"webbench/suites"
	"webbench/suites/webvoyager"
)

// silentSuite is a suite that does not say whether its pages need WebGL (a custom suite).
type silentSuite struct{ suites.Suite }

// A Zoo run's launches get browser.NoSoftwareGLFlag after the caller's flags; a WebVoyager run's, and a suite's
// that does not say, do not (live pages may draw with WebGL). A caller who gave the flag, or picked a GL
// implementation, gets their flags as given.
func TestLaunchOptionsSoftwareGLPerSuite(t *testing.T) {
	zooSuite, err := suites.Open("zoo", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zooSuite.Close()
	wv, err := suites.Open(webvoyager.Name, suites.Options{"fixtures": "builtin", "probe_timeout": "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer wv.Close()
	user := []string{"--mute-audio"}
	for _, c := range []struct {
		name  string
		suite suites.Suite
		user  []string
		want  []string
	}{
		{"zoo", zooSuite, user, []string{"--mute-audio", browser.NoSoftwareGLFlag}},
		{"zoo, no caller flags", zooSuite, nil, []string{browser.NoSoftwareGLFlag}},
		{"zoo, flag given", zooSuite, []string{browser.NoSoftwareGLFlag, "--mute-audio"},
			[]string{browser.NoSoftwareGLFlag, "--mute-audio"}},
		{"zoo, GL chosen", zooSuite, []string{"--use-angle=swiftshader"}, []string{"--use-angle=swiftshader"}},
		{"webvoyager", wv, user, user},
		{"a suite that does not say", silentSuite{zooSuite}, user, user},
	} {
		opts := Options{BrowserArgs: slices.Clone(c.user)}
		if got := launchOptions(opts, c.suite).Args; !slices.Equal(got, c.want) {
			t.Errorf("%s: launch args %q, want %q", c.name, got, c.want)
		}
		if got := browserInfo(opts, c.suite, 1, nil).Args; !slices.Equal(got, c.want) {
			t.Errorf("%s: manifest args %q, want %q", c.name, got, c.want)
		}
		if !slices.Equal(opts.BrowserArgs, c.user) {
			t.Errorf("%s: Options.BrowserArgs changed to %q", c.name, opts.BrowserArgs)
		}
	}
	// A remote browser's flags are its server's: none recorded.
	if got := browserInfo(Options{BrowserEndpoint: "ws://h:1/x", BrowserArgs: user}, zooSuite, 1, nil).Args; got != nil {
		t.Errorf("remote: manifest args %q, want none", got)
	}
}
