package guard

import (
	"fmt"
	"strings"
	"time"

	"webbench/agent"
	"webbench/browser"
)

// SnapshotReady retries a snapshot that has no interactive ref (GUARDS.md §4, seed 002 fix 1): a
// client-rendered page captured before it hydrates. It waits for the page to be ready and re-captures with
// a.Tools.Snapshot (the session's, or a browser_snapshot call on a Playwright MCP backend), for at most
// ReadyTimeout in all, and hands over the first capture with an interactive ref, or the last one. A snapshot that
// already has an interactive ref is returned unchanged at once. Events: "recapture" (one per re-capture), then
// "ready" or "gave_up".
//
// The wait is on the page, not a timer, where the backend can wait for it (browser.InteractiveWaiter, the
// session): until the page shows an element of an interactive role, so a page that renders late on a slow machine
// is re-captured once, when it has rendered, and a fixed delay cannot outlast the guard. Where that wait fails or
// ends while the re-capture is still empty (the page shows such an element that the snapshot does not), and on a
// backend that cannot wait (Playwright MCP), the guard re-captures every Wait, as the seed's fix does (1 s apart).
type SnapshotReady struct {
	// Wait between captures where the page cannot be waited for (0 = 1 s); ReadyTimeout, the guard's budget
	// for one empty snapshot (0 = 10 s); MaxRecaptures caps the re-captures (0 = only the budget does).
	Wait          time.Duration
	ReadyTimeout  time.Duration
	MaxRecaptures int
	// capture replaces a.Tools.Snapshot and waitReady the backend's WaitInteractive in tests.
	capture   func(a *agent.Attempt, boxes bool) (string, error)
	waitReady func(a *agent.Attempt, timeout time.Duration) (bool, error)
}

// NameSnapshotReady is the guard's name in specs, --guards and the records.
const NameSnapshotReady = "snapshot_ready"

func init() {
	register(NameSnapshotReady, 40, true, func() agent.Hook { return SnapshotReady{} })
}

// Name implements agent.Hook.
func (SnapshotReady) Name() string { return NameSnapshotReady }

// AfterSnapshot implements agent.AfterSnapshotter.
func (g SnapshotReady) AfterSnapshot(a *agent.Attempt, snapshot string) string {
	if browser.HasInteractiveRef(snapshot) {
		return snapshot
	}
	capture, waitReady := g.capture, g.waitReady
	if capture == nil {
		if a.Tools == nil {
			return snapshot
		}
		capture = func(a *agent.Attempt, boxes bool) (string, error) { return a.Tools.Snapshot(boxes) }
	}
	if w, ok := a.Tools.(browser.InteractiveWaiter); ok && waitReady == nil {
		waitReady = func(_ *agent.Attempt, d time.Duration) (bool, error) { return w.WaitInteractive(d) }
	}
	wait, ready := g.Wait, g.ReadyTimeout
	if wait <= 0 {
		wait = time.Second
	}
	if ready <= 0 {
		ready = 10 * time.Second
	}
	deadline := a.Remaining() < ready // the attempt ends before the budget would
	end := time.Now().Add(min(ready, a.Remaining()))
	boxes := strings.Contains(snapshot, "[box=")
	best, n := snapshot, 0
	for g.MaxRecaptures <= 0 || n < g.MaxRecaptures {
		left := time.Until(end)
		if waitReady == nil && left < wait || left <= 0 {
			break
		}
		shown, timedOut := false, false
		if waitReady != nil {
			var err error
			if shown, err = waitReady(a, left); err != nil {
				waitReady = nil // a closed page, a failed wait: the timer from now on
			}
			timedOut = err == nil && !shown // the budget is spent
		}
		if waitReady == nil && !g.sleep(a, wait) {
			return best
		}
		s, err := capture(a, boxes)
		n++
		if a.Ctx != nil && a.Ctx.Err() != nil {
			return best // the attempt ended meanwhile; the loop no longer waits for this result
		}
		if shown {
			// The page shows an interactive element: a wait on it would end at once, so a snapshot that still
			// lacks one (or a failed capture) is re-taken on the timer.
			waitReady = nil
		}
		if err != nil {
			a.Event(NameSnapshotReady, "recapture", fmt.Sprintf("n=%d error=%v", n, err))
			continue
		}
		best = s
		ok := browser.HasInteractiveRef(s)
		a.Event(NameSnapshotReady, "recapture", fmt.Sprintf("n=%d interactive=%t bytes=%d", n, ok, len(s)))
		if ok {
			a.Event(NameSnapshotReady, "ready", fmt.Sprintf("recaptures=%d", n))
			return s
		}
		if timedOut {
			break
		}
	}
	reason := ""
	if deadline && time.Until(end) < wait {
		reason = " reason=deadline"
	}
	a.Event(NameSnapshotReady, "gave_up", fmt.Sprintf("recaptures=%d%s", n, reason))
	return best
}

// sleep waits d, or until the attempt's context ends (false).
func (SnapshotReady) sleep(a *agent.Attempt, d time.Duration) bool {
	if a.Ctx == nil {
		time.Sleep(d)
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-a.Ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
