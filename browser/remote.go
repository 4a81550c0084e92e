package browser

// Remote browsers: connecting to a Playwright browser server, and starting one with the project's own driver.
//
// References (Playwright 1.64 / playwright-go v0.6401.0):
//   - BrowserType.launchServer (https://playwright.dev/docs/api/class-browsertype#browser-type-launch-server):
//     launches a browser and serves it on a WebSocket; options host, port (0 picks one), wsPath, plus the
//     launch options (executablePath, args, headless). The driver's own CLI runs the same call:
//     `node cli.js launch-server --browser chromium --config FILE.json` (playwright-core lib/cli, launchBrowserServer).
//   - BrowserType.connect (https://playwright.dev/docs/api/class-browsertype#browser-type-connect): options
//     headers (sent with the WebSocket upgrade request), timeout (ms, 0 = none), exposeNetwork, slowMo;
//     playwright-go's BrowserTypeConnectOptions{Headers, Timeout, ExposeNetwork, SlowMo}.
//   - Version rule: when connecting to a browser launched via launchServer, "the major and minor version needs
//     to match the client version (1.2.3 → is compatible with 1.2.x)" (same page; the Python and Java pages
//     say it of "the Playwright instance that connects"); in microsoft/playwright#16129 a maintainer recommends
//     matching the patch version too (docs PR microsoft/playwright#16134). The server checks the client's
//     User-Agent "Playwright/X.Y.Z" (only major.minor; a User-Agent that does not parse is let through) and
//     answers the upgrade with `428 Precondition Required` and a box reading
//     "Playwright version mismatch: - server version: vA.B - client version: vC.D" (microsoft/playwright#27585,
//     playwrightServer.ts userAgentVersionMatchesErrorMessage; reported e.g. in microsoft/playwright-mcp#7).
//   - The client that connects is the local driver (node cli.js run-driver, playwright-core 1.64.1 for
//     playwright-go v0.6401.0): it sends the User-Agent, then the connect's headers on top (a header named
//     User-Agent replaces it).

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// DefaultConnectTimeout bounds one connect to a remote browser server when LaunchOptions.ConnectTimeout is 0.
const DefaultConnectTimeout = 30 * time.Second

// DriverVersion is the playwright-core version of the driver this package runs (and a browser server must run).
const DriverVersion = pinnedCoreVersion

// DriverMinor is DriverVersion's major.minor ("1.64"): what a browser server must match.
var DriverMinor = driverMinor()

func driverMinor() string {
	p := strings.SplitN(pinnedCoreVersion, ".", 3)
	if len(p) < 2 {
		return pinnedCoreVersion
	}
	return p[0] + "." + p[1]
}

// DriverVersionRule is the version rule of remote browsers, as error messages and docs state it: Playwright's
// docs ask for the same major.minor ("1.2.3 → is compatible with 1.2.x"), which the server enforces; the same
// patch is a maintainer's recommendation (microsoft/playwright#16129), not a check.
var DriverVersionRule = "client and server must run the same Playwright major.minor: this bench's driver is " +
	"playwright-core " + pinnedCoreVersion + " (playwright-go v0.6401.0), so the browser server must run Playwright " +
	DriverMinor + ".x (the server refuses another major.minor; Playwright's maintainers recommend the same patch, " +
	pinnedCoreVersion + ", too)"

// ErrVersionMismatch is wrapped by Launch's error when the browser server refused the connect because its
// Playwright version differs from the driver's (HTTP 428 "Playwright version mismatch").
var ErrVersionMismatch = errors.New("browser: Playwright version mismatch between this bench's driver and the browser server")

// Redacted replaces secret parts of endpoints and errors.
const Redacted = "REDACTED"

// RedactArgs returns Chromium flags as a record may show them: a flag value holding a URL ("--proxy-pac-url=…")
// goes through RedactEndpoint, and one with user info but no scheme ("user:token@host") becomes Redacted whole;
// other flags are kept as given. args is not changed.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		name, value, ok := strings.Cut(a, "=")
		switch {
		case !ok:
			out[i] = a
		case strings.Contains(value, "://"):
			out[i] = name + "=" + RedactEndpoint(value)
		case strings.Contains(value, "@"):
			out[i] = name + "=" + Redacted
		default:
			out[i] = a
		}
	}
	return out
}

// RedactEndpoint returns endpoint with its secrets replaced by Redacted: the user info's password (or a lone
// user name, which hosted pools use as a token), every query value (browserless' ?token=…) and the path, which
// becomes "/REDACTED" unless it is empty or "/" (launchServer's wsPath is the only secret of its server: whoever
// knows it can drive the browser). Scheme, host and port are kept. An endpoint that does not parse is returned
// as "[unparsable endpoint]".
func RedactEndpoint(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "[unparsable endpoint]"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), Redacted)
		} else {
			u.User = url.User(Redacted)
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{Redacted}
		}
		u.RawQuery = q.Encode()
	}
	if u.Path != "" && u.Path != "/" {
		u.Path, u.RawPath = "/"+Redacted, ""
	}
	return u.String()
}

// secrets lists the strings of o that must not appear in an error: the raw endpoint, its password, query
// values and path (the wsPath), and the header values (those of 4 characters or more: shorter ones are no secret and would mangle
// the text).
func (o LaunchOptions) secrets() []string {
	var out []string
	add := func(s string) {
		if len(s) >= 4 {
			out = append(out, s)
		}
	}
	add(o.Endpoint)
	if u, err := url.Parse(o.Endpoint); err == nil {
		if u.User != nil {
			p, _ := u.User.Password()
			add(p)
			add(u.User.Username())
		}
		if u.Path != "/" {
			add(u.Path)
			add(u.EscapedPath())
			add(strings.TrimPrefix(u.Path, "/"))
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
				add(url.QueryEscape(v))
			}
		}
	}
	for _, v := range o.Headers {
		add(v)
	}
	// Longest first, so that a secret containing another is replaced whole.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// Redact removes o's secrets from s (the endpoint's credentials, query values and path, the header values),
// the raw endpoint becoming its redacted form (RedactEndpoint).
func (o LaunchOptions) Redact(s string) string {
	red := RedactEndpoint(o.Endpoint)
	for _, sec := range o.secrets() {
		if sec == o.Endpoint {
			s = strings.ReplaceAll(s, sec, red)
			continue
		}
		s = strings.ReplaceAll(s, sec, Redacted)
	}
	return s
}

// redactedError is an error whose text had its secrets removed; errors.Is still sees the wrapped sentinels
// (ErrVersionMismatch) but not the original error, whose text has them.
type redactedError struct {
	text string
	is   error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.is }

var (
	serverVersionRe = regexp.MustCompile(`server version: v?(\d+\.\d+(?:\.\d+)?)`)
	clientVersionRe = regexp.MustCompile(`client version: v?(\d+\.\d+(?:\.\d+)?)`)
)

// connect connects to o.Endpoint with o.Headers and o.ConnectTimeout.
func (d *Driver) connect(o LaunchOptions) (*Browser, error) {
	red := RedactEndpoint(o.Endpoint)
	if !strings.HasPrefix(o.Endpoint, "ws://") && !strings.HasPrefix(o.Endpoint, "wss://") {
		return nil, fmt.Errorf("browser: endpoint %q is not a ws:// or wss:// Playwright browser server URL", red)
	}
	timeout := o.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	opts := playwright.BrowserTypeConnectOptions{Timeout: playwright.Float(float64(timeout.Milliseconds()))}
	if len(o.Headers) > 0 {
		opts.Headers = o.Headers
	}
	if o.ExposeNetwork != "" {
		opts.ExposeNetwork = playwright.String(o.ExposeNetwork)
	}
	b, err := d.pw.Chromium.Connect(o.Endpoint, opts)
	if err == nil {
		return &Browser{b: b, remote: true}, nil
	}
	msg := o.Redact(err.Error())
	if strings.Contains(msg, "version mismatch") || strings.Contains(msg, "428 Precondition Required") {
		server, client := "another version", pinnedCoreVersion
		if m := serverVersionRe.FindStringSubmatch(msg); m != nil {
			server = "Playwright " + m[1]
		}
		if m := clientVersionRe.FindStringSubmatch(msg); m != nil {
			client = m[1]
		}
		said := strings.TrimSpace(strings.SplitN(msg, "\n", 2)[0])
		return nil, &redactedError{is: ErrVersionMismatch, text: fmt.Sprintf("browser: the Playwright browser "+
			"server %s runs %s and this bench's driver is playwright-core %s (the server saw client %s): %s. "+
			"Fix: start the server with playwright-core %s — `node .cache/driver/node_modules/playwright-core/"+
			"cli.js launch-server --browser chromium --config FILE.json` after `make setup`, or the pool's "+
			"Playwright %s image —, or run a bench whose playwright-go has the server's major.minor. The server "+
			"said: %s (Playwright version mismatch)", red, server, pinnedCoreVersion, client, DriverVersionRule,
			pinnedCoreVersion, pinnedCoreVersion, said)}
	}
	return nil, &redactedError{text: fmt.Sprintf("browser: could not connect to the Playwright browser server %s "+
		"within %s (is it running and reachable, are the --browser-header values right, and is it Playwright %s.x?): %s",
		red, timeout, DriverMinor, msg)}
}

// ServerOptions configure StartServer. Empty fields are discovered as StartDriver and Launch discover them.
type ServerOptions struct {
	// DriverDir and NodePath locate the driver and Node.js (DriverOptions).
	DriverDir, NodePath string
	// Chromium is the executable the server launches (default: as LaunchOptions.ExecutablePath).
	Chromium string
	// Host is the interface the server listens on (default "127.0.0.1").
	Host string
	// Port is the TCP port (0: a free one, read back from the endpoint).
	Port int
	// WSPath is the endpoint's path, e.g. "/pw" (default: launchServer's random one, a shared secret of sorts).
	WSPath string
	// Args are extra Chromium flags, after DefaultLaunchArgs (feature lists merged as LaunchOptions.Args').
	Args []string
	// Output receives the server's standard error (default: discarded).
	Output io.Writer
}

// Server is a Playwright browser server started by StartServer: Node.js running the driver's
// playwright-core `chromium.launchServer` with Chromium headless.
type Server struct {
	cmd *exec.Cmd
	// stdin stays open while the server should run (a finalizer would close it, and the server stop, if it
	// were dropped).
	stdin      io.WriteCloser
	endpoint   string
	browserPID int
	done       chan struct{}
	stopOnce   sync.Once
}

// serverScript calls launchServer with the options in argv[2] and prints the endpoint and the browser's pid as
// one JSON line; it closes the server on SIGTERM, SIGINT or when its standard input ends (its parent is gone).
const serverScript = `
const { chromium } = require(process.argv[1]);
chromium.launchServer(JSON.parse(process.argv[2])).then((s) => {
  process.stdout.write(JSON.stringify({ wsEndpoint: s.wsEndpoint(), pid: s.process().pid }) + "\n");
  const stop = () => s.close().then(() => process.exit(0), () => process.exit(1));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.stdin.on("end", stop);
  process.stdin.resume();
}, (e) => { process.stderr.write(String((e && e.stack) || e) + "\n"); process.exit(1); });
`

// StartServer starts a Playwright browser server with the project's driver (the same playwright-core this
// package's Driver runs, so the version rule holds) and returns once it listens. Errors name what was not
// found (as StartDriver and Launch do) or the server's own output.
func StartServer(o ServerOptions) (*Server, error) {
	cli, err := findDriverCLI(o.DriverDir)
	if err != nil {
		return nil, err
	}
	node, err := findNode(o.NodePath)
	if err != nil {
		return nil, err
	}
	exe, err := findChromium(o.Chromium, true)
	if err != nil {
		return nil, err
	}
	host := o.Host
	if host == "" {
		host = "127.0.0.1"
	}
	cfg := map[string]any{"executablePath": exe, "headless": true, "host": host, "port": o.Port,
		"args": launchArgs(o.Args)}
	if o.WSPath != "" {
		cfg["wsPath"] = o.WSPath
	}
	b, _ := json.Marshal(cfg)
	cmd := exec.Command(node, "-e", serverScript, filepath.Dir(cli), string(b))
	cmd.Stderr = o.Output
	if cmd.Stderr == nil {
		cmd.Stderr = io.Discard
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("browser: start the browser server (%s): %w", node, err)
	}
	s := &Server{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	line, rerr := bufio.NewReader(out).ReadString('\n')
	var hello struct {
		WSEndpoint string `json:"wsEndpoint"`
		PID        int    `json:"pid"`
	}
	if rerr != nil || json.Unmarshal([]byte(line), &hello) != nil || hello.WSEndpoint == "" {
		_ = cmd.Process.Kill()
		werr := cmd.Wait()
		return nil, fmt.Errorf("browser: the browser server (playwright-core %s, Chromium %s) did not start: %v "+
			"(exit: %v; set ServerOptions.Output to see its output)", filepath.Dir(cli), exe, rerr, werr)
	}
	s.endpoint, s.browserPID = hello.WSEndpoint, hello.PID
	go func() {
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// Endpoint is the server's ws:// URL (launchServer's wsEndpoint()).
func (s *Server) Endpoint() string { return s.endpoint }

// Port is the TCP port the server listens on (0 when the endpoint does not say).
func (s *Server) Port() int {
	u, err := url.Parse(s.endpoint)
	if err != nil {
		return 0
	}
	var p int
	_, _ = fmt.Sscanf(u.Port(), "%d", &p)
	return p
}

// Kill ends the server as a crash would: SIGKILL to Node.js and to the Chromium it launched, no goodbye to
// connected clients. It returns once the Node.js process has exited (its port is free again).
func (s *Server) Kill() {
	s.stopOnce.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		if s.browserPID > 0 {
			_ = syscall.Kill(s.browserPID, syscall.SIGKILL)
		}
	})
	<-s.done
}

// Close stops the server gracefully (SIGTERM: launchServer's close(), which closes the browser), killing it
// when it has not exited within 10 s.
func (s *Server) Close() {
	s.stopOnce.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Signal(syscall.SIGKILL)
			if s.browserPID > 0 {
				_ = syscall.Kill(s.browserPID, syscall.SIGKILL)
			}
		}
	})
	<-s.done
}
