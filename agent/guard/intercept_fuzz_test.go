package guard

import (
	"testing"

	"webbench/browser"
)

// FuzzParseIntercept: the call-log parser never panics; a result it cannot condense comes back unchanged.
func FuzzParseIntercept(f *testing.F) {
	for _, s := range []string{
		"### Error\nTimeoutError: locator.click: Timeout 5000ms exceeded.\nCall log:\n  - waiting for locator('aria-ref=e12')\n" +
			"  - locator resolved to <button type=\"button\" data-testid=\"go\">Go</button>\n" +
			"  - <div class=\"onetrust-pc-dark-filter ot-fade-in\"></div> from <div id=\"onetrust-consent-sdk\">…</div> subtree intercepts pointer events\n",
		"\x1b[2m- locator resolved to <input id=\"color-blue\" type=\"radio\"/>\x1b[22m\n\x1b[2m- <span class=\"swatch-icon\"></span> intercepts pointer events\x1b[22m",
		"intercepts pointer events", "locator resolved to <", "<<>> from <<>> subtree intercepts pointer events", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, _ = ParseIntercept(text)
		in := browser.Result{Error: text, URL: "u"}
		out, _, ok := CondenseIntercept(in)
		if !ok && out.Format() != in.Format() {
			t.Fatalf("unparsed result changed")
		}
		if ok && (out.URL != "u" || out.Error == text) {
			t.Fatalf("condensed result lost its page or kept its error: %+v", out)
		}
	})
}
