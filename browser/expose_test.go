package browser

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// netnsServer runs `cli.js run-server --unsafe` (Playwright's server mode that launches a browser per client and
// honours exposeNetwork) in a network namespace of its own, so that its browser cannot reach this machine's
// loopback, as a browser server on another machine cannot; a Unix socket (the file system is shared) bridges
// the namespace's 127.0.0.1:4567 to a TCP port here.
const netnsServer = `
const [cli, sock] = process.argv.slice(1);
const net = require("net");
const srv = require("child_process").spawn(process.execPath,
  [cli, "run-server", "--host", "127.0.0.1", "--port", "4567", "--path", "/pw", "--unsafe"],
  { stdio: ["ignore", "pipe", "inherit"] });
srv.stdout.once("data", () => {
  net.createServer((c) => { const u = net.connect(4567, "127.0.0.1"); c.pipe(u); u.pipe(c);
    c.on("error", () => u.destroy()); u.on("error", () => c.destroy()); }).listen(sock, () => console.log("ready"));
});
process.stdin.on("end", () => { srv.kill("SIGKILL"); process.exit(0); });
process.stdin.resume();
`

// TestExposeNetwork: a browser server in its own network namespace reaches a page on this machine's loopback
// only with LaunchOptions.ExposeNetwork "<loopback>" (Playwright's connect option exposeNetwork: the browser's
// connections to matching hosts are made by this client, tunnelled over the connection). Skipped where
// network namespaces cannot be made (unshare -rn needs unprivileged user namespaces, which some hosts block,
// e.g. GitHub's ubuntu-24.04 runners through AppArmor): the skip says so in the test log.
func TestExposeNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test (needs Chromium)")
	}
	if err := exec.Command("unshare", "-rn", "true").Run(); err != nil {
		t.Skipf("no network namespaces here (unshare -rn: %v)", err)
	}
	exe, err := findChromium("", true)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "pw.sock")
	cmd := exec.Command("unshare", "-rn", "sh", "-c", `ip link set lo up && exec "$0" -e "$1" "$2" "$3"`,
		testDriver.node, netnsServer, testDriver.cliPath, sock)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("netns server: %q %v", line, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("unix", sock)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(u, c); u.Close() }()
			go func() { _, _ = io.Copy(c, u); c.Close() }()
		}
	}()
	endpoint := "ws://" + l.Addr().String() + "/pw"
	launch, _ := json.Marshal(map[string]any{"executablePath": exe, "headless": true, "args": DefaultLaunchArgs})
	headers := map[string]string{"x-playwright-launch-options": string(launch)}

	visit := func(expose string) error {
		t.Helper()
		b, err := testDriver.Launch(LaunchOptions{Endpoint: endpoint, Headers: headers, ExposeNetwork: expose,
			ConnectTimeout: 30 * time.Second})
		if err != nil {
			t.Fatalf("connect (expose %q): %v", expose, err)
		}
		defer b.Close()
		s, err := b.NewSession(SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		return s.Navigate(testServer.URL + "/next")
	}
	if err := visit(""); err == nil {
		t.Fatal("the namespaced browser reached this machine's loopback without exposeNetwork: the test proves nothing")
	} else {
		t.Logf("without exposeNetwork: %v", err)
	}
	if err := visit("<loopback>"); err != nil {
		t.Fatalf("with exposeNetwork <loopback>: %v", err)
	}
}
