package drift

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

const page = `<!doctype html><html><head><title>Lasagna</title><style>p{color:red}</style>
<script>var t = "script text";</script></head>
<body><header><a href="/">Fixture Recipes</a> Updated 5 minutes ago</header>
<nav><ul><li>Home</li><li>Search</li></ul></nav>
<main><h1>Vegetarian Four Cheese Lasagna</h1>
<p>Rated 4.8 by <b>181</b> reviews · 12,034 views</p>
<p hidden>hidden text</p><div aria-hidden="true">decor</div><div style="display: none">gone</div>
<p>Published December 5, 2026 at 9:30 pm</p><img src="x.png" alt="A lasagna">
<ul><li>Prep: 15 mins</li><li>Cook: 1 hr</li></ul></main>
<aside>Trending: Banana bread</aside><footer>© Fixture 2026-12-05</footer></body></html>`

func TestExtractMainAndVisible(t *testing.T) {
	got := Extract([]byte(page))
	wantMain := []string{"Vegetarian Four Cheese Lasagna", "Rated 4.8 by 181 reviews · <count>", "Published <date> at <time>",
		"A lasagna", "Prep: 15 mins", "Cook: 1 hr"}
	if !slices.Equal(got.Main, wantMain) {
		t.Errorf("main text\n got %q\nwant %q", got.Main, wantMain)
	}
	vis := strings.Join(got.Visible, "\n")
	for _, in := range []string{"Fixture Recipes Updated 5 minutes ago", "Home", "Trending: Banana bread", "181 reviews",
		"© Fixture 2026-12-05"} {
		if !strings.Contains(vis, in) {
			t.Errorf("visible text lacks %q:\n%s", in, vis)
		}
	}
	for _, out := range []string{"script text", "hidden text", "decor", "gone", "Lasagna</title", "color:red"} {
		if strings.Contains(vis, out) {
			t.Errorf("visible text has %q:\n%s", out, vis)
		}
	}
}

func TestExtractWithoutMainUsesBody(t *testing.T) {
	got := Extract([]byte(`<body><nav>Menu</nav><div role="navigation">More menu</div><p>Hello <i>world</i></p>` +
		`<div role="contentinfo">Imprint</div></body>`))
	if want := []string{"Hello world"}; !slices.Equal(got.Main, want) {
		t.Errorf("main %q, want %q", got.Main, want)
	}
}

// Overlays depend on the visitor's cookies, not on the page: a consent banner, a dialog, a popup are not main text.
func TestExtractLeavesOverlaysOut(t *testing.T) {
	got := Extract([]byte(`<body><div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk" role="region">` +
		`<h2>Your privacy choices</h2><button>Reject all</button></div></div>` +
		`<div class="geo-modal" role="dialog" aria-modal="true">Stay on this site</div><dialog open>Sign up</dialog>` +
		`<div class="newsletter-popup">Subscribe</div><div class="cookie-notice">We use cookies</div>` +
		`<h1>Trail Running Shoe X2</h1><p>Price: $89.99</p></body>`))
	if want := []string{"Trail Running Shoe X2", "Price: $89.99"}; !slices.Equal(got.Main, want) {
		t.Errorf("main %q, want %q", got.Main, want)
	}
	if vis := strings.Join(got.Visible, "\n"); !strings.Contains(vis, "Reject all") || !strings.Contains(vis, "Stay on this site") {
		t.Errorf("visible text lost the overlays:\n%s", vis)
	}
}

func TestMaskVolatile(t *testing.T) {
	for in, want := range map[string]string{
		"Updated 2026-12-05T10:22:01Z":          "Updated <date>",
		"on 12/05/2026 and 5.12.2026":           "on <date> and <date>",
		"Posted Dec 5, 2026 by Ann":             "Posted <date> by Ann",
		"5 December 2026":                       "<date>",
		"Sale ends Nov 30":                      "Sale ends <date>",
		"at 23:59:01 or 9:30 pm":                "at <time> or <time>",
		"3 hours ago · an hour ago · yesterday": "<ago> · <ago> · <ago>",
		"1,234 views, 56 people viewing":        "<count>, <count>",
		"$89.99 · 181 reviews · 4.8 stars":      "$89.99 · 181 reviews · 4.8 stars",
		"May the best win":                      "May the best win",
	} {
		if got := MaskVolatile(in); got != want {
			t.Errorf("MaskVolatile(%q) = %q, want %q", in, got, want)
		}
	}
}

// contains is an answer test for a fixed phrase.
func contains(s string) AnswerFunc {
	return func(text string) bool { return strings.Contains(text, s) }
}

func TestComparePage(t *testing.T) {
	// Only volatile bits moved: unchanged.
	later := strings.NewReplacer("5 minutes ago", "2 hours ago", "12,034 views", "12,101 views", "December 5, 2026",
		"December 6, 2026", "9:30 pm", "10:00 am", "2026-12-05", "2026-12-06").Replace(page)
	pd := ComparePage("u", []byte(page), []byte(later), contains("181"))
	if pd.Status != Unchanged || pd.RemovedCount != 0 || pd.AddedCount != 0 || pd.AnswerBefore != Present || pd.AnswerAfter != Present {
		t.Errorf("volatile-only change: %+v", pd)
	}
	// The answer changed: drifted, the line named, the answer gone.
	changed := strings.Replace(page, "<b>181</b>", "<b>182</b>", 1)
	pd = ComparePage("u", []byte(page), []byte(changed), contains("181"))
	if pd.Status != Drifted || !slices.Equal(pd.Removed, []string{"Rated 4.8 by 181 reviews · <count>"}) ||
		!slices.Equal(pd.Added, []string{"Rated 4.8 by 182 reviews · <count>"}) || pd.AnswerBefore != Present || pd.AnswerAfter != Absent {
		t.Errorf("answer change: %+v", pd)
	}
	// The frame changed (nav, aside): unchanged, the answer still there.
	framed := strings.Replace(page, "Trending: Banana bread", "Trending: Pancakes", 1)
	if pd = ComparePage("u", []byte(page), []byte(framed), nil); pd.Status != Unchanged || pd.AnswerBefore != "" {
		t.Errorf("frame change: %+v", pd)
	}
}

func TestCompareTasks(t *testing.T) {
	other := strings.Replace(page, "<b>181</b>", "<b>182</b>", 1)
	tasks := []TaskInput{
		{ID: "same", Pages: []Page{{URL: "/a", Body: []byte(page)}}, Answer: contains("181")},
		{ID: "changed", Pages: []Page{{URL: "/b", Body: []byte(page)}, {URL: "/a", Body: []byte(page)}}, Answer: contains("181")},
		{ID: "unrecorded", Pages: []Page{{URL: "/none", Body: []byte(page)}}, Answer: contains("181")},
		{ID: "gone", Pages: []Page{{URL: "/404", Body: []byte(page)}}},
		{ID: "offline", Pages: []Page{{URL: "/err", Body: []byte(page)}}, Answer: contains("181")},
	}
	later := func(_ context.Context, _, url string) ([]byte, int, error) {
		switch url {
		case "/a":
			return []byte(page), 200, nil
		case "/b":
			return []byte(other), 200, nil
		case "/404":
			return []byte("not found"), 404, nil
		case "/err":
			return nil, 0, errors.New("connection refused")
		}
		return nil, 0, nil
	}
	r := Compare(context.Background(), "B", tasks, later)
	got := map[string]Status{}
	for _, td := range r.Tasks {
		got[td.Task] = td.Status
	}
	want := map[string]Status{"same": Unchanged, "changed": Drifted, "unrecorded": Unchanged, "gone": Drifted, "offline": Error}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("task %s: %s, want %s", k, got[k], v)
		}
	}
	// "changed": the answer left page /b (though it is still on /a): review; "unrecorded" had nothing to compare.
	if rv := r.Reviews(); !slices.Equal(rv, []string{"changed"}) {
		t.Errorf("reviews %v, want [changed]", rv)
	}
	if td := r.Tasks[1]; td.AnswerBefore != Present || td.AnswerAfter != Present {
		t.Errorf("changed: answer before %v after %v, want both (on /a)", td.AnswerBefore, td.AnswerAfter)
	}
	// A page that cannot be read now says nothing about the answer: unknown, with the error; not drifted.
	if td := r.Tasks[4]; td.Status != Error || td.AnswerBefore != Present || td.AnswerAfter != Unknown ||
		td.AnswerError != "connection refused" || td.Review || td.Pages[0].AnswerAfter != Unknown {
		t.Errorf("offline: %+v; want error, answer present then unknown (connection refused), no review", td)
	}
	if d := r.WithStatus(Drifted); !slices.Equal(d, []string{"changed", "gone"}) {
		t.Errorf("drifted %v", d)
	}
	if r.Counts[Drifted] != 2 || r.Counts[Unchanged] != 2 || r.Counts[Error] != 1 || r.Pages != 6 || r.Unread != 1 {
		t.Errorf("counts %v pages %d unread %d; want 2 drifted, 2 unchanged, 1 error, 6 pages, 1 unread", r.Counts, r.Pages, r.Unread)
	}
	// A 503 is the site unavailable now, not the page gone: unknown; a 500 stays gone.
	for code, want := range map[int]Status{503: Error, 500: Drifted} {
		r = Compare(context.Background(), "live", tasks[0:1:1], func(context.Context, string, string) ([]byte, int, error) {
			return []byte("busy"), code, nil
		})
		if r.Tasks[0].Status != want {
			t.Errorf("HTTP %d: %s, want %s", code, r.Tasks[0].Status, want)
		}
	}
	// The answer gone from every page: review, and no page has it after.
	r = Compare(context.Background(), "B", tasks[1:2:2], func(_ context.Context, _, url string) ([]byte, int, error) {
		return []byte(other), 200, nil
	})
	if !r.Tasks[0].Review || r.Tasks[0].AnswerAfter != Absent {
		t.Errorf("answer gone from every page: %+v", r.Tasks[0])
	}
	// A page the other recording lacks says nothing about the answer: no review.
	r = Compare(context.Background(), "B", tasks[2:3:3], later)
	if r.Tasks[0].Review || r.Tasks[0].Pages[0].AnswerAfter != "" {
		t.Errorf("not compared: %+v", r.Tasks[0])
	}
}

func TestLive(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(page))
	}))
	defer srv.Close()
	get := Live(srv.Client())
	body, status, err := get(context.Background(), "t", srv.URL+"/")
	if err != nil || status != 200 || string(body) != page {
		t.Fatalf("live page: %d %v %d bytes", status, err, len(body))
	}
	if _, status, err = get(context.Background(), "t", srv.URL+"/missing"); err != nil || status != 404 {
		t.Fatalf("missing page: %d %v", status, err)
	}
}
