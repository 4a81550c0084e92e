package judge

import (
	"testing"

	"webbench/suites"
)

func TestOnPage(t *testing.T) {
	n181, usd := 181.0, 89.99
	page := "Vegetarian Four Cheese Lasagna\nRated 4.8 by 181 reviews\nPrep: 15 mins\nTrail Running Shoe X2 $89.99\n" +
		"By Priya Raman, 2026"
	for _, c := range []struct {
		name    string
		rule    *suites.AnswerRule
		ok      bool
		present bool
		changed string // the page with the answer replaced: must read as absent
	}{
		{"count", &suites.AnswerRule{Number: &n181, Reference: "181"}, true, true, "Rated 4.8 by 182 reviews"},
		{"price", &suites.AnswerRule{Number: &usd, Unit: "$", Reference: "$89.99"}, true, true, "Trail Running Shoe X2 $94.50"},
		{"name", &suites.AnswerRule{MustInclude: []string{"Priya Raman"}}, true, true, "By Dana Lee, 2026"},
		{"exact", &suites.AnswerRule{Exact: "15 mins"}, true, true, "Prep: 20 mins"},
		{"short reference", &suites.AnswerRule{Type: "possible", Reference: "Priya Raman"}, true, true, "By Dana Lee"},
		{"long reference", &suites.AnswerRule{Type: "possible", Reference: "The recipe has 181 reviews and a 4.8 rating overall"}, false, false, ""},
		{"none", nil, false, false, ""},
	} {
		present, ok := OnPage(c.rule)
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.name, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if got := present(page); got != c.present {
			t.Errorf("%s: present %v on the page, want %v", c.name, got, c.present)
		}
		if present(c.changed) {
			t.Errorf("%s: present on the changed text %q", c.name, c.changed)
		}
	}
}
