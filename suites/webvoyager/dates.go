package webvoyager

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"webbench/suites"
)

// Stale-date hygiene. WebVoyager was written in late 2023: many Booking and Google Flights tasks ask for stays
// and flights on dates that are now in the past, which no site will sell. This file finds the dates a task
// names and decides whether the task is stale.
//
// Rules (documented in the package comment, tested in dates_test.go):
//   - Formats: "January 20, 2024", "Jan. 20", "Jan 20th", "20 January 2024", "1st Jan", "January 20-25, 2024",
//     "Jan 22 to 25", "6-8 March 2024", "2024-01-20" (ISO), "20/12/2023" (day first when ambiguous — the only
//     numeric form in the file is day-first). Month names must be capitalised (so the verb "may" is not May).
//     A month with a year but no day ("October 2023") and a bare year ("in 2023") are periods, not dates, and
//     are ignored.
//   - A date without a year takes the year of a dated neighbour it is joined to by a range word ("from March
//     15 to March 22, 2024", "February 28 to March 4, 2024", "6 March to 8 March 2024"), one year less when it
//     falls after that neighbour ("December 28 to January 3, 2024").
//   - A date left without a year ("December 25-26", "Jan. 22", "1st Jan") is read as its next occurrence on or
//     after today, the way a person would read it today: it is never stale and never rewritten. It is
//     listed in Meta["yearless_dates"] so a report can show it.
//   - Only forward-looking tasks can be stale: a task that books, reserves or searches a stay, a flight, a
//     pickup, tickets or an event (hotel, stay, flight, depart, round trip, pickup, reserve, …). A task about
//     the past ("scores of the NBA games played on December 25, 2023", "papers submitted between Jan 1, 2024,
//     and Jan 3, 2024", "days between February 12, 2024 and August 9, 2050") names past dates on purpose.
//   - A forward-looking task is stale when one of its dated mentions starts before today (date only; today
//     itself is not past).
//   - Shift: every dated mention of the task moves forward by the same whole number of years N, the smallest
//     N ≥ 1 that puts the earliest of them after today, so a round trip keeps its length and order. Only the
//     written year digits change (and a February 29 that lands in a common year becomes 28).

// monthAlt matches a month name; only abbreviations take a period ("Jan.", not the full stop after "December.").
const monthAlt = `(?:(?:January|February|March|April|May|June|July|August|September|October|November|December)\b|` +
	`(?:Sept|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b\.?)`

const ordSuffix = `(?:st|nd|rd|th)?`

var (
	// month-day: "January 20", "Jan. 20th", "January 20-25", "Jan 22 to 25", each with an optional ", 2024".
	mdRe = regexp.MustCompile(`\b(` + monthAlt + `)\s+(\d{1,2})` + ordSuffix +
		`\b(?:\s*(?:-|–|—|to|until|through|till)\s*(\d{1,2})` + ordSuffix + `\b)?(?:,?\s+((?:19|20)\d{2})\b)?`)
	// day-month: "20 January 2024", "1st Jan", "6-8 March 2024", "1 of March".
	dmRe = regexp.MustCompile(`\b(\d{1,2})` + ordSuffix + `(?:\s*(?:-|–|—)\s*(\d{1,2})` + ordSuffix + `)?\s+(?:of\s+)?(` +
		monthAlt + `)(?:,?\s+((?:19|20)\d{2})\b)?`)
	isoRe   = regexp.MustCompile(`\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b`)
	slashRe = regexp.MustCompile(`\b(\d{1,2})/(\d{1,2})/((?:19|20)\d{2})\b`)
	// connectors that join two dates into one range or trip (after a trailing " on" is dropped).
	joinRe = regexp.MustCompile(`^(?i:-|–|—|to|until|till|through|and|(?:and\s+)?return(?:ing)?)$`)
	// words that make a task forward-looking (it books or searches something on a date to come).
	forwardRe = regexp.MustCompile(`(?i)\b(hotels?|stays?|book|booking|reserve|reservation|rooms?|resorts?|flights?|` +
		`filght|depart(?:s|ing|ure)?|round[- ]trip|one[- ]way|itinerary|check[- ]?in|check[- ]?out|` +
		`pick[- ]?up|tickets?|concerts?|events?)\b`)
)

// DateMention is one date or date range a task names.
type DateMention struct {
	// Text is the mention as written ("February 14-21, 2024").
	Text string `json:"text"`
	// Start, End are byte offsets of Text in the task text.
	Start int `json:"-"`
	End   int `json:"-"`
	// Month and Day of the first date; Month2/Day2 of a range's end (zero for a single date).
	Month  time.Month `json:"month"`
	Day    int        `json:"day"`
	Month2 time.Month `json:"month2,omitempty"`
	Day2   int        `json:"day2,omitempty"`
	// Year of the first date: written, inherited from a joined neighbour, or 0 (year-less).
	Year int `json:"year,omitempty"`
	// Inherited is true when Year came from a neighbour.
	Inherited bool `json:"inherited,omitempty"`

	yearSpan [2]int   // the written year digits, {-1,-1} when none
	daySpans [][3]int // {start, end, which date (0 first, 1 second)} of the day digits
}

// First is the mention's first date; ok is false for a year-less mention.
func (m DateMention) First() (time.Time, bool) {
	if m.Year == 0 {
		return time.Time{}, false
	}
	return time.Date(m.Year, m.Month, m.Day, 0, 0, 0, 0, time.UTC), true
}

// DateInfo is what FindDates learned about a task text.
type DateInfo struct {
	// Mentions are every date found, in text order.
	Mentions []DateMention
	// ForwardLooking is true when the task books or searches something on a date to come.
	ForwardLooking bool
	// Past are the dated mentions that start before today (only filled for forward-looking tasks).
	Past []DateMention
	// Yearless are the mentions without any year (only filled for forward-looking tasks).
	Yearless []DateMention
	// Earliest is the earliest dated mention's first date (zero when none).
	Earliest time.Time
}

// Stale reports whether the task names a date to come that is now past.
func (d DateInfo) Stale() bool { return d.ForwardLooking && len(d.Past) > 0 }

func monthOf(s string) time.Month {
	s = strings.ToLower(strings.TrimSuffix(s, "."))
	if len(s) < 3 {
		return 0
	}
	for m := time.January; m <= time.December; m++ {
		if strings.HasPrefix(strings.ToLower(m.String()), s[:3]) {
			return m
		}
	}
	return 0
}

func validDay(y int, m time.Month, d int) bool {
	if y == 0 {
		y = 2000 // leap: February 29 is a valid year-less date
	}
	return m >= 1 && m <= 12 && d >= 1 && time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Day() == d
}

// FindDates finds the dates in text and judges them against today (only its date part counts).
func FindDates(text string, today time.Time) DateInfo {
	ms := validMentions(text, dateMentions(text))
	inheritYears(text, ms)
	info := DateInfo{Mentions: ms, ForwardLooking: forwardRe.MatchString(text)}
	day := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)
	for _, m := range ms {
		f, ok := m.First()
		if !ok {
			if info.ForwardLooking {
				info.Yearless = append(info.Yearless, m)
			}
			continue
		}
		if info.Earliest.IsZero() || f.Before(info.Earliest) {
			info.Earliest = f
		}
		if info.ForwardLooking && f.Before(day) {
			info.Past = append(info.Past, m)
		}
	}
	return info
}

// dateMentions finds every date pattern in text (month-day, day-month, ISO, slash), overlapping ones included.
func dateMentions(text string) []DateMention {
	var all []DateMention
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	sub := func(idx []int, k int) (string, int, int) {
		if idx[2*k] < 0 {
			return "", -1, -1
		}
		return text[idx[2*k]:idx[2*k+1]], idx[2*k], idx[2*k+1]
	}
	// "January 20(-25)(, 2024)" and "20(-25) January( 2024)": the same fields in another group order
	// (month, day1, day2, year).
	for _, p := range []struct {
		re                  *regexp.Regexp
		mon, d1, d2, yeargr int
	}{{mdRe, 1, 2, 3, 4}, {dmRe, 3, 1, 2, 4}} {
		for _, idx := range p.re.FindAllStringSubmatchIndex(text, -1) {
			mon, _, _ := sub(idx, p.mon)
			d1, a1, b1 := sub(idx, p.d1)
			d2, a2, b2 := sub(idx, p.d2)
			y, ya, yb := sub(idx, p.yeargr)
			m := DateMention{Start: idx[0], End: idx[1], Month: monthOf(mon), Day: atoi(d1), yearSpan: [2]int{ya, yb}}
			m.daySpans = append(m.daySpans, [3]int{a1, b1, 0})
			if d2 != "" {
				m.Month2, m.Day2 = m.Month, atoi(d2)
				m.daySpans = append(m.daySpans, [3]int{a2, b2, 1})
			}
			if y != "" {
				m.Year = atoi(y)
			}
			all = append(all, m)
		}
	}
	for _, idx := range isoRe.FindAllStringSubmatchIndex(text, -1) {
		y, ya, yb := sub(idx, 1)
		mo, _, _ := sub(idx, 2)
		d, a, b := sub(idx, 3)
		all = append(all, DateMention{Start: idx[0], End: idx[1], Year: atoi(y), Month: time.Month(atoi(mo)), Day: atoi(d),
			yearSpan: [2]int{ya, yb}, daySpans: [][3]int{{a, b, 0}}})
	}
	for _, idx := range slashRe.FindAllStringSubmatchIndex(text, -1) {
		p, pa, pb := sub(idx, 1)
		q, qa, qb := sub(idx, 2)
		y, ya, yb := sub(idx, 3)
		day, mon, da, db := atoi(p), atoi(q), pa, pb // day first
		if mon > 12 && day <= 12 {
			day, mon, da, db = mon, day, qa, qb
		}
		all = append(all, DateMention{Start: idx[0], End: idx[1], Year: atoi(y), Month: time.Month(mon), Day: day,
			yearSpan: [2]int{ya, yb}, daySpans: [][3]int{{da, db, 0}}})
	}
	return all
}

// validMentions keeps the valid, non-overlapping mentions of all (sorted in place), with their text.
func validMentions(text string, all []DateMention) []DateMention {
	// Leftmost first, longest first at the same start.
	sort.Slice(all, func(i, j int) bool {
		if all[i].Start != all[j].Start {
			return all[i].Start < all[j].Start
		}
		return all[i].End > all[j].End
	})
	var ms []DateMention
	end := -1
	for _, m := range all {
		if m.Start < end || !validDay(m.Year, m.Month, m.Day) || (m.Day2 != 0 && !validDay(m.Year, m.Month2, m.Day2)) {
			continue
		}
		if m.Day2 != 0 && m.Day2 < m.Day { // "January 30-2": not a range we understand
			continue
		}
		m.Text = text[m.Start:m.End]
		ms = append(ms, m)
		end = m.End
	}
	return ms
}

// inheritYears gives year-less mentions joined to a dated neighbour ("May 3 and May 5, 2024") its year.
func inheritYears(text string, ms []DateMention) {
	// Year-less mentions joined to a dated neighbour take its year (right to left, then left to right).
	joined := func(a, b DateMention) bool {
		between := strings.TrimSpace(strings.Trim(text[a.End:b.Start], " ,"))
		between = strings.TrimSpace(strings.TrimSuffix(between, " on"))
		return joinRe.MatchString(between)
	}
	for i := len(ms) - 2; i >= 0; i-- {
		if ms[i].Year == 0 && ms[i+1].Year != 0 && joined(ms[i], ms[i+1]) {
			y := ms[i+1].Year
			if ms[i].Month > ms[i+1].Month || (ms[i].Month == ms[i+1].Month && ms[i].Day > ms[i+1].Day) {
				y--
			}
			ms[i].Year, ms[i].Inherited = y, true
		}
	}
	for i := 1; i < len(ms); i++ {
		if ms[i].Year == 0 && ms[i-1].Year != 0 && joined(ms[i-1], ms[i]) {
			y := ms[i-1].Year
			if ms[i].Month < ms[i-1].Month || (ms[i].Month == ms[i-1].Month && ms[i].Day < ms[i-1].Day) {
				y++
			}
			ms[i].Year, ms[i].Inherited = y, true
		}
	}
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// ShiftDates rolls every dated mention of text forward by the same whole number of years, the smallest that
// puts the earliest one after today, and returns the new text, the number of years and one "old → new" line
// per rewritten mention. Texts without dated mentions, or whose earliest date is already after today, come
// back unchanged with years = 0.
func ShiftDates(text string, today time.Time) (shifted string, years int, changes []string) {
	info := FindDates(text, today)
	if info.Earliest.IsZero() {
		return text, 0, nil
	}
	day := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)
	for years = 0; !info.Earliest.AddDate(years, 0, 0).After(day); years++ {
	}
	if years == 0 {
		return text, 0, nil
	}
	type edit struct {
		a, b int
		s    string
	}
	var edits []edit
	for _, m := range info.Mentions {
		if m.Year == 0 {
			continue
		}
		var mine []edit
		if m.yearSpan[0] >= 0 {
			old, _ := strconv.Atoi(text[m.yearSpan[0]:m.yearSpan[1]])
			mine = append(mine, edit{m.yearSpan[0], m.yearSpan[1], strconv.Itoa(old + years)})
		}
		for _, ds := range m.daySpans {
			mon, d := m.Month, m.Day
			if ds[2] == 1 {
				mon, d = m.Month2, m.Day2
			}
			if mon == time.February && d == 29 && !isLeap(m.Year+years) {
				mine = append(mine, edit{ds[0], ds[1], "28"})
			}
		}
		if len(mine) == 0 {
			continue // inherited year: rewritten through its neighbour
		}
		sort.Slice(mine, func(i, j int) bool { return mine[i].a < mine[j].a })
		var nb strings.Builder
		at := m.Start
		for _, e := range mine {
			nb.WriteString(text[at:e.a])
			nb.WriteString(e.s)
			at = e.b
		}
		nb.WriteString(text[at:m.End])
		changes = append(changes, m.Text+" → "+nb.String())
		edits = append(edits, mine...)
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].a < edits[j].a })
	var b strings.Builder
	at := 0
	for _, e := range edits {
		b.WriteString(text[at:e.a])
		b.WriteString(e.s)
		at = e.b
	}
	b.WriteString(text[at:])
	return b.String(), years, changes
}

// Stale-date policies (suite option "stale_dates").
const (
	// StaleKeep keeps stale tasks as written, flagged in Meta (the default).
	StaleKeep = "keep"
	// StaleSkip drops stale tasks from the suite (they stay in the stale report).
	StaleSkip = "skip"
	// StaleShift rewrites the dates of stale tasks (ShiftDates) and records the original text.
	StaleShift = "shift"
)

// StaleFlag is one stale task in a report.
type StaleFlag struct {
	TaskID string `json:"task_id"`
	Site   string `json:"site"`
	// Dates are the past dates as written in the original text.
	Dates []string `json:"dates"`
	// Earliest is the earliest date the original text names, YYYY-MM-DD.
	Earliest string `json:"earliest"`
	// Action is what the loader did: keep, skip or shift.
	Action string `json:"action"`
	// Goal is the task text as the agent sees it (shifted when Action is shift); OriginalGoal the text as
	// written in the file.
	Goal         string `json:"goal"`
	OriginalGoal string `json:"original_goal"`
	// Shifted lists "old → new" per rewritten date (Action shift only).
	Shifted []string `json:"shifted,omitempty"`
}

// Meta keys the loader writes on WebVoyager tasks.
const (
	MetaStale         = "stale"          // bool: the task names a date to come that is past
	MetaStaleDates    = "stale_dates"    // []string: the past dates as written
	MetaEarliestDate  = "earliest_date"  // string YYYY-MM-DD
	MetaStaleAction   = "stale_action"   // string: keep|skip|shift
	MetaYearlessDates = "yearless_dates" // []string: dates without a year (read as their next occurrence)
	MetaOriginalGoal  = "original_goal"  // string: the text before shifting
	MetaShiftedDates  = "shifted_dates"  // []string: "old → new"
	MetaShiftYears    = "shift_years"    // int: years added
	MetaNotice        = "notice"         // string: the site's notice from reference_answer.json
	MetaExtra         = "extra"          // map: fields of the line other than web_name, id, ques, web
)

// applyStale analyses t's goal against today, writes the stale-date Meta keys and, for StaleShift, rewrites
// the goal. It returns the report line (nil when the task is not stale) and whether to keep the task.
func applyStale(t *suites.Task, today time.Time, policy string) (*StaleFlag, bool) {
	info := FindDates(t.Goal, today)
	if t.Meta == nil {
		t.Meta = map[string]any{}
	}
	if len(info.Yearless) > 0 {
		var ys []string
		for _, m := range info.Yearless {
			ys = append(ys, m.Text)
		}
		t.Meta[MetaYearlessDates] = ys
	}
	if !info.Stale() {
		return nil, true
	}
	var past []string
	for _, m := range info.Past {
		past = append(past, m.Text)
	}
	f := &StaleFlag{TaskID: t.ID, Site: t.App, Dates: past, Earliest: info.Earliest.Format("2006-01-02"),
		Action: policy, Goal: t.Goal, OriginalGoal: t.Goal}
	t.Meta[MetaStale] = true
	t.Meta[MetaStaleDates] = past
	t.Meta[MetaEarliestDate] = f.Earliest
	t.Meta[MetaStaleAction] = policy
	switch policy {
	case StaleSkip:
		return f, false
	case StaleShift:
		goal, years, changes := ShiftDates(t.Goal, today)
		t.Meta[MetaOriginalGoal] = t.Goal
		t.Meta[MetaShiftedDates] = changes
		t.Meta[MetaShiftYears] = years
		t.Goal = goal
		f.Goal, f.Shifted = goal, changes
	}
	return f, true
}

// StaleReport lists the stale tasks among tasks, from the Meta the loader wrote (tasks loaded by this package
// carry it; others are never reported), in the order given. Tasks dropped by stale_dates=skip are not in a
// suite's Tasks(); Suite.Stale() reports them too.
func StaleReport(tasks []suites.Task) []StaleFlag {
	var out []StaleFlag
	for _, t := range tasks {
		if st, _ := t.Meta[MetaStale].(bool); !st {
			continue
		}
		f := StaleFlag{TaskID: t.ID, Site: t.App, Dates: strs(t.Meta[MetaStaleDates]), Goal: t.Goal, OriginalGoal: t.Goal,
			Shifted: strs(t.Meta[MetaShiftedDates])}
		f.Earliest, _ = t.Meta[MetaEarliestDate].(string)
		f.Action, _ = t.Meta[MetaStaleAction].(string)
		if og, ok := t.Meta[MetaOriginalGoal].(string); ok {
			f.OriginalGoal = og
		}
		out = append(out, f)
	}
	return out
}

func strs(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}
