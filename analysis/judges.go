package analysis

// The judges part of a run's report: every judge's verdicts over the run (the run's own, results.OriginalJudge,
// and each re-judge's verdicts-<judge>.jsonl), Cohen's κ between every two of them, the answer judge against the
// state judge as ground truth on Zoo Q&A attempts, and the bounds of every pass rate with uncertain attempts.

import (
	"cmp"

	"webbench/judge"
	"webbench/results"
)

// PassBounds is a pass rate over the decided (pass or fail) attempts and its bounds with the uncertain ones,
// left out of it, counted as fails (lower) and as passes (upper). Uncertain verdicts are not missing at random
// (the answer judge doubts some kinds of answer more than others), so the rate alone may be biased; the truth
// over the decided and uncertain attempts lies between the bounds. Each is null when its denominator is 0.
type PassBounds struct {
	Rate              *float64 `json:"rate"`
	RateUncertainFail *float64 `json:"rate_uncertain_as_fail"`
	RateUncertainPass *float64 `json:"rate_uncertain_as_pass"`
}

// NewPassBounds is the PassBounds of passes out of decided attempts with uncertain ones beside them.
func NewPassBounds(passes, decided, uncertain int) PassBounds {
	ratio := func(k, n int) *float64 {
		if n == 0 {
			return nil
		}
		x := float64(k) / float64(n)
		return &x
	}
	return PassBounds{Rate: ratio(passes, decided), RateUncertainFail: ratio(passes, decided+uncertain),
		RateUncertainPass: ratio(passes+uncertain, decided+uncertain)}
}

// VariantBounds is a variant's pass rate with its uncertain attempts' bounds (JSON uncertain_bounds).
type VariantBounds struct {
	Variant   string `json:"variant"`
	Decided   int    `json:"decided"`
	Uncertain int    `json:"uncertain"`
	Passes    int    `json:"passes"`
	PassBounds
}

// UncertainBounds is the VariantBounds of every arm, in order.
func UncertainBounds(arms []Arm) []VariantBounds {
	out := make([]VariantBounds, 0, len(arms))
	for _, a := range arms {
		u := a.ErrorsByClass[string(results.ClassUncertain)]
		out = append(out, VariantBounds{Variant: a.Name, Decided: a.N, Uncertain: u, Passes: a.Passes,
			PassBounds: NewPassBounds(a.Passes, a.N, u)})
	}
	return out
}

// VerdictCounts counts one judge's verdicts over the run's attempts (JSON judges): Attempts those it has a
// verdict for, Decided those it passed or failed, JudgeErrors those it could not judge.
type VerdictCounts struct {
	Judge string `json:"judge"`
	// JudgedBy counts the run's own verdicts by the judge that gave them ("answer", "state", "state+answer"), for
	// results.OriginalJudge only: the run's own judge differs by task (judge.ForTask).
	JudgedBy    map[string]int `json:"judged_by,omitempty"`
	Attempts    int            `json:"attempts"`
	Decided     int            `json:"decided"`
	Passes      int            `json:"passes"`
	Uncertain   int            `json:"uncertain"`
	JudgeErrors int            `json:"judge_errors"`
	PassBounds
}

// JudgeAgreement is two judges' agreement (JSON judge_agreement): judge.CompareJudges over the attempts both
// decided (judge.PairVerdicts), its confusion table cell by cell, and the attempts skipped and why.
type JudgeAgreement struct {
	JudgeA string `json:"judge_a"`
	JudgeB string `json:"judge_b"`
	judge.Agreement
	BothPass   int `json:"both_pass"`
	APassBFail int `json:"a_pass_b_fail"`
	AFailBPass int `json:"a_fail_b_pass"`
	BothFail   int `json:"both_fail"`
	// Skipped = SkippedMissingA (a verdict of judge B only) + SkippedMissingB (of judge A only) +
	// SkippedUncertain + SkippedJudgeError.
	Skipped           int `json:"skipped"`
	SkippedMissingA   int `json:"skipped_missing_a"`
	SkippedMissingB   int `json:"skipped_missing_b"`
	SkippedUncertain  int `json:"skipped_uncertain"`
	SkippedJudgeError int `json:"skipped_judge_error"`
}

func newJudgeAgreement(a, b string, p judge.Paired) JudgeAgreement {
	ag := judge.CompareJudges(p.A, p.B)
	t := ag.Table
	return JudgeAgreement{JudgeA: a, JudgeB: b, Agreement: ag, BothPass: t[0][0], APassBFail: t[0][1], AFailBPass: t[1][0],
		BothFail: t[1][1], Skipped: p.Skipped(), SkippedMissingA: p.MissingA, SkippedMissingB: p.MissingB,
		SkippedUncertain: p.Uncertain, SkippedJudgeError: p.Errors}
}

// GroundTruth is the answer judge (judge_a) against the state judge (judge_b) as ground truth on the run's
// Zoo Q&A attempts (JSON zoo_qa_ground_truth): FalsePass the attempts the answer judge passed and the state
// judge failed, FalseFail the converse. Attempts counts the Zoo Q&A attempts; MissingVerdicts names the judges
// of the two with neither a verdicts file (bench judge DIR --judge NAME writes it) nor the run's own verdicts of
// that judge (judge.Verdict.Parts), and then nothing is compared. Source says where each judge's verdicts come
// from ("answer: verdicts-answer.jsonl" — a re-judge wins — or "state: the run's own verdicts"). The state judge
// is ground truth because a Zoo Q&A task's check.state holds the value the agent entered in the app; a
// disagreement is the answer judge misreading the agent's reply, or the reply contradicting the value entered.
type GroundTruth struct {
	GroundTruth     string   `json:"ground_truth"`
	Attempts        int      `json:"attempts"`
	MissingVerdicts []string `json:"missing_verdicts"`
	Source          []string `json:"source"`
	// FalsePassIDs and FalseFailIDs are the attempt ids of the disagreements (bench report's table lists them);
	// BothFailNoAnswer counts the agreements that are attempts which ended without an answer (both judges fail
	// them without reading a reply, so they raise κ without testing the answer judge).
	FalsePassIDs     []string `json:"false_pass_ids"`
	FalseFailIDs     []string `json:"false_fail_ids"`
	BothFailNoAnswer int      `json:"both_fail_no_answer"`
	FalsePass        int      `json:"false_pass"`
	FalseFail        int      `json:"false_fail"`
	JudgeAgreement
}

// Judges is the judges part of a run's report (JSON keys judges, judge_agreement, zoo_qa_ground_truth).
type Judges struct {
	Judges    []VerdictCounts  `json:"judges"`
	Agreement []JudgeAgreement `json:"judge_agreement"`
	ZooQA     *GroundTruth     `json:"zoo_qa_ground_truth"`
	// Corrected are every judge's pass rates corrected by the run's audit (results.AuditFile; CorrectRates),
	// empty without one.
	Corrected []JudgeCorrection `json:"judge_corrected"`
}

// OwnVerdicts names, in the Zoo Q&A ground truth's sources (GroundTruth.Source), verdicts read from the run's
// records rather than from a re-judge's verdicts file.
const OwnVerdicts = "the run's own verdicts"

// judgeOutcomes returns the verdicts of judge name over run by attempt id, as the report counts them: for
// results.OriginalJudge every final record a judge saw (pass, fail, uncertain, or a judge error); for a re-judge
// the attempts it re-scored (the run's judged records with a verdict in verdicts-<name>.jsonl), each as
// (*results.Run).Attempts applies it (an uncertain verdict on an attempt that never answered is a fail).
func judgeOutcomes(run *results.Run, name string) (map[string]judge.Verdict, error) {
	final := run.Final()
	recs := final
	var rescored map[string]judge.Verdict
	if name != results.OriginalJudge {
		var err error
		if recs, err = run.Attempts(name); err != nil {
			return nil, err
		}
		rescored, _ = run.Verdicts(name)
	}
	out := map[string]judge.Verdict{}
	for i, a := range recs {
		if rescored != nil {
			if _, ok := rescored[a.AttemptID]; !ok || !final[i].Judged() {
				continue
			}
		} else if !a.Judged() && !(a.Status == results.StatusError && a.ErrorClass == results.ClassJudge) {
			continue
		}
		v := judge.Verdict{Judge: name, Pass: a.Status == results.StatusPass, Uncertain: a.ErrorClass == results.ClassUncertain,
			Reason: a.Verdict.Reason}
		if a.ErrorClass == results.ClassJudge {
			v.Error = cmp.Or(a.Verdict.Error, a.Error, "judge error")
		}
		out[a.AttemptID] = v
	}
	return out, nil
}

// PairJudges is the agreement of judges a and b over run, their verdicts paired as AnalyzeJudges pairs them
// (judge.PairVerdicts: the skipped attempts counted by why). Errors are those of reading a re-judge's verdicts.
func PairJudges(run *results.Run, a, b string) (JudgeAgreement, error) {
	va, err := judgeOutcomes(run, a)
	if err != nil {
		return JudgeAgreement{}, err
	}
	vb, err := judgeOutcomes(run, b)
	if err != nil {
		return JudgeAgreement{}, err
	}
	return newJudgeAgreement(a, b, judge.PairVerdicts(va, vb)), nil
}

// isZooQA reports whether a is an attempt of a Zoo Q&A task: one with a state check and an answer rule, which
// the run's own judges (judge.ForTask, judge.Compose) judged by both, the state judge first (verdict judge "state+answer").
func isZooQA(a results.Attempt) bool { return a.Suite == "zoo" && a.Verdict.Judge == "state+answer" }

// countVerdicts counts the verdicts vs of judge name over run; the run's own are also counted by the judge
// that gave them.
func countVerdicts(run *results.Run, name string, vs map[string]judge.Verdict) VerdictCounts {
	vc := VerdictCounts{Judge: name, Attempts: len(vs)}
	if name == results.OriginalJudge {
		vc.JudgedBy = map[string]int{}
		for _, a := range run.Final() {
			if _, ok := vs[a.AttemptID]; ok {
				vc.JudgedBy[cmp.Or(a.Verdict.Judge, "none")]++
			}
		}
	}
	for _, v := range vs {
		switch v.Outcome() {
		case "pass":
			vc.Passes++
			vc.Decided++
		case "fail":
			vc.Decided++
		case "uncertain":
			vc.Uncertain++
		default:
			vc.JudgeErrors++
		}
	}
	vc.PassBounds = NewPassBounds(vc.Passes, vc.Decided, vc.Uncertain)
	return vc
}

// AnalyzeJudges builds the judges part of run's report: the verdict counts of the run's own judge and of every
// re-judge, the agreement of every two of them, the Zoo Q&A ground truth when the run has Zoo Q&A attempts, and
// every judge's pass rates corrected by the run's audit when it has one. Errors are those of reading a
// re-judge's verdicts or the audit.
func AnalyzeJudges(run *results.Run) (*Judges, error) {
	names := append([]string{results.OriginalJudge}, run.Judges()...)
	outs := map[string]map[string]judge.Verdict{}
	doc := &Judges{Agreement: []JudgeAgreement{}}
	for _, n := range names {
		vs, err := judgeOutcomes(run, n)
		if err != nil {
			return nil, err
		}
		outs[n] = vs
		doc.Judges = append(doc.Judges, countVerdicts(run, n, vs))
	}
	for i, a := range names {
		for _, b := range names[i+1:] {
			doc.Agreement = append(doc.Agreement, newJudgeAgreement(a, b, judge.PairVerdicts(outs[a], outs[b])))
		}
	}
	doc.ZooQA = zooQAGroundTruth(run, outs)
	audit, err := run.Audit()
	if err != nil {
		return nil, err
	}
	doc.Corrected = []JudgeCorrection{}
	if audit != nil {
		for _, n := range names {
			jc, err := CorrectRates(run, n, audit)
			if err != nil {
				return nil, err
			}
			doc.Corrected = append(doc.Corrected, jc)
		}
	}
	return doc, nil
}

// AblationJudges is the judges part of an ablation run's report: AnalyzeJudges when the run was re-judged, has
// Zoo Q&A attempts or an audit, else nil (an ablation report shows no judges part then).
func AblationJudges(run *results.Run) (*Judges, error) {
	doc, err := AnalyzeJudges(run)
	if err != nil || len(run.Judges()) == 0 && doc.ZooQA == nil && len(doc.Corrected) == 0 {
		return nil, err
	}
	return doc, nil
}

// zooQAVerdicts marks run's Zoo Q&A attempts (qa) and collects the run's own state and answer verdicts of each
// (own, the parts of its "state+answer" verdict), used where no re-judge of that name exists.
func zooQAVerdicts(run *results.Run) (qa map[string]bool, own map[string]map[string]judge.Verdict) {
	qa = map[string]bool{}
	own = map[string]map[string]judge.Verdict{"state": {}, "answer": {}}
	for _, a := range run.Final() {
		if !isZooQA(a) {
			continue
		}
		qa[a.AttemptID] = true
		for _, p := range a.Verdict.Parts {
			if m := own[p.Judge]; m != nil {
				if p.Uncertain && results.UncertainIsFailure(a.FinishReason) {
					// As the run counted it: an uncertain verdict on an attempt that never answered is a fail.
					p.Uncertain, p.Reason = false, results.UncertainFailReason(a.FinishReason, p.Reason)
				}
				m[a.AttemptID] = p
			}
		}
	}
	return qa, own
}

// zooQAGroundTruth compares the answer judge with the state judge on run's Zoo Q&A attempts, each judge's
// verdicts from its re-judge (outs) or else the run's own; nil when the run has no Zoo Q&A attempt.
func zooQAGroundTruth(run *results.Run, outs map[string]map[string]judge.Verdict) *GroundTruth {
	qa, own := zooQAVerdicts(run)
	if len(qa) == 0 {
		return nil
	}
	gt := &GroundTruth{GroundTruth: "state", Attempts: len(qa), MissingVerdicts: []string{}, Source: []string{}}
	only := func(n string) map[string]judge.Verdict {
		vs, ok := outs[n]
		switch {
		case ok:
			gt.Source = append(gt.Source, n+": verdicts-"+n+".jsonl")
		case len(own[n]) > 0:
			vs = own[n]
			gt.Source = append(gt.Source, n+": "+OwnVerdicts)
		default:
			gt.MissingVerdicts = append(gt.MissingVerdicts, n)
		}
		out := map[string]judge.Verdict{}
		for id, v := range vs {
			if qa[id] {
				out[id] = v
			}
		}
		return out
	}
	ans, st := only("answer"), only("state")
	pairs := judge.PairVerdicts(ans, st)
	gt.JudgeAgreement = newJudgeAgreement("answer", "state", pairs)
	gt.FalsePassIDs, gt.FalseFailIDs = []string{}, []string{}
	noAnswer := map[string]bool{}
	for _, a := range run.Final() {
		if qa[a.AttemptID] && a.FinishReason != results.FinishAnswered {
			noAnswer[a.AttemptID] = true
		}
	}
	for i, id := range pairs.IDs {
		switch {
		case pairs.A[i] && !pairs.B[i]:
			gt.FalsePassIDs = append(gt.FalsePassIDs, id)
		case !pairs.A[i] && pairs.B[i]:
			gt.FalseFailIDs = append(gt.FalseFailIDs, id)
		case !pairs.A[i] && noAnswer[id]:
			gt.BothFailNoAnswer++
		}
	}
	if len(gt.MissingVerdicts) > 0 {
		gt.JudgeAgreement = newJudgeAgreement("answer", "state", judge.Paired{})
		gt.FalsePassIDs, gt.FalseFailIDs, gt.BothFailNoAnswer = []string{}, []string{}, 0
	}
	gt.FalsePass, gt.FalseFail = gt.APassBFail, gt.AFailBPass
	return gt
}
