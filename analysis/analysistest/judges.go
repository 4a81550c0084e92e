package analysistest

import (
	"fmt"

	"webbench/judge"
	"webbench/results"
)

// JudgesRecords are the records of a run of one variant "default" on the Zoo suite whose judges part
// (analysis.AnalyzeJudges) has every piece, and the verdicts of its re-judge "llm" (verdicts-llm.jsonl):
//
//   - 51 attempts judged by the answer judge and re-judged by llm: the two agree as the two readers of
//     Wikipedia's worked example of Cohen's κ (https://en.wikipedia.org/wiki/Cohen%27s_kappa, "Simple example":
//     20 both pass, 5 own pass / llm fail, 10 own fail / llm pass, 15 both fail of 50: po = 0.7, pe = 0.5,
//     κ = 0.4, SE sqrt(0.21 / 12.5) = 0.130); the 51st is uncertain to the run's own judge and passed by llm;
//   - 7 Zoo Q&A attempts (verdict judge "state+answer" with its state and answer parts, no llm verdict):
//     3 both pass, 2 answer pass / state fail (ids qa-fp-0, qa-fp-1), 1 answer fail / state pass (qa-ff-0),
//     1 both fail that never answered (finish max_steps): po = 4/7, pe = (5/7)(4/7) + (2/7)(3/7) = 26/49,
//     κ = 2/23 = 0.087, SE sqrt(po(1−po) / (7 (1−pe)²)) = sqrt(588/3703) = 0.398.
//
// Each record's status follows its own verdict by the status rule (results.WithVerdict).
func JudgesRecords() (recs []results.Attempt, llm []results.VerdictRecord) {
	verdict := func(name, out string) judge.Verdict {
		return judge.Verdict{Judge: name, Pass: out == "P", Uncertain: out == "U", Reason: name + " says " + out}
	}
	add := func(id string, own judge.Verdict, finish results.FinishReason) {
		task := fmt.Sprintf("task-%02d", len(recs))
		rec := results.Attempt{SchemaVersion: results.SchemaVersion, AttemptID: id, PairID: results.PairID("zoo", task, 0),
			Variant: "default", TaskID: task, Suite: "zoo", Cluster: task, Model: "scripted:observed", Status: results.StatusPass,
			FinishReason: finish, Final: "answer " + task, Steps: 3, DurationMS: 1000}
		recs = append(recs, results.WithVerdict(rec, own))
	}
	for _, g := range []struct {
		n        int
		own, llm string
	}{{20, "P", "P"}, {5, "P", "F"}, {10, "F", "P"}, {15, "F", "F"}, {1, "U", "P"}} {
		for range g.n {
			id := fmt.Sprintf("ans-%02d", len(recs))
			add(id, verdict("answer", g.own), results.FinishAnswered)
			llm = append(llm, results.VerdictRecord{AttemptID: id, TaskID: recs[len(recs)-1].TaskID, Variant: "default",
				Verdict: verdict("llm", g.llm)})
		}
	}
	qa := func(id, answer, state string, finish results.FinishReason) {
		v := judge.Verdict{Judge: "state+answer", Pass: answer == "P" && state == "P", Reason: "state and answer",
			Parts: []judge.Verdict{verdict("state", state), verdict("answer", answer)}}
		add(id, v, finish)
	}
	for i := range 3 {
		qa(fmt.Sprintf("qa-pass-%d", i), "P", "P", results.FinishAnswered)
	}
	qa("qa-fp-0", "P", "F", results.FinishAnswered)
	qa("qa-fp-1", "P", "F", results.FinishAnswered)
	qa("qa-ff-0", "F", "P", results.FinishAnswered)
	qa("qa-none-0", "F", "F", results.FinishMaxSteps)
	return recs, llm
}
