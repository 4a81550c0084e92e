package guard

import (
	"fmt"
	"strings"
	"time"

	"webbench/agent"
	"webbench/browser"
)

// SnapshotReady retries a snapshot that has no interactive ref (GUARDS.md §4, seed 002 fix 1): a
// client-rendered page captured before it hydrates. It waits Wait (default 1 s) and re-captures with
// a.Tools.Snapshot (the session's, or a browser_snapshot call on a Playwright MCP backend), at most MaxRecaptures
// times (default 3: initial capture + 3), and hands over the first capture with an interactive ref, or the last
// one. A snapshot that already has an interactive ref is returned
// unchanged at once. Events: "recapture" (one per re-capture), then "ready" or "gave_up".
type SnapshotReady struct {
	// Wait between captures (0 = 1 s); MaxRecaptures (0 = 3).
	Wait          time.Duration
	MaxRecaptures int
	// capture replaces a.Tools.Snapshot in tests.
	capture func(a *agent.Attempt, boxes bool) (string, error)
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
	capture := g.capture
	if capture == nil {
		if a.Tools == nil {
			return snapshot
		}
		capture = func(a *agent.Attempt, boxes bool) (string, error) { return a.Tools.Snapshot(boxes) }
	}
	wait, limit := g.Wait, g.MaxRecaptures
	if wait <= 0 {
		wait = time.Second
	}
	if limit <= 0 {
		limit = 3
	}
	boxes := strings.Contains(snapshot, "[box=")
	best := snapshot
	for i := 1; i <= limit; i++ {
		if a.Remaining() <= wait {
			a.Event(NameSnapshotReady, "gave_up", fmt.Sprintf("recaptures=%d reason=deadline", i-1))
			return best
		}
		if a.Ctx != nil {
			t := time.NewTimer(wait)
			select {
			case <-a.Ctx.Done():
				t.Stop()
				return best
			case <-t.C:
			}
		} else {
			time.Sleep(wait)
		}
		s, err := capture(a, boxes)
		if a.Ctx != nil && a.Ctx.Err() != nil {
			return best // the attempt ended meanwhile; the loop no longer waits for this result
		}
		if err != nil {
			a.Event(NameSnapshotReady, "recapture", fmt.Sprintf("n=%d error=%v", i, err))
			continue
		}
		best = s
		ok := browser.HasInteractiveRef(s)
		a.Event(NameSnapshotReady, "recapture", fmt.Sprintf("n=%d interactive=%t bytes=%d", i, ok, len(s)))
		if ok {
			a.Event(NameSnapshotReady, "ready", fmt.Sprintf("recaptures=%d", i))
			return s
		}
	}
	a.Event(NameSnapshotReady, "gave_up", fmt.Sprintf("recaptures=%d", limit))
	return best
}
