package judge

import (
	"fmt"
	"os"
	"regexp"
	"testing"

	"gopkg.in/yaml.v3"

	"webbench/suites"
)

// splitFigures are the answer judge's figures on one split of the labelled answers of new kinds: cases graded
// (a rule to check), the human verdicts, and the judge's errors against them.
type splitFigures struct {
	Name                         string
	Graded, HumanPass, HumanFail int
	FalsePass, FalseFail         int
	UncertainPass, UncertainFail int
}

// row is the split's table row in docs/WEBVOYAGER.md: counts and the three rates (false passes of the human fails, false fails
// and uncertain of the human passes).
func (f splitFigures) row() string {
	pct := func(n, d int) string {
		if d == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(d))
	}
	return fmt.Sprintf("| %s | %d | %d | %d | %d (%s) | %d (%s) | %d (%s) | %d |", f.Name, f.Graded, f.HumanPass,
		f.HumanFail, f.FalsePass, pct(f.FalsePass, f.HumanFail), f.FalseFail, pct(f.FalseFail, f.HumanPass),
		f.UncertainPass, pct(f.UncertainPass, f.HumanPass), f.UncertainFail)
}

// gradeSplit runs the answer judge over testdata/<file> and counts it against the human verdicts, logging every
// disagreement.
func gradeSplit(t *testing.T, name, file string) splitFigures {
	t.Helper()
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var cs []labelledCase
	if err := yaml.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	f := splitFigures{Name: name}
	for _, c := range cs {
		if c.Source == "" || c.Answer == "" || (c.Human != "pass" && c.Human != "fail") {
			t.Errorf("%s: needs a source, an answer and human pass|fail", c.ID)
			continue
		}
		r := c.rule(t)
		if ruleItems(r) == 0 {
			t.Errorf("%s: the reference gives no checkable rule", c.ID)
			continue
		}
		v, err := Answer{}.Judge(t.Context(), Input{Task: suites.Task{Goal: c.Question, Check: suites.Check{Answer: &r}}, Final: c.Answer})
		if err != nil || v.Error != "" {
			t.Errorf("%s: judge error %v %s", c.ID, err, v.Error)
			continue
		}
		f.Graded++
		o := v.Outcome()
		if c.Human == "pass" {
			f.HumanPass++
		} else {
			f.HumanFail++
		}
		switch {
		case c.Human == "pass" && o == "fail":
			f.FalseFail++
		case c.Human == "pass" && o == "uncertain":
			f.UncertainPass++
		case c.Human == "fail" && o == "pass":
			f.FalsePass++
		case c.Human == "fail" && o == "uncertain":
			f.UncertainFail++
		}
		if o != c.Human {
			t.Logf("%s %s [human %s → %s] %q: %s", name, c.ID, c.Human, o, c.Answer, v.Reason)
		}
	}
	return f
}

// readmeSplitsRe finds docs/WEBVOYAGER.md's table of the two splits' figures, between its markers.
var readmeSplitsRe = regexp.MustCompile(`(?s)<!-- judge-splits -->\n(.*?)<!-- /judge-splits -->`)

// TestLabelledSplits grades the train and the held-out split of answers of new kinds and checks that docs/WEBVOYAGER.md
// prints their figures as they are: a change of the judge that moves them fails here until the page says so
// (WEBBENCH_UPDATE_README=1 rewrites the table).
func TestLabelledSplits(t *testing.T) {
	train := gradeSplit(t, "train", "train_answers.yaml")
	held := gradeSplit(t, "held-out", "heldout_answers.yaml")
	if train.Graded < 30 || held.Graded < 30 {
		t.Fatalf("splits too small: train %d, held-out %d graded", train.Graded, held.Graded)
	}
	table := "| split | graded | human pass | human fail | false pass (of fails) | false fail (of passes) | uncertain (of passes) | uncertain fails |\n" +
		"|---|---|---|---|---|---|---|---|\n" + train.row() + "\n" + held.row() + "\n"
	t.Logf("\n%s", table)
	b, err := os.ReadFile("../docs/WEBVOYAGER.md")
	if err != nil {
		t.Fatal(err)
	}
	m := readmeSplitsRe.FindSubmatchIndex(b)
	if m == nil {
		t.Fatal("docs/WEBVOYAGER.md has no <!-- judge-splits --> … <!-- /judge-splits --> table")
	}
	if got := string(b[m[2]:m[3]]); got != table {
		if os.Getenv("WEBBENCH_UPDATE_README") == "1" {
			out := string(b[:m[2]]) + table + string(b[m[3]:])
			if err := os.WriteFile("../docs/WEBVOYAGER.md", []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("docs/WEBVOYAGER.md's split figures drifted; they are now:\n%s\nthe page says:\n%s(WEBBENCH_UPDATE_README=1 go test ./judge -run TestLabelledSplits rewrites them)",
			table, got)
	}
	if train.FalsePass > 0 {
		t.Errorf("%d false passes on the train split", train.FalsePass)
	}
}
