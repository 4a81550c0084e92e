package browser

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// Environment variables that locate the browser stack (DESIGN.md "Browser tools"). None is required when the
// repository's `make setup` layout is used.
const (
	// EnvDriverDir names a directory holding node_modules/playwright-core/cli.js (the layout `make setup`
	// creates in .cache/driver), or a playwright-core package directory itself.
	EnvDriverDir = "WEBBENCH_DRIVER_DIR"
	// EnvChromium names the Chromium executable to launch.
	EnvChromium = "WEBBENCH_CHROMIUM"
	// EnvNode names the Node.js executable that runs the driver (PLAYWRIGHT_NODEJS_PATH is honoured too).
	EnvNode = "WEBBENCH_NODE"
)

// DefaultChromium is the Debian Chromium binary, tried after LaunchOptions.ExecutablePath and WEBBENCH_CHROMIUM
// (FindChromium has the whole search order).
const DefaultChromium = "/usr/lib/chromium/chromium"

// DefaultHeadlessShell is Debian's chromium-headless-shell binary (package chromium-headless-shell, the same
// Chromium release built as the standalone "old headless" shell, without the browser UI layer). A headless launch
// that names no executable uses it when it is installed, before DefaultChromium: this is what Playwright itself
// does (its headless Chromium is the chromium-headless-shell build, microsoft/playwright#33566, and
// playwright-core's getExecutableName picks "chromium-headless-shell" when headless), and it halves a worker's
// private memory on Zoo pages (BENCHMARKS.md, "Throughput and memory"; the new headless mode of the full binary
// also runs a WebUI renderer and a spare renderer per browser).
const DefaultHeadlessShell = "/usr/lib/chromium/chromium-headless-shell"

// DefaultLaunchArgs are the Chromium flags every launch gets (before LaunchOptions.Args, after Playwright's own
// chromiumSwitches): no sandbox (containers), no GPU, no QUIC, no background traffic that would reach the
// network, and a process model of two processes per browser — the browser process and one renderer per page —
// instead of six (browser, two zygotes, GPU, network service, renderer). Every process Chromium execs carries
// its own copy of the binary's relocated data (.data.rel.ro, 5.6 MiB in Debian's chromium-headless-shell 156)
// and its own heap, so the three flags below cut a worker's anonymous memory on Zoo pages from about 82 to
// about 63 MiB (BENCHMARKS.md, "Throughput and memory"). Renderers are not capped (no --renderer-process-limit,
// no --single-process): pages of different browser contexts keep their own renderer, so a page script that hangs
// its renderer (evaluate_isolation terminates it) stalls no other page.
var DefaultLaunchArgs = []string{
	"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
	"--disable-component-update", "--disable-sync",
	// The software compositor (what --disable-gpu leaves of the GPU process) runs as a thread of the browser
	// process (content/gpu/in_process_gpu_thread.h: "creates a GPU thread (instead of a GPU process), when
	// running with --in-process-gpu"). WebGL still works (SwiftShader, loaded in the browser process instead)
	// unless NoSoftwareGLFlag is added, as the runner does for a suite whose pages need no WebGL.
	"--in-process-gpu",
	// Renderers are forked and exec'd by the browser process instead of forked from two zygote processes kept
	// for the whole run. The zygote exists for the sandbox, which --no-sandbox turns off; without it "the time
	// and memory savings are minimal or negative" (chromium docs/linux_zygote.md; the switch: chromium commit
	// 1964e861, "Add a --no-zygote command line flag", which requires --no-sandbox).
	"--no-zygote",
	// The network service runs in the browser process instead of a utility process (chromium
	// content/public/common/content_features.cc: kNetworkServiceInProcess, "NetworkServiceInProcess2", on by
	// default on Android). A crash of the network stack then takes the browser with it (the runner relaunches a
	// crashed browser) where out of process Chromium would restart the service; Puppeteer dropped the feature
	// from its defaults for such crashes in desktop Chrome 124 (puppeteer/puppeteer#12261), none seen here.
	// Chromium keeps only the last --enable-features switch (CommandLine::AppendSwitchNative stores one value
	// per switch; cypress-io/cypress#34787), so this one restates Playwright's own (chromiumSwitches:
	// CDPScreenshotNewSurface) and launchArgs merges any of the caller's.
	"--enable-features=" + playwrightEnabledFeatures + ",NetworkServiceInProcess2",
}

// NoSoftwareGLFlag turns off Chromium's software GL (SwiftShader), the only GL --disable-gpu leaves: the browser
// process, which runs the GPU thread in-process (DefaultLaunchArgs), then does not load it, 9–10 MiB less
// anonymous memory per worker on Zoo pages (docs/DESIGN.md "Browser tools"), and canvas.getContext("webgl")
// returns null. Screenshots still work (the software compositor draws them, TestScreenshotWithoutSoftwareGL).
// Not in DefaultLaunchArgs: live sites draw with WebGL; the runner adds it to the launches of a suite whose
// pages need none (suites.NeedsWebGL).
const NoSoftwareGLFlag = "--disable-software-rasterizer"

// playwrightEnabledFeatures is the --enable-features list of playwright-core's chromiumSwitches (1.64), which
// the driver puts before DefaultLaunchArgs and which a later --enable-features switch would otherwise replace.
// Playwright leaves it out when PLAYWRIGHT_LEGACY_SCREENSHOT is set, and so does launchArgs.
const playwrightEnabledFeatures = "CDPScreenshotNewSurface"

// playwrightDisabledFeatures is the --disable-features list of playwright-core's chromiumSwitches (1.64,
// disabledFeatures): Playwright puts it before DefaultLaunchArgs, so a caller's --disable-features would
// otherwise replace it (and turn PaintHolding, HttpsUpgrades, Translate and the rest back on). A test reads the
// installed driver's list and fails when this copy differs.
const playwrightDisabledFeatures = "AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose," +
	"DialMediaRouteProvider,GlobalMediaControls,HttpsUpgrades,LensOverlay,MediaRouter,PaintHolding," +
	"ThirdPartyStoragePartitioning,BlockOriginHeaderModificationOnRedirect,AvoidCorsURLLoaderRestartOnRedirect," +
	"Translate,AutoDeElevate,OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,msForceBrowserSignIn," +
	"msEdgeUpdateLaunchServicesPreferredVersion"

// featureSwitches are the Chromium switches whose value is a comma-separated feature list, of which Chromium
// keeps only the last occurrence.
var featureSwitches = []string{"--enable-features=", "--disable-features="}

// launchArgs are the flags of a local launch or a launched browser server: DefaultLaunchArgs then extra, with
// every --enable-features (and every --disable-features) merged into one switch in place of the last, so that
// a caller's feature list adds to DefaultLaunchArgs' instead of replacing it; a --disable-features switch starts
// with playwrightDisabledFeatures, which it would otherwise replace. Names keep their first position; repeats
// are dropped.
func launchArgs(extra []string) []string {
	args := append(append([]string{}, DefaultLaunchArgs...), extra...)
	legacyShot := os.Getenv("PLAYWRIGHT_LEGACY_SCREENSHOT") != ""
	for _, sw := range featureSwitches {
		var names []string
		seen := map[string]bool{}
		last := -1
		for i, a := range args {
			if !strings.HasPrefix(a, sw) {
				continue
			}
			if last < 0 && sw == "--disable-features=" {
				a = sw + playwrightDisabledFeatures + "," + strings.TrimPrefix(a, sw)
			}
			last = i
			for _, n := range strings.Split(strings.TrimPrefix(a, sw), ",") {
				n = strings.TrimSpace(n)
				drop := legacyShot && sw == "--enable-features=" && n == playwrightEnabledFeatures
				if n != "" && !seen[n] && !drop {
					seen[n] = true
					names = append(names, n)
				}
			}
		}
		if last < 0 {
			continue
		}
		out := make([]string, 0, len(args))
		for i, a := range args {
			switch {
			case i == last:
				out = append(out, sw+strings.Join(names, ","))
			case !strings.HasPrefix(a, sw):
				out = append(out, a)
			}
		}
		args = out
	}
	return args
}

// driverRel is where cli.js lives below a driver directory made by `make setup`.
var driverRel = filepath.Join("node_modules", "playwright-core", "cli.js")

// DriverOptions locate the Playwright driver. Empty fields are discovered (see StartDriver).
type DriverOptions struct {
	// DriverDir holds node_modules/playwright-core/cli.js (or is a playwright-core directory).
	DriverDir string
	// NodePath is the Node.js executable.
	NodePath string
}

// Driver is a running Playwright driver process (node cli.js run-driver) and its connection.
type Driver struct {
	pw      *playwright.Playwright
	cliPath string
	node    string
	version string
	stop    sync.Once
	stopErr error
}

// envMu serialises the process-wide PLAYWRIGHT_* environment that playwright-go reads while starting a driver.
var envMu sync.Mutex

// StartDriver finds the driver and Node.js and starts Playwright, without downloading anything
// (RunOptions{SkipInstallBrowsers: true}, PLAYWRIGHT_CLI_PATH / PLAYWRIGHT_NODEJS_PATH set for playwright-go).
//
// The driver is looked for in o.DriverDir, else $WEBBENCH_DRIVER_DIR, else $PLAYWRIGHT_CLI_PATH (a cli.js),
// else a `.cache/driver` directory searched upward from the current directory and then from the directory of
// the running executable. Node.js is o.NodePath, else $WEBBENCH_NODE, else $PLAYWRIGHT_NODEJS_PATH, else `node`
// on PATH. Errors say what was looked for and how to fix it (`make setup`, or the variables above).
func StartDriver(o DriverOptions) (*Driver, error) {
	cli, err := findDriverCLI(o.DriverDir)
	if err != nil {
		return nil, err
	}
	node, err := findNode(o.NodePath)
	if err != nil {
		return nil, err
	}
	envMu.Lock()
	defer envMu.Unlock()
	if err := os.Setenv("PLAYWRIGHT_NODEJS_PATH", node); err != nil {
		return nil, err
	}
	if err := os.Setenv("PLAYWRIGHT_CLI_PATH", cli); err != nil {
		return nil, err
	}
	pw, err := playwright.Run(&playwright.RunOptions{SkipInstallBrowsers: true, Stdout: os.Stderr})
	if err != nil {
		return nil, fmt.Errorf("browser: could not start the Playwright driver %s with node %s (playwright-go "+
			"expects playwright-core %s; run `make setup` to install it): %w", cli, node, pinnedCoreVersion, err)
	}
	return &Driver{pw: pw, cliPath: cli, node: node, version: packageVersion(cli)}, nil
}

// pinnedCoreVersion is the playwright-core version the Go module speaks to (playwright-go v0.6401.0).
const pinnedCoreVersion = "1.64.1"

// Version is the driver's playwright-core version from its package.json ("1.64.1"), "" when unreadable.
func (d *Driver) Version() string { return d.version }

// Stop stops the driver process (closing every browser it launched). Safe to call twice.
func (d *Driver) Stop() error {
	d.stop.Do(func() { d.stopErr = d.pw.Stop() })
	return d.stopErr
}

func packageVersion(cli string) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(cli), "package.json"))
	if err != nil {
		return ""
	}
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	return p.Version
}

// cliIn returns the cli.js inside dir in any of the accepted layouts.
func cliIn(dir string) (string, bool) {
	for _, c := range []string{driverRel, "cli.js", filepath.Join("package", "cli.js")} {
		p := filepath.Join(dir, c)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			abs, err := filepath.Abs(p)
			if err != nil {
				return p, true
			}
			return abs, true
		}
	}
	return "", false
}

// findDriverCLI implements StartDriver's search order.
func findDriverCLI(dir string) (string, error) {
	const fix = "run `make setup` in the repository root (installs playwright-core " + pinnedCoreVersion +
		" into .cache/driver), or set " + EnvDriverDir + " to a directory holding " +
		"node_modules/playwright-core/cli.js"
	if dir != "" {
		if p, ok := cliIn(dir); ok {
			return p, nil
		}
		return "", fmt.Errorf("browser: Playwright driver not found: DriverOptions.DriverDir %q has no %s; %s",
			dir, driverRel, fix)
	}
	if env := os.Getenv(EnvDriverDir); env != "" {
		if p, ok := cliIn(env); ok {
			return p, nil
		}
		return "", fmt.Errorf("browser: Playwright driver not found: $%s=%q has no %s; %s",
			EnvDriverDir, env, driverRel, fix)
	}
	if env := os.Getenv("PLAYWRIGHT_CLI_PATH"); env != "" {
		if st, err := os.Stat(env); err == nil && !st.IsDir() {
			return env, nil
		}
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		starts = append(starts, filepath.Dir(exe))
	}
	for _, s := range starts {
		for d := s; ; d = filepath.Dir(d) {
			if p, ok := cliIn(filepath.Join(d, ".cache", "driver")); ok {
				return p, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("browser: Playwright driver not found: looked for .cache/driver/%s in every directory "+
		"above %s; %s", driverRel, strings.Join(starts, " and above "), fix)
}

// findNode implements StartDriver's Node.js search order.
func findNode(path string) (string, error) {
	for _, c := range []struct{ what, v string }{
		{"DriverOptions.NodePath", path}, {"$" + EnvNode, os.Getenv(EnvNode)},
		{"$PLAYWRIGHT_NODEJS_PATH", os.Getenv("PLAYWRIGHT_NODEJS_PATH")},
	} {
		if c.v == "" {
			continue
		}
		if st, err := os.Stat(c.v); err == nil && !st.IsDir() {
			return c.v, nil
		}
		return "", fmt.Errorf("browser: Node.js not found: %s=%q does not exist; install Node.js (`make setup` "+
			"needs it too) or point %s at it", c.what, c.v, EnvNode)
	}
	p, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("browser: Node.js not found: no `node` on PATH and %s / PLAYWRIGHT_NODEJS_PATH "+
			"unset; install Node.js (e.g. apt-get install nodejs) or set %s", EnvNode, EnvNode)
	}
	return p, nil
}

// findChromium is FindChromium, printing its notes (a skipped snap shim) to stderr once per process.
func findChromium(path string, headless bool) (string, error) {
	p, notes, err := FindChromium(path, headless)
	for _, n := range notes {
		if _, seen := chromiumNotes.LoadOrStore(n, true); !seen {
			fmt.Fprintln(os.Stderr, "webbench: "+n)
		}
	}
	return p, err
}

// chromiumNotes holds the notes findChromium printed.
var chromiumNotes sync.Map

// LaunchOptions choose the browser.
type LaunchOptions struct {
	// ExecutablePath is the Chromium binary (default: FindChromium's search: $WEBBENCH_CHROMIUM, for a headless
	// launch Debian's chromium-headless-shell, /usr/lib/chromium/chromium, Chromium or Chrome on PATH,
	// Playwright's browser cache). Ignored with Endpoint.
	ExecutablePath string
	// Headless runs without a window. A headed launch with neither DISPLAY nor WAYLAND_DISPLAY set runs
	// headless instead (there is nowhere to draw).
	Headless bool
	// Endpoint "ws://…" / "wss://…" connects to a remote Playwright browser server (BrowserType.Connect to a
	// server started with BrowserType.launchServer or `playwright launch-server`) instead of launching. The
	// server must run the driver's Playwright version (DriverVersionRule).
	Endpoint string
	// Headers are extra HTTP headers sent with the connect request to Endpoint (Playwright's connect option
	// `headers`: e.g. an Authorization token of a hosted browser pool). Their values are secrets: they appear in
	// no error this package returns.
	Headers map[string]string
	// ExposeNetwork is Playwright's connect option exposeNetwork: comma-separated host rules ("<loopback>",
	// "*.internal", "*") whose connections the remote browser makes through this client (tunnelled over the
	// connection), so a server on another machine reaches e.g. the Zoo on this machine's loopback. Servers in
	// `playwright run-server` mode honour it; a BrowserType.launchServer server ignores it.
	ExposeNetwork string
	// ConnectTimeout bounds one connect to Endpoint (Playwright's connect option `timeout`); 0 means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Args are extra Chromium flags, after DefaultLaunchArgs (an --enable-features or --disable-features list
	// adds to DefaultLaunchArgs' own: launchArgs).
	Args []string
}

// Browser is a launched or connected Chromium.
type Browser struct {
	b      playwright.Browser
	remote bool
	// marker tags the main process of a local launch (markerFlag); empty for a remote browser. userDataDir is
	// the main process's "--user-data-dir=…" argument, read at launch (Processes).
	marker      string
	userDataDir []byte
}

// Launch starts Chromium (or connects to o.Endpoint). Errors name the executable looked for and the fix.
func (d *Driver) Launch(o LaunchOptions) (*Browser, error) {
	if o.Endpoint != "" {
		return d.connect(o)
	}
	headless := o.Headless || (os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "")
	exe, err := findChromium(o.ExecutablePath, headless)
	if err != nil {
		return nil, err
	}
	marker := newMarker()
	args := append(launchArgs(o.Args), markerFlag+marker)
	b, err := d.pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(exe),
		Headless:       playwright.Bool(headless),
		Args:           args,
	})
	if err != nil {
		return nil, fmt.Errorf("browser: could not launch Chromium %s (set %s to another Chromium, or run `make "+
			"setup`): %w", exe, EnvChromium, err)
	}
	// The profile directory is read while the main process is alive, to find its children once it is not.
	return &Browser{b: b, marker: marker, userDataDir: launchedUserDataDir(marker)}, nil
}

// Version is the browser's version string ("156.0.8078.108").
func (b *Browser) Version() string { return b.b.Version() }

// IsConnected reports whether the browser is still usable (false after a crash, Close or a lost server).
func (b *Browser) IsConnected() bool { return b.b.IsConnected() }

// Playwright exposes the underlying Browser.
func (b *Browser) Playwright() playwright.Browser { return b.b }

// Close closes the browser (for a remote one, the connection). Closing a closed browser returns nil. When the
// browser does not answer within DefaultCloseTimeout, its processes are killed (Kill) and the error wraps
// ErrUnresponsive.
func (b *Browser) Close() error {
	_, err := within(DefaultCloseTimeout, "closing the browser", func() (struct{}, error) {
		return struct{}{}, b.b.Close()
	}, nil)
	if errors.Is(err, ErrUnresponsive) {
		b.Kill()
		return err
	}
	if err != nil && (errors.Is(err, playwright.ErrTargetClosed) || !b.b.IsConnected()) {
		return nil
	}
	return err
}
