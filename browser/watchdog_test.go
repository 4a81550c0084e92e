package browser

import (
	"errors"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launchOwn launches a browser of the test's own (the shared testBrowser must survive).
func launchOwn(t *testing.T) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test (needs Chromium)")
	}
	b, err := testDriver.Launch(LaunchOptions{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Kill() })
	return b
}

// waitGone waits up to 10 s for every process of b to exit.
func waitGone(t *testing.T, b *Browser) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if len(b.Processes()) == 0 {
			return
		}
	}
	t.Errorf("browser processes still alive: %v", b.Processes())
}

// A frozen browser (every process SIGSTOPped: it neither answers nor closes its pipe) must not hang a worker:
// NewSession gives up after SetupTimeout with ErrUnresponsive, and Close kills the processes.
func TestFrozenBrowserIsUnresponsiveNotHung(t *testing.T) {
	b := launchOwn(t)
	s, err := b.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Navigate(testServer.URL + "/"); err != nil {
		t.Fatal(err)
	}
	// Processes finds the main process and its children (DefaultLaunchArgs: no zygote, GPU and network service
	// in the browser process, so a renderer is all there is below it).
	pids := b.Processes()
	types := map[string]bool{}
	procs := cmdlines()
	for _, pid := range pids {
		cl := string(procs[pid])
		switch {
		case strings.Contains(cl, markerFlag+b.marker):
			types["main"] = true
		case strings.Contains(cl, "--type=renderer"):
			types["renderer"] = true
		case strings.Contains(cl, "--type=zygote"):
			types["zygote"] = true
		case strings.Contains(cl, "--type=gpu-process"):
			types["gpu-process"] = true
		}
	}
	for _, want := range []string{"main", "renderer"} {
		if !types[want] {
			t.Errorf("Processes() = %v has no %s process", pids, want)
		}
	}
	if other := testBrowser.Processes(); len(other) == 0 || slices.ContainsFunc(other, func(p int) bool { return slices.Contains(pids, p) }) {
		t.Errorf("the shared browser's processes %v are empty or overlap this browser's %v", other, pids)
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGSTOP)
	}
	start := time.Now()
	_, err = b.NewSession(SessionOptions{SetupTimeout: 2 * time.Second})
	if el := time.Since(start); !errors.Is(err, ErrUnresponsive) || el > 8*time.Second {
		t.Fatalf("NewSession on a frozen browser: %v after %v; want ErrUnresponsive after ≈2 s", err, el)
	}
	start = time.Now()
	err = b.Close()
	if el := time.Since(start); !errors.Is(err, ErrUnresponsive) || el > DefaultCloseTimeout+5*time.Second {
		t.Fatalf("Close of a frozen browser: %v after %v; want ErrUnresponsive after ≈%v", err, el, DefaultCloseTimeout)
	}
	waitGone(t, b)
}
