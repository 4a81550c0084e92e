package results

import (
	"fmt"
	"strings"

	"webbench/judge"
	"webbench/llm"
)

// The one status rule: how a trajectory and the verdict of the run's judges make an attempt record's status
// fields (Status, ErrorClass, Error, FailureMode, Verdict). The runner (its own agent, the MCP backend, an
// external command), bench mcp serve and the Zoo benchmark conclude an attempt with Conclude; a re-judged
// verdict (bench judge, Run.Attempts) is applied to a record with WithVerdict. Both go through applyVerdict.

// Conclude completes rec, the record of an attempt that the agent finished (identity, timings and cost set by
// the caller), from its trajectory tr (State and Finish set):
//   - from tr: Steps, Tokens, RepeatedCalls and ToolBytes (the waste outcomes: RepeatedCalls,
//     ToolResultBytes), Error (the error that ended the attempt, redacted by whoever recorded it),
//     GuardEvents, FinishReason, RecoveredFrom, Final and OK (the final answer; Final is the loop's last output
//     when there is none), Trajectory (TrajectoryPath of rec.AttemptID), and CassetteMisses (the number of
//     tr.Cassette.Misses when the attempt was replayed);
//   - an infrastructure or rate-limit finish (ClassOf its error class is infra): status error, class infra,
//     failure mode infra, no verdict (verdict is not called);
//   - else verdict(rec) — the verdict of the run's judges on the record's final answer — decides the status
//     (applyVerdict), a fail's failure mode being the trajectory's (ClassifyFailure).
func Conclude(rec Attempt, tr *Trajectory, verdict func(rec Attempt) judge.Verdict) Attempt {
	rec.Steps = len(tr.Steps)
	rec.Tokens = Tokens{Prompt: tr.Usage.Prompt, Completion: tr.Usage.Completion, Estimated: tr.Usage.Estimated}
	repeated, bytes := RepeatedCalls(tr), ToolResultBytes(tr)
	rec.RepeatedCalls, rec.ToolBytes = &repeated, &bytes
	rec.Error = tr.Finish.Error
	rec.GuardEvents = tr.GuardCounts
	rec.FinishReason = tr.Finish.Reason
	rec.RecoveredFrom = tr.Finish.RecoveredFrom
	if f := tr.Finish.Final; f != nil {
		rec.Final, rec.OK = f.Final, f.OK
	} else {
		rec.Final = tr.Finish.Output
	}
	rec.Trajectory = TrajectoryPath(rec.AttemptID)
	if c := tr.Cassette; c != nil && c.Mode == CassetteReplay {
		n := len(c.Misses)
		rec.CassetteMisses = &n
	}
	if ClassOf(tr.Finish.ErrorClass) == ClassInfra {
		rec.Status, rec.ErrorClass, rec.FailureMode = StatusError, ClassInfra, ModeInfra
		return rec
	}
	return applyVerdict(rec, verdict(rec), tr.Finish.Error, func() FailureMode { return ClassifyFailure(tr, false) })
}

// WithVerdict is record a as judged by another judge whose verdict on it is v (Run.Attempts): a record the run's
// judge decided or doubted (Attempt.Judged) takes v by applyVerdict, the error that ended the attempt being
// a.FinishError(); a fail's failure mode is the recorded one, or wrong_answer when a was a pass or uncertain
// (the judge rejects the answer the agent gave; only the trajectory could classify other failures). Other
// records (errors the run's judge never saw) are returned unchanged.
func WithVerdict(a Attempt, v judge.Verdict) Attempt {
	if !a.Judged() {
		return a
	}
	recorded, wasPassOrUncertain := a.FailureMode, a.Status == StatusPass || a.Status == StatusError
	return applyVerdict(a, v, a.FinishError(), func() FailureMode {
		if wasPassOrUncertain {
			return ModeWrongAnswer
		}
		return recorded
	})
}

// applyVerdict sets a's Verdict, Status, ErrorClass, Error and FailureMode from verdict v, finishErr being the
// error that ended the attempt (redacted):
//   - a judge error: status error, class judge, Error finishErr then the judge's error (redacted), joined by
//     "; "; the failure mode is left as it is;
//   - uncertain on an attempt that answered (UncertainIsFailure false): status error, class uncertain, Error
//     UncertainError(finishErr, reason) (redacted), no failure mode;
//   - uncertain on an attempt that ended without an answer: a fail whose verdict is no longer uncertain and
//     whose reason says so (UncertainFailReason);
//   - pass: status pass, no class, Error finishErr, no failure mode;
//   - fail: class agent, Error finishErr, failure mode failMode().
func applyVerdict(a Attempt, v judge.Verdict, finishErr string, failMode func() FailureMode) Attempt {
	if v.Uncertain && v.Error == "" && UncertainIsFailure(a.FinishReason) {
		v.Uncertain, v.Reason = false, UncertainFailReason(a.FinishReason, v.Reason)
	}
	a.Verdict = v
	switch {
	case v.Error != "":
		a.Status, a.ErrorClass, a.Error = StatusError, ClassJudge, joinErrors(finishErr, llm.RedactString(v.Error))
	case v.Uncertain:
		// Never a pass, never a failure of the agent: counted apart; bench judge (--judge-model) decides it.
		a.Status, a.ErrorClass = StatusError, ClassUncertain
		a.Error, a.FailureMode = llm.RedactString(UncertainError(finishErr, v.Reason)), ""
	case v.Pass:
		a.Status, a.ErrorClass, a.Error, a.FailureMode = StatusPass, "", finishErr, ""
	default:
		a.Status, a.ErrorClass, a.Error, a.FailureMode = StatusFail, ClassAgent, finishErr, failMode()
	}
	return a
}

// UncertainIsFailure reports whether an uncertain verdict counts as the agent's failure for an attempt that
// ended with finish reason f: yes when the agent did not end with the protocol's final answer — max steps,
// timeout, stall, error budget, refusal, a model error, and also prose output (non_json_output), whose text the
// runner still judges so that a sure match passes: a doubt about an answer given outside the protocol falls
// back to the protocol failure (failure mode no_json), which is what the final_recovery guard exists to
// prevent. No when it answered, or the reason is unknown (records older than the field) — then the record is
// uncertain (status error, class uncertain). The verdict's reason of such a fail says so
// (UncertainFailReason).
func UncertainIsFailure(f FinishReason) bool { return f != "" && f != FinishAnswered }

// UncertainFailReason is the reason of a verdict that was uncertain on an attempt that ended without an answer
// (UncertainIsFailure): "uncertain → fail: no final answer (finish <f>): <reason>".
func UncertainFailReason(f FinishReason, reason string) string {
	return fmt.Sprintf("uncertain → fail: no final answer (finish %s): %s", f, reason)
}

// uncertainPrefix starts the part of Attempt.Error an uncertain verdict adds.
const uncertainPrefix = "uncertain: "

// UncertainError is Attempt.Error of an uncertain record: the error that ended the attempt, if any, then
// "uncertain: <reason>", joined by "; ".
func UncertainError(finishErr, reason string) string {
	if finishErr == "" {
		return uncertainPrefix + reason
	}
	return finishErr + "; " + uncertainPrefix + reason
}

// FinishError is the error that ended the attempt as recorded in a.Error, without the part an uncertain
// verdict added (UncertainError) when a is an uncertain record.
func (a Attempt) FinishError() string {
	if a.ErrorClass != ClassUncertain {
		return a.Error
	}
	if a.Error == "" || strings.HasPrefix(a.Error, uncertainPrefix) {
		return ""
	}
	if i := strings.LastIndex(a.Error, "; "+uncertainPrefix); i >= 0 {
		return a.Error[:i]
	}
	return a.Error
}
