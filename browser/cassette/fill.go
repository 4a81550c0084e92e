package cassette

import (
	"fmt"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// OpenFill opens the cassette at dir for replay with the misses filled in (--record-missing): a request the tape
// has no entry for is still counted as a miss, but fetched live, served, and appended to its task's tape when the
// attempt closes, so the next replay finds it. The rest of the tape and the record time stay as they are; the
// filled entries are stored as a recording stores them (secrets stripped unless the cassette kept them).
func OpenFill(dir string) (*Cassette, error) {
	c, err := Open(dir)
	if err != nil {
		return nil, err
	}
	c.fill = true
	return c, nil
}

// Fills reports whether the cassette fetches its misses live (OpenFill).
func (c *Cassette) Fills() bool { return c.fill }

// fillRoute answers a missed request as a recording does (recordRoute: fetched live, its redirect hops
// recorded, the failure of a live fetch the browser's) and counts it filled when it recorded something.
func (a *Attempt) fillRoute(r playwright.Route) {
	n := len(a.Entries())
	a.recordRoute(r)
	if len(a.Entries()) > n {
		a.mu.Lock()
		a.filled++
		a.mu.Unlock()
	}
}

// Filled is the number of missed requests fetched live and kept for the tape (OpenFill).
func (a *Attempt) Filled() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.filled
}

// appendFilled adds the entries an attempt fetched live to the end of task's tape on disk (a tape is created
// when the task had none) and drops the task's replay index, so later attempts of this run find them too.
func (c *Cassette) appendFilled(task string, entries []Entry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.Tape(task)
	switch {
	case err == nil:
	case isNotExist(err):
		t = &Tape{Version: Version, Task: task, Secrets: c.man.Secrets, RecordedAt: c.now().UTC().Truncate(time.Second)}
	default:
		return err
	}
	base := len(t.Entries)
	for i, e := range entries {
		e.Seq = base + i
		t.Entries = append(t.Entries, e)
	}
	if err := writeJSON(c.TapePath(task), t); err != nil {
		return fmt.Errorf("cassette: task %s: %w", task, err)
	}
	c.filledEntries(task, len(entries))
	delete(c.index, task)
	return nil
}
