package webvoyager

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"webbench/judge"
	"webbench/suites"
)

func TestRealFile(t *testing.T) {
	tf, af := sharedDataset(t)
	s, err := New(Config{TasksFile: tf, AnswersFile: af, Today: day(2025, 11, 30)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tasks := s.Tasks()
	if len(tasks) != 643 {
		t.Fatalf("tasks = %d, want 643", len(tasks))
	}
	perSite := map[string]int{}
	for _, tk := range tasks {
		perSite[tk.App]++
		if tk.Cluster != tk.App || tk.Suite != "webvoyager" || tk.Goal == "" || !strings.HasPrefix(tk.Start, "https://") {
			t.Errorf("%s: bad mapping %+v", tk.ID, tk)
		}
		if tk.Check.Answer == nil || tk.Check.Answer.Reference == "" {
			t.Errorf("%s: no reference answer joined", tk.ID)
		}
	}
	want := map[string]int{"Allrecipes": 45, "Amazon": 41, "Apple": 43, "ArXiv": 43, "BBC News": 42, "Booking": 44,
		"Cambridge Dictionary": 43, "Coursera": 42, "ESPN": 44, "GitHub": 41, "Google Flights": 42, "Google Map": 41,
		"Google Search": 43, "Huggingface": 43, "Wolfram Alpha": 46}
	if !reflect.DeepEqual(perSite, want) {
		t.Errorf("per site = %v, want %v", perSite, want)
	}
	if u := s.UnjoinedAnswers(); len(u) != 0 {
		t.Errorf("%d reference answers joined no task, e.g. %+v", len(u), u[0])
	}

	first := tasks[0]
	if first.ID != "Allrecipes--0" || first.App != "Allrecipes" || first.Start != "https://www.allrecipes.com/" ||
		!strings.HasPrefix(first.Goal, "Provide a recipe for vegetarian lasagna with more than 100 reviews") ||
		first.Source != tf+":1" {
		t.Errorf("first task = %+v", first)
	}
	if a := first.Check.Answer; a.Type != "possible" || a.Exact != "" || a.MustInclude != nil || a.Number != nil ||
		!strings.Contains(a.Reference, "Vegetarian Four Cheese Lasagna") {
		t.Errorf("possible answer rule = %+v", a)
	}
	if first.Meta[MetaNotice] != "note that review information is real-time" {
		t.Errorf("notice = %v", first.Meta[MetaNotice])
	}
	byID := map[string]suites.Task{}
	for _, tk := range tasks {
		byID[tk.ID] = tk
	}
	// Golden answers get checkable rules where one can be derived; the answer judge then decides them.
	golden := []struct {
		id, answer string
		pass       bool
	}{
		{"ArXiv--12", "There are 3 styles of the arXiv Logo Shirt.", true},
		{"ArXiv--12", "There are 4 styles.", false},
		{"Cambridge Dictionary--19", "The translation is provided by Microsoft.", true},
		{"ESPN--17", "First: Boston Celtics; last: San Antonio Spurs.", true},
		{"ESPN--17", "First: Boston Celtics; last: Detroit Pistons.", false},
		{"Wolfram Alpha--0", "The result is about 11.2", true},
		{"Wolfram Alpha--42", "It needs 192 MB.", true},
	}
	for _, g := range golden {
		tk := byID[g.id]
		if tk.Check.Answer.Type != "golden" {
			t.Fatalf("%s is not golden", g.id)
		}
		v, _ := judge.Answer{}.Judge(t.Context(), judge.Input{Task: tk, Final: g.answer})
		if v.Error != "" || v.Pass != g.pass {
			t.Errorf("%s answer %q: %+v, want pass=%v", g.id, g.answer, v, g.pass)
		}
	}
	goldenN, ruled := 0, 0
	for _, tk := range tasks {
		if a := tk.Check.Answer; a.Type == "golden" {
			goldenN++
			if a.Number != nil || len(a.MustInclude) > 0 {
				ruled++
			}
		}
	}
	if goldenN != 143 || ruled != 47 {
		t.Errorf("%d golden answers, %d with a rule; want 143 and 47 (update DeriveGoldenRule's comment)", goldenN, ruled)
	}
	// A free-text golden answer has no rule: the answer judge says so (judge error), the llm judge decides.
	v, _ := judge.Answer{}.Judge(t.Context(), judge.Input{Task: byID["Allrecipes--40"], Final: "x"})
	if v.Error == "" {
		t.Errorf("free-text golden answer should be a judge error for the answer judge: %+v", v)
	}

	// Filters: by site glob, by id glob, both, and a glob that matches nothing.
	for _, c := range []struct {
		sites, ids string
		n          int
	}{
		{"Booking", "", 44},
		{"Google*", "", 42 + 41 + 43},
		{"", "Allrecipes--1?", 10},
		{"ArXiv,GitHub", "*--4?", 3 + 1},
		{"Wolfram Alpha", "Wolfram Alpha--45", 1},
	} {
		fs, err := New(Config{TasksFile: tf, AnswersFile: af, Sites: c.sites, IDs: c.ids})
		if err != nil {
			t.Errorf("sites=%q ids=%q: %v", c.sites, c.ids, err)
			continue
		}
		if got := len(fs.Tasks()); got != c.n {
			t.Errorf("sites=%q ids=%q: %d tasks, want %d", c.sites, c.ids, got, c.n)
		}
	}
	if _, err := New(Config{TasksFile: tf, Sites: "Bookings"}); err == nil || !strings.Contains(err.Error(), "matches no site") {
		t.Errorf("unknown site glob: %v", err)
	}
	if _, err := New(Config{TasksFile: tf, IDs: "Nope--*"}); err == nil {
		t.Error("id glob matching nothing must be an error")
	}
	// Without answers every task loads with no check.
	na, err := New(Config{TasksFile: tf})
	if err != nil || len(na.Tasks()) != 643 || na.Tasks()[5].Check.Answer != nil {
		t.Errorf("no answers: %v", err)
	}
}

// The registry path the CLI uses: suites.Open("webvoyager", Options{tasks_file, answers, stale_dates}).
func TestRegistryOptions(t *testing.T) {
	tf, af := sharedDataset(t)
	s, err := suites.Open("webvoyager", suites.Options{"tasks_file": tf, "answers": af, "stale_dates": "skip",
		"today": "2025-11-30"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Name() != "webvoyager" || len(s.Tasks()) != 643-65 {
		t.Errorf("skip: %s has %d tasks, want %d", s.Name(), len(s.Tasks()), 643-65)
	}
	for _, bad := range []suites.Options{{"tasks_file": tf, "stale_dates": "drop"}, {"tasks_file": tf, "today": "30/11/2025"},
		{"tasks_file": tf, "fixture": "builtin"}, {}} {
		if _, err := suites.Open("webvoyager", bad); err == nil {
			t.Errorf("options %v: want an error", bad)
		}
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o654); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseTasksVariants(t *testing.T) {
	// BOM, CRLF, blank lines, extra fields, missing optional web_name and web, no final newline.
	content := "\xef\xbb\xbf{\"web_name\": \"Shop\", \"id\": \"Shop--0\", \"ques\": \"Find a mug.\", \"web\": \"https://shop.test/\", \"level\": \"easy\"}\r\n" +
		"\n" +
		"{\"id\": \"Shop--1\", \"ques\": \"Find a cup.\"}\n" +
		"{\"id\": \"Other\", \"ques\": \"No number.\", \"web\": \"https://o.test/\"}"
	p := writeFile(t, "v.jsonl", content)
	raws, err := ReadTasksFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(raws) != 3 {
		t.Fatalf("got %d tasks", len(raws))
	}
	if raws[0].WebName != "Shop" || raws[0].Extra["level"] != "easy" || raws[0].Source != p+":1" {
		t.Errorf("line 1: %+v", raws[0])
	}
	if raws[1].WebName != "Shop" || raws[1].Web != "" || raws[1].Source != p+":3" {
		t.Errorf("line 3 (web_name from id): %+v", raws[1])
	}
	if raws[2].WebName != "Other" || raws[2].Ques != "No number." {
		t.Errorf("line 4 (no newline): %+v", raws[2])
	}
	ans := writeFile(t, "a.json", `{"Shop": {"notice": "", "answers": [{"id": 1, "type": "golden", "ans": "Blue Mug"}, {"id": 7, "type": "possible", "ans": "x"}]}}`)
	s, err := New(Config{TasksFile: p, AnswersFile: ans})
	if err != nil {
		t.Fatal(err)
	}
	ts := s.Tasks()
	if ts[0].Check.Answer != nil || ts[1].Check.Answer == nil || ts[1].Check.Answer.MustInclude[0] != "Blue Mug" {
		t.Errorf("join: %+v / %+v", ts[0].Check, ts[1].Check)
	}
	if ts[0].Meta[MetaExtra].(map[string]any)["level"] != "easy" {
		t.Errorf("extra fields not kept: %v", ts[0].Meta)
	}
	if u := s.UnjoinedAnswers(); len(u) != 1 || u[0].Key() != "Shop--7" {
		t.Errorf("unjoined = %+v", u)
	}
	// A task without a start URL loads but cannot be opened.
	if _, err := s.Open(t.Context(), ts[1], "a1"); err == nil || !strings.Contains(err.Error(), "no start URL") {
		t.Errorf("open without web: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	good := `{"web_name": "A", "id": "A--0", "ques": "q0", "web": "https://a.test/"}` + "\n"
	cases := []struct {
		name, content, want string
	}{
		{"malformed", good + good[:30] + "\n" + good, "bad.jsonl:2: malformed JSON"},
		{"truncated last line", good + `{"web_name": "A", "id": "A--1", "ques": "q1"`, "bad.jsonl:2: malformed JSON"},
		{"not an object", good + "[1, 2]\n", "bad.jsonl:2: not a JSON object"},
		{"missing id", good + `{"ques": "q"}` + "\n", `bad.jsonl:2: missing "id"`},
		{"missing ques", good + "\n" + `{"id": "A--1", "web": "https://a.test/"}` + "\n", `bad.jsonl:3: missing "ques"`},
		{"ques not a string", `{"id": "A--1", "ques": 7}`, `bad.jsonl:1: field "ques": want a string`},
		{"duplicate id", good + good, `bad.jsonl:2: duplicate task id "A--0" (first at `},
	}
	for _, c := range cases {
		p := writeFile(t, "bad.jsonl", c.content)
		_, err := New(Config{TasksFile: p})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
		if err != nil && !strings.Contains(err.Error(), p+":") {
			t.Errorf("%s: error %q does not name the file path", c.name, err)
		}
	}
	tasks := writeFile(t, "ok.jsonl", good)
	for _, c := range []struct{ content, want string }{
		{"{\n  \"A\": {\"answers\": [\n    {\"id\": 0, \"type\": \"golden\" \"ans\": \"x\"}]}}", "ans.json:3:"},
		{`{"A": {"answers": [{"id": 0, "type": "gold", "ans": "x"}]}}`, `type "gold"`},
		{`{"A": {"answers": [{"id": 0, "type": "golden", "ans": "x"}, {"id": 0, "type": "golden", "ans": "y"}]}}`, "duplicate id 0"},
		{`{"A": {"answers": [{"type": "golden", "ans": "x"}]}}`, `needs "id" and "ans"`},
		{`{"A": {"answers": {"id": 0}}}`, "ans.json:1:"},
	} {
		ap := writeFile(t, "ans.json", c.content)
		if _, err := New(Config{TasksFile: tasks, AnswersFile: ap}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("answers %s: error %v, want %q", c.content, err, c.want)
		}
	}
	if _, err := New(Config{TasksFile: filepath.Join(t.TempDir(), "missing.jsonl")}); err == nil {
		t.Error("missing tasks file must be an error")
	}
}

func TestDeriveGoldenRule(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	cases := []struct {
		ans  string
		want suites.AnswerRule
	}{
		{"3", suites.AnswerRule{Number: f(3)}},
		{"11.2", suites.AnswerRule{Number: f(11.2), Tolerance: 0.05}},
		{"approximately 33038", suites.AnswerRule{Number: f(33038), Tolerance: 0.5}},
		{"around 0.078 kg", suites.AnswerRule{Number: f(0.078), Tolerance: 0.0005, Unit: "kg"}},
		{"3.125%", suites.AnswerRule{Number: f(3.125), Tolerance: 0.0005, Unit: "%"}},
		{"$89.99", suites.AnswerRule{Number: f(89.99), Tolerance: 0.005, Unit: "$"}},
		{"$90", suites.AnswerRule{Number: f(90), Unit: "$"}},
		{"192 MB", suites.AnswerRule{Number: f(192), Tolerance: 0.5, Unit: "MB"}},
		{"Microsoft", suites.AnswerRule{MustInclude: []string{"Microsoft"}}},
		{"'Apple Tower Theatre'", suites.AnswerRule{MustInclude: []string{"Apple Tower Theatre"}}},
		{"Booking Holdings Inc.", suites.AnswerRule{MustInclude: []string{"Booking Holdings Inc"}}},
		{"WerWolv/ImHex", suites.AnswerRule{MustInclude: []string{"WerWolv/ImHex"}}},
		{"Boston Celtics; San Antonio Spurs", suites.AnswerRule{MustInclude: []string{"Boston Celtics", "San Antonio Spurs"}}},
		{"Chicago Bears, Detroit Lions, Green Bay Packers, and Minnesota Vikings",
			suites.AnswerRule{MustInclude: []string{"Chicago Bears", "Detroit Lions", "Green Bay Packers", "Minnesota Vikings"}}},
		// No rule: prose, alternatives, placeholders, dates, name-and-value items.
		{"There are trade-in offers.", suites.AnswerRule{}},
		{"'Amherst and 7th' or 'Main Street Middle'", suites.AnswerRule{}},
		{"Any 2 of 'Send your product to Apple', 'Find an Apple Authorized Service Provider'", suites.AnswerRule{}},
		{"<Action>, print PDF", suites.AnswerRule{}},
		{"May 5, 2023", suites.AnswerRule{}},
		{"Providence $13.81; Nashville $12.65; Boise $12.65", suites.AnswerRule{}},
		{"Not successful", suites.AnswerRule{}},
		{"Mistral AI team", suites.AnswerRule{}},
	}
	for _, c := range cases {
		if got := DeriveGoldenRule(c.ans); !reflect.DeepEqual(got, c.want) {
			t.Errorf("DeriveGoldenRule(%q) = %+v, want %+v", c.ans, got, c.want)
		}
	}
}

// A GAIA-format file (WebVoyager's data/GAIA_web.jsonl: task_id, Level, "Final answer", id, web, ques) loads
// with its final answer as the golden rule; an answers file still wins for its tasks.
func TestGAIAFinalAnswer(t *testing.T) {
	content := `{"task_id": "e1fc63a2", "Level": 1, "Final answer": "17", "id": "level1-0", "web": "https://www.google.com/", "ques": "How many thousand hours would it take?"}
{"task_id": "c365c1c7", "Level": 1, "Final answer": "Braintree, Honolulu", "id": "level1-18", "web": "https://www.google.com/", "ques": "Which two cities?"}
{"task_id": "2a649bb1", "Level": 2, "Final answer": "3.1.3.1; 1.11.1.7", "id": "level2-6", "web": "https://www.google.com/", "ques": "What are the EC numbers?"}
{"task_id": "624cbf11", "Level": 2, "Final answer": "So we had to let it die.", "id": "level2-8", "web": "https://www.google.com/", "ques": "What is the last line?"}
{"task_id": "n", "Level": 2, "Final answer": 41, "id": "level2-2", "web": "https://www.google.com/", "ques": "How many papers?"}
{"task_id": "k", "Level": 2, "Final answer": "1,000", "id": "level2-99", "web": "https://www.google.com/", "ques": "How many?"}
`
	s, err := New(Config{TasksFile: writeFile(t, "gaia.jsonl", content)})
	if err != nil {
		t.Fatal(err)
	}
	f := func(x float64) *float64 { return &x }
	want := map[string]suites.AnswerRule{
		"level1-0":  {Type: "golden", Reference: "17", Number: f(17)},
		"level1-18": {Type: "golden", Reference: "Braintree, Honolulu", MustInclude: []string{"Braintree", "Honolulu"}},
		"level2-6":  {Type: "golden", Reference: "3.1.3.1; 1.11.1.7", MustInclude: []string{"3.1.3.1", "1.11.1.7"}},
		"level2-8":  {Type: "golden", Reference: "So we had to let it die.", MustInclude: []string{"So we had to let it die"}},
		"level2-2":  {Type: "golden", Reference: "41", Number: f(41)},
		"level2-99": {Type: "golden", Reference: "1,000", Number: f(1000)}, // review S6: not the items "1", "000"
	}
	for _, task := range s.Tasks() {
		w, ok := want[task.ID]
		if !ok {
			t.Errorf("unexpected task %s", task.ID)
			continue
		}
		if task.Check.Answer == nil || !reflect.DeepEqual(*task.Check.Answer, w) {
			t.Errorf("%s: rule %+v, want %+v", task.ID, task.Check.Answer, w)
		}
		if _, kept := task.Meta[MetaExtra].(map[string]any)[GAIAFinalAnswer]; !kept {
			t.Errorf("%s: the Final answer field must stay in meta.extra", task.ID)
		}
	}
	if len(s.Tasks()) != len(want) {
		t.Errorf("%d tasks, want %d", len(s.Tasks()), len(want))
	}
	// A reference answer joined to the task replaces the Final answer.
	raws, _ := ParseTasks(strings.NewReader(`{"id": "Shop--1", "ques": "q", "Final answer": "x"}`), "t")
	ts, _ := Join(raws, []RefAnswer{{Site: "Shop", ID: 1, Type: "golden", Ans: "Blue Mug"}})
	if r := ts[0].Check.Answer; r == nil || r.Reference != "Blue Mug" {
		t.Errorf("answers file must win: %+v", r)
	}
}
