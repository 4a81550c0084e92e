// Package drift says whether a recorded web page has changed in a way that matters to a task: its main text (the
// page's own content, without scripts, styles, navigation, banners, footers and volatile bits such as dates,
// clocks and view counters) and whether the task's reference answer still appears on it. It reads HTML with
// golang.org/x/net/html, the HTML5 parsing algorithm the browsers implement, so malformed markup parses as Chromium
// would parse it. The comparison is data (Page, Task); renderers word it.
package drift

import (
	"bytes"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Text is a page's text as two readings, each a list of non-empty lines, one per block (paragraph, heading, list
// item, table cell, …), whitespace collapsed.
type Text struct {
	// Main is the main text with volatile bits masked (see MainText): what drift compares.
	Main []string
	// Visible is every line a reader could see (scripts, styles, hidden elements removed; navigation, header and
	// footer kept, nothing masked): where the reference answer is looked for, so an answer in a sidebar still
	// counts.
	Visible []string
}

// skipAlways are elements whose content is never page text: code, styling, embedded documents and graphics, the
// head (title and metadata).
var skipAlways = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Canvas: true, atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Head: true,
}

// chrome are the elements that frame a page rather than carry its content (the HTML sectioning elements for site
// navigation, banner, footer and tangential content), left out of the main text.
var chrome = map[atom.Atom]bool{atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true}

// chromeRoles are the ARIA landmark roles of the same frame (WAI-ARIA 1.2 landmark roles), for sites that build it
// from divs.
var chromeRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true}

// overlayRe matches the id or class of a consent, cookie or age-gate banner or a popup: text laid over the page,
// which depends on the visitor's cookies rather than on the page (a recording made after "Reject all" has
// none, a fresh fetch has it). The words are Readability's for such boxes (mozilla/readability,
// REGEXPS.unlikelyCandidates: gdpr, popup, agegate) and the consent managers' own (cookie, consent, OneTrust's
// ids).
var overlayRe = regexp.MustCompile(`(?i)cookie|consent|gdpr|onetrust|popup|agegate`)

// overlay reports whether an element is laid over the page: a dialog (<dialog>, role dialog or alertdialog,
// aria-modal) or a box overlayRe names.
func overlay(n *html.Node) bool {
	if n.DataAtom == atom.Dialog || attr(n, "aria-modal") == "true" {
		return true
	}
	if r := attr(n, "role"); r == "dialog" || r == "alertdialog" {
		return true
	}
	return overlayRe.MatchString(rawAttr(n, "id")) || overlayRe.MatchString(rawAttr(n, "class"))
}

// blocks are the elements that start a new line of text (HTML's block-level and table elements, list items,
// line breaks).
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.H1: true,
	atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Li: true, atom.Ul: true,
	atom.Ol: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Tr: true, atom.Td: true, atom.Th: true,
	atom.Table: true, atom.Br: true, atom.Blockquote: true, atom.Pre: true, atom.Figure: true,
	atom.Figcaption: true, atom.Form: true, atom.Fieldset: true, atom.Label: true, atom.Button: true,
	atom.Option: true, atom.Dialog: true, atom.Header: true, atom.Footer: true, atom.Nav: true, atom.Aside: true,
	atom.Hr: true, atom.Address: true, atom.Summary: true, atom.Details: true, atom.Caption: true,
}

// Extract reads an HTML document into its two texts. The main text is the content of the page's main landmark
// (the first <main> element or role="main", else <body>) without scripts, styles, hidden elements (the hidden
// attribute, aria-hidden="true", an inline display:none), the page frame (<nav>, <header>, <footer>, <aside> and
// the ARIA roles navigation, banner, contentinfo, complementary, search), overlays (dialogs, consent and cookie
// banners, popups: overlay) and with volatile bits masked (MaskVolatile). The parser never fails on bad markup (the HTML5 algorithm recovers); a read error gives empty
// texts.
func Extract(doc []byte) Text {
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return Text{}
	}
	var visible, main lineWriter
	walk(root, &visible, false)
	mainRoot := findMain(root)
	if mainRoot == nil {
		mainRoot = root
	}
	walk(mainRoot, &main, true)
	t := Text{Visible: visible.lines()}
	for _, l := range main.lines() {
		if m := MaskVolatile(l); strings.TrimSpace(m) != "" {
			t.Main = append(t.Main, m)
		}
	}
	return t
}

// findMain is the first <main> or role="main" element, nil when the page has none.
func findMain(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && (n.DataAtom == atom.Main || attr(n, "role") == "main") {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if m := findMain(c); m != nil {
			return m
		}
	}
	return nil
}

// attr is n's attribute key ("" when absent), lower-cased and trimmed: for keyword attributes (role, style).
func attr(n *html.Node, key string) string {
	return strings.ToLower(strings.TrimSpace(rawAttr(n, key)))
}

// rawAttr is n's attribute key as written ("" when absent).
func rawAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// hidden reports whether an element is not rendered: the hidden attribute, aria-hidden="true", or an inline
// display:none (stylesheets are not evaluated: a class that hides is not seen).
func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "hidden" {
			return true
		}
	}
	if attr(n, "aria-hidden") == "true" {
		return true
	}
	style := strings.ReplaceAll(attr(n, "style"), " ", "")
	return strings.Contains(style, "display:none")
}

// walk writes n's text into w, line by line; dropChrome leaves out the page frame.
func walk(n *html.Node, w *lineWriter, dropChrome bool) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
		if skipAlways[n.DataAtom] || hidden(n) {
			return
		}
		if dropChrome && (chrome[n.DataAtom] || chromeRoles[attr(n, "role")] || overlay(n)) {
			return
		}
		if n.DataAtom == atom.Img {
			if alt := rawAttr(n, "alt"); alt != "" {
				w.text(" " + alt + " ")
			}
		}
	}
	block := n.Type == html.ElementNode && blocks[n.DataAtom]
	if block {
		w.newline()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, w, dropChrome)
	}
	if block {
		w.newline()
	}
}

// lineWriter collects text into lines, collapsing whitespace as a browser renders it.
type lineWriter struct {
	done []string
	cur  strings.Builder
}

func (w *lineWriter) text(s string) { w.cur.WriteString(s) }

func (w *lineWriter) newline() {
	if l := strings.Join(strings.Fields(w.cur.String()), " "); l != "" {
		w.done = append(w.done, l)
	}
	w.cur.Reset()
}

func (w *lineWriter) lines() []string {
	w.newline()
	return w.done
}

// volatile are the patterns masked in the main text, each with what it stands for: things a page changes on every
// load or every day without its content changing. Order matters: dates before bare times, relative ages before
// counters. Numbers elsewhere (prices, counts of reviews, ratings) are content and stay.
var volatile = []struct {
	re   *regexp.Regexp
	mask string
}{
	// ISO dates and date-times (2026-12-05, 2026-12-05T12:00:00Z).
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b`), "<date>"},
	// Numeric dates (12/05/2026, 5.12.2026).
	{regexp.MustCompile(`\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b`), "<date>"},
	// Written dates with a month name, day first or month first, year optional (5 December 2026, Dec 5, 2026).
	{regexp.MustCompile(`(?i)\b(?:\d{1,2}(?:st|nd|rd|th)?\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2}(?:st|nd|rd|th)?,?\s*)?\d{4}\b|\b(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b`), "<date>"},
	// Clock times (12:05, 9:30 pm, 23:59:01).
	{regexp.MustCompile(`(?i)\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?\b`), "<time>"},
	// Relative ages (5 minutes ago, 2 hrs ago, yesterday, just now).
	{regexp.MustCompile(`(?i)\b(?:\d+|an?|one)\s+(?:second|sec|minute|min|hour|hr|day|week|wk|month|year|yr)s?\s+ago\b|\b(?:yesterday|today|just now)\b`), "<ago>"},
	// Live counters (1,234 views, 56 people viewing, 3 online, 12k followers).
	{regexp.MustCompile(`(?i)\b\d[\d,.]*\s*[km]?\s+(?:views?|likes?|shares?|followers?|subscribers?|watching|online|visitors?|people (?:are )?(?:viewing|looking|watching))\b`), "<count>"},
}

// MaskVolatile replaces the volatile bits of a line of text (dates, clock times, relative ages such as "5 minutes
// ago", live counters such as "1,234 views") by placeholders (<date>, <time>, <ago>, <count>), so that a page
// re-rendered on another day compares equal.
func MaskVolatile(line string) string {
	for _, v := range volatile {
		line = v.re.ReplaceAllString(line, v.mask)
	}
	return line
}
