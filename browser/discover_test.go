package browser

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// ubuntuShim is the body of Ubuntu's /usr/bin/chromium-browser from the chromium-browser transitional deb
// (the snap wrapper): its message as Playwright's launch log shows it on a machine without the snap —
// "Command '/usr/bin/chromium-browser' requires the chromium snap to be installed. Please install it with:
// snap install chromium" (microsoft/playwright issue threads; actions/runner-images#12096).
const ubuntuShim = `#!/bin/sh
if ! [ -x /snap/bin/chromium ]; then
    echo "" >&2
    echo "Command '$0' requires the chromium snap to be installed." >&2
    echo "Please install it with:" >&2
    echo "" >&2
    echo "snap install chromium" >&2
    echo "" >&2
    exit 1
fi
exec /snap/bin/chromium "$@"
`

// fakeExe writes an executable file (dirs made) and returns its path.
func fakeExe(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// isolate makes FindChromium see only the fake tree below root: no Debian Chromium, PATH = root/bin, no
// WEBBENCH_CHROMIUM, Playwright's cache under root/home.
func isolate(t *testing.T, root string) {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("fake trees use the linux-x64 layout")
	}
	old, oldShell := debianChromium, debianHeadlessShell
	debianChromium = filepath.Join(root, "usr/lib/chromium/chromium")
	debianHeadlessShell = filepath.Join(root, "usr/lib/chromium/chromium-headless-shell")
	t.Cleanup(func() { debianChromium, debianHeadlessShell = old, oldShell })
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(root, "bin"))
	t.Setenv(EnvChromium, "")
	t.Setenv(EnvPlaywrightBrowsers, "")
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("XDG_CACHE_HOME", "")
}

func TestFindChromiumOrder(t *testing.T) {
	root := t.TempDir()
	isolate(t, root)

	// Nothing anywhere: the error lists every place, in order.
	_, _, err := FindChromium("", true)
	var nf *ChromiumNotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("want ChromiumNotFoundError, got %v", err)
	}
	msg := err.Error()
	cache := filepath.Join(root, "home/.cache/ms-playwright")
	want := []string{"$WEBBENCH_CHROMIUM: unset", debianHeadlessShell, debianChromium, "`chromium` on PATH", "`chromium-browser` on PATH",
		"`google-chrome` on PATH", "`google-chrome-stable` on PATH", cache + " (Playwright's default cache): no chromium_headless_shell-",
		"no chromium-"}
	last := -1
	for _, w := range want {
		i := strings.Index(msg, w)
		if i < 0 || i < last {
			t.Fatalf("error should list %q after the places before it:\n%s", w, msg)
		}
		last = i
	}

	// The Ubuntu snap shim as `chromium-browser`, and a link into /snap as `chromium`: both skipped with a note;
	// Chrome on PATH is taken.
	fakeExe(t, filepath.Join(root, "bin/chromium-browser"), ubuntuShim)
	// A snap's command is a link to /usr/bin/snap (/snap/bin/chromium -> /usr/bin/snap), which runs the app by
	// the name it was called with.
	snap := fakeExe(t, filepath.Join(root, "usr/bin/snap"), "\x7fELF fake snapd")
	if err := os.Symlink(snap, filepath.Join(root, "bin/chromium")); err != nil {
		t.Fatal(err)
	}
	chrome := fakeExe(t, filepath.Join(root, "bin/google-chrome-stable"), "\x7fELF fake chrome")
	p, notes, err := FindChromium("", true)
	if err != nil || p != chrome {
		t.Fatalf("want %s, got %q %v", chrome, p, err)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "`chromium` on PATH is a link to "+snap+", skipped") ||
		!strings.Contains(notes[1], "`chromium-browser` on PATH is a script that runs the snap, skipped") {
		t.Fatalf("notes: %q", notes)
	}

	// Debian's path wins over PATH; $WEBBENCH_CHROMIUM over Debian's; an explicit path over both.
	deb := fakeExe(t, debianChromium, "\x7fELF fake debian chromium")
	if p, _, err := FindChromium("", true); err != nil || p != deb {
		t.Fatalf("want Debian %s, got %q %v", deb, p, err)
	}
	env := fakeExe(t, filepath.Join(root, "opt/env-chromium"), "\x7fELF")
	t.Setenv(EnvChromium, env)
	if p, _, err := FindChromium("", true); err != nil || p != env {
		t.Fatalf("want $WEBBENCH_CHROMIUM %s, got %q %v", env, p, err)
	}
	if p, _, err := FindChromium(chrome, true); err != nil || p != chrome {
		t.Fatalf("want explicit %s, got %q %v", chrome, p, err)
	}
	// A set but wrong choice is an error, not a fall-through to another browser.
	t.Setenv(EnvChromium, filepath.Join(root, "nope"))
	if _, _, err := FindChromium("", true); err == nil || !strings.Contains(err.Error(), "WEBBENCH_CHROMIUM") {
		t.Fatalf("missing $WEBBENCH_CHROMIUM: %v", err)
	}
	if _, _, err := FindChromium(filepath.Join(root, "nope"), true); err == nil || !strings.Contains(err.Error(), "--chromium") {
		t.Fatalf("missing explicit: %v", err)
	}
	// A directory or a file without an execute bit is not a browser.
	if _, _, err := FindChromium(root, true); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("explicit directory: %v", err)
	}
	plain := filepath.Join(root, "plain")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvChromium, plain)
	if _, _, err := FindChromium("", true); err == nil || !strings.Contains(err.Error(), "is not executable") {
		t.Fatalf("$WEBBENCH_CHROMIUM not executable: %v", err)
	}
}

func TestFindChromiumPlaywrightCache(t *testing.T) {
	root := t.TempDir()
	isolate(t, root)
	fakeExe(t, filepath.Join(root, "bin/chromium-browser"), ubuntuShim) // skipped, then the cache is searched

	// Playwright's default cache (~/.cache/ms-playwright) with two revisions in the Chrome for Testing layout
	// (playwright-core 1.64.1 browsers.json: chromium revision 1248) and a headless shell: the newest full
	// Chromium is taken.
	def := filepath.Join(root, "home/.cache/ms-playwright")
	fakeExe(t, filepath.Join(def, "chromium-1200/chrome-linux64/chrome"), "\x7fELF")
	newest := fakeExe(t, filepath.Join(def, "chromium-1248/chrome-linux64/chrome"), "\x7fELF")
	fakeExe(t, filepath.Join(def, "chromium_headless_shell-1248/chrome-headless-shell-linux64/chrome-headless-shell"), "\x7fELF")
	p, notes, err := FindChromium("", false) // headed: the full build
	if err != nil || p != newest || len(notes) != 1 {
		t.Fatalf("want %s (one note), got %q %q %v", newest, p, notes, err)
	}

	// $XDG_CACHE_HOME moves the default cache (as Playwright's computeDefaultCacheDirectory on Linux); a cache
	// holding only the headless shell of an older release's layout is used.
	xdg := filepath.Join(root, "xdg")
	t.Setenv("XDG_CACHE_HOME", xdg)
	shell := fakeExe(t, filepath.Join(xdg, "ms-playwright/chromium_headless_shell-1100/chrome-linux/headless_shell"), "\x7fELF")
	if p, _, err := FindChromium("", true); err != nil || p != shell {
		t.Fatalf("want headless shell %s, got %q %v", shell, p, err)
	}

	// $PLAYWRIGHT_BROWSERS_PATH wins over the default; =0 (browsers inside the package) is reported, not searched.
	custom := filepath.Join(root, "pw-browsers")
	old := fakeExe(t, filepath.Join(custom, "chromium-1091/chrome-linux/chrome"), "\x7fELF")
	t.Setenv(EnvPlaywrightBrowsers, custom)
	if p, _, err := FindChromium("", true); err != nil || p != old {
		t.Fatalf("want %s from $PLAYWRIGHT_BROWSERS_PATH, got %q %v", old, p, err)
	}
	t.Setenv(EnvPlaywrightBrowsers, "0")
	_, _, err = FindChromium("", true)
	if err == nil || !strings.Contains(err.Error(), "PLAYWRIGHT_BROWSERS_PATH=0") ||
		!strings.Contains(err.Error(), "is a script that runs the snap, skipped") {
		t.Fatalf("PLAYWRIGHT_BROWSERS_PATH=0: %v", err)
	}
}

// TestSnapShimNotELF checks that a real binary naming /snap/ in its bytes is not taken for the shim: only a
// script is.
func TestSnapShimNotELF(t *testing.T) {
	dir := t.TempDir()
	bin := fakeExe(t, filepath.Join(dir, "chromium"), "\x7fELF\x02\x01\x01 … /snap/bin/ …")
	if why := snapShim(bin); why != "" {
		t.Fatalf("a binary is not a shim: %q", why)
	}
	if why := snapShim(fakeExe(t, filepath.Join(dir, "wrapper"), "#!/bin/sh\nexec /usr/lib/chromium/chromium \"$@\"\n")); why != "" {
		t.Fatalf("a wrapper of a real Chromium is not a shim: %q", why)
	}
}

// TestFindChromiumHeadlessShell: a headless launch takes Debian's chromium-headless-shell (package
// chromium-headless-shell: the same release built as the standalone headless shell, which is what Playwright
// runs for headless Chromium, microsoft/playwright#33566) before the full browser; a headed launch never gets a
// headless shell, from Debian or from Playwright's cache; $WEBBENCH_CHROMIUM still wins.
func TestFindChromiumHeadlessShell(t *testing.T) {
	root := t.TempDir()
	isolate(t, root)
	full := fakeExe(t, debianChromium, "\x7fELF chromium")
	shell := fakeExe(t, debianHeadlessShell, "\x7fELF chromium-headless-shell")
	if p, _, err := FindChromium("", true); err != nil || p != shell {
		t.Errorf("headless: %q %v, want %s", p, err, shell)
	}
	if p, _, err := FindChromium("", false); err != nil || p != full {
		t.Errorf("headed: %q %v, want %s", p, err, full)
	}
	t.Setenv(EnvChromium, full)
	if p, _, err := FindChromium("", true); err != nil || p != full {
		t.Errorf("$WEBBENCH_CHROMIUM: %q %v, want %s", p, err, full)
	}
	t.Setenv(EnvChromium, "")
	// Playwright's cache: the shell first for a headless launch, the full build only for a headed one.
	for _, p := range []string{full, shell} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	def := filepath.Join(root, "home/.cache/ms-playwright")
	pwFull := fakeExe(t, filepath.Join(def, "chromium-1248/chrome-linux64/chrome"), "\x7fELF")
	pwShell := fakeExe(t, filepath.Join(def, "chromium_headless_shell-1248/chrome-headless-shell-linux64/chrome-headless-shell"), "\x7fELF")
	if p, _, err := FindChromium("", true); err != nil || p != pwShell {
		t.Errorf("cache, headless: %q %v, want %s", p, err, pwShell)
	}
	if p, _, err := FindChromium("", false); err != nil || p != pwFull {
		t.Errorf("cache, headed: %q %v, want %s", p, err, pwFull)
	}
	if err := os.Remove(pwFull); err != nil {
		t.Fatal(err)
	}
	if _, _, err := FindChromium("", false); err == nil || !strings.Contains(err.Error(), "no chromium-<revision>") {
		t.Errorf("cache with only a shell, headed: %v, want not found", err)
	}
}
