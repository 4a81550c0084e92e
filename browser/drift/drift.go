package drift

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Status is the outcome of comparing a page, or a task's pages, between a recording and a later version.
type Status string

// The statuses. A task is Drifted when one of its pages is Drifted or Gone, Error when none is but one could not
// be read (no evidence either way: unknown, not drift), else Unchanged.
const (
	// Unchanged: the main text is the same (volatile bits masked) and the reference answer did not vanish.
	Unchanged Status = "unchanged"
	// Drifted: the main text changed, or the reference answer was on the page and is no longer.
	Drifted Status = "drifted"
	// Gone: the later version has no such page (the live site answers 4xx or 5xx other than 502, 503, 504).
	Gone Status = "gone"
	// NotCompared: the other recording has no response for the page (its attempt did not visit it): no evidence
	// either way.
	NotCompared Status = "not_compared"
	// Error: the later version could not be read now (a network error; 502, 503 or 504).
	Error Status = "error"
)

// Presence is whether a task's reference answer is on a page: Present, Absent, or Unknown when the page's later
// version could not be read (the page's Error says why); "" when the task has no answer test.
type Presence string

// The presences.
const (
	Present Presence = "present"
	Absent  Presence = "absent"
	Unknown Presence = "unknown"
)

// presence is the Presence of a read page: Present when on is true.
func presence(on bool) Presence {
	if on {
		return Present
	}
	return Absent
}

// MaxLines caps the removed and added lines a PageDiff lists (the counts are exact).
const MaxLines = 5

// Page is one HTML page of a task's recording: its URL and the response body.
type Page struct {
	URL  string
	Body []byte
}

// AnswerFunc reports whether a task's reference answer appears in a page's visible text (its lines joined by
// newlines).
type AnswerFunc func(text string) bool

// TaskInput is one task's recorded pages and its answer test (nil: the task has no reference answer that can be
// looked for on a page).
type TaskInput struct {
	ID     string
	Pages  []Page
	Answer AnswerFunc
}

// Later is the later version of a page: its body and HTTP status (0 when the page is not in the other recording),
// or an error when it could not be read.
type Later func(ctx context.Context, task, url string) (body []byte, status int, err error)

// PageDiff is one page's comparison.
type PageDiff struct {
	URL    string `json:"url"`
	Status Status `json:"status"`
	// HTTPStatus is the later version's status code (0 when not fetched or not recorded).
	HTTPStatus int `json:"http_status,omitempty"`
	// Removed and Added are main-text lines only in the recording, and only in the later version (at most
	// MaxLines each, in page order); RemovedCount and AddedCount are their full numbers.
	Removed      []string `json:"removed,omitempty"`
	Added        []string `json:"added,omitempty"`
	RemovedCount int      `json:"removed_count"`
	AddedCount   int      `json:"added_count"`
	// AnswerBefore and AnswerAfter say whether the reference answer was on the recorded page and is on the later
	// one (Unknown when the later one could not be read: Error); "" when the task has no answer test (or, after,
	// when the other recording has no such page).
	AnswerBefore Presence `json:"answer_before,omitempty"`
	AnswerAfter  Presence `json:"answer_after,omitempty"`
	Error        string   `json:"error,omitempty"`
}

// TaskDiff is one task's comparison: its pages, and whether its reference answer needs review.
type TaskDiff struct {
	Task   string     `json:"task"`
	Status Status     `json:"status"`
	Pages  []PageDiff `json:"pages"`
	// AnswerBefore: whether the reference answer was on one of the recorded pages; AnswerAfter: whether it is on
	// one of the later pages — Present when a read page has it, else Unknown when a page could not be read
	// (AnswerError is the first such page's error), else Absent. "" when the task has no answer test.
	AnswerBefore Presence `json:"answer_before,omitempty"`
	AnswerAfter  Presence `json:"answer_after,omitempty"`
	AnswerError  string   `json:"answer_error,omitempty"`
	// Review: the answer was on a recorded page and is not on that page's later version (read, or gone), so the
	// reference answer may be stale and should be checked before the task is re-recorded.
	Review bool `json:"review"`
}

// Report is a whole comparison, tasks in input order, with the counts of each task status, of pages, and of
// pages whose later version could not be read (Unread: an Error page, no evidence of drift).
type Report struct {
	// Against names the later version: "live" or the other cassette's path.
	Against string         `json:"against"`
	Tasks   []TaskDiff     `json:"tasks"`
	Counts  map[Status]int `json:"counts"`
	Pages   int            `json:"pages"`
	Unread  int            `json:"unread_pages"`
}

// Compare compares every task's recorded pages with their later versions, page by page (ComparePage).
func Compare(ctx context.Context, against string, tasks []TaskInput, later Later) Report {
	r := Report{Against: against, Counts: map[Status]int{}}
	for _, t := range tasks {
		td := TaskDiff{Task: t.ID, Status: Unchanged, Pages: []PageDiff{}}
		// lost: the answer was on a recorded page and is not on its later version; after: it is on a later page.
		var before, lost, after bool
		for _, p := range t.Pages {
			pd := comparePage(ctx, t, p, later)
			before = before || pd.AnswerBefore == Present
			lost = lost || (pd.AnswerBefore == Present && pd.AnswerAfter == Absent)
			after = after || pd.AnswerAfter == Present
			if pd.Status == Error {
				r.Unread++
				if td.AnswerError == "" && t.Answer != nil {
					td.AnswerError = pd.Error
				}
			}
			td.Status = worse(td.Status, pd.Status)
			td.Pages = append(td.Pages, pd)
		}
		if t.Answer != nil {
			td.AnswerBefore, td.AnswerAfter = presence(before), presence(after)
			if !after && td.AnswerError != "" {
				td.AnswerAfter = Unknown
			} else {
				td.AnswerError = ""
			}
			td.Review = lost
		}
		r.Tasks = append(r.Tasks, td)
		r.Counts[td.Status]++
		r.Pages += len(t.Pages)
	}
	return r
}

// comparePage compares one recorded page p of task t with its later version: Error (answer Unknown) when it
// cannot be read now — a network error, or a 502, 503 or 504, which say a gateway or the server is unavailable
// for now (RFC 9110 §15.6.3–15.6.5), not that the page is gone —, NotCompared when the other recording lacks it,
// Gone on another 4xx or 5xx, else ComparePage.
func comparePage(ctx context.Context, t TaskInput, p Page, later Later) PageDiff {
	body, status, err := later(ctx, t.ID, p.URL)
	if err == nil && (status == http.StatusBadGateway || status == http.StatusServiceUnavailable ||
		status == http.StatusGatewayTimeout) {
		err = fmt.Errorf("HTTP %d %s", status, http.StatusText(status))
	}
	var pd PageDiff
	switch {
	case err != nil:
		pd = PageDiff{URL: p.URL, Status: Error, Error: err.Error(), HTTPStatus: status}
		if t.Answer != nil {
			pd.AnswerAfter = Unknown
		}
	case status == 0:
		pd = PageDiff{URL: p.URL, Status: NotCompared}
	case status >= 400:
		pd = PageDiff{URL: p.URL, Status: Gone, HTTPStatus: status}
		if t.Answer != nil {
			pd.AnswerAfter = Absent
		}
	default:
		pd = ComparePage(p.URL, p.Body, body, t.Answer)
		pd.HTTPStatus = status
	}
	if t.Answer != nil && pd.AnswerBefore == "" {
		pd.AnswerBefore = presence(t.Answer(joinLines(Extract(p.Body).Visible)))
	}
	return pd
}

// worse is the task status after a page's: Drifted (from a Drifted or Gone page) over Error over Unchanged;
// NotCompared pages leave it.
func worse(task, page Status) Status {
	switch {
	case page == Drifted || page == Gone || task == Drifted:
		return Drifted
	case page == Error || task == Error:
		return Error
	}
	return task
}

// ComparePage compares a recorded page (old) with its later version (new): the main texts' lines as multisets
// (a line moved within the page is no change) and, with an answer test, whether the answer was on the old page
// and is on the new one. Drifted when a line was removed or added, or the answer vanished.
func ComparePage(url string, old, new []byte, answer AnswerFunc) PageDiff {
	a, b := Extract(old), Extract(new)
	removed, added := lineDiff(a.Main, b.Main), lineDiff(b.Main, a.Main)
	pd := PageDiff{URL: url, Status: Unchanged, RemovedCount: len(removed), AddedCount: len(added)}
	pd.Removed, pd.Added = removed[:min(len(removed), MaxLines)], added[:min(len(added), MaxLines)]
	if answer != nil {
		pd.AnswerBefore = presence(answer(joinLines(a.Visible)))
		pd.AnswerAfter = presence(answer(joinLines(b.Visible)))
	}
	if len(removed) > 0 || len(added) > 0 || (pd.AnswerBefore == Present && pd.AnswerAfter == Absent) {
		pd.Status = Drifted
	}
	return pd
}

// lineDiff is the lines of a not matched by a line of b (multiset difference), in a's order.
func lineDiff(a, b []string) []string {
	left := map[string]int{}
	for _, l := range b {
		left[l]++
	}
	var out []string
	for _, l := range a {
		if left[l] > 0 {
			left[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}

// Live is a Later that fetches each page from the live site with client (GET, no cookies, the client's own
// redirects followed): the server's HTML as a first load sees it, before any script runs, which is what a
// recording of a server-rendered page holds. A page built by scripts after load compares as its shell.
func Live(client *http.Client) Later {
	return func(ctx context.Context, _ string, url string) ([]byte, int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, 0, err
		}
		req.Header.Set("Accept", "text/html,application/xhtml+xml")
		resp, err := client.Do(req)
		if err != nil {
			return nil, 0, err
		}
		defer resp.Body.Close()
		// Pages are compared as text: 32 MiB is far above any HTML document and bounds a misbehaving server.
		body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
		if err != nil {
			return nil, 0, fmt.Errorf("reading %s: %w", url, err)
		}
		return body, resp.StatusCode, nil
	}
}

// Reviews is the ids of the tasks whose reference answer needs review (TaskDiff.Review), in report order.
func (r Report) Reviews() []string {
	var out []string
	for _, t := range r.Tasks {
		if t.Review {
			out = append(out, t.Task)
		}
	}
	return out
}

// WithStatus is the ids of the tasks with status s, in report order (Drifted: the tasks to re-record).
func (r Report) WithStatus(s Status) []string {
	var out []string
	for _, t := range r.Tasks {
		if t.Status == s {
			out = append(out, t.Task)
		}
	}
	return out
}

func joinLines(ls []string) string { return strings.Join(ls, "\n") }
