package webvoyager

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"webbench/judge"
	"webbench/suites"
)

func liveSuite(t *testing.T, probe time.Duration) *Suite {
	t.Helper()
	p := writeFile(t, "t.jsonl", `{"web_name": "A", "id": "A--0", "ques": "q", "web": "https://a.test/"}`)
	s, err := New(Config{TasksFile: p, ProbeTimeout: probe})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOpenProbe(t *testing.T) {
	var heads, gets atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			heads.Add(1)
		}
	})
	mux.HandleFunc("/nohead", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		gets.Add(1)
	})
	mux.HandleFunc("/forbidden", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) })
	mux.HandleFunc("/down", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	s := liveSuite(t, 400*time.Millisecond)
	task := func(u string) suites.Task { return suites.Task{ID: "A--0", Start: u} }

	env, err := s.Open(t.Context(), task(srv.URL+"/ok"), "att1")
	if err != nil {
		t.Fatal(err)
	}
	st, serr := env.State(t.Context())
	if env.StartURL() != srv.URL+"/ok" || !env.Allowed("https://anything.example/") || st != nil || serr != nil ||
		env.Close(t.Context()) != nil || env.Close(t.Context()) != nil {
		t.Errorf("env: %q %v %v", env.StartURL(), st, serr)
	}
	if heads.Load() != 1 {
		t.Errorf("HEAD probes = %d, want 1", heads.Load())
	}
	// A successful probe of the origin is reused.
	if _, err := s.Open(t.Context(), task(srv.URL+"/ok"), "att2"); err != nil || heads.Load() != 1 {
		t.Errorf("second open: %v, heads = %d", err, heads.Load())
	}

	s = liveSuite(t, 400*time.Millisecond)
	if _, err := s.Open(t.Context(), task(srv.URL+"/nohead"), "a"); err != nil || gets.Load() != 1 {
		t.Errorf("HEAD 405 then GET: %v (gets %d)", err, gets.Load())
	}
	s = liveSuite(t, 400*time.Millisecond)
	if _, err := s.Open(t.Context(), task(srv.URL+"/forbidden"), "a"); err != nil {
		t.Errorf("403 counts as reachable: %v", err)
	}
	s = liveSuite(t, 400*time.Millisecond)
	if _, err := s.Open(t.Context(), task(srv.URL+"/down"), "a"); !errors.Is(err, ErrUnreachable) ||
		!strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("503: %v", err)
	}
	start := time.Now()
	if _, err := s.Open(t.Context(), task(srv.URL+"/hang"), "a"); !errors.Is(err, ErrUnreachable) {
		t.Errorf("hanging server: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("probe took %v with a 400 ms timeout", d)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()
	if _, err := s.Open(t.Context(), task(closed), "a"); !errors.Is(err, ErrUnreachable) {
		t.Errorf("closed port: %v", err)
	}
	for _, bad := range []string{"", "ftp://x/", "/relative", "{base}/recipes/"} {
		if _, err := s.Open(t.Context(), task(bad), "a"); err == nil {
			t.Errorf("start %q: want an error", bad)
		}
	}
	// The probe can be switched off.
	off := liveSuite(t, -1)
	if _, err := off.Open(t.Context(), task(closed), "a"); err != nil {
		t.Errorf("probe off: %v", err)
	}
}

func get(t *testing.T, u string, cookies ...*http.Cookie) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, b)
	}
	return string(b)
}

func TestFixtures(t *testing.T) {
	s, err := suites.Open(Name, suites.Options{"fixtures": "builtin"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws := s.(*Suite)
	base := ws.FixtureURL()
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("fixture URL %q", base)
	}
	tasks := s.Tasks()
	if len(tasks) != 5 {
		t.Fatalf("%d fixture tasks", len(tasks))
	}
	finals := map[string]string{ // a right and a wrong final answer per task, for the answer judge
		"FixtureRecipes--0": "It has 181 reviews.|It has 96 reviews.",
		"FixtureRecipes--1": "Prep time is 15 mins.|Prep time is 20 mins.",
		"FixtureStore--0":   "The price is $89.99.|The price is €84.95.",
		"FixtureStays--0":   "The Deluxe room costs $245 per night.|It costs $180 per night.",
		"FixtureNews--0":    "It was written by Priya Raman.|It was written by Tomás Ortega.",
	}
	for _, tk := range tasks {
		if !strings.HasPrefix(tk.Start, base+"/") || tk.Cluster != tk.App || tk.Check.Answer == nil ||
			tk.Check.Answer.Type != "golden" || len(tk.Solution) < 2 || tk.Solution[len(tk.Solution)-1].Kind != "answer" {
			t.Errorf("%s: %+v", tk.ID, tk)
		}
		env, err := s.Open(t.Context(), tk, "att")
		if err != nil {
			t.Errorf("%s: open: %v", tk.ID, err)
			continue
		}
		if env.StartURL() != tk.Start {
			t.Errorf("%s: start %q", tk.ID, env.StartURL())
		}
		good, bad, _ := strings.Cut(finals[tk.ID], "|")
		for final, pass := range map[string]bool{good: true, bad: false} {
			v, _ := judge.Answer{}.Judge(t.Context(), judge.Input{Task: tk, Final: final})
			if v.Error != "" || v.Pass != pass {
				t.Errorf("%s: answer judge on %q: %+v, want pass=%v", tk.ID, final, v, pass)
			}
		}
	}
	if st := tasks[0].Solution[0]; st.Kind != "click" || st.Target.Role != "button" || st.Target.Name != "Reject all" {
		t.Errorf("first step %+v", st)
	}
	if st := tasks[0].Solution[2]; st.Target == nil || st.Target.Role != "heading" || st.Target.NameRegex != `from (\d+) reviews` {
		t.Errorf("answer step %+v", st)
	}

	// The pages carry the blockers until they are answered (cookies).
	home := get(t, base+"/recipes/")
	for _, want := range []string{`id="onetrust-consent-sdk"`, `class="onetrust-pc-dark-filter`, ">Reject all<", ">Accept all<"} {
		if !strings.Contains(home, want) {
			t.Errorf("recipes home lacks %s", want)
		}
	}
	if strings.Contains(get(t, base+"/recipes/", &http.Cookie{Name: "OptanonAlertBoxClosed", Value: "reject"}), "onetrust-consent-sdk") {
		t.Error("consent dialog shown after it was answered")
	}
	if r := get(t, base+"/recipes/search?q=banana+bread"); strings.Index(r, "Classic Banana Bread") > strings.Index(r, "Chocolate Banana Bread") ||
		strings.Contains(r, "Banana Oat Muffins") {
		t.Errorf("recipe search results wrong")
	}
	store := get(t, base+"/store/product/trail-running-shoe-x2")
	if !strings.Contains(store, ">Stay on this site<") || !strings.Contains(store, "Price: $89.99") {
		t.Error("store page lacks the region modal or the US price")
	}
	eu := get(t, base+"/store/product/trail-running-shoe-x2", &http.Cookie{Name: "fx_region", Value: "eu"})
	if strings.Contains(eu, "geo-redirect") || !strings.Contains(eu, "Price: €84.95") {
		t.Error("EU store page wrong")
	}
	if h := get(t, base+"/stays/hotel/harbor-view"); !strings.Contains(h, `<span class="room-icon" aria-hidden="true"></span>`) ||
		!strings.Contains(h, `<label for="room-deluxe">Deluxe</label>`) || !strings.Contains(h, "Nightly price: $180") {
		t.Error("hotel page lacks icon-covered radios")
	}
	if n := get(t, base+"/news/search?q=solar+storage"); !strings.Contains(n, `id="search-overlay" role="dialog" aria-label="Search">`) ||
		!strings.Contains(n, "Grid-scale solar storage passes a milestone") || strings.Contains(n, "Offshore wind") {
		t.Error("news search: overlay not open or wrong results")
	}
	if n := get(t, base+"/news/"); !strings.Contains(n, `aria-label="Search" hidden>`) {
		t.Error("news home: overlay should start hidden")
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

// The exported fixture file is recognised by content: --tasks-file <FixtureTasksFile()> is fixture mode.
func TestFixtureTasksFile(t *testing.T) {
	p := FixtureTasksFile()
	b, err := os.ReadFile(p)
	if err != nil || string(b) != string(FixtureTasksBytes()) {
		t.Fatalf("FixtureTasksFile %q: %v", p, err)
	}
	s, err := suites.Open(Name, suites.Options{"tasks_file": p})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ws := s.(*Suite); ws.FixtureURL() == "" || !strings.HasPrefix(s.Tasks()[0].Start, ws.FixtureURL()) ||
		s.Tasks()[0].Check.Answer == nil {
		t.Errorf("fixture mode not detected from the task file: %+v", s.Tasks()[0])
	}
	// The copy in the source tree is the same file.
	if src, err := os.ReadFile("fixtures/tasks.jsonl"); err != nil || string(src) != string(b) {
		t.Errorf("source copy differs: %v", err)
	}
	// A fixture-format file of one's own works with fixtures=builtin; its {base} resolves to the server.
	own := writeFile(t, "own.jsonl", `{"web_name": "Mine", "id": "Mine--0", "ques": "Open the index.", "web": "{base}/"}`)
	s2, err := suites.Open(Name, suites.Options{"tasks_file": own, "fixtures": "builtin"})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	tk := s2.Tasks()[0]
	if tk.Start != s2.(*Suite).FixtureURL()+"/" || tk.Solution != nil {
		t.Errorf("own fixture task %+v", tk)
	}
	if _, err := s2.Open(t.Context(), tk, "a"); err != nil {
		t.Errorf("open fixture index: %v", err)
	}
}

func TestDecodeSolutions(t *testing.T) {
	good := `
T--0:
  - navigate: /start
  - click: {role: link, name: Yoga Mat, nth: 1, within: {role: list, name: Products}}
  - fill: {role: textbox, name: Email, text: ana@example.test}
  - select: {role: combobox, name: Shipping, values: [Express]}
  - press: Enter
  - press: {key: Tab}
  - hover: {role: button, name_regex: '^Menu'}
  - visual_click: {role: switch}
  - evaluate: "() => document.title"
  - answer: {from: {role: heading, name_regex: 'Order #(\d+)'}}
  - answer: forty-two
`
	m, err := DecodeSolutions([]byte(good), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st := m["T--0"]
	if len(st) != 11 {
		t.Fatalf("%d steps", len(st))
	}
	checks := []bool{
		st[0].Kind == "navigate" && st[0].URL == "/start",
		st[1].Target.Name == "Yoga Mat" && st[1].Target.Nth == 1 && st[1].Target.Within.Role == "list",
		st[2].Text == "ana@example.test" && st[2].Target.Role == "textbox",
		len(st[3].Values) == 1 && st[3].Values[0] == "Express",
		st[4].Key == "Enter" && st[5].Key == "Tab",
		st[6].Target.NameRegex == "^Menu",
		st[7].Kind == "visual_click" && st[7].Target.Role == "switch",
		st[8].Function == "() => document.title",
		st[9].Kind == "answer" && st[9].Target.NameRegex == `Order #(\d+)`,
		st[10].Literal == "forty-two" && st[10].Target == nil,
	}
	for i, ok := range checks {
		if !ok {
			t.Errorf("step %d decoded wrong: %+v", i, st[i])
		}
	}
	for _, c := range []struct{ yaml, want string }{
		{"T--0:\n  - click: {role: link}\n  - jump: {role: link}\n", "s.yaml:3:5: T--0: unknown step \"jump\""},
		{"T--0:\n  - click: {role: link, colour: red}\n", "s.yaml:2:5: T--0: click: line 2: unknown key \"colour\""},
		{"T--0:\n  - click: Yoga Mat\n", "s.yaml:2:5: T--0: click needs a map"},
		{"T--0:\n  - fill: {text: x}\n", "fill needs a target"},
		{"T--0:\n  - answer: {from: {role: heading}, role: x}\n", "either from or role/name"},
		{"T--0: {click: x}\n", "s.yaml:1:7: T--0: want a list of steps"},
		{"T--0:\n  - {click: {role: a}, fill: {role: b}}\n", "one-key map"},
		{"T--0: [\n", "s.yaml:"},
	} {
		if _, err := DecodeSolutions([]byte(c.yaml), "s.yaml"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.yaml, err, c.want)
		}
	}
}
