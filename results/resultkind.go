package results

// What a tool result is, for comparing two trajectories: its kind, its text without timing noise.

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"webbench/browser"
)

// ResultKind classifies a tool result as the model was shown it, by the phrases the harness and Playwright
// use (browser.StaleRefPhrase, InterceptPhrase, browser.IsEvaluateCutOff).
type ResultKind string

// Result kinds (ResultKindOf).
const (
	// KindOK: the call succeeded and its snapshot, if any, has an interactive ref.
	KindOK ResultKind = "ok"
	// KindIntercepted: a click on a covered element ("… intercepts pointer events").
	KindIntercepted ResultKind = "intercepted"
	// KindStaleRef: the ref was not found in the current page snapshot.
	KindStaleRef ResultKind = "stale_ref"
	// KindEvaluateCutOff: an evaluate cut off by its budget or at the attempt deadline.
	KindEvaluateCutOff ResultKind = "evaluate_cut_off"
	// KindEmptySnapshot: the call succeeded but its last snapshot has no interactive ref (a page not yet
	// rendered).
	KindEmptySnapshot ResultKind = "empty_snapshot"
	// KindError: any other error.
	KindError ResultKind = "error"
	// KindAnswer: no tool call — the reply was a final answer (or other text).
	KindAnswer ResultKind = "answer"
	// KindNone: no step there (the arm had ended).
	KindNone ResultKind = "none"
)

// ResultKindOf classifies r (see ResultKind).
func ResultKindOf(r browser.Result) ResultKind {
	switch {
	case strings.Contains(r.Error, InterceptPhrase):
		return KindIntercepted
	case strings.Contains(r.Error, browser.StaleRefPhrase):
		return KindStaleRef
	case browser.IsEvaluateCutOff(r.Error) || strings.HasPrefix(r.Error, DeadlineCutOffPrefix):
		return KindEvaluateCutOff
	case r.Error != "":
		return KindError
	}
	if s, ok := r.LastSnapshot(); ok && s.YAML != "" && !browser.IsSnapshotDiff(s.YAML) && !s.HasInteractiveRef() {
		return KindEmptySnapshot
	}
	return KindOK
}

// callLogRE matches the volatile parts of a line of Playwright's call log: the retry counts ("5 × waiting
// for …") and the back-off waits ("waiting 100ms").
var callLogRE = regexp.MustCompile(`^\s*(?:-\s*)?(?:[0-9]+ × )?|waiting [0-9]+ms`)

// callLogHead begins Playwright's call log in an error message.
const callLogHead = "Call log:"

// StableText is the text of a result as the model is shown it (Format) without what varies with timing, not
// with the page: Playwright's call log in its error (whose retries and waits depend on timing) reduced to the
// sorted set of its distinct lines without counts or waits.
func StableText(r browser.Result) string {
	if i := strings.Index(r.Error, callLogHead); i >= 0 {
		seen := map[string]bool{}
		for _, l := range strings.Split(r.Error[i+len(callLogHead):], "\n") {
			if l = strings.TrimSpace(callLogRE.ReplaceAllString(l, "")); l != "" {
				seen[l] = true
			}
		}
		r.Error = r.Error[:i+len(callLogHead)] + "\n" + strings.Join(slices.Sorted(maps.Keys(seen)), "\n")
	}
	return r.Format()
}

// BaseTool is a tool name without any MCP prefix (browser.BaseName), as a string.
func BaseTool(name string) string { return string(browser.BaseName(name)) }
