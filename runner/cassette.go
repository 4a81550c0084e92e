package runner

import (
	"fmt"

	"webbench/browser/cassette"
	"webbench/results"
)

// expandChecked is plan.Expand after checkCassette.
func expandChecked(plan Plan, opts Options) ([]Attempt, error) {
	if err := checkCassette(plan, opts); err != nil {
		return nil, err
	}
	return plan.Expand()
}

// checkCassette refuses a cassette for a plan with a variant whose browser tools run in a browser of their own
// (a Playwright MCP tool backend): its requests never pass through the worker's browser context, so they would
// go unrecorded, or reach the network on replay.
func checkCassette(plan Plan, opts Options) error {
	if opts.Cassette == nil {
		return nil
	}
	for _, v := range plan.Variants {
		if v.Tools != nil {
			return fmt.Errorf("variant %s: --record and --replay need the built-in browser tools: a Playwright "+
				"MCP tool backend (tools: {kind: mcp}) drives a browser of its own, whose traffic a cassette "+
				"does not see", v.Name)
		}
	}
	if opts.Cassette.Mode() != cassette.Replay {
		return nil
	}
	var stateful []string
	for _, t := range plan.Tasks {
		if len(t.Check.State) > 0 {
			stateful = append(stateful, t.ID)
		}
	}
	if len(stateful) > 0 {
		return fmt.Errorf("--replay: %s judged by the app's state (check.state), which a replay cannot change: "+
			"the recorded answers reach the browser, not the app (e.g. %s); replay tasks judged by their answer "+
			"(--tasks, e.g. the Zoo's *-qa-* tasks without a state check)",
			results.Count(len(stateful), "task is", "tasks are"), stateful[0])
	}
	return nil
}

// noteCassette writes the attempt's use of the cassette into its trajectory: the mode, and on replay the URLs
// that had no recorded response (results.Conclude counts them into the record).
func noteCassette(tr *results.Trajectory, cas *cassette.Attempt) {
	if tr == nil || cas == nil {
		return
	}
	use := &results.CassetteUse{Mode: results.CassetteRecord}
	if replaying(cas) {
		use = &results.CassetteUse{Mode: results.CassetteReplay, Misses: cas.Misses()}
	}
	tr.Cassette = use
}

// replaying reports whether cas replays (a cassette from cassette.Open).
func replaying(cas *cassette.Attempt) bool {
	return cas != nil && cas.Cassette().Mode() == cassette.Replay
}
