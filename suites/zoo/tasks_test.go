package zoo

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"webbench/suites"
)

func TestBuiltinShopTasks(t *testing.T) {
	tasks, err := BuiltinTasks()
	if err != nil {
		t.Fatal(err)
	}
	var shop []suites.Task
	for _, tk := range tasks {
		if tk.App == "shop" {
			shop = append(shop, tk)
		}
	}
	if len(shop) < 6 {
		t.Fatalf("%d shop tasks, want ≥ 6", len(shop))
	}
	src := regexp.MustCompile(`^tasks/shop\.yaml:\d+$`)
	goals := map[string]bool{}
	var checkouts, qa int
	byMutation := map[string]int{}
	for _, tk := range shop {
		if tk.Suite != "zoo" || tk.Cluster == "" || tk.Cluster == tk.ID || !src.MatchString(tk.Source) {
			t.Errorf("%s: suite %q cluster %q source %q", tk.ID, tk.Suite, tk.Cluster, tk.Source)
		}
		if goals[tk.Goal] {
			t.Errorf("%s: duplicate goal", tk.ID)
		}
		goals[tk.Goal] = true
		if tk.Timeout <= 0 || tk.Timeout > 90*time.Second || tk.MaxSteps <= 0 {
			t.Errorf("%s: timeout %v max_steps %d", tk.ID, tk.Timeout, tk.MaxSteps)
		}
		last := tk.Solution[len(tk.Solution)-1]
		if last.Kind != "answer" {
			t.Errorf("%s: last step %s, want answer", tk.ID, last.Kind)
		}
		for _, m := range tk.Mutations {
			byMutation[m]++
			guard := map[string]string{"consent": "intercept_hint", "geo_redirect": "intercept_hint",
				"icon_over_input": "intercept_hint", "ref_churn": "stale_ref_refresh"}[m]
			if !tk.HasTag(guard) {
				t.Errorf("%s: mutation %s but no tag %s", tk.ID, m, guard)
			}
		}
		switch {
		case tk.HasTag("checkout"):
			checkouts++
			orders, _ := tk.Check.State["orders"].([]any)
			if len(orders) != 1 {
				t.Errorf("%s: check.state.orders = %v", tk.ID, tk.Check.State["orders"])
				continue
			}
			o := orders[0].(map[string]any)
			items := o["items"].([]any)
			// YAML ints arrive as JSON numbers (float64), the type the state JSON decodes to.
			if _, ok := items[0].(map[string]any)["qty"].(float64); !ok {
				t.Errorf("%s: qty is %T, want float64", tk.ID, items[0].(map[string]any)["qty"])
			}
			if last.Target == nil || last.Target.Role != "heading" || last.Target.NameRegex != `Order #(\d+)` {
				t.Errorf("%s: checkout must answer from the order heading, got %+v", tk.ID, last.Target)
			}
		case tk.HasTag("qa"):
			qa++
			if tk.Check.Answer == nil || !tk.HasTag("repeat_guard") || !tk.HasTag("final_recovery") {
				t.Errorf("%s: Q&A needs check.answer and tags repeat_guard, final_recovery", tk.ID)
			}
		}
	}
	if checkouts < 3 || qa < 2 {
		t.Errorf("checkouts %d (want ≥ 3), Q&A %d (want ≥ 2)", checkouts, qa)
	}
	for _, m := range []string{"consent", "icon_over_input", "ref_churn", "geo_redirect"} {
		if byMutation[m] == 0 {
			t.Errorf("no shop task under %s", m)
		}
	}
	// Spot-check decoding of one task against its YAML.
	var yoga suites.Task
	for _, tk := range shop {
		if tk.ID == "shop-checkout-yoga-mat-express" {
			yoga = tk
		}
	}
	if yoga.ID == "" || yoga.Start != "/" || strings.Join(yoga.Mutations, ",") != "consent" || yoga.MaxSteps != 40 ||
		yoga.Timeout != 90*time.Second {
		t.Fatalf("yoga task = %+v", yoga)
	}
	s0, s4, s12 := yoga.Solution[0], yoga.Solution[4], yoga.Solution[12]
	if s0.Kind != "click" || s0.Target.Role != "link" || s0.Target.Name != "Yoga Mat" ||
		s4.Kind != "fill" || s4.Target.Name != "Email" || s4.Text != "ana@example.test" ||
		s12.Kind != "select" || s12.Target.Name != "Shipping method" || strings.Join(s12.Values, ",") != "Express" {
		t.Fatalf("yoga solution decoded as %+v / %+v / %+v", s0, s4, s12)
	}
	addr := yoga.Check.State["orders"].([]any)[0].(map[string]any)["address"].(map[string]any)
	if addr["postcode"] != "97201" {
		t.Fatalf("postcode = %#v, want the string 97201", addr["postcode"])
	}
}

// loadOne loads the given files (name → YAML) as a task directory.
func loadOne(files map[string]string) error {
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys["tasks/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	_, err := LoadTasks(fsys, "tasks", SelectAll)
	return err
}

const goodTask = `- id: t-ok
  app: shop
  start: /
  goal: Find the thing.
  check: {answer: {exact: x}}
  solution:
    - answer: {literal: x}
`

func TestLoaderErrors(t *testing.T) {
	if err := loadOne(map[string]string{"a.yaml": goodTask}); err != nil {
		t.Fatalf("good task: %v", err)
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"malformed YAML", map[string]string{"bad.yaml": "- id: x\n  app: shop\n  goal: [unclosed\n  start: /\n"},
			[]string{"tasks/bad.yaml:3:3: YAML syntax: did not find expected ',' or ']'"}},
		{"tab indentation", map[string]string{"bad.yaml": "- id: x\n\tapp: shop\n"},
			[]string{"tasks/bad.yaml:2:2: YAML syntax: found a tab character"}},
		{"unknown key", map[string]string{"bad.yaml": strings.Replace(goodTask, "  start: /\n",
			"  start: /\n  mutation: [consent]\n", 1)},
			[]string{`tasks/bad.yaml:4:3: task t-ok: unknown key "mutation"`}},
		{"unknown mutation", map[string]string{"bad.yaml": strings.Replace(goodTask, "  start: /\n",
			"  start: /\n  mutations: [consent, cookie_wall]\n", 1)},
			[]string{`tasks/bad.yaml:4:24: task t-ok: mutations: unknown mutation "cookie_wall"`, "valid: busy_script"}},
		{"mutation of another app", map[string]string{"bad.yaml": strings.Replace(strings.Replace(goodTask,
			"app: shop", "app: planner", 1), "  start: /\n", "  start: /\n  mutations:\n    - consent\n", 1)},
			[]string{`tasks/bad.yaml:5:7: task t-ok: mutations: app planner does not implement mutation "consent"`}},
		{"unknown step kind", map[string]string{"bad.yaml": strings.Replace(goodTask, "    - answer:",
			"    - tap: {role: link, name: X}\n    - answer:", 1)},
			[]string{`tasks/bad.yaml:7:7: task t-ok: solution[0]: unknown step kind "tap"`}},
		{"two-key step", map[string]string{"bad.yaml": strings.Replace(goodTask, "    - answer:",
			"    - click: {role: link, name: X}\n      fill: {role: textbox, name: Y, text: z}\n    - answer:", 1)},
			[]string{`tasks/bad.yaml:7:7: task t-ok: solution[0]: a step is a one-key mapping`}},
		{"step missing field", map[string]string{"bad.yaml": strings.Replace(goodTask, "    - answer:",
			"    - fill: {role: textbox, name: Email}\n    - answer:", 1)},
			[]string{`tasks/bad.yaml:7:13: task t-ok: solution[0].fill: missing text`}},
		{"bad regex", map[string]string{"bad.yaml": strings.Replace(goodTask, "    - answer: {literal: x}",
			"    - answer: {from: {role: heading, name_regex: 'Order #(\\d+'}}", 1)},
			[]string{`tasks/bad.yaml:7:50: task t-ok: solution[0].answer.from.name_regex: bad regex`}},
		{"missing answer step", map[string]string{"bad.yaml": strings.Replace(goodTask, "    - answer: {literal: x}",
			"    - click: {role: link, name: X}", 1)},
			[]string{`tasks/bad.yaml:7:7: task t-ok: solution: the last step must be an answer step`}},
		{"missing required", map[string]string{"bad.yaml": strings.Replace(goodTask, "  goal: Find the thing.\n", "", 1)},
			[]string{`tasks/bad.yaml:1:3: task t-ok: missing required key "goal"`}},
		{"unknown app", map[string]string{"bad.yaml": strings.Replace(goodTask, "app: shop", "app: shopp", 1)},
			[]string{`tasks/bad.yaml:2:8: task t-ok: app: unknown app "shopp"`}},
		{"bad timeout", map[string]string{"bad.yaml": strings.Replace(goodTask, "  start: /\n",
			"  start: /\n  timeout: 90\n", 1)},
			[]string{`tasks/bad.yaml:4:12: task t-ok: timeout: want a positive Go duration`}},
		{"max_steps not an integer", map[string]string{"bad.yaml": strings.Replace(goodTask, "  start: /\n",
			"  start: /\n  max_steps: two\n", 1)},
			[]string{`tasks/bad.yaml:4:14: task t-ok: max_steps: want an integer ≥ 0, got "two"`}},
		{"max_steps a fraction", map[string]string{"bad.yaml": strings.Replace(goodTask, "  start: /\n",
			"  start: /\n  max_steps: 3.5\n", 1)},
			[]string{`tasks/bad.yaml:4:14: task t-ok: max_steps: want an integer ≥ 0, got "3.5"`}},
		{"nth a fraction", map[string]string{"bad.yaml": strings.Replace(goodTask, "    - answer:",
			"    - click: {role: link, name: X, nth: 1.5}\n    - answer:", 1)},
			[]string{`tasks/bad.yaml:7:41: task t-ok: solution[0].click.nth: want an integer ≥ 0, got "1.5"`}},
		{"tags not a list", map[string]string{"bad.yaml": strings.Replace(goodTask, "  start: /\n",
			"  start: /\n  tags: {a: b}\n", 1)},
			[]string{`tasks/bad.yaml:4:9: task t-ok: tags: want a list of strings, got a mapping`}},
		{"tolerance not a number", map[string]string{"bad.yaml": strings.Replace(goodTask, "{answer: {exact: x}}",
			"{answer: {number: 3, tolerance: small}}", 1)},
			[]string{`tasks/bad.yaml:5:42: task t-ok: check.answer.tolerance: want a number, got "small"`}},
		{"nth not an integer", map[string]string{"bad.yaml": strings.Replace(goodTask, "    - answer:",
			"    - click: {role: link, name: X, nth: first}\n    - answer:", 1)},
			[]string{`tasks/bad.yaml:7:41: task t-ok: solution[0].click.nth: want an integer ≥ 0, got "first"`}},
		{"near-miss app", map[string]string{"bad.yaml": strings.Replace(goodTask, "app: shop", "app: shopp", 1)},
			[]string{`tasks/bad.yaml:2:8: task t-ok: app: unknown app "shopp" (did you mean "shop"?)`}},
		{"unknown check key", map[string]string{"bad.yaml": strings.Replace(goodTask, "{answer: {exact: x}}",
			"{answer: {exakt: x}}", 1)},
			[]string{`tasks/bad.yaml:5:20: task t-ok: check.answer: unknown key "exakt"`}},
		{"relative start", map[string]string{"bad.yaml": strings.Replace(goodTask, "start: /", "start: cart", 1)},
			[]string{`tasks/bad.yaml:3:10: task t-ok: start: "cart" must be a path`}},
		{"duplicate id", map[string]string{"a.yaml": goodTask,
			"b.yaml": "# another\n" + strings.Replace(goodTask, "Find the thing.", "Find another thing.", 1)},
			[]string{"tasks/b.yaml:2: task t-ok: duplicate id, first defined at tasks/a.yaml:1"}},
		{"duplicate goal", map[string]string{"a.yaml": goodTask,
			"b.yaml": "\n\n" + strings.Replace(strings.Replace(goodTask, "t-ok", "t-two", 1), "Find the thing.",
				"find  the THING.", 1)},
			[]string{"tasks/b.yaml:3: task t-two: duplicate goal, same as task t-ok at tasks/a.yaml:1"}},
		{"not a task list", map[string]string{"bad.yaml": "just a string\n"},
			[]string{`tasks/bad.yaml:1:1: a task file holds a task mapping or a list of tasks`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := loadOne(c.files)
			if err == nil {
				t.Fatalf("no error; want %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

func TestLoaderReportsAllErrors(t *testing.T) {
	two := strings.Replace(goodTask, "  start: /\n", "  start: /\n  mutations: [bogus]\n", 1) +
		strings.Replace(strings.Replace(goodTask, "t-ok", "t-b", 1), "Find the thing.", "Other.", 1) +
		"  colour: red\n"
	err := loadOne(map[string]string{"x.yaml": two})
	if err == nil || !strings.Contains(err.Error(), "tasks/x.yaml:4:15: task t-ok: mutations") ||
		!strings.Contains(err.Error(), `tasks/x.yaml:16:3: task t-b: unknown key "colour"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestSuiteTasksDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("extra.yaml", goodTask)
	s, err := suites.Open("zoo", suites.Options{"tasks_dir": dir})
	if err != nil {
		t.Fatal(err)
	}
	builtin, _ := BuiltinTasks()
	tasks := s.Tasks()
	if len(tasks) != len(builtin)+1 || tasks[len(tasks)-1].ID != "t-ok" ||
		tasks[len(tasks)-1].Source != filepath.Join(dir, "extra.yaml")+":1" {
		t.Fatalf("with tasks_dir: %d tasks (builtin %d), last %+v", len(tasks), len(builtin), tasks[len(tasks)-1])
	}
	// A file named like an embedded one replaces it.
	write("shop.yaml", strings.Replace(goodTask, "t-ok", "t-shop", 1))
	s, err = suites.Open("zoo", suites.Options{"tasks_dir": dir})
	if err == nil || !strings.Contains(err.Error(), "duplicate goal") {
		t.Fatalf("want duplicate goal between extra.yaml and shop.yaml, got %v", err)
	}
	os.Remove(filepath.Join(dir, "extra.yaml"))
	s, err = suites.Open("zoo", suites.Options{"tasks_dir": dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range s.Tasks() {
		if tk.App == "shop" && tk.ID != "t-shop" {
			t.Fatalf("embedded shop.yaml not replaced: found %s", tk.ID)
		}
	}
	// builtin_tasks=false: only the directory; bad input names the file and line.
	write("shop.yaml", strings.Replace(goodTask, "app: shop", "app: shop\n  mutations: [nope]", 1))
	_, err = suites.Open("zoo", suites.Options{"tasks_dir": dir, "builtin_tasks": "false"})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "shop.yaml")+`:3:15: task t-ok: mutations: unknown mutation "nope"`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := suites.Open("zoo", suites.Options{"builtin_tasks": "maybe"}); err == nil {
		t.Fatal("builtin_tasks=maybe accepted")
	}
}
