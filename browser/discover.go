package browser

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// EnvPlaywrightBrowsers is Playwright's own variable naming its browser cache (the folder `npx playwright install`
// downloads into); FindChromium searches it, else Playwright's default cache folder.
const EnvPlaywrightBrowsers = "PLAYWRIGHT_BROWSERS_PATH"

// ChromiumNames are the executables FindChromium looks up on PATH, in order: Debian/Fedora/Arch's `chromium`,
// Ubuntu's and Alpine's `chromium-browser`, and Google Chrome's two names.
var ChromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// debianChromium and debianHeadlessShell are DefaultChromium and DefaultHeadlessShell; variables so that tests
// can search a fake tree without this machine's Chromium winning.
var debianChromium, debianHeadlessShell = DefaultChromium, DefaultHeadlessShell

// ChromiumNotFoundError is FindChromium's error when no place held a usable Chromium: Tried lists every place
// looked at, in order, each with what was found there ("not found", "snap shim: skipped", …).
type ChromiumNotFoundError struct {
	Tried []string
}

// Error lists the places looked at, one a line, and how to provide a Chromium (make setup, --chromium, or the
// environment variable EnvChromium).
func (e *ChromiumNotFoundError) Error() string {
	return "browser: Chromium not found; looked at:\n  " + strings.Join(e.Tried, "\n  ") +
		"\nrun `make setup` (installs Debian chromium), pass --chromium PATH, or set " + EnvChromium +
		" to a Chromium or Chrome executable"
}

// FindChromium returns the Chromium executable a launch uses (headless: a headless launch, which can run the
// headless shell), and notes on places it skipped (a snap shim, say) for the caller to log. The search order
// (docs/SETUP.md "Browser discovery"):
//
//  1. explicit (LaunchOptions.ExecutablePath, the --chromium flag): used as given; an error if it does not exist.
//  2. $WEBBENCH_CHROMIUM: the same.
//  3. For a headless launch, Debian's chromium-headless-shell (DefaultHeadlessShell) when installed.
//  4. Debian's /usr/lib/chromium/chromium (DefaultChromium).
//  5. ChromiumNames on PATH. Ubuntu's `chromium`/`chromium-browser` packages install a shell script that runs
//     the snap, or fails with "Command '/usr/bin/chromium-browser' requires the chromium snap to be installed"
//     (seen in Playwright's launch logs; actions/runner-images#12096): a file that resolves into /snap/ or a
//     script naming the snap is skipped with a note, since a snap Chromium cannot be driven from a
//     container or a hosted runner.
//  6. Playwright's browser cache: $PLAYWRIGHT_BROWSERS_PATH, else its default folder ($XDG_CACHE_HOME or
//     ~/.cache on Linux, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows, + /ms-playwright), as
//     playwright-core 1.64.1 computes it (registry: computeDefaultCacheDirectory, registryDirectory). In it the
//     newest chromium-<revision> folder, then chromium_headless_shell-<revision> (the shell first for a
//     headless launch, as Playwright runs it; never for a headed one), at the executable paths of
//     Playwright's EXECUTABLE_PATHS table (linux-x64: chrome-linux64/chrome; older releases: chrome-linux/chrome).
//
// The error, a *ChromiumNotFoundError, lists every place tried.
func FindChromium(explicit string, headless bool) (path string, notes []string, err error) {
	if explicit != "" {
		if !isExecutable(explicit) {
			return "", nil, fmt.Errorf("browser: Chromium not found: --chromium / LaunchOptions.ExecutablePath %q: %s",
				explicit, notExecutable(explicit))
		}
		return explicit, nil, nil
	}
	if env := os.Getenv(EnvChromium); env != "" {
		if !isExecutable(env) {
			return "", nil, fmt.Errorf("browser: Chromium not found: $%s=%q: %s; set it to a Chromium executable or "+
				"unset it to search the usual places", EnvChromium, env, notExecutable(env))
		}
		return env, nil, nil
	}
	tried := []string{"$" + EnvChromium + ": unset"}
	if headless {
		if isExecutable(debianHeadlessShell) {
			return debianHeadlessShell, nil, nil
		}
		tried = append(tried, debianHeadlessShell+": not found")
	}
	if isExecutable(debianChromium) {
		return debianChromium, nil, nil
	}
	tried = append(tried, debianChromium+": not found")
	for _, name := range ChromiumNames {
		p, err := exec.LookPath(name)
		if err != nil {
			tried = append(tried, "`"+name+"` on PATH: not found")
			continue
		}
		if why := snapShim(p); why != "" {
			note := fmt.Sprintf("`%s` on PATH is %s, skipped: a snap Chromium cannot be launched by Playwright here "+
				"(install Debian's chromium in a container, Google Chrome, or set %s)", name, why, EnvChromium)
			notes = append(notes, note)
			tried = append(tried, note)
			continue
		}
		return p, notes, nil
	}
	cache, how := playwrightCache()
	if cache == "" {
		tried = append(tried, "Playwright's browser cache: "+how)
		return "", notes, &ChromiumNotFoundError{Tried: tried}
	}
	browsers := playwrightBrowsers(headless)
	if len(browsers) == 0 {
		tried = append(tried, fmt.Sprintf("%s (%s): not searched, no known Playwright layout for %s/%s", cache, how,
			runtime.GOOS, runtime.GOARCH))
	}
	for _, b := range browsers {
		dirs, _ := filepath.Glob(filepath.Join(cache, b.prefix+"-*"))
		slices.SortFunc(dirs, func(a, c string) int { return revision(c) - revision(a) }) // newest first
		for _, d := range dirs {
			for _, rel := range b.rels {
				if p := filepath.Join(d, rel); isExecutable(p) {
					return p, notes, nil
				}
			}
		}
		tried = append(tried, fmt.Sprintf("%s (%s): no %s-<revision>/%s", cache, how, b.prefix, b.rels[0]))
	}
	return "", notes, &ChromiumNotFoundError{Tried: tried}
}

// snapShim says why the executable at p is Ubuntu's snap wrapper ("a link into /snap/…", "a script that runs
// the chromium snap"), or "" when it is not.
func snapShim(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil && (strings.HasPrefix(r, "/snap/") || filepath.Base(r) == "snap") {
		return "a link to " + r
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 8192)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("#!")) {
		return "" // a binary (ELF, Mach-O): not the shell-script shim
	}
	if bytes.Contains(head, []byte("/snap/bin/")) || bytes.Contains(head, []byte("snap install")) ||
		bytes.Contains(head, []byte("chromium snap")) {
		return "a script that runs the snap"
	}
	return ""
}

// playwrightCache is the folder Playwright downloads browsers into, and how it was chosen; "" (with the reason)
// when $PLAYWRIGHT_BROWSERS_PATH=0 (browsers inside the playwright package, which this search does not know).
func playwrightCache() (dir, how string) {
	if v := os.Getenv(EnvPlaywrightBrowsers); v != "" {
		if v == "0" {
			return "", "$" + EnvPlaywrightBrowsers + "=0 (inside the playwright package): not searched"
		}
		if abs, err := filepath.Abs(v); err == nil {
			v = abs
		}
		return v, "$" + EnvPlaywrightBrowsers
	}
	home, _ := os.UserHomeDir()
	var base string
	switch runtime.GOOS {
	case "darwin":
		base = filepath.Join(home, "Library", "Caches")
	case "windows":
		if base = os.Getenv("LOCALAPPDATA"); base == "" {
			base = filepath.Join(home, "AppData", "Local")
		}
	default:
		if base = os.Getenv("XDG_CACHE_HOME"); base == "" {
			base = filepath.Join(home, ".cache")
		}
	}
	return filepath.Join(base, "ms-playwright"), "Playwright's default cache"
}

// cacheBrowser is one browser of Playwright's cache: its folder prefix and the executable's paths below
// a <prefix>-<revision> folder, newest layout first.
type cacheBrowser struct {
	prefix string
	rels   []string
}

// playwrightBrowsers are the Chromium builds of Playwright's cache on this platform, in search order: for a
// headless launch the headless shell first (as Playwright picks chromium-headless-shell when headless), for a
// headed one the full build only (playwright-core 1.64.1 EXECUTABLE_PATHS; "chrome-linux/chrome" and
// "chrome-linux/headless_shell" are the layouts before Chrome for Testing builds, still in caches of older
// releases).
func playwrightBrowsers(headless bool) []cacheBrowser {
	var full, shell []string
	switch runtime.GOOS + "-" + runtime.GOARCH {
	case "linux-amd64":
		full = []string{"chrome-linux64/chrome", "chrome-linux/chrome"}
		shell = []string{"chrome-headless-shell-linux64/chrome-headless-shell", "chrome-linux/headless_shell"}
	case "linux-arm64":
		full = []string{"chrome-linux-arm64/chrome", "chrome-linux/chrome"}
		shell = []string{"chrome-headless-shell-linux-arm64/chrome-headless-shell", "chrome-linux/headless_shell"}
	case "darwin-amd64":
		full = []string{"chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"}
		shell = []string{"chrome-headless-shell-mac-x64/chrome-headless-shell"}
	case "darwin-arm64":
		full = []string{"chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"}
		shell = []string{"chrome-headless-shell-mac-arm64/chrome-headless-shell"}
	case "windows-amd64":
		full = []string{"chrome-win64/chrome.exe"}
		shell = []string{"chrome-headless-shell-win64/chrome-headless-shell.exe"}
	default:
		return nil
	}
	if !headless {
		return []cacheBrowser{{"chromium", full}}
	}
	return []cacheBrowser{{"chromium_headless_shell", shell}, {"chromium", full}}
}

// revision is the number after the last "-" of a cache folder ("chromium-1248" → 1248), -1 if none.
func revision(dir string) int {
	i := strings.LastIndexByte(dir, '-')
	n, err := strconv.Atoi(dir[i+1:])
	if err != nil {
		return -1
	}
	return n
}

// notExecutable says why p is not an executable file: "does not exist", "is a directory", "is not executable".
func notExecutable(p string) string {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return "does not exist"
	case fi.IsDir():
		return "is a directory"
	}
	return "is not executable"
}

// isExecutable reports whether p is a regular file with an execute bit (any file on Windows).
func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || fi.IsDir() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode()&0o111 != 0
}
