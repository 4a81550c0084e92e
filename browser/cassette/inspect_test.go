package cassette

import (
	"context"
	"strings"
	"testing"
	"time"
)

// record writes one attempt of task with the given exchanges into a cassette at dir.
func record(t *testing.T, dir, task string, xs ...Exchange) *Cassette {
	t.Helper()
	c, err := Create(dir, Options{Now: func() time.Time { return time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Attempt(task, "a1")
	for _, x := range xs {
		if err := a.Put(x); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return c
}

func html() []Header {
	return []Header{{Name: "Content-Type", Value: "text/html; charset=utf-8"}}
}

func TestListStatsPages(t *testing.T) {
	dir := t.TempDir()
	page := []byte("<html><body><main><p>" + strings.Repeat("tea and scones ", 200) + "</p></main></body></html>")
	css := []byte("p { color: teal }")
	record(t, dir, "t1",
		Exchange{Method: "GET", URL: "https://shop.example/p?q=1&access_token=s3cr3t", Status: 200, Body: page,
			RequestHeaders:  []Header{{Name: "Cookie", Value: "sid=1"}, {Name: "Authorization", Value: "Bearer x"}},
			ResponseHeaders: append(html(), Header{Name: "Set-Cookie", Value: "sid=2"})},
		Exchange{Method: "GET", URL: "https://shop.example/s.css", Status: 200, Body: css,
			ResponseHeaders: []Header{{Name: "Content-Type", Value: "text/css"}}},
		Exchange{Method: "GET", URL: "https://shop.example/p?q=1", Status: 200, Body: page, ResponseHeaders: html()})
	c := record(t, dir, "t2", Exchange{Method: "GET", URL: "https://news.example/", Status: 301,
		ResponseHeaders: []Header{{Name: "Location", Value: "https://news.example/home"}}})

	ls, err := c.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || ls[0].Task != "t1" || ls[0].Entries != 3 || ls[0].Attempts != 1 ||
		ls[0].Bytes != int64(2*len(page)+len(css)) || ls[1].Entries != 1 || ls[1].Bytes != 0 {
		t.Fatalf("list: %+v", ls)
	}
	st, err := c.Stats()
	if err != nil {
		t.Fatal(err)
	}
	// Stripped: the Cookie and Authorization request headers, the Set-Cookie response header, the access token.
	if st.Tasks != 2 || st.Entries != 4 || st.Stripped != 4 || st.Secrets || st.Unique != int64(len(page)+len(css)) ||
		st.Dedup != float64(2*len(page)+len(css))/float64(len(page)+len(css)) || st.Compression <= 5 {
		t.Errorf("stats: %+v", st)
	}
	if g := st.Groups[0]; g.Host != "shop.example" || g.ContentType != "text/html" || g.Entries != 2 ||
		g.Unique != int64(len(page)) || g.Stored <= 0 || g.Stored >= g.Unique {
		t.Errorf("first group: %+v", g)
	}
	if len(st.Groups) != 3 {
		t.Errorf("groups: %+v", st.Groups)
	}

	pages, err := c.Pages("t1")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 1 || pages[0].URL != "https://shop.example/p?q=1&access_token=REDACTED" || string(pages[0].Body) != string(page) {
		t.Errorf("pages: %d, first %q", len(pages), pages[0].URL)
	}
	later := c.Later()
	if body, status, err := later(context.Background(), "t1", "https://shop.example/p?q=1"); err != nil || status != 200 || string(body) != string(page) {
		t.Errorf("later of a recorded page: %d %v", status, err)
	}
	for _, q := range [][2]string{{"t1", "https://shop.example/other"}, {"nope", "https://shop.example/p?q=1"}} {
		if _, status, err := later(context.Background(), q[0], q[1]); err != nil || status != 0 {
			t.Errorf("later of %v: %d %v, want 0 (not recorded)", q, status, err)
		}
	}
}
