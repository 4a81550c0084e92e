package cassette

import (
	"os"
	"testing"
)

// A recording counts what it added: its tasks and entries, the bodies new to the cassette once each with their
// compressed size on disk, and the secrets stripped; a second recording into the same cassette counts none of
// the first one's bodies. A replay filling misses counts the entries it appended and their tasks.
func TestSession(t *testing.T) {
	dir := t.TempDir()
	c, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	record := func(c *Cassette, task string, bodies ...string) {
		a := c.Attempt(task, task+"/0")
		for _, b := range bodies {
			if err := a.Put(Exchange{Method: "GET", URL: "http://127.0.0.1:9/" + b + "?token=T", Status: 200,
				RequestHeaders: []Header{{"Cookie", "sid=1"}}, Body: []byte(b)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
	record(c, "t1", "alpha", "beta")
	record(c, "t2", "alpha")
	s := c.Session()
	var onDisk int64
	for _, b := range []string{"alpha", "beta"} {
		fi, err := os.Stat(c.BlobPath(Sum([]byte(b))))
		if err != nil {
			t.Fatal(err)
		}
		onDisk += fi.Size()
	}
	// Each entry strips its Cookie header and its token query value.
	if s.Mode != Record || s.Tasks != 2 || s.Entries != 3 || s.NewBlobs != 2 || s.NewBytes != onDisk ||
		s.Stripped != 6 || s.Secrets || s.Filled != 0 {
		t.Errorf("first recording: %+v; want 2 tasks, 3 entries, 2 new bodies of %d bytes, 6 stripped", s, onDisk)
	}
	again, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	record(again, "t2", "alpha", "gamma")
	if s := again.Session(); s.Tasks != 1 || s.Entries != 2 || s.NewBlobs != 1 {
		t.Errorf("second recording: %+v; want 1 task, 2 entries, 1 new body (gamma)", s)
	}
	fill, err := OpenFill(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := fill.appendFilled("t3", []Entry{{}, {}}); err != nil {
		t.Fatal(err)
	}
	if s := fill.Session(); s.Mode != Replay || s.Tasks != 0 || s.Filled != 2 || s.FilledTasks != 1 {
		t.Errorf("fill: %+v; want 2 entries filled in 1 task, no task recorded", s)
	}
}
