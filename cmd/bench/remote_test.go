package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"webbench/browser"
	"webbench/results"
	"webbench/runner"
)

// TestBrowserHeaderFlags: the connect flags' refusals (exit 2), shared by bench run and bench ablate; no
// error quotes a header's value.
func TestBrowserHeaderFlags(t *testing.T) {
	const secret = "Bearer flag-s3cret"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--browser-header", "Authorization: " + secret}, "need --browser-endpoint"},
		{[]string{"--browser-endpoint", "ws://127.0.0.1:1/pw", "--browser-header", secret}, "want 'Name: value'"},
		{[]string{"--browser-endpoint", "ws://127.0.0.1:1/pw", "--browser-header", "Bad Name: " + secret}, "not an HTTP header name"},
		{[]string{"--browser-endpoint", "ws://127.0.0.1:1/pw", "--browser-header", "Authorization: " + secret,
			"--browser-header-env", "authorization=WB_TEST_POOL_AUTH"}, "header authorization given twice"},
		{[]string{"--browser-endpoint", "ws://127.0.0.1:1/pw", "--browser-header-env", "Authorization"}, "want Name=VAR"},
		{[]string{"--browser-endpoint", "ws://127.0.0.1:1/pw", "--browser-header-env", "Authorization=WB_TEST_UNSET_VAR"},
			"$WB_TEST_UNSET_VAR is unset or empty"},
		{[]string{"--browser-endpoint", "ws://127.0.0.1:1/pw", "--browser-connect-timeout", "0s"}, "must be positive"},
		{[]string{"--browser-expose-network", "<loopback>"}, "--browser-expose-network needs --browser-endpoint"},
		{[]string{"--browser-expose-network", ""}, "--browser-expose-network needs --browser-endpoint"},
		{[]string{"--browser-reconnect", "5m"}, "--browser-reconnect needs --browser-endpoint"},
		{[]string{"--browser-reconnect", "0"}, "--browser-reconnect needs --browser-endpoint"},
		{[]string{"--browser-connect-timeout", "10s"}, "--browser-connect-timeout needs --browser-endpoint"},
		{[]string{"--browser-header-env", "Authorization=WB_TEST_POOL_AUTH"}, "need --browser-endpoint"},
		{[]string{"--browser-endpoint", "ws://127.0.0.1:1/pw", "--browser-reconnect", "-1s"}, "--browser-reconnect -1s: must be at least 0"},
		{[]string{"--browser-endpoint-env", "WB_TEST_POOL_AUTH", "--browser-reconnect", "-5m"}, "--browser-reconnect -5m0s: must be at least 0"},
		{[]string{"--browser-endpoint", "ws://127.0.0.1:1/pw", "--browser-endpoint-env", "WB_TEST_POOL_AUTH"},
			"--browser-endpoint and --browser-endpoint-env: give one of them"},
		{[]string{"--browser-endpoint-env", "WB_TEST_UNSET_VAR"}, "--browser-endpoint-env WB_TEST_UNSET_VAR: $WB_TEST_UNSET_VAR is unset or empty"},
	} {
		for _, cmd := range [][]string{{"run", "--dry-run"}, {"ablate", "suites/zoo/ablations/demo.yaml", "--dry-run"}} {
			_, stderr, code := benchEnv(t, []string{"WB_TEST_POOL_AUTH=" + secret}, append(cmd, c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("bench %v %v: exit %d, stderr %q; want 2 and %q", cmd, c.args, code, stderr, c.want)
			}
			if strings.Contains(stderr, "flag-s3cret") {
				t.Errorf("bench %v %v: stderr holds the header value: %s", cmd, c.args, stderr)
			}
		}
	}
	// The same flags with an endpoint (read from the environment, too) are accepted: the refusals above are the
	// missing endpoint's, not the flags'.
	for _, args := range [][]string{
		{"--browser-endpoint", "ws://127.0.0.1:1/pw", "--browser-reconnect", "5m", "--browser-connect-timeout", "10s",
			"--browser-expose-network", "<loopback>"},
		{"--browser-endpoint-env", "WB_TEST_ENDPOINT", "--browser-reconnect", "0"},
	} {
		for _, cmd := range [][]string{{"run", "--dry-run"}, {"ablate", "suites/zoo/ablations/demo.yaml", "--dry-run"}} {
			_, stderr, code := benchEnv(t, []string{"WB_TEST_ENDPOINT=ws://127.0.0.1:1/pw"}, append(cmd, args...)...)
			if code != 0 {
				t.Errorf("bench %v %v: exit %d, stderr %q; want 0", cmd, args, code, stderr)
			}
		}
	}
}

// TestRunRemoteBrowserCLI: `bench run --browser-endpoint` against a browser server started with the project's
// driver (browser.StartServer: chromium.launchServer of playwright-core 1.64.1) behind a gateway that wants an
// Authorization header (given with --browser-header-env, so the token is in no argument) and a ?token= query
// (the endpoint given with --browser-endpoint-env, for the same reason).
// Two Zoo tasks pass; the header's value and the token are in no file of the run directory, no output of bench
// run, and no report of bench report (table, md, json, html). A server of another Playwright version (the
// User-Agent an older client sends, through --browser-header) stops bench run before anything is written, exit
// 2, naming both versions and the rule.
func TestRunRemoteBrowserCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	const auth, token = "Bearer cli-hdr-s3cret-77", "cli-query-s3cret-88"
	srv, err := browser.StartServer(browser.ServerOptions{WSPath: "/pw-cli-s3cret-path"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	target, _ := url.Parse(strings.Replace(srv.Endpoint(), "ws://", "http://", 1))
	target.Path = ""
	rp := httputil.NewSingleHostReverseProxy(target)
	var authorised atomic.Int64
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != auth || r.URL.Query().Get("token") != token {
			http.Error(w, "unauthorised", http.StatusUnauthorized)
			return
		}
		authorised.Add(1)
		rp.ServeHTTP(w, r)
	}))
	defer gw.Close()
	endpoint := strings.Replace(gw.URL, "http://", "ws://", 1) + "/pw-cli-s3cret-path?token=" + token
	env := []string{"WB_TEST_POOL_AUTH=" + auth, "WB_TEST_POOL_URL=" + endpoint}
	secrets := []string{"cli-hdr-s3cret", token, "cli-s3cret-path"}
	leaks := func(what, s string) {
		t.Helper()
		for _, x := range secrets {
			if strings.Contains(s, x) {
				t.Errorf("%s holds the secret %q", what, x)
			}
		}
	}

	dir := filepath.Join(t.TempDir(), "run")
	stdout, stderr, code := benchEnv(t, env, "run", "--suite", "zoo", "--tasks",
		"shop-qa-hero-hoodie-sku,recipes-qa-lasagna-protein", "--reps", "1", "--workers", "1", "--out", dir,
		"--chromium", "/nonexistent/chromium", "--browser-endpoint-env", "WB_TEST_POOL_URL",
		"--browser-header-env", "Authorization=WB_TEST_POOL_AUTH")
	if code != 0 {
		t.Fatalf("bench run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	leaks("bench run's output", stdout+stderr)
	if authorised.Load() < 2 { // the check before the run, then the worker
		t.Errorf("gateway authorised %d connects, want ≥ 2", authorised.Load())
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Final()) != 2 {
		t.Fatalf("%d records, want 2", len(run.Final()))
	}
	for _, r := range run.Final() {
		if r.Status != results.StatusPass {
			t.Errorf("%s: %s %s %s", r.TaskID, r.Status, r.FailureMode, r.Error)
		}
	}
	if bi := run.Manifest.Browser; bi == nil || !bi.Remote || !strings.HasSuffix(bi.Endpoint, "/REDACTED?token=REDACTED") ||
		len(bi.Headers) != 1 || bi.Headers[0] != "Authorization" {
		t.Errorf("manifest browser section %+v", bi)
	}
	for _, f := range []string{"table", "md", "json", "html"} {
		out, errOut, code := bench(t, "report", dir, "--format", f)
		if code != 0 {
			t.Errorf("bench report --format %s: exit %d %s", f, code, errOut)
		}
		leaks("bench report --format "+f, out+errOut)
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil {
			for _, x := range secrets {
				if bytes.Contains(b, []byte(x)) {
					t.Errorf("%s holds the secret %q", p, x)
				}
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// Another Playwright version: refused before anything is written.
	dir2 := filepath.Join(t.TempDir(), "mismatch")
	stdout, stderr, code = benchEnv(t, env, "run", "--suite", "zoo", "--tasks", "shop-qa-hero-hoodie-sku",
		"--out", dir2, "--browser-endpoint", endpoint, "--browser-header-env", "Authorization=WB_TEST_POOL_AUTH",
		"--browser-header", "User-Agent: Playwright/1.63.0 (x64; debian 13)")
	if code != 2 {
		t.Errorf("mismatched version: exit %d, want 2\n%s", code, stderr)
	}
	for _, s := range []string{"runs Playwright 1.64", "playwright-core 1.64.1", "client 1.63",
		"client and server must run the same Playwright major.minor", "nothing was written"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("mismatch stderr lacks %q:\n%s", s, stderr)
		}
	}
	leaks("the mismatch's output", stdout+stderr)
	if _, err := os.Stat(dir2); err == nil {
		t.Errorf("%s was created by a run refused before it started", dir2)
	}

	// The gateway refuses a connect without the header: infrastructure (exit 3), before anything is written.
	stdout, stderr, code = benchEnv(t, env, "run", "--suite", "zoo", "--tasks", "shop-qa-hero-hoodie-sku",
		"--out", dir2, "--browser-endpoint", endpoint, "--browser-connect-timeout", "10s")
	if code != 3 || !strings.Contains(stderr, "could not connect") || !strings.Contains(stderr, "/REDACTED?token=REDACTED") ||
		!strings.Contains(stderr, "nothing was written") {
		t.Errorf("refused connect: exit %d, want 3 and the redacted endpoint\n%s", code, stderr)
	}
	leaks("the refused connect's output", stdout+stderr)
	if _, err := os.Stat(dir2); err == nil {
		t.Errorf("%s was created by a run refused before it started", dir2)
	}
}

// TestRemoteBrowserErrorCodes: the exit codes of runner.BrowserError — a remote browser that cannot load the
// suite's start page exits 2 (the setup must change: --browser-expose-network, a run-server server), as a
// version mismatch does, before or during the run; a server unreachable for the whole reconnect window exits 3
// (the same command resumes once it is back).
func TestRemoteBrowserErrorCodes(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
	}{
		{&runner.BrowserError{Err: fmt.Errorf("%w: could not load", runner.ErrBrowserUnreachable)}, 2},
		{&runner.BrowserError{Err: fmt.Errorf("x: %w", browser.ErrVersionMismatch), Running: true}, 2},
		{&runner.BrowserError{Err: errors.New("unreachable for the whole reconnect window"), Running: true}, 3},
		{&runner.BrowserError{Err: errors.New("could not connect")}, 3},
	} {
		var ee *exitError
		if err := runErr(c.err); !errors.As(err, &ee) || ee.code != c.code {
			t.Errorf("runErr(%v) = %v, want exit %d", c.err, err, c.code)
		}
	}
}
