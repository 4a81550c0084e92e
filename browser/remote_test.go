package browser

import (
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
)

func TestRedactEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"ws://127.0.0.1:3000/pw-s3cret-path":                  "ws://127.0.0.1:3000/REDACTED",
		"ws://127.0.0.1:3000/":                                "ws://127.0.0.1:3000/",
		"ws://127.0.0.1:3000":                                 "ws://127.0.0.1:3000",
		"wss://pool.example/chromium/playwright?token=abc123": "wss://pool.example/REDACTED?token=REDACTED",
		"wss://user:pa55word@pool.example/pw":                 "wss://user:REDACTED@pool.example/REDACTED",
		"wss://tok3n@pool.example/p%2Fw?a=1&b=2":              "wss://REDACTED@pool.example/REDACTED?a=REDACTED&b=REDACTED",
		"ws://[::1]:bad/":                                     "[unparsable endpoint]",
	} {
		if got := RedactEndpoint(in); got != want {
			t.Errorf("RedactEndpoint(%q) = %q, want %q", in, got, want)
		}
	}
	o := LaunchOptions{Endpoint: "wss://u:pa55word@pool.example/pw-path?token=abc123", Headers: map[string]string{
		"Authorization": "Bearer hdr-secret", "X-Short": "1"}}
	got := o.Redact("dial wss://u:pa55word@pool.example/pw-path?token=abc123 failed; token abc123, pa55word, " +
		"header Bearer hdr-secret, flag 1, GET /pw-path, path pw-path")
	want := "dial wss://u:REDACTED@pool.example/REDACTED?token=REDACTED failed; token REDACTED, REDACTED, header " +
		"REDACTED, flag 1, GET REDACTED, path REDACTED"
	if got != want {
		t.Errorf("redact:\n got %s\nwant %s", got, want)
	}
}

// TestRemoteConnectErrors starts a browser server with the project's driver (browser.StartServer: the
// driver's chromium.launchServer) and checks what Launch says when connecting goes wrong: a server of another
// Playwright version — the server answers the WebSocket upgrade with 428 "Playwright version mismatch"
// (playwrightServer.ts; microsoft/playwright#27585), made to happen here by sending the User-Agent an older
// client sends, which the driver lets the connect's headers replace — and a server that is not there; neither
// error holds the endpoint's token or a header value. Then the same server connects with the driver's own
// version.
func TestRemoteConnectErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test (needs Chromium and the driver)")
	}
	const wsPath = "/pw-s3cret-wspath" // launchServer's wsPath: the server's only secret
	srv, err := StartServer(ServerOptions{WSPath: wsPath})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const token, auth = "qtoken-s3cret", "Bearer hdr-s3cret"
	ep := srv.Endpoint() + "?token=" + token

	_, err = testDriver.Launch(LaunchOptions{Endpoint: ep, Headers: map[string]string{
		"User-Agent": "Playwright/1.63.0 (x64; debian 13) go/1.26", "Authorization": auth}})
	if !errors.Is(err, ErrVersionMismatch) {
		t.Fatalf("mismatched version: %v, want ErrVersionMismatch", err)
	}
	msg := err.Error()
	t.Logf("mismatch: %s", msg)
	for _, s := range []string{"runs Playwright 1.64", "playwright-core " + pinnedCoreVersion, "1.63",
		"major.minor", "launch-server", "/REDACTED?token=REDACTED"} {
		if !strings.Contains(msg, s) {
			t.Errorf("mismatch error lacks %q:\n%s", s, msg)
		}
	}
	for _, s := range []string{token, auth, "hdr-s3cret", "s3cret-wspath"} {
		if strings.Contains(msg, s) {
			t.Errorf("mismatch error holds the secret %q:\n%s", s, msg)
		}
	}

	// Nothing listening: a closed port.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "ws://" + l.Addr().String() + wsPath + "?token=" + token
	l.Close()
	_, err = testDriver.Launch(LaunchOptions{Endpoint: closed, Headers: map[string]string{"Authorization": auth}})
	if err == nil || errors.Is(err, ErrVersionMismatch) || !strings.Contains(err.Error(), "could not connect") {
		t.Fatalf("closed port: %v", err)
	}
	for _, s := range []string{token, "hdr-s3cret", "s3cret-wspath"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("connect error holds the secret %q:\n%s", s, err)
		}
	}

	b, err := testDriver.Launch(LaunchOptions{Endpoint: ep, Headers: map[string]string{"Authorization": auth}})
	if err != nil {
		t.Fatalf("same version: %v", err)
	}
	defer b.Close()
	if !b.IsConnected() || b.Version() == "" {
		t.Errorf("connected browser: connected %v, version %q", b.IsConnected(), b.Version())
	}
}

// TestRedactArgs: a flag value's URL secrets and bare user info never reach a record; plain flags are kept.
func TestRedactArgs(t *testing.T) {
	in := []string{"--disable-software-rasterizer", "--proxy-pac-url=http://u:pw@proxy.example/p.pac?key=s3cret",
		"--proxy-server=user:tok@proxy.example:3128", "--lang=de-DE"}
	got := RedactArgs(in)
	want := []string{"--disable-software-rasterizer", "--proxy-pac-url=http://u:REDACTED@proxy.example/REDACTED?key=REDACTED",
		"--proxy-server=REDACTED", "--lang=de-DE"}
	if !slices.Equal(got, want) {
		t.Errorf("RedactArgs:\n got %q\nwant %q", got, want)
	}
	if in[1] != "--proxy-pac-url=http://u:pw@proxy.example/p.pac?key=s3cret" {
		t.Error("RedactArgs changed its argument")
	}
}
