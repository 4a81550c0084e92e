package results

import (
	"strings"
	"testing"

	"webbench/browser"
)

func TestResultKindOf(t *testing.T) {
	for _, c := range []struct {
		r    browser.Result
		want ResultKind
	}{
		{browser.Result{Error: "Call log:\n  - <div></div> " + InterceptPhrase}, KindIntercepted},
		{browser.Result{Error: "Ref e3 " + browser.StaleRefPhrase + ". Try capturing new snapshot."}, KindStaleRef},
		{browser.Result{Error: browser.EvaluateCutOffMessage(false, 5000, true)}, KindEvaluateCutOff},
		{browser.Result{Error: DeadlineCutOffPrefix + "browser_evaluate was running"}, KindEvaluateCutOff},
		{browser.Result{Error: "net::ERR_ABORTED"}, KindError},
		{browser.Result{Snapshot: browser.Snapshot{YAML: "- generic [ref=e1]"}}, KindEmptySnapshot},
		{browser.Result{Snapshot: browser.Snapshot{YAML: `- button "Buy" [ref=e1]`}}, KindOK},
		{browser.Result{Result: "42"}, KindOK},
	} {
		if got := ResultKindOf(c.r); got != c.want {
			t.Errorf("ResultKindOf(%q) = %s, want %s", c.r.Format(), got, c.want)
		}
	}
}

// Two call logs of the same intercepted click that retried a different number of times have the same stable
// text; another blocker does not.
func TestStableText(t *testing.T) {
	log := func(n, wait, blocker string) browser.Result {
		return browser.Result{Error: "playwright: timeout: Timeout 5000ms exceeded.\nCall log:\n  - attempting click action\n    " + n +
			" × waiting for element to be visible, enabled and stable\n      - " + blocker + " intercepts pointer events\n" +
			"    - retrying click action\n      - waiting " + wait + "ms", URL: "http://x/"}
	}
	a, b := StableText(log("2", "20", "<div class=a>")), StableText(log("7", "500", "<div class=a>"))
	if a != b {
		t.Fatalf("retries changed the stable text:\n%s\n---\n%s", a, b)
	}
	if !strings.Contains(a, "intercepts pointer events") || !strings.HasPrefix(a, "### Error\nplaywright: timeout") {
		t.Fatalf("stable text lost the error: %s", a)
	}
	if c := StableText(log("2", "20", "<div class=b>")); c == a {
		t.Fatal("another blocker has the same stable text")
	}
}
