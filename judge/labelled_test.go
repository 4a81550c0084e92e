package judge

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"webbench/suites"
	"webbench/suites/webvoyager"
)

// labelledCase is one case of testdata/labelled_answers.yaml (see its header): a rule (JSON of a
// suites.AnswerRule), a WebVoyager golden answer or a GAIA final answer, the question, an answer and a careful
// human's verdict.
type labelledCase struct {
	ID       string `yaml:"id"`
	Source   string `yaml:"source"`
	Question string `yaml:"question"`
	Golden   string `yaml:"golden"`
	GAIA     string `yaml:"gaia"`
	Rule     any    `yaml:"rule"`
	Answer   string `yaml:"answer"`
	Human    string `yaml:"human"`
	Note     string `yaml:"note"`
}

func loadLabelled(t *testing.T) []labelledCase {
	t.Helper()
	b, err := os.ReadFile("testdata/labelled_answers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cs []labelledCase
	if err := yaml.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

func (c labelledCase) rule(t *testing.T) suites.AnswerRule {
	if c.Golden != "" {
		return webvoyager.AnswerRuleFor(webvoyager.RefAnswer{Type: "golden", Ans: c.Golden})
	}
	if c.GAIA != "" {
		return webvoyager.GAIARule(c.GAIA)
	}
	b, err := json.Marshal(c.Rule)
	if err != nil {
		t.Fatalf("%s: rule: %v", c.ID, err)
	}
	var r suites.AnswerRule
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: rule: %v", c.ID, err)
	}
	return r
}

// TestLabelledAnswers runs the answer judge over the labelled set and compares it with the human verdicts. The
// bar: no false pass (the judge passes what the human fails), false negatives (the judge fails what
// the human passes) at most 3% of the human passes; everything else the judge is unsure of is uncertain.
func TestLabelledAnswers(t *testing.T) {
	cs := loadLabelled(t)
	if len(cs) < 200 {
		t.Fatalf("the labelled set has %d cases, want at least 200", len(cs))
	}
	seen := map[string]bool{}
	var humanPass, humanFail, agreePass, agreeFail, uncertainPass, uncertainFail int
	noRule := map[string]int{}
	var falsePass, falseNeg []string
	batches := map[string]*[6]int{} // per id prefix: human pass → pass, uncertain, fail; human fail → fail, uncertain, pass
	var batchOrder []string
	for _, c := range cs {
		if seen[c.ID] {
			t.Errorf("duplicate id %s", c.ID)
		}
		seen[c.ID] = true
		if c.Source == "" || c.Answer == "" || (c.Human != "pass" && c.Human != "fail") {
			t.Errorf("%s: needs a source, an answer and human pass|fail", c.ID)
			continue
		}
		r := c.rule(t)
		if r.Exact == "" && len(r.MustInclude) == 0 && r.Number == nil {
			// A golden with no checkable rule is the answer judge's judge error ("use the llm judge"): neither a
			// pass nor a fail, counted apart; its verdict must say so.
			noRule[batchOf(c.ID)]++
			v, err := Answer{}.Judge(t.Context(), Input{Task: suites.Task{Goal: c.Question, Check: suites.Check{Answer: &r}}, Final: c.Answer})
			if err != nil || v.Error == "" || v.Pass {
				t.Errorf("%s: golden %q has no checkable rule, yet the answer judge gave %+v, %v", c.ID, c.Golden, v, err)
			}
			continue
		}
		v, err := Answer{}.Judge(t.Context(), Input{Task: suites.Task{Goal: c.Question, Check: suites.Check{Answer: &r}}, Final: c.Answer})
		if err != nil || v.Error != "" {
			t.Errorf("%s: judge error %v %s", c.ID, err, v.Error)
			continue
		}
		line := fmt.Sprintf("%s: answer %q (rule %+v): judge %s — %s", c.ID, c.Answer, ruleString(r), v.Outcome(), v.Reason)
		b := batchOf(c.ID)
		if batches[b] == nil {
			batches[b] = &[6]int{}
			batchOrder = append(batchOrder, b)
		}
		k := map[string]int{"pass": 0, "uncertain": 1, "fail": 2}[v.Outcome()]
		if c.Human == "fail" {
			k = map[string]int{"fail": 3, "uncertain": 4, "pass": 5}[v.Outcome()]
		}
		batches[b][k]++
		switch c.Human {
		case "pass":
			humanPass++
			switch v.Outcome() {
			case "pass":
				agreePass++
			case "uncertain":
				uncertainPass++
			default:
				falseNeg = append(falseNeg, line)
			}
		default:
			humanFail++
			switch v.Outcome() {
			case "fail":
				agreeFail++
			case "uncertain":
				uncertainFail++
			default:
				falsePass = append(falsePass, line)
			}
		}
	}
	t.Logf("labelled set: %d cases (%d human pass, %d human fail); judge on human pass: %d pass, %d uncertain, %d false negatives; on human fail: %d fail, %d uncertain, %d false passes",
		len(cs), humanPass, humanFail, agreePass, uncertainPass, len(falseNeg), agreeFail, uncertainFail, len(falsePass))
	for _, b := range batchOrder {
		n := batches[b]
		t.Logf("batch %s: human pass %d → %d pass, %d uncertain, %d false negatives; human fail %d → %d fail, %d uncertain, %d false passes",
			b, n[0]+n[1]+n[2], n[0], n[1], n[2], n[3]+n[4]+n[5], n[3], n[4], n[5])
	}
	for _, l := range falsePass {
		t.Errorf("false pass: %s", l)
	}
	for _, l := range falseNeg {
		t.Logf("false negative: %s", l)
	}
	if limit := 0.03 * float64(humanPass); float64(len(falseNeg)) > limit {
		t.Errorf("%d false negatives of %d human passes (%.1f%%), the bar is 3%%", len(falseNeg), humanPass,
			100*float64(len(falseNeg))/float64(humanPass))
	}
	for _, b := range batchOrder {
		if noRule[b] > 0 {
			t.Logf("batch %s: %d case(s) whose golden has no checkable rule (judge error: the llm judge decides them)", b, noRule[b])
		}
	}
	if testing.Verbose() {
		for _, c := range cs {
			r := c.rule(t)
			if ruleItems(r) == 0 {
				continue
			}
			o, why := Grade(r, c.Answer, c.Question)
			if string(o) != c.Human {
				t.Logf("%s [%s → %s] %q: %s", c.ID, c.Human, o, c.Answer, why)
			}
		}
	}
}

// batchOf is a case id's batch: its prefix before the first '-' (wv, adv, ho, ho2, rev, …).
func batchOf(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	return id
}

func ruleString(r suites.AnswerRule) string {
	b, _ := json.Marshal(r)
	return string(b)
}
