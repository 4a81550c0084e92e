package zoo

import "testing"

// FuzzParseTaskFile: the task loader never panics on arbitrary YAML; it returns tasks or errors.
func FuzzParseTaskFile(f *testing.F) {
	for _, s := range []string{
		"id: a\napp: shop\nstart: /\ngoal: g\ncheck: {answer: {exact: x}}\nsolution:\n  - click: {role: link, name: X}\n  - answer: {literal: x}\n",
		"- id: b\n  app: shop\n  mutations: [consent, nope]\n", "solution: [{click: 1}]", "- - -", ":\n:", "id: [", "\t- id: x",
		"id: c\napp: planner\nstart: /\ngoal: h\ncheck: {state: {plans: [{title: T}]}}\nsolution:\n  - visual_click: {role: switch, nth: 0}\n  - answer: {literal: ok}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		tasks, errs := parseTaskFile("fuzz.yaml", []byte(data))
		if len(errs) == 0 {
			for _, tk := range tasks {
				if tk.ID == "" {
					t.Fatal("a task without id loaded without error")
				}
			}
		}
	})
}
