package browser

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// ErrUnresponsive is returned (wrapped) when the browser does not answer a Playwright call that has no timeout
// of its own — creating a context or page, closing a context or the browser — within the bound of
// SessionOptions.SetupTimeout or DefaultCloseTimeout. Seen here when Chromium's main process is killed while a
// page is being created and its child processes keep the debugging pipe open: the driver never learns the
// browser is gone and Playwright 1.64's newPage never settles (a 23-minute hang in TestChromiumKilledMidRun
// before this bound). A runner treats it as an infrastructure error and relaunches the browser.
var ErrUnresponsive = errors.New("browser: no answer (browser hung or gone)")

// DefaultSetupTimeout bounds NewSession and Session.Close when SessionOptions.SetupTimeout is 0; a new context
// and page take 0.4–1.5 s on a loaded 2-core machine. DefaultCloseTimeout bounds Browser.Close before the
// browser's processes are killed.
const (
	DefaultSetupTimeout = 30 * time.Second
	DefaultCloseTimeout = 10 * time.Second
)

// markerFlag is the Chromium switch that tags the main process of each local launch (Chromium ignores unknown
// switches), so Kill can find it and, through its --user-data-dir, its child processes.
const markerFlag = "--webbench-browser="

// within runs fn and returns its error, or an ErrUnresponsive error naming what when fn has not returned after
// d. fn keeps running in its goroutine after a timeout; abandon runs with fn's result when it finally returns.
func within[T any](d time.Duration, what string, fn func() (T, error), abandon func(T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-t.C:
		if abandon != nil {
			go func() {
				r := <-ch
				abandon(r.v, r.err)
			}()
		}
		var zero T
		return zero, fmt.Errorf("%w: %s did not return in %v", ErrUnresponsive, what, d)
	}
}

func newMarker() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Processes returns the process ids of a locally launched browser: its main process (found by the launch's
// marker switch in /proc/PID/cmdline), every process naming its --user-data-dir (zygotes, renderers; also
// after the main process died and left them orphaned), and their descendants (GPU and utility processes).
// Empty for a remote browser, after every process has exited, or off Linux.
func (b *Browser) Processes() []int {
	if b.marker == "" {
		return nil
	}
	marker := []byte(markerFlag + b.marker)
	procs := cmdlines()
	in := map[int]bool{}
	for pid, cl := range procs {
		if bytes.Contains(cl, marker) || (b.userDataDir != nil && hasArg(cl, b.userDataDir)) {
			in[pid] = true
		}
	}
	parent := map[int]int{}
	for pid := range procs {
		parent[pid] = ppid(pid)
	}
	var pids []int
	for pid := range procs {
		for p, hops := pid, 0; p > 1 && hops < 64; p, hops = parent[p], hops+1 {
			if in[p] {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// hasArg reports whether cmdline cl holds arg as a whole argument. Chromium's child processes rewrite their
// argv into one space-separated string, so an argument ends at a NUL, a space or the end.
func hasArg(cl, arg []byte) bool {
	for i := 0; ; {
		j := bytes.Index(cl[i:], arg)
		if j < 0 {
			return false
		}
		end := i + j + len(arg)
		if (i+j == 0 || cl[i+j-1] == 0 || cl[i+j-1] == ' ') && (end == len(cl) || cl[end] == 0 || cl[end] == ' ') {
			return true
		}
		i = i + j + 1
	}
}

// ppid is the parent process id of pid from /proc/PID/stat, or 0.
func ppid(pid int) int {
	st, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses, so parse after the last ')'.
	i := bytes.LastIndexByte(st, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(st[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(string(f[1]))
	return n
}

// launchedUserDataDir finds the main process of the launch tagged marker and returns its --user-data-dir
// argument (see userDataDir), or nil.
func launchedUserDataDir(marker string) []byte {
	for _, cl := range cmdlines() {
		if bytes.Contains(cl, []byte(markerFlag+marker)) {
			return userDataDir(cl)
		}
	}
	return nil
}

// cmdlines maps every readable process id to its NUL-terminated /proc/PID/cmdline.
func cmdlines() map[int][]byte {
	out := map[int][]byte{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cl, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && len(cl) > 0 {
			out[pid] = cl
		}
	}
	return out
}

// userDataDir is the "--user-data-dir=…" argument of the main process's cmdline (NUL-separated), or nil.
func userDataDir(cl []byte) []byte {
	for _, arg := range bytes.Split(cl, []byte{0}) {
		if bytes.HasPrefix(arg, []byte("--user-data-dir=")) {
			return append([]byte{}, arg...)
		}
	}
	return nil
}

// Kill sends SIGKILL to every process of a locally launched browser (Processes) and returns how many it
// signalled. It is the last resort of Close when the browser does not answer; Playwright then sees the pipe
// close and rejects the calls still pending.
func (b *Browser) Kill() int {
	n := 0
	for _, pid := range b.Processes() {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
