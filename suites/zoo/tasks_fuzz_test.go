package zoo

import "testing"

// FuzzParseTaskFile: the task loader never panics on arbitrary YAML; it returns tasks or errors.
func FuzzParseTaskFile(f *testing.F) {
	for _, s := range []string{
		"id: a\napp: shop\nstart: /\ngoal: g\ncheck: {answer: {exact: x}}\nsolution:\n  - click: {role: link, name: X}\n  - answer: {literal: x}\n",
		"- id: b\n  app: shop\n  mutations: [consent, nope]\n", "solution: [{click: 1}]", "- - -", ":\n:", "id: [", "\t- id: x",
		"family: f\napp: chat\nparams: {u: {domain: chat.users}}\ncount: 2\nslug: '{{.u.key}}'\nstart: /\ngoal: Hi {{.u.first}}\ncheck: {answer: {exact: '{{.u.last}}'}}\nsolution:\n  - answer: {literal: x}\n",
		"id: c\napp: planner\nstart: /\ngoal: h\ncheck: {state: {plans: [{title: T}]}}\nsolution:\n  - visual_click: {role: switch, nth: 0}\n  - answer: {literal: ok}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		r := parseTaskFile("fuzz.yaml", []byte(data))
		for _, fam := range r.families {
			fam.instances() // a family's instances are made without panicking either
		}
		if len(r.errs) == 0 {
			for _, tk := range r.tasks {
				if tk.ID == "" {
					t.Fatal("a task without id loaded without error")
				}
			}
		}
	})
}
