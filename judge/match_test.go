package judge

import (
	"math"
	"strings"
	"testing"

	"webbench/suites"
)

// tokenSummary renders tokens as kind:text[unit,%] for comparison.
func tokenSummary(ts []token) string {
	var out []string
	for _, t := range ts {
		k := map[tokKind]string{tokWord: "w", tokNumber: "n", tokIdent: "id", tokCJK: "cjk"}[t.kind]
		s := k + ":" + t.text
		if t.unit != "" {
			s += "[" + t.unit + "]"
		}
		if t.pct {
			s += "%"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestTokenize(t *testing.T) {
	for in, want := range map[string]string{
		// A number inside an identifier is not a number; sign, thousands and decimals are one token.
		"(adjective, C2)":         "w:adjective id:c2",
		"vitamin B12 and GPT-4":   "w:vitamin id:b12 w:and w:gpt id:4",
		"-1,234.5 and +3":         "n:-1234.5 w:and n:3",
		"2023-24 season":          "n:2023 n:24 w:season",
		"v4.0.2 on Jun 17, 2021":  "id:v4.0.2 w:on w:june n:17 n:2021",
		"4.6-star, 181 reviews":   "n:4.6 w:star n:181 w:review",
		"$1.2k":                   "n:1200[usd]",
		"1.5M downloads":          "n:1.5e+06 w:download",
		"48GB and 0.19 GB":        "n:48[gb] w:and n:0.19[gb]",
		"3.125% or 1/32":          "n:3.125% w:or n:0.03125",
		"5.3673×10^-18":           "n:5.3673e-18",
		"forty-eight, a dozen":    "n:48 w:a n:12",
		"half a dozen eggs":       "n:6 w:egg",
		"efímero, EFÍMERO":        "w:efimero w:efimero",
		"怀旧 (huáijiù)":            "cjk:怀 cjk:旧 w:huaijiu",
		"Elm St & Oak St":         "w:elm w:street w:and w:oak w:street",
		"isn't cancelled":         "w:is w:not w:canceled",
		"350 degrees Fahrenheit":  "n:350[degf]",
		"2 million":               "n:2e+06",
		"110 beats per minute":    "n:110[bpm]",
		"8x7b 2x 3e":              "id:8x7b id:2x id:3e",
		"12/25/2023":              "n:12 n:25 n:2023",
		"25 mins, 1 hour 25 mins": "n:25[min] n:1[h] n:25[min]",
		"€ 420 for 2 nights":      "n:420[eur] w:for n:2[day]",
		"three hundred":           "n:300",
		"can't, won't, isn't":     "w:cannot w:will w:not w:is w:not",
		"192 Mbps":                "n:192[mbps]",
	} {
		if got := tokenSummary(tokenize(in)); got != want {
			t.Errorf("tokenize(%q) = %s\n                 want %s", in, got, want)
		}
	}
	// Joined names and paths keep their separators: resource-watch-api does not end in resource-watch.
	ts := tokenize("resource-watch/resource-watch-api")
	if len(ts) != 5 || ts[1].sep != sepJoiner || ts[2].sep != sepSoft || ts[4].sep != sepJoiner {
		t.Errorf("separators: %+v", ts)
	}
}

func TestNumEq(t *testing.T) {
	n := func(s string) token { return tokenize(s)[0] }
	for _, c := range []struct {
		exp, got string
		tol      float64
		want     bool
	}{
		{"192 MB", "0.19 GB", 0.5, true}, // 0.19 GB is 190 ± 5 MB
		{"192 MB", "1.92 MB", 0.5, false},
		{"192 MB", "192 KB", 0.5, false},
		{"0.078 kg", "78 g", 0.0005, true},
		{"3.125%", "1/32", 0.0005, true},
		{"3.125%", "0.03125", 0.0005, true},
		{"0.55", "55%", 0.0005, true},
		{"170", "000000170", 0, true},
		{"170", "1700", 0, false},
		{"0", "$0.00", 0, true},
		{"868 mg", "868 g", 0, false},
		{"6 mm", "6 cm", 0, false},
		{"11.2", "11", 0.05, false}, // same representation: the rule's tolerance only
	} {
		if got := numEq(n(c.exp), n(c.got), c.tol); got != c.want {
			t.Errorf("numEq(%s, %s, %g) = %v, want %v", c.exp, c.got, c.tol, got, c.want)
		}
	}
	// The fraction 1/186313420339200000 (5.367e-18) is not 1/186313420339200 (5.367e-15): the comparison's
	// slack is relative, not an absolute 1e-9.
	if numEq(n("1/186313420339200000"), n("1/186313420339200"), 0) {
		t.Error("tiny fractions three orders apart compared equal")
	}
	if math.IsNaN(relEps(0, 0)) || relEps(0, 0) != 0 {
		t.Error("relEps(0, 0) must be 0")
	}
}

func TestGradeIssueCases(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		rule     suites.AnswerRule
		question string
		answer   string
		want     Outcome
	}{
		{suites.AnswerRule{MustInclude: []string{"0"}}, "", "10", OutcomeFail},
		{suites.AnswerRule{MustInclude: []string{"0"}}, "", "2020", OutcomeFail},
		{suites.AnswerRule{MustInclude: []string{"170"}}, "", "1700", OutcomeFail},
		{suites.AnswerRule{MustInclude: []string{"2 Figures", "8 Tables"}}, "", "12 figures and 8 tables", OutcomeFail},
		{suites.AnswerRule{MustInclude: []string{"example.com:7780/admin/reports/report_product/viewed"}}, "",
			"http://example.com:7780/admin/reports/report_product/viewedasdf", OutcomeFail},
		// http for https, a "www." prefix or the path in another case: never a pass, but not a confident fail
		// either (review S5): many sites serve both; a different host or a different segment still fails.
		{suites.AnswerRule{MustInclude: []string{"https://example.com/a/b"}}, "", "http://example.com/a/b", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"github.com/opencv/opencv"}}, "", "www.github.com/opencv/opencv", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"github.com/opencv/opencv"}}, "", "https://github.com/OpenCV/OpenCV", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"github.com/opencv/opencv"}}, "", "https://github.com/opencv/opencv and www.github.com/x", OutcomePass},
		{suites.AnswerRule{MustInclude: []string{"github.com/opencv/opencv"}}, "", "https://gitlab.com/opencv/opencv", OutcomeFail},
		{suites.AnswerRule{MustInclude: []string{"github.com/opencv/opencv"}}, "", "https://github.com/opencv/opencv_contrib", OutcomeFail},
		{suites.AnswerRule{MustInclude: []string{"https://example.com/a/b"}}, "", "ftp://example.com/a/b", OutcomeFail},
		// Another dollar is not the "$" of the rule (review, M1 minor); "US$" is.
		{suites.AnswerRule{Number: f(89.99), Unit: "$"}, "", "CA$89.99", OutcomeFail},
		{suites.AnswerRule{Number: f(89.99), Unit: "$"}, "", "AU$ 89.99", OutcomeFail},
		{suites.AnswerRule{Number: f(89.99), Unit: "$"}, "", "US$89.99", OutcomePass},
		// The reference's own words around a one-word item (held-out ho3-shop-juno-jacket-shell-2).
		{suites.AnswerRule{MustInclude: []string{"nylon"}, Reference: "Recycled nylon ripstop"}, "What material is the outer shell made of?",
			"The Juno Jacket has a polyester ripstop shell with a nylon mesh lining.", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"nylon"}, Reference: "Recycled nylon ripstop"}, "What material is the outer shell made of?",
			"The shell is recycled nylon ripstop.", OutcomePass},
		{suites.AnswerRule{MustInclude: []string{"nylon"}, Reference: "Recycled nylon ripstop"}, "What material is the outer shell made of?",
			"It is a ripstop nylon.", OutcomePass},
		{suites.AnswerRule{MustInclude: []string{"nylon"}, Reference: "Recycled nylon ripstop"}, "What material is the outer shell made of?",
			"Nylon", OutcomePass},
		// A number with a unit beside another of the same unit, the rule expecting none (ho3-stays-villa-graca-results-price-1).
		{suites.AnswerRule{Number: f(834)}, "What total price does the results list show for Villa Graça?",
			"In the results list €834 is shown for Casa do Castelo; Villa Graça is listed at €912.", OutcomeUncertain},
		{suites.AnswerRule{Number: f(834)}, "What total price does the results list show for Villa Graça?",
			"Villa Graça: €834 total.", OutcomePass},
		// A fresh user's false passes (i12 trial): a take-back and an admitted guess.
		{suites.AnswerRule{MustInclude: []string{"OpenCV"}}, "", "OpenCV used to be, but now scikit-image has the most stars.", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"Microsoft"}}, "", "Microsoft? I could not tell, the widget did not load.", OutcomeUncertain},
		// Review 2's false passes (rev2-* in the labelled set): a take-back ("overtaken by"), another rating scale
		// than the question's; a matching scale, or none in the question, still passes.
		{suites.AnswerRule{MustInclude: []string{"OpenCV"}}, "", "OpenCV was overtaken by scikit-image last month.", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"OpenCV"}}, "", "OpenCV ahead of scikit-image", OutcomePass},
		{suites.AnswerRule{Number: f(4.2), Tolerance: 0.05}, "What is the average rating, out of 5?", "It is rated 4.2 out of 10.", OutcomeFail},
		{suites.AnswerRule{Number: f(4.2), Tolerance: 0.05}, "What is the average rating, out of 5?", "4.2/10", OutcomeFail},
		{suites.AnswerRule{Number: f(4.2), Tolerance: 0.05}, "What is the average rating, out of 5?", "4.2/5 stars", OutcomePass},
		{suites.AnswerRule{Number: f(4.2), Tolerance: 0.05}, "What is the average rating, out of 5?", "Rated 4.2 out of 5", OutcomePass},
		{suites.AnswerRule{Number: f(4.2), Tolerance: 0.05}, "What is the average rating?", "4.2 out of 10", OutcomePass},
		// A debatable pass (fresh-wolfram-alpha--41-s09): the value given as another statistic.
		{suites.AnswerRule{Number: f(110), Unit: "bpm"}, "What is the approximate Heart Rate Reserve of a 50 year old man?",
			"The maximum heart rate is 110 bpm.", OutcomeUncertain},
		{suites.AnswerRule{Number: f(110), Unit: "bpm"}, "What is the approximate Heart Rate Reserve of a 50 year old man?",
			"The heart rate reserve is 110 bpm.", OutcomePass},
		// Digit grouping (CLDR: fr uses U+202F, SI a thin/no-break space, de-CH an apostrophe); a plain space may be
		// two numbers, so it is uncertain.
		{suites.AnswerRule{Number: f(9675)}, "How many days?", "9\u00a0675 days", OutcomePass},
		{suites.AnswerRule{Number: f(9675)}, "How many days?", "9\u202f675", OutcomePass},
		{suites.AnswerRule{Number: f(9675)}, "How many days?", "9'675", OutcomePass},
		{suites.AnswerRule{Number: f(1234567)}, "How many?", "1'234'567", OutcomePass},
		{suites.AnswerRule{Number: f(9675)}, "How many days?", "9 675", OutcomeUncertain},
		{suites.AnswerRule{Number: f(9675)}, "How many days?", "9 days and 675 hours", OutcomeFail},
		{suites.AnswerRule{Number: f(9675)}, "How many days?", "9'6750", OutcomeFail},
		// False passes seen in trials (fresh2-*, rev3-*, rev3b-*): bits for
		// bytes (IEC 80000-13: Mb is a megabit), per mille for percent, another quantity or statistic (also
		// before a colon), a take-back with words before "by", a lower-case package name as the rival; and their
		// controls.
		{suites.AnswerRule{Number: f(192), Unit: "MB"}, "", "The raw memory is 192 Mb (megabits).", OutcomeFail},
		{suites.AnswerRule{Number: f(192), Unit: "MB"}, "", "192 megabits", OutcomeFail},
		{suites.AnswerRule{Number: f(192), Unit: "MB"}, "", "192 MB", OutcomePass},
		{suites.AnswerRule{Number: f(192), Unit: "MB"}, "", "192mb", OutcomePass},
		{suites.AnswerRule{Number: f(3.125), Unit: "%"}, "", "It is 3.125‰ (per mille).", OutcomeFail},
		{suites.AnswerRule{Number: f(3.125), Unit: "%"}, "", "3.125 per mille", OutcomeFail},
		{suites.AnswerRule{Number: f(3.125), Unit: "%"}, "", "3.125%", OutcomePass},
		{suites.AnswerRule{Number: f(39.2), Tolerance: 0.05}, "Find the length of the curve y = x^2 from 0 to 6.",
			"The region has an area of 39.2 square units.", OutcomeUncertain},
		{suites.AnswerRule{Number: f(39.2), Tolerance: 0.05}, "Find the length of the curve y = x^2 from 0 to 6.",
			"The length is about 39.2.", OutcomePass},
		{suites.AnswerRule{Number: f(110), Unit: "bpm"}, "What is the approximate Heart Rate Reserve of a 50 year old man?",
			"Peak heart rate: 110 bpm.", OutcomeUncertain},
		{suites.AnswerRule{Number: f(110), Unit: "bpm"}, "What is the approximate Heart Rate Reserve of a 50 year old man?",
			"the target heart rate at 50% intensity is 110 bpm", OutcomeUncertain},
		{suites.AnswerRule{Number: f(110), Unit: "bpm"}, "What is the approximate Heart Rate Reserve of a 50 year old man?",
			"Heart rate reserve: 110 bpm.", OutcomePass},
		{suites.AnswerRule{MustInclude: []string{"OpenCV"}}, "", "OpenCV was overtaken last week by scikit-image.", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"OpenCV"}}, "", "OpenCV lost to scikit-image this year.", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"OpenCV"}}, "", "Formerly OpenCV, today it is scikit-image.", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"OpenCV"}}, "", "scikit-image has the most stars, OpenCV is second.", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"OpenCV"}}, "", "OpenCV is the most starred image processing repo.", OutcomePass},
		{suites.AnswerRule{Number: f(4.2), Tolerance: 0.05}, "What is the average rating, out of 5?", "Rated 4.2 stars out of 10.", OutcomeFail},
		{suites.AnswerRule{Number: f(9675)}, "How many days?", "9 675 days", OutcomeUncertain},
		{suites.AnswerRule{Number: f(9675), Unit: "km"}, "How far?", "9 675 km", OutcomeUncertain},
		{suites.AnswerRule{Number: f(9675), Unit: "km"}, "How far?", "9 675 miles", OutcomeFail},
		// A rule that checks nothing confirms nothing.
		{suites.AnswerRule{Reference: "There are trade-in offers."}, "", "No, there are none.", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"https://example.com/a/b?x=1"}}, "", "see https://example.com/a/b?y=2&x=1.", OutcomePass},
		// A longer path is another page.
		{suites.AnswerRule{MustInclude: []string{"https://example.com/a/b?x=1"}}, "", "see https://example.com/a/b/c?y=2&x=1.", OutcomeFail},
		{suites.AnswerRule{MustInclude: []string{"https://example.com/a/b"}}, "", "see https://example.com/a/b/", OutcomePass},
		{suites.AnswerRule{MustInclude: []string{"Microsoft"}}, "", "Not Microsoft but Google", OutcomeUncertain},
		{suites.AnswerRule{MustInclude: []string{"65 |OR| 3"}}, "", "3 stars", OutcomePass},
		{suites.AnswerRule{Number: f(2)}, "", "(adjective, C2)", OutcomeFail},
		{suites.AnswerRule{Number: f(4)}, "", "3 of 4", OutcomeUncertain},
		{suites.AnswerRule{Number: f(1200)}, "", "$1.2k", OutcomePass},
		{suites.AnswerRule{Number: f(3)}, "", "three courses", OutcomePass},
		{suites.AnswerRule{Number: f(3.125), Unit: "%", Tolerance: 0.0005}, "", "1/32", OutcomePass},
		{suites.AnswerRule{MustInclude: []string{"Booking Holdings Inc"}}, "", "Booking Holdings", OutcomePass},
		{suites.AnswerRule{MustInclude: []string{"efímero"}}, "", "efimero", OutcomePass},
		{suites.AnswerRule{Number: f(192), Unit: "MB", Tolerance: 0.5}, "", "0.19 GB", OutcomePass},
		{suites.AnswerRule{Number: f(33038), Tolerance: 0.5}, "", "approximately 33038.2", OutcomePass},
		{suites.AnswerRule{Number: f(868)}, "How many milligrams of sodium are in it?", "868 g", OutcomeFail},
		{suites.AnswerRule{Number: f(4.6), Tolerance: 0.05}, "", "Rated 4.62 out of 5", OutcomePass},
		{suites.AnswerRule{Exact: "MH-07"}, "", "MH-7", OutcomeFail},
		{suites.AnswerRule{Exact: "MH-07"}, "", "the SKU is MH-07", OutcomeUncertain},
		{suites.AnswerRule{Exact: "MH-07"}, "", "SKU: MH-07", OutcomePass},
		{suites.AnswerRule{Exact: "MH-07"}, "", "SKU: MH-07, size XL", OutcomeUncertain},
		{suites.AnswerRule{Number: f(4.2), Tolerance: 0.05}, "", "4.2/5", OutcomePass},
		{suites.AnswerRule{Number: f(4.2), Tolerance: 0.05}, "", "4.2/7", OutcomeUncertain},
		{suites.AnswerRule{Number: f(3)}, "", "", OutcomeFail},
		// The scripted policy's prose final (scripted prose): the page URL's port and path are no
		// candidates, and a number only in a URL is not stated.
		{suites.AnswerRule{Number: f(229)}, "How many calories are in one serving?",
			"## Done\n\nI completed the task.\n\n**Answer:** 229\n\nLast page: http://127.0.0.1:41234/recipes/52210?q=banana+bread", OutcomePass},
		{suites.AnswerRule{Number: f(52210)}, "", "see http://127.0.0.1:41234/recipes/52210", OutcomeFail},
		{suites.AnswerRule{MustInclude: []string{"resource-watch/resource-watch"}}, "", "https://github.com/resource-watch/resource-watch", OutcomePass},
	} {
		if got, why := Grade(c.rule, c.answer, c.question); got != c.want {
			t.Errorf("Grade(%+v, %q) = %s (%s), want %s", c.rule, c.answer, got, why, c.want)
		}
	}
}

// FuzzGrade: no input makes the tokenizer or the matcher panic (a judge runs inside the runner's workers), and
// an empty answer never passes.
func FuzzGrade(f *testing.F) {
	for _, s := range []string{"3 of 4", "$1.2k", "1/32 (3.125%)", "C2", "v4.0.2", "-.5", "1,2,3", "## Done\n**Answer:** 7",
		"http://a.b:80/x/y?z=1", "怀旧", "half a dozen", "forty-", "5×10^", "1e", "12/25/2023", "°F", "€", "1/0", "..."} {
		f.Add(s, s)
	}
	n := 3.0
	f.Fuzz(func(t *testing.T, answer, ref string) {
		tokenize(answer)
		for _, r := range []suites.AnswerRule{{Exact: ref}, {MustInclude: []string{ref}}, {Number: &n, Unit: ref}} {
			o, _ := Grade(r, answer, ref)
			if strings.TrimSpace(answer) == "" && o == OutcomePass {
				t.Fatalf("empty answer passed %+v", r)
			}
		}
	})
}

// Significant figures of a reference and of an answer's number (the unit-change precision rule, review M1.5).
func TestSigFigs(t *testing.T) {
	for _, c := range []struct {
		v    float64
		frac bool
		want int
	}{{192, false, 3}, {0.078, false, 2}, {3.125, false, 4}, {1200, false, 2}, {48, false, 2}, {0, false, 1},
		{33038, false, 5}, {1.0 / 3, true, 4}} {
		if got := sigFigsOf(token{num: c.v, frac: c.frac}); got != c.want {
			t.Errorf("sigFigsOf(%g) = %d, want %d", c.v, got, c.want)
		}
	}
	for s, want := range map[string]int{"0.19": 2, "0.2": 1, "0.03125": 4, "192": 3, "1.2k": 2, "0.0002": 1} {
		ts := tokenize(s)
		if len(ts) != 1 || sigFigs(ts[0]) != want {
			t.Errorf("sigFigs(%q) = %v, want %d", s, ts, want)
		}
	}
}
