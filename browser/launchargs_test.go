package browser

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestLaunchArgsMergesFeatureLists(t *testing.T) {
	t.Setenv("PLAYWRIGHT_LEGACY_SCREENSHOT", "")
	got := launchArgs([]string{"--enable-features=Foo, NetworkServiceInProcess2", "--mute-audio",
		"--disable-features=A", "--enable-features=Bar", "--disable-features=B,A"})
	var enable, disable []string
	for _, a := range got {
		if v, ok := strings.CutPrefix(a, "--enable-features="); ok {
			enable = append(enable, v)
		}
		if v, ok := strings.CutPrefix(a, "--disable-features="); ok {
			disable = append(disable, v)
		}
	}
	if want := []string{"CDPScreenshotNewSurface,NetworkServiceInProcess2,Foo,Bar"}; !slices.Equal(enable, want) {
		t.Errorf("--enable-features switches = %q, want %q", enable, want)
	}
	// Playwright's own --disable-features switch comes first on the command line, and Chromium keeps only the
	// last one: the merged switch restates its list.
	if want := []string{playwrightDisabledFeatures + ",A,B"}; !slices.Equal(disable, want) {
		t.Errorf("--disable-features switches = %q, want %q", disable, want)
	}
	// Everything else keeps its order; the merged switch takes the place of the last one.
	want := append(append([]string{}, DefaultLaunchArgs[:len(DefaultLaunchArgs)-1]...), "--mute-audio",
		"--enable-features=CDPScreenshotNewSurface,NetworkServiceInProcess2,Foo,Bar",
		"--disable-features="+playwrightDisabledFeatures+",A,B")
	if !slices.Equal(got, want) {
		t.Errorf("launchArgs = %q\nwant %q", got, want)
	}
	if !slices.Equal(launchArgs(nil), DefaultLaunchArgs) {
		t.Errorf("launchArgs(nil) = %q, want DefaultLaunchArgs %q", launchArgs(nil), DefaultLaunchArgs)
	}

	t.Setenv("PLAYWRIGHT_LEGACY_SCREENSHOT", "1")
	if got := launchArgs(nil); !slices.Contains(got, "--enable-features=NetworkServiceInProcess2") {
		t.Errorf("with PLAYWRIGHT_LEGACY_SCREENSHOT set, launchArgs(nil) = %q: want CDPScreenshotNewSurface left out "+
			"as Playwright leaves it out", got)
	}
}

// The launched browser runs the process model DefaultLaunchArgs asks for — a main process and renderers, no
// zygote, GPU or utility process — and its last --enable-features and --disable-features switches (the ones
// Chromium keeps) still hold every feature an earlier one (Playwright's chromiumSwitches) named, also when the
// caller disables a feature of its own.
func TestLaunchProcessModelAndFeatures(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test (needs Chromium)")
	}
	const own = "WebbenchTestFeature" // unknown to Chromium, which ignores it
	b, err := testDriver.Launch(LaunchOptions{Headless: true, Args: []string{"--disable-features=" + own}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Kill() })
	s, err := b.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Navigate(testServer.URL + "/"); err != nil {
		t.Fatal(err)
	}
	procs := cmdlines()
	var mainCL string
	count := map[string]int{}
	for _, pid := range b.Processes() {
		cl := strings.ReplaceAll(string(procs[pid]), "\x00", " ")
		typ := "main"
		if i := strings.Index(cl, "--type="); i >= 0 {
			typ = strings.Fields(cl[i+len("--type="):])[0]
		}
		if strings.Contains(cl, markerFlag+b.marker) {
			mainCL = string(procs[pid])
		}
		count[typ]++
	}
	if count["main"] != 1 || count["renderer"] < 1 || len(count) != 2 {
		t.Errorf("process types of the launched browser = %v, want one main process and its renderers only", count)
	}
	for _, sw := range featureSwitches {
		var lists []string
		for _, a := range strings.Split(mainCL, "\x00") {
			if v, ok := strings.CutPrefix(a, sw); ok {
				lists = append(lists, v)
			}
		}
		if len(lists) < 2 {
			t.Fatalf("main process has %s%q: want Playwright's switch and a later one", sw, lists)
		}
		last := strings.Split(lists[len(lists)-1], ",")
		if sw == "--disable-features=" && !slices.Contains(last, own) {
			t.Errorf("the last %s%s lacks the caller's %s", sw, lists[len(lists)-1], own)
		}
		for _, list := range lists[:len(lists)-1] {
			for _, name := range strings.Split(list, ",") {
				if name != "" && !slices.Contains(last, name) {
					t.Errorf("feature %s of an earlier %s%s is not in the last one %q (Chromium keeps only the "+
						"last): restate it in DefaultLaunchArgs or the driver's Playwright list", name, sw, list, last)
				}
			}
		}
	}
}

// TestPlaywrightDisabledFeaturesMatchDriver checks playwrightDisabledFeatures against the list the installed
// playwright-core launches Chromium with (chromiumSwitches' disabledFeatures array in its bundle): launchArgs
// restates that list in the merged --disable-features switch, so a driver upgrade that changes it must change
// the copy too.
func TestPlaywrightDisabledFeaturesMatchDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the driver (make setup)")
	}
	cli, err := findDriverCLI("")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(filepath.Dir(cli), "lib", "coreBundle.js"))
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(src), "disabledFeatures = [")
	list, _, ok2 := strings.Cut(list, "].filter(Boolean)")
	if !ok || !ok2 {
		t.Fatalf("no disabledFeatures = [ … ].filter(Boolean) in %s's bundle", cli)
	}
	// Every line between the brackets is a comment or a plain entry: an entry Playwright adds on a condition
	// (`cond && "X"`, hence the filter) would need launchArgs to know the condition, so it fails the test.
	entry := regexp.MustCompile(`^"([A-Za-z0-9]+)",?$`)
	var names []string
	for _, line := range strings.Split(list, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		m := entry.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("disabledFeatures line %q is neither a comment nor a plain entry", line)
		}
		names = append(names, m[1])
	}
	if got := strings.Join(names, ","); got != playwrightDisabledFeatures {
		t.Errorf("playwright-core disables %s\nplaywrightDisabledFeatures is %s", got, playwrightDisabledFeatures)
	}
}
