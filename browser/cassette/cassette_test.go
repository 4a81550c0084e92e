package cassette

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestKeyRules(t *testing.T) {
	same := [][2]string{
		{"http://127.0.0.1:4001/a?b=2&a=1", "http://127.0.0.1:5002/a?a=1&b=2"},
		{"https://Example.com/x?_=1733400000123&q=tea", "https://example.com/x?q=tea"},
		{"https://example.com/x?q=tea&cb=99&v=3", "https://example.com/x?q=tea"},
		{"https://example.com/x?q=tea&access_token=abc", "https://example.com/x?q=tea&access_token=xyz"},
		{"https://example.com/x?q=tea&when=1733400000", "https://example.com/x?q=tea"},
		{"http://127.0.0.1:1/t/0123456789abcdef0123456789abcdef/shop/", "http://127.0.0.1:2/t/fedcba9876543210fedcba9876543210/shop/"},
		{"https://example.com/x#top", "https://example.com/x"},
	}
	for _, p := range same {
		a, _ := Key("GET", p[0], "", nil, keyTime)
		b, _ := Key("GET", p[1], "", nil, keyTime)
		if a != b {
			t.Errorf("%s and %s: keys %q and %q, want equal", p[0], p[1], a, b)
		}
	}
	differ := [][2]string{
		{"https://example.com/x?q=tea", "https://example.com/x?q=coffee"},
		{"https://example.com:8443/x", "https://example.com/x"},
		{"https://example.com/recipe/42", "https://example.com/recipe/43"},
	}
	for _, p := range differ {
		a, _ := Key("GET", p[0], "", nil, keyTime)
		b, _ := Key("GET", p[1], "", nil, keyTime)
		if a == b {
			t.Errorf("%s and %s: both key %q, want different", p[0], p[1], a)
		}
	}
	j1, _ := Key("POST", "https://api.example.com/q", "application/json", []byte(`{"b": [1, 2], "a": "x"}`), keyTime)
	j2, _ := Key("post", "https://api.example.com/q", "application/json; charset=utf-8", []byte(`{"a":"x","b":[1,2]}`), keyTime)
	j3, _ := Key("POST", "https://api.example.com/q", "application/json", []byte(`{"a":"y","b":[1,2]}`), keyTime)
	if j1 != j2 || j1 == j3 {
		t.Errorf("JSON bodies: keys %q, %q, %q; want the first two equal, the third different", j1, j2, j3)
	}
	f1, _ := Key("POST", "https://e.com/f", "application/x-www-form-urlencoded", []byte("b=2&a=1&csrf_token=zz"), keyTime)
	f2, _ := Key("POST", "https://e.com/f", "application/x-www-form-urlencoded", []byte("a=1&b=2&csrf_token=yy"), keyTime)
	if f1 != f2 {
		t.Errorf("form bodies: keys %q and %q, want equal", f1, f2)
	}
	if want := "GET https://example.com/x?a=1&q=t"; mustKey("GET", "https://example.com/x?q=t&a=1&ts=5") != want {
		t.Errorf("key = %q, want %q", mustKey("GET", "https://example.com/x?q=t&a=1&ts=5"), want)
	}
}

func mustKey(m, u string) string { k, _ := Key(m, u, "", nil, keyTime); return k }

// keyTime is when TestKeyRules' requests are made: 1733400000 is a timestamp near it.
var keyTime = time.Date(2024, 12, 6, 0, 0, 0, 0, time.UTC)

func TestStripURL(t *testing.T) {
	got := StripURL("https://user:pw@example.com/p?q=tea&access_token=s3cr3t&sig=abc#f")
	want := "https://example.com/p?q=tea&access_token=REDACTED&sig=REDACTED#f"
	if got != want {
		t.Errorf("StripURL = %q, want %q", got, want)
	}
}

// TestRecordReplayRoundTrip records exchanges with secrets, checks the bytes on disk hold none of them (and do
// with Secrets), then replays: same body by key, cookie names telling two answers apart, a miss counted.
func TestRecordReplayRoundTrip(t *testing.T) {
	for _, keep := range []bool{false, true} {
		dir := t.TempDir()
		at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		c, err := Create(dir, Options{Secrets: keep, Now: func() time.Time { return at }})
		if err != nil {
			t.Fatal(err)
		}
		a := c.Attempt("task/1", "v0/task/1/0")
		put := func(x Exchange) {
			if err := a.Put(x); err != nil {
				t.Fatal(err)
			}
		}
		put(Exchange{Method: "GET", URL: "http://127.0.0.1:9/page?access_token=TOKEN-ABC", Status: 200,
			RequestHeaders:  []Header{{"Authorization", "Bearer AUTH-XYZ"}, {"Accept", "text/html"}},
			ResponseHeaders: []Header{{"Set-Cookie", "sid=COOKIE-123; Path=/"}, {"Content-Type", "text/html"}},
			Body:            []byte("<p>first</p>")})
		put(Exchange{Method: "GET", URL: "http://127.0.0.1:9/page?access_token=TOKEN-ABC", Status: 200,
			RequestHeaders: []Header{{"Cookie", "sid=COOKIE-123"}}, Body: []byte("<p>second</p>")})
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		all := dump(t, c)
		for _, s := range []string{"TOKEN-ABC", "AUTH-XYZ", "COOKIE-123"} {
			if got := bytes.Contains(all, []byte(s)); got != keep {
				t.Errorf("secrets kept %v: cassette holds %s: %v", keep, s, got)
			}
		}

		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !r.RecordedAt().Equal(at) {
			t.Errorf("RecordedAt = %v, want %v", r.RecordedAt(), at)
		}
		p := r.Attempt("task/1", "other")
		_, b1, ok1, _ := p.Lookup("GET", "http://127.0.0.1:7/page?access_token=NEW", nil, nil)
		_, b2, ok2, _ := p.Lookup("GET", "http://127.0.0.1:7/page", []Header{{"cookie", "sid=other"}}, nil)
		_, _, ok3, _ := p.Lookup("GET", "http://127.0.0.1:7/missing?token=T", nil, nil)
		if !ok1 || !ok2 || ok3 || string(b1) != "<p>first</p>" || string(b2) != "<p>second</p>" {
			t.Errorf("replay: %v %q, %v %q, %v; want first, second, a miss", ok1, b1, ok2, b2, ok3)
		}
		if m := p.Misses(); len(m) != 1 || m[0] != "http://127.0.0.1:7/missing?token=REDACTED" {
			t.Errorf("Misses = %q", m)
		}
		if ids, _ := r.Tasks(); len(ids) != 1 || ids[0] != "task/1" {
			t.Errorf("Tasks = %q", ids)
		}
	}
}

// dump is every file of the cassette, blobs decompressed, concatenated.
func dump(t *testing.T, c *Cassette) []byte {
	t.Helper()
	var all []byte
	err := filepath.Walk(c.Dir(), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if name, ok := strings.CutSuffix(fi.Name(), ".zst"); ok {
			if b, err = c.Blob(name); err != nil {
				return err
			}
		}
		all = append(all, b...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// recordAt records one exchange for task into dir at the time at, in the given secrets mode.
func recordAt(t *testing.T, dir, task string, at time.Time, secrets bool) {
	t.Helper()
	c, err := Create(dir, Options{Secrets: secrets, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Attempt(task, task+"-1")
	if err := a.Put(Exchange{Method: "GET", URL: "https://example.com/" + task, Status: 200,
		Body: []byte(task)}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReRecordKeepsOtherTaskTime(t *testing.T) {
	dir := t.TempDir()
	t1 := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)
	t2 := time.Date(2026, 6, 20, 18, 30, 0, 0, time.UTC)
	recordAt(t, dir, "a", t1, false)
	recordAt(t, dir, "b", t1, false)
	recordAt(t, dir, "b", t2, false) // the nightly pattern: re-record one drifted task alone
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RecordedAt(); !got.Equal(t1) {
		t.Errorf("manifest recorded_at = %v, want the first recording's %v", got, t1)
	}
	for task, want := range map[string]time.Time{"a": t1, "b": t2} {
		tp, err := c.Tape(task)
		if err != nil {
			t.Fatal(err)
		}
		if !tp.RecordedAt.Equal(want) {
			t.Errorf("tape %s recorded_at = %v, want %v", task, tp.RecordedAt, want)
		}
		if got, err := c.TaskTime(task); err != nil || !got.Equal(want) {
			t.Errorf("TaskTime(%s) = %v, %v; want %v (the replay clock)", task, got, err, want)
		}
	}
	if got, err := c.TaskTime("untaped"); err != nil || !got.Equal(t1) {
		t.Errorf("TaskTime of a task without a tape = %v, %v; want the manifest's %v", got, err, t1)
	}
}

func TestCreateRefusesOtherSecretsMode(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)
	recordAt(t, dir, "a", at, false)
	_, err := Create(dir, Options{Secrets: true})
	if err == nil {
		t.Fatal("Create with secrets into a cassette recorded without them: no error")
	}
	var sm *SecretsModeError
	if !errors.As(err, &sm) || sm.Dir != dir || sm.Recorded {
		t.Errorf("error %#v: want a *SecretsModeError of %s, recorded without secrets", err, dir)
	}
	for _, want := range []string{dir, "secrets stripped", "have them kept"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Manifest().Secrets {
		t.Error("the refused recording changed the manifest's secrets flag")
	}
	if _, err := Create(dir, Options{Secrets: false}); err != nil {
		t.Errorf("Create in the cassette's own mode: %v", err)
	}
}
