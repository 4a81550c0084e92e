package reporttest

import (
	"testing"

	"webbench/analysis/analysistest"
	"webbench/results"
)

// JudgesRun writes analysistest.JudgesRecords as the run directory dir (its records and verdicts-llm.jsonl)
// and opens it (results.Open). JudgesWant and JudgesWantRows are what every format shows of its judges part.
func JudgesRun(t *testing.T, dir string) *results.Run {
	t.Helper()
	recs, llm := analysistest.JudgesRecords()
	WriteRunDir(t, dir, recs, "")
	if _, err := results.WriteVerdicts(dir, "llm", llm); err != nil {
		t.Fatal(err)
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// JudgesWant are the titles and notes of JudgesRun's judges part, in the order every format shows them
// (report.JudgesPart), worked out by hand (analysistest.JudgesRecords).
var JudgesWant = []string{
	"verdicts by judge (an uncertain verdict is neither pass nor fail: the bounds count the uncertain as fails / as passes)",
	"agreement original vs llm over 50 attempts (8 skipped: 7 missing a verdict, 1 uncertain, 0 judge errors); " +
		"Cohen's κ = 0.400 (SE 0.130)",
	"answer judge vs state judge (ground truth) on Zoo Q&A: 7 attempts (both judges: the run's own verdicts), 7 compared " +
		"(0 skipped: 0 missing a verdict, 0 uncertain, 0 judge errors); Cohen's κ = 0.087 (SE 0.398); 2 false passes " +
		"(answer pass, state fail), 1 false fail (answer fail, state pass); 1 of the both-fail never answered",
	"Zoo Q&A false passes (answer judge vs state judge): qa-fp-0, qa-fp-1",
	"Zoo Q&A false fails (answer judge vs state judge): qa-ff-0",
}

// JudgesWantRows are rows (cells) of JudgesRun's judges tables, worked out by hand: the run's own verdicts
// (51 answer, 7 state+answer: 28 passes of 57 decided, one uncertain: 28/58 = 48.3% to 29/58 = 50.0%), llm's
// (31 passes of 51), the agreement's confusion table and the ground truth's.
var JudgesWantRows = [][]string{
	{"original (answer 51, state+answer 7)", "58", "28/57 = 49.1% (57 decided of 58: 48.3–50.0%)", "1", "0"},
	{"llm", "51", "31/51 = 60.8%", "0", "0"},
	{"original pass", "20", "5"},
	{"original fail", "10", "15"},
	{"answer pass", "3", "2"},
	{"answer fail", "1", "1"},
}
