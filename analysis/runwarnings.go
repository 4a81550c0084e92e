package analysis

// The warnings about a run itself, beside its numbers: what the reports say before the tables on stderr and the
// HTML run report lists (report.RunWarningText words them).

import "webbench/results"

// RunWarningKind is a stable code of a RunWarning.
type RunWarningKind string

// The kinds of RunWarning, in the order RunWarnings gives them.
const (
	// RunTornTail: the attempts file ends with a torn line, which was ignored (Dir).
	RunTornTail RunWarningKind = "torn_tail"
	// RunEstimatedTokens: Count of the Of records have estimated tokens (the endpoint sent no usage), so
	// their tokens and cost are estimated from bytes.
	RunEstimatedTokens RunWarningKind = "estimated_tokens"
	// RunEmptyShard: a note, not a warning: shard Shard's share of the plan's Planned attempts is empty.
	RunEmptyShard RunWarningKind = "empty_shard"
	// RunStopped: the run stopped (Stopped, the manifest's reason); Missing of Planned attempts have no record.
	RunStopped RunWarningKind = "run_stopped"
	// RunIncomplete: Missing of Planned attempts have no record and the manifest names no stop; NoEnd when it
	// has no end time either (killed, or still running).
	RunIncomplete RunWarningKind = "run_incomplete"
	// RunAllInfra: every attempt of Variant ended in an infrastructure error (AllInfra): its pass rate is
	// undefined, not 0.
	RunAllInfra RunWarningKind = "all_infra"
	// RunCassetteMisses: Count of Of replayed attempts made requests the cassette had no answer for, Missed in
	// all (each got a 404): pages the recording never saw, so those attempts did not see the recorded site.
	RunCassetteMisses RunWarningKind = "cassette_misses"
)

// RunWarning is one warning about a run (RunWarnings); the fields its kind names are set.
type RunWarning struct {
	Kind RunWarningKind
	// Dir is the run directory (torn_tail).
	Dir string
	// Count and Of are the records with estimated tokens and all records (estimated_tokens).
	Count, Of int
	// Planned and Missing are the planned attempts and those without a record (run_stopped,
	// run_incomplete); Planned is the whole plan's attempts for empty_shard.
	Planned, Missing int
	// Stopped is the manifest's stop reason (run_stopped).
	Stopped string
	// NoEnd is true when the manifest has no end time (run_incomplete).
	NoEnd bool
	// Shard is the shard's "i/n" (empty_shard).
	Shard string
	// Missed is the requests no recorded response answered, over the attempts with any (cassette_misses).
	Missed int
	// Variant is the arm all of whose attempts were infra errors (all_infra), and Causes their errors grouped
	// (InfraCauses), most attempts first.
	Variant string
	Causes  []ErrorCause
}

// RunWarnings are the warnings about the run a report is made of, in print order: a torn tail of its attempts
// file, estimated tokens among recs, a run stopped or unfinished (or a shard whose share is empty), and each arm
// of arms all of whose attempts were infra errors. run may be nil (records without a run directory): then
// only the records' and arms' warnings.
func RunWarnings(run *results.Run, recs []results.Attempt, arms []Arm) []RunWarning {
	var out []RunWarning
	if run != nil && run.TornTail {
		out = append(out, RunWarning{Kind: RunTornTail, Dir: run.Dir})
	}
	if n := EstimatedTokens(recs); n > 0 {
		out = append(out, RunWarning{Kind: RunEstimatedTokens, Count: n, Of: len(recs)})
	}
	if run != nil {
		if w, ok := completenessWarning(run); ok {
			out = append(out, w)
		}
	}
	if w, ok := cassetteMissWarning(recs); ok {
		out = append(out, w)
	}
	for _, name := range AllInfra(arms) {
		causes := InfraCauses(recs, func(r results.Attempt) bool { return r.Variant == name })
		out = append(out, RunWarning{Kind: RunAllInfra, Variant: name, Causes: causes})
	}
	return out
}

// completenessWarning is the warning of a run that did not finish: the manifest says it stopped (an endpoint
// error, --max-cost, an interrupt) or planned attempts have no record (killed, or still running); a shard whose
// share is empty gets a note instead.
func completenessWarning(run *results.Run) (RunWarning, bool) {
	m, c := run.Manifest, run.Completeness()
	switch {
	case c.IsShard && m.Summary != nil && c.Planned == 0 && c.Stopped == "":
		return RunWarning{Kind: RunEmptyShard, Shard: m.Shard, Planned: m.Plan.Attempts}, true
	case c.Stopped != "":
		return RunWarning{Kind: RunStopped, Stopped: c.Stopped, Missing: c.Missing, Planned: c.Planned}, true
	case c.Missing > 0:
		return RunWarning{Kind: RunIncomplete, Missing: c.Missing, Planned: c.Planned, NoEnd: m.EndedAt == ""}, true
	}
	return RunWarning{}, false
}

// EstimatedTokens counts the records whose tokens are estimated (the endpoint sent no usage).
func EstimatedTokens(recs []results.Attempt) int {
	n := 0
	for _, r := range recs {
		if r.Tokens.Estimated {
			n++
		}
	}
	return n
}

// cassetteMissWarning is the cassette_misses warning of recs: set when some replayed attempt had a request the
// cassette could not answer (Count of Of replayed attempts, Missed requests).
func cassetteMissWarning(recs []results.Attempt) (RunWarning, bool) {
	w := RunWarning{Kind: RunCassetteMisses}
	for _, r := range recs {
		if r.CassetteMisses == nil {
			continue
		}
		w.Of++
		if n := *r.CassetteMisses; n > 0 {
			w.Count++
			w.Missed += n
		}
	}
	return w, w.Count > 0
}
