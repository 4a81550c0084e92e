package cassette

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"
)

// contentPairs are URLs a site answers differently although they look like each other's volatile variants.
var contentPairs = [][2]string{
	{"https://www.youtube.com/watch?v=dQw4w9WgXcQ", "https://www.youtube.com/watch?v=abcdefghijk"},
	{"https://github.com/golang/go/commit/0123456789abcdef0123456789abcdef01234567",
		"https://github.com/golang/go/commit/fedcba9876543210fedcba9876543210fedcba98"},
	{"https://books.example.com/find?isbn=1593279280", "https://books.example.com/find?isbn=1492052590"},
	{"https://news.example.com/?t=news", "https://news.example.com/?t=sports"},
}

func TestKeyKeepsContentParams(t *testing.T) {
	for _, p := range contentPairs {
		a, _ := Key("GET", p[0], "", nil, keyTime)
		b, _ := Key("GET", p[1], "", nil, keyTime)
		if a == b {
			t.Errorf("%s and %s: both key %q, want different", p[0], p[1], a)
		}
	}
	for _, u := range []string{"https://e.com/x?v=3", "https://e.com/x?t=1.2", "https://e.com/x?_=17"} {
		if got := mustKey("GET", u); got != "GET https://e.com/x" {
			t.Errorf("Key(%s) = %q, want the numeric cache-buster dropped", u, got)
		}
	}
	// A Unix time far from the request's is an id of that shape, not a cache-buster.
	if got := mustKey("GET", "https://e.com/x?n=1492052590"); got != "GET https://e.com/x?n=1492052590" {
		t.Errorf("Key = %q, want the value far from the request time kept", got)
	}
}

// TestReplayPrefersExactURL records two answers for each pair (and for two URLs one key merges) and checks each
// replayed request gets its own.
func TestReplayPrefersExactURL(t *testing.T) {
	dir := t.TempDir()
	c, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	merged := [2]string{"https://e.com/feed?at=" + strconv.FormatInt(now-60, 10),
		"https://e.com/feed?at=" + strconv.FormatInt(now-30, 10)}
	if mustKeyNow(merged[0]) != mustKeyNow(merged[1]) {
		t.Fatalf("%s and %s: want one key (a timestamp)", merged[0], merged[1])
	}
	pairs := append(append([][2]string(nil), contentPairs...), merged)
	a := c.Attempt("task/1", "r/0")
	for _, p := range pairs {
		for _, u := range p {
			if err := a.Put(Exchange{Method: "GET", URL: u, Status: 200, Body: []byte("answer for " + u)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Attempt("task/1", "other")
	for _, pair := range pairs {
		for _, u := range []string{pair[1], pair[0], pair[1]} {
			_, body, ok, err := p.Lookup("GET", u, nil, nil)
			if err != nil || !ok || string(body) != "answer for "+u {
				t.Errorf("Lookup(%s) = %q, %v, %v; want its own answer", u, body, ok, err)
			}
		}
	}
}

func mustKeyNow(u string) string { k, _ := Key("GET", u, "", nil, time.Now()); return k }

func TestStripURLFragmentAndUnparsable(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.com/cb?code=AUTHCODE&state=s#id_token=JWT&x=1":    "https://a.com/cb?code=REDACTED&state=s#id_token=REDACTED&x=1",
		"https://a.com/cb#access_token=TOK&token_type=bearer":        "https://a.com/cb#access_token=REDACTED&token_type=REDACTED",
		"https://a.com/app#/cb?code=AUTHCODE":                        "https://a.com/app#/cb?code=REDACTED",
		"https://a.com/p%zz?access_token=SECRET&q=1#refresh_token=R": "https://a.com/p%zz?access_token=REDACTED&q=1#refresh_token=REDACTED",
		"https://u:pw@a.com/p%zz?X-Amz-Signature=S":                  "https://a.com/p%zz?X-Amz-Signature=REDACTED",
		"https://a.com/doc#section-2":                                "https://a.com/doc#section-2",
	} {
		if got := StripURL(in); got != want {
			t.Errorf("StripURL(%s) = %q, want %q", in, got, want)
		}
	}
	k1, _ := Key("GET", "https://a.com/p%zz?access_token=SECRET", "", nil, keyTime)
	k2, _ := Key("GET", "https://a.com/p%zz?access_token=OTHER", "", nil, keyTime)
	if k1 != k2 || strings.Contains(k1, "SECRET") {
		t.Errorf("keys of an unparsable URL: %q and %q; want one key without the token", k1, k2)
	}
}

// TestRedirectFragmentNotStored records an OAuth implicit-flow redirect and checks no token reaches the disk.
func TestRedirectFragmentNotStored(t *testing.T) {
	c, err := Create(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Attempt("task/1", "r/0")
	x := Exchange{Method: "GET", URL: "https://idp.example.com/authorize?client_id=app", Status: 302,
		ResponseHeaders: []Header{{"Location", "https://app.example.com/cb?code=AUTHCODE#access_token=IMPLICIT-TOK"}}}
	if err := a.Put(x); err != nil {
		t.Fatal(err)
	}
	if err := a.Put(Exchange{Method: "GET", URL: "https://app.example.com/cb?code=AUTHCODE#id_token=JWT-TOK",
		Status: 200, Body: []byte("ok")}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	all := dump(t, c)
	for _, s := range []string{"AUTHCODE", "IMPLICIT-TOK", "JWT-TOK"} {
		if bytes.Contains(all, []byte(s)) {
			t.Errorf("cassette holds %s", s)
		}
	}
	if e := a.Entries(); len(e) != 2 || e[1].Stripped != 2 {
		t.Errorf("entries %d, second stripped %d; want 2 and 2 (code, id_token)", len(e), e[len(e)-1].Stripped)
	}
}

// TestReplayTimestampsAtRecordTime: a replay tells timestamps from content by their distance to the task's
// record time, which its page clock shows, not to today: a cassette recorded years ago still matches a request
// whose timestamp the page made at the record time.
func TestReplayTimestampsAtRecordTime(t *testing.T) {
	dir := t.TempDir()
	rec := time.Date(2020, 3, 1, 12, 0, 0, 0, time.UTC)
	c, err := Create(dir, Options{Now: func() time.Time { return rec }})
	if err != nil {
		t.Fatal(err)
	}
	recorded := "https://e.com/feed?at=" + strconv.FormatInt(rec.Unix()-60, 10)
	a := c.Attempt("task/1", "r/0")
	if err := a.Put(Exchange{Method: "GET", URL: recorded, Status: 200, Body: []byte("feed")}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	later := "https://e.com/feed?at=" + strconv.FormatInt(rec.Unix()+5, 10)
	if _, body, ok, err := r.Attempt("task/1", "r/1").Lookup("GET", later, nil, nil); err != nil || !ok || string(body) != "feed" {
		t.Errorf("Lookup(%s) = %q, %v, %v; want the recorded feed", later, body, ok, err)
	}
}
