package runner

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"webbench/browser/cassette"
	"webbench/browser/cassette/cassettetest"
	"webbench/results"
	"webbench/suites"
	"webbench/suites/webvoyager"
)

// TestCassetteRoundTrip records runs of the WebVoyager fixture sites and of the Zoo's read-only (Q&A) tasks
// with the scripted policy, then replays them in a Chromium whose every connection, loopback included, goes to
// a counting listener (cassettetest.CountConnections); the WebVoyager fixture server is stopped before
// the replay, and the Zoo's is out of the browser's reach (its tenants are still made in process, the pages
// never fetched). Every attempt has the same outcome and final answer as recorded, 0 misses, and no connection
// is opened.
func TestCassetteRoundTrip(t *testing.T) {
	endpoint := sharedBrowser(t)
	// One Zoo Q&A task on the plain pages and one under consent (its dialog's requests replayed too): another
	// shop-qa task replays the same pages again.
	zooSuite, zooTasks := zooShop(t, "shop-qa-yoga-mat-thickness,shop-qa-juno-jacket-shell")
	if len(zooTasks) != 2 {
		t.Fatalf("%d Zoo tasks, want 2", len(zooTasks))
	}
	wvRec, err := suites.Open(webvoyager.Name, suites.Options{"fixtures": "builtin"})
	if err != nil {
		t.Fatal(err)
	}
	defer wvRec.Close()
	// The replay's suite: its own fixture server, closed before the replay, and no reachability probe.
	wvRep, err := suites.Open(webvoyager.Name, suites.Options{"fixtures": "builtin", "probe_timeout": "off"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		rec, rep   suites.Suite
		tasks      []suites.Task
		stopServer func()
	}{
		{"webvoyager", wvRec, wvRep, wvRep.Tasks(), func() { wvRec.Close(); wvRep.Close() }},
		{"zoo", zooSuite, zooSuite, zooTasks, func() {}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cas, err := cassette.Create(filepath.Join(dir, "cassette"), cassette.Options{})
			if err != nil {
				t.Fatal(err)
			}
			plan := Plan{Suite: c.name, Tasks: c.tasks, Reps: 1, Variants: []Variant{cleanVariant()}, BaseSeed: 1}
			if c.name == "webvoyager" {
				// Record on the recording suite's own tasks (its server's port), replay on the other's.
				plan.Tasks = c.rec.Tasks()
			}
			if _, err := Run(context.Background(), plan, c.rec, Options{OutDir: filepath.Join(dir, "rec"), Workers: 2,
				BrowserEndpoint: endpoint, Log: io.Discard, Cassette: cas}); err != nil {
				t.Fatal(err)
			}
			c.stopServer()
			proxy, conns := cassettetest.CountConnections(t)
			replay, err := cassette.Open(filepath.Join(dir, "cassette"))
			if err != nil {
				t.Fatal(err)
			}
			plan.Tasks = c.tasks
			if _, err := Run(context.Background(), plan, c.rep, Options{OutDir: filepath.Join(dir, "rep"), Workers: 2,
				BrowserArgs: proxy,
				Log:         io.Discard, Cassette: replay}); err != nil {
				t.Fatal(err)
			}
			rec, rep := latest(t, filepath.Join(dir, "rec")), latest(t, filepath.Join(dir, "rep"))
			if len(rec) != len(c.tasks) || len(rep) != len(rec) {
				t.Fatalf("%d recorded and %d replayed attempts, want %d each", len(rec), len(rep), len(c.tasks))
			}
			for id, r := range rec {
				p := rep[id]
				if r.Status != results.StatusPass || p.Status != r.Status || p.Final != r.Final {
					t.Errorf("%s: recorded %s %q, replayed %s %q (%s); want the same pass", r.TaskID, r.Status, r.Final,
						p.Status, p.Final, p.Error)
				}
				if r.CassetteMisses != nil {
					t.Errorf("%s: the recording's record has cassette_misses", r.TaskID)
				}
				if p.CassetteMisses == nil || *p.CassetteMisses != 0 {
					t.Errorf("%s: replay cassette_misses = %v, want 0", r.TaskID, p.CassetteMisses)
				}
			}
			if n := conns.Load(); n != 0 {
				t.Errorf("the replay opened %d connections, want 0", n)
			}
		})
	}
}

// latest reads a run directory's records by attempt id.
func latest(t *testing.T, dir string) map[string]results.Attempt {
	t.Helper()
	rr, err := results.ReadAttempts(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rr.Latest
}
