package webvoyager

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"webbench/suites"
)

func TestFindDatesFormats(t *testing.T) {
	today := day(2025, 11, 30)
	type m struct {
		text string
		y    int
		mon  time.Month
		d    int
	}
	cases := []struct {
		text string
		want []m
	}{
		{"Book a hotel on January 20, 2024.", []m{{"January 20, 2024", 2024, 1, 20}}},
		{"Book a hotel on Jan 20.", []m{{"Jan 20", 0, 1, 20}}},
		{"Book a hotel on Jan. 22nd please", []m{{"Jan. 22nd", 0, 1, 22}}},
		{"Book a hotel on 20 January 2024", []m{{"20 January 2024", 2024, 1, 20}}},
		{"Book a hotel from 1st Jan in Jakarta", []m{{"1st Jan", 0, 1, 1}}},
		{"Book a hotel on 2024-01-20.", []m{{"2024-01-20", 2024, 1, 20}}},
		{"Book a hotel for January 20-25, 2024.", []m{{"January 20-25, 2024", 2024, 1, 20}}},
		{"Book a hotel from Jan 22 to 25 in LA", []m{{"Jan 22 to 25", 0, 1, 22}}},
		{"hotel for 20/12/2023 - 21/12/2023.", []m{{"20/12/2023", 2023, 12, 20}, {"21/12/2023", 2023, 12, 21}}},
		{"hotel on 12/20/2023", []m{{"12/20/2023", 2023, 12, 20}}},
		// Year inherited across a range, with the year boundary.
		{"stay from March 15 to March 22, 2024", []m{{"March 15", 2024, 3, 15}, {"March 22, 2024", 2024, 3, 22}}},
		{"date (6 March to 8 March 2024)", []m{{"6 March", 2024, 3, 6}, {"8 March 2024", 2024, 3, 8}}},
		{"stay from December 28 to January 3, 2024", []m{{"December 28", 2023, 12, 28}, {"January 3, 2024", 2024, 1, 3}}},
		{"leaving on December 25, 2023, and returning on January 5", []m{{"December 25, 2023", 2023, 12, 25}, {"January 5", 2024, 1, 5}}},
		// A full stop after a full month name is not part of the date.
		{"Fly out on 20 December.", []m{{"20 December", 0, 12, 20}}},
		// Not dates: a lowercase "may", a month and year, a bare year, an impossible day.
		{"the page may 5 times show", nil},
		{"announced in October 2023", nil},
		{"the 2023-24 season", nil},
		{"a stay on February 30, 2024", nil},
	}
	for _, c := range cases {
		info := FindDates(c.text, today)
		var got []m
		for _, x := range info.Mentions {
			got = append(got, m{x.Text, x.Year, x.Month, x.Day})
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("FindDates(%q) = %+v, want %+v", c.text, got, c.want)
		}
	}
}

func TestStaleRules(t *testing.T) {
	today := day(2025, 11, 30)
	cases := []struct {
		text  string
		stale bool
	}{
		{"Find a hotel in Paris for February 14-21, 2024.", true},
		{"Find a hotel in Paris for February 14-21, 2026.", false},
		{"Find a hotel in Paris for December 25-26.", false},    // year-less: next occurrence
		{"Search one-way flights on November 30, 2025.", false}, // today is not past
		{"Search one-way flights on November 29, 2025.", true},
		{"Check the scores of the NBA games played on December 25, 2023.", false}, // about the past
		{"How many days are there between February 12, 2024 and August 9, 2050?", false},
		{"schedule an in-store pickup for January 10, 2024", true},
	}
	for _, c := range cases {
		if got := FindDates(c.text, today).Stale(); got != c.stale {
			t.Errorf("stale(%q) = %v, want %v", c.text, got, c.stale)
		}
	}
}

func TestShiftDates(t *testing.T) {
	today := day(2025, 11, 30)
	cases := []struct {
		text, want string
		years      int
	}{
		// A round trip over the new year keeps its order and length: both dates move by the same 2 years.
		{"Fly leaving on December 25, 2023, and returning on January 5, 2024.",
			"Fly leaving on December 25, 2025, and returning on January 5, 2026.", 2},
		{"Hotel from February 22 to February 29, 2024.", "Hotel from February 22 to February 28, 2026.", 2},
		{"Hotel for 20/12/2023 - 21/12/2023.", "Hotel for 20/12/2025 - 21/12/2025.", 2},
		{"Hotel on 2024-01-20.", "Hotel on 2026-01-20.", 2},
		{"Hotel (6 March to 8 March 2024)", "Hotel (6 March to 8 March 2026)", 2},
		{"Hotel on December 25-26.", "Hotel on December 25-26.", 0},
		{"Hotel on January 5, 2027.", "Hotel on January 5, 2027.", 0},
	}
	for _, c := range cases {
		got, years, _ := ShiftDates(c.text, today)
		if got != c.want || years != c.years {
			t.Errorf("ShiftDates(%q) = %q, %d; want %q, %d", c.text, got, years, c.want, c.years)
		}
	}
	// The shifted text is no longer stale, and a shift lands in the next future year, not beyond.
	got, _, ch := ShiftDates("Hotel stay on December 1, 2020.", today)
	if got != "Hotel stay on December 1, 2025." || len(ch) != 1 || ch[0] != "December 1, 2020 → December 1, 2025" {
		t.Errorf("shift = %q %v", got, ch)
	}
	if FindDates(got, today).Stale() {
		t.Errorf("shifted text still stale: %q", got)
	}
}

// The real file, judged on 2025-11-30: the report lists every Booking/Google Flights/Apple task that books a past
// date, and none of the tasks that ask about the past.
func TestStaleRealFile(t *testing.T) {
	tf, af := sharedDataset(t)
	today := day(2025, 11, 30)
	keep, err := New(Config{TasksFile: tf, AnswersFile: af, Today: today})
	if err != nil {
		t.Fatal(err)
	}
	flags := keep.Stale()
	var ids []string
	for _, f := range flags {
		ids = append(ids, f.TaskID)
		if f.Action != StaleKeep || len(f.Dates) == 0 || f.Goal != f.OriginalGoal || f.Earliest >= "2025-11-30" {
			t.Errorf("flag %+v", f)
		}
	}
	want := []string{"Apple--9", "Booking--5", "Booking--8"}
	for i := 10; i <= 32; i++ {
		want = append(want, "Booking--"+strconv.Itoa(i))
	}
	want = append(want, "Booking--34", "Booking--36", "Booking--37", "Booking--38", "Booking--39", "Booking--40", "Booking--42",
		"Google Flights--1")
	for i := 10; i <= 39; i++ {
		want = append(want, "Google Flights--"+strconv.Itoa(i))
	}
	want = append(want, "Google Flights--41")
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("stale tasks (%d):\n got %v\nwant %v", len(ids), ids, want)
	}
	if len(ids) != 65 {
		t.Errorf("%d stale tasks, want 65", len(ids))
	}
	// StaleReport reads the same flags back from the tasks' Meta.
	if rep := StaleReport(keep.Tasks()); !reflect.DeepEqual(rep, flags) {
		t.Errorf("StaleReport differs from Suite.Stale:\n%+v\n%+v", rep, flags)
	}
	for _, tk := range keep.Tasks() {
		if tk.ID == "Booking--0" {
			if tk.Meta[MetaStale] != nil || !reflect.DeepEqual(tk.Meta[MetaYearlessDates], []string{"December 25-26"}) {
				t.Errorf("Booking--0 meta = %v", tk.Meta)
			}
		}
	}

	// shift: the goal is rewritten, the original kept; two examples checked word for word.
	sh, err := New(Config{TasksFile: tf, AnswersFile: af, Today: today, StaleDates: StaleShift})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]suites.Task{}
	for _, tk := range sh.Tasks() {
		byID[tk.ID] = tk
	}
	if len(byID) != 643 {
		t.Fatalf("shift keeps every task, got %d", len(byID))
	}
	gf := byID["Google Flights--12"]
	if gf.Goal != "Find the best-priced round-trip flight from New York to London leaving on December 25, 2025, and returning on January 5, 2026, with one stop or fewer." ||
		gf.Meta[MetaOriginalGoal] != "Find the best-priced round-trip flight from New York to London leaving on December 25, 2023, and returning on January 5, 2024, with one stop or fewer." ||
		!reflect.DeepEqual(gf.Meta[MetaShiftedDates], []string{"December 25, 2023 → December 25, 2025", "January 5, 2024 → January 5, 2026"}) ||
		gf.Meta[MetaShiftYears] != 2 {
		t.Errorf("Google Flights--12 shifted: %q %v", gf.Goal, gf.Meta)
	}
	bk := byID["Booking--28"]
	if bk.Goal != "Find a hotel in Dubai with a swimming pool, for a week-long stay from February 22 to February 28, 2026." {
		t.Errorf("Booking--28 shifted: %q", bk.Goal)
	}
	for _, f := range sh.Stale() {
		if FindDates(f.Goal, today).Stale() {
			t.Errorf("%s still stale after shift: %q", f.TaskID, f.Goal)
		}
	}
	if rep := StaleReport(sh.Tasks()); len(rep) != 65 || rep[0].Action != StaleShift || rep[0].Goal == rep[0].OriginalGoal {
		t.Errorf("shift report: %d %+v", len(rep), rep[0])
	}

	// skip: stale tasks are dropped but still reported.
	sk, err := New(Config{TasksFile: tf, Today: today, StaleDates: StaleSkip})
	if err != nil {
		t.Fatal(err)
	}
	if len(sk.Tasks()) != 643-65 || len(sk.Stale()) != 65 || sk.Stale()[0].Action != StaleSkip {
		t.Errorf("skip: %d tasks, %d flags", len(sk.Tasks()), len(sk.Stale()))
	}
	// Judged when the dataset was written, nothing is stale.
	early, err := New(Config{TasksFile: tf, Today: day(2023, 12, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(early.Stale()); n != 0 {
		t.Errorf("on 2023-12-01, %d stale tasks, want 0: %+v", n, early.Stale()[0])
	}
	t.Logf("%d stale on %s; e.g. %s: %q", len(flags), today.Format("2006-01-02"), flags[1].TaskID,
		strings.Join(flags[1].Dates, "; "))
}
