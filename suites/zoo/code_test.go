package zoo

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// Tests of the `code` app over HTTP: its pages, client-side navigation answers, state and mutations.

func TestCodePagesRender(t *testing.T) {
	srv := startServer(t)
	tn := newTenant(t, srv, "code")
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"", []string{`aria-label="Star storefront"`, "Next.js storefront", "Updated on Mar 20, 2026"}},
		{"northwind/storefront", []string{"2,917 Commits", "v3.2.0 Latest", "TypeScript 78.4%", `data-src="api/repos/northwind/storefront/contributors"`, `aria-current="page">Code`}},
		{"northwind/payments-api/issues", []string{"Refund webhook retries ignore Retry-After", "#233 opened on Mar 14, 2026 by dana-kim", `alt="Assigned to sam-okafor"`}},
		{"northwind/payments-api/issues/221", []string{"Payout report totals are off by one cent", `<a href="./#luis-ortega">luis-ortega</a>`, ">help wanted</a>", "Apply labels"}},
		{"northwind/mobile-app/releases", []string{"<h2>v5.8.1</h2>", "Released on Mar 22, 2026", "badge-latest"}},
		{"northwind/infra/issues/new", []string{`<label for="issue-title">Title</label>`, `<option value="mei-chen">Mei Chen</option>`, "Submit new issue"}},
		{"northwind/infra/settings", []string{`aria-labelledby="sw-wikis-label"`, "Save changes"}},
		{"northwind/infra/settings/notifications", []string{`id="sw-releases-label"`, "Save notification settings"}},
		{"settings/notifications", []string{`id="sw-weekly_digest-label"`, "Save notification preferences"}},
		{"northwind/storefront/blob/main/package.json", []string{`&#34;version&#34;: &#34;3.2.0&#34;`}},
		{"northwind/storefront/tree/main/app", []string{"layout.tsx"}},
		{"northwind/storefront/commits/main", []string{"Bump next from 15.1.2 to 15.2.0"}},
		{"northwind/storefront/pulls", []string{"Keep the cart badge in sync"}},
	} {
		code, body, _ := rsGet(t, tn.URL(tc.path))
		if code != http.StatusOK {
			t.Errorf("GET %s: %d", tc.path, code)
			continue
		}
		rsWant(t, body, tc.want...)
		if strings.Contains(body, "<template id=\"app\">") || strings.Contains(body, "<body data-churn") {
			t.Errorf("GET %s: a mutation's markup without the mutation", tc.path)
		}
	}
	for _, p := range []string{"northwind/nope", "northwind/storefront/issues/9999", "northwind/storefront/blob/main/app", "elsewhere/x"} {
		if code, _, _ := rsGet(t, tn.URL(p)); code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
}

// A client-side navigation (X-PJAX) gets the tab's content alone, with its title and tab in headers.
func TestCodePjax(t *testing.T) {
	srv := startServer(t)
	tn := newTenant(t, srv, "code")
	req, _ := http.NewRequest(http.MethodGet, tn.URL("northwind/storefront/releases"), nil)
	req.Header.Set("X-PJAX", "true")
	resp, err := rsClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.WriteString(string(buf[:n]))
		if err != nil {
			break
		}
	}
	body := b.String()
	if resp.Header.Get("X-Tab") != "releases" || resp.Header.Get("X-Page-Title") != "Releases · northwind/storefront · Gitlane" {
		t.Errorf("headers %v", resp.Header)
	}
	if strings.Contains(body, "<html") || strings.Contains(body, "repo-tabs") || !strings.Contains(body, "Released on Mar 18, 2026") {
		t.Errorf("pjax body is not the tab's content alone: %.300s", body)
	}
}

func TestCodeState(t *testing.T) {
	srv := startServer(t)
	tn := newTenant(t, srv, "code")
	st := rsState(t, tn)
	if len(st["issues"].([]any)) != 0 || len(st["stars"].([]any)) != 0 || len(st["watching"].([]any)) != 0 {
		t.Fatalf("fresh state %v", st)
	}
	if got := st["notifications"].(map[string]any)["northwind/storefront"].(map[string]any)["releases"]; got != false {
		t.Errorf("storefront releases default %v, want false", got)
	}
	// An issue: labels sorted, number past the repository's highest (pull 235).
	code, _, h := rsPost(t, tn.URL("northwind/payments-api/issues"), url.Values{"title": {" Cards declined twice "},
		"body": {"Seen at 09:14."}, "assignee": {"mei-chen"}, "labels": {"question", "bug", "nope"}})
	if code != http.StatusSeeOther || !strings.HasSuffix(h.Get("Location"), "/code/northwind/payments-api/issues/236") {
		t.Fatalf("create: %d %s", code, h.Get("Location"))
	}
	_, body, _ := rsGet(t, tn.URL("northwind/payments-api/issues/236"))
	rsWant(t, body, "Cards declined twice", `<a href="./#mei-chen">mei-chen</a>`)
	code, body, _ = rsPost(t, tn.URL("northwind/payments-api/issues"), url.Values{"title": {" "}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Title can&#39;t be blank.") {
		t.Errorf("blank title: %d", code)
	}
	rsPost(t, tn.URL("northwind/infra/issues/129/labels"), url.Values{"labels": {"help wanted", "bug"}})
	rsPost(t, tn.URL("northwind/infra/star"), url.Values{"back": {"/"}})
	rsPost(t, tn.URL("northwind/storefront/star"), nil)
	rsPost(t, tn.URL("northwind/storefront/star"), nil) // unstar
	code, _, h = rsPost(t, tn.URL("northwind/data-pipeline/subscription"), nil)
	if code != http.StatusSeeOther || !strings.HasSuffix(h.Get("Location"), "/code/northwind/data-pipeline") {
		t.Errorf("watch: %d %s", code, h.Get("Location"))
	}
	rsPost(t, tn.URL("northwind/storefront/settings/notifications"), url.Values{"releases": {"true"}, "issues": {"false"}})
	rsPost(t, tn.URL("northwind/infra/settings/features"), url.Values{"wikis": {"false"}})
	rsPost(t, tn.URL("settings/notifications"), url.Values{"weekly_digest": {"true"}})
	got := string(tn.State())
	for _, want := range []string{
		`"issues":[{"assignee":"mei-chen","body":"Seen at 09:14.","labels":["bug","question"],"number":236,"repo":"northwind/payments-api","title":"Cards declined twice"}]`,
		`"issue_labels":[{"labels":["bug","help wanted"],"number":129,"repo":"northwind/infra"}]`,
		`"stars":["northwind/infra"]`, `"watching":["northwind/data-pipeline"]`,
		`"northwind/storefront":{"discussions":false,"issues":false,"pull_requests":true,"releases":true,"security_alerts":true}`,
		`"northwind/infra":{"discussions":`, `"weekly_digest":true`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("state lacks %s:\n%s", want, got)
		}
	}
	if !strings.Contains(got, `"wikis":false`) {
		t.Errorf("features not saved: %s", got)
	}
	_, body, _ = rsGet(t, tn.URL(""))
	rsWant(t, body, `aria-label="Unstar infra"`, `aria-label="Star storefront"`)
}

func TestCodeMutations(t *testing.T) {
	srv := startServer(t)
	late := newTenant(t, srv, "code", "late_hydration")
	_, body, _ := rsGet(t, late.URL("northwind/storefront/issues"))
	rsWant(t, body, `<div id="boot" class="boot"><img src="static/mark.svg" alt="Gitlane"`, `<template id="app">`,
		`data-hydration-delay-ms="2000" data-hydration-load-factor="4" data-hydration-max-ms="8000"`)
	if i, j := strings.Index(body, "<template id=\"app\">"), strings.Index(body, "New issue"); i < 0 || j < i {
		t.Errorf("the issue list is not inside the template")
	}
	churn := newTenant(t, srv, "code", "ref_churn")
	_, body, _ = rsGet(t, churn.URL(""))
	rsWant(t, body, "<body data-churn>", `data-churn-region="repositories"`, `<script src="static/churn.js">`)
	_, body, _ = rsGet(t, churn.URL("northwind/storefront/issues"))
	rsWant(t, body, `data-churn-region="issues"`, `data-alt-text="#412 by mei-chen was opened on Mar 17, 2026"`)
	if code, js, _ := rsGet(t, churn.URL("static/churn.js")); code != http.StatusOK || !strings.Contains(js, "data-churn-region") {
		t.Errorf("churn.js: %d", code)
	}
	nameless := newTenant(t, srv, "code", "nameless_switch")
	_, body, _ = rsGet(t, nameless.URL("northwind/storefront/settings/notifications"))
	if strings.Count(body, `role="switch"`) != 5 || strings.Contains(body, "aria-labelledby=\"sw-") {
		t.Errorf("nameless switches: %d switches, labelled: %v", strings.Count(body, `role="switch"`),
			strings.Contains(body, "aria-labelledby=\"sw-"))
	}
	busy := newTenant(t, srv, "code", "busy_script")
	_, body, _ = rsGet(t, busy.URL("northwind/storefront"))
	rsWant(t, body, `data-busy-ms="30000"`)
	hung := newTenant(t, srv, "code", "hung_fetch")
	if !rsNeverAnswers(t, hung.URL("api/repos/northwind/storefront/contributors"), 300*time.Millisecond) {
		t.Errorf("hung_fetch: the contributors API answered")
	}
	plain := newTenant(t, srv, "code")
	code, js, _ := rsGet(t, plain.URL("api/repos/northwind/storefront/contributors"))
	if code != http.StatusOK || !strings.Contains(js, `"login": "mei-chen",
    "name": "Mei Chen",
    "contributions": 1458`) {
		t.Errorf("contributors: %d %s", code, js)
	}
	consent := newTenant(t, srv, "code", "consent")
	_, body, _ = rsGet(t, consent.URL("northwind/storefront"))
	rsWant(t, body, "onetrust")
}

// The code app's families: how many exercise each guard (the Zoo's per-guard coverage counts them), 4–6
// instances each, every Q&A family tagged as the Zoo's Q&A families are.
func TestCodeFamilies(t *testing.T) {
	all, err := BuiltinInstances()
	if err != nil {
		t.Fatal(err)
	}
	size, guard, qa := map[string]int{}, map[string]map[string]bool{}, map[string]bool{}
	for _, tk := range all {
		if tk.App != "code" {
			continue
		}
		f := Family(tk)
		size[f]++
		for _, m := range tk.Mutations {
			mu, _ := LookupMutation(m)
			if guard[mu.Guard] == nil {
				guard[mu.Guard] = map[string]bool{}
			}
			guard[mu.Guard][f] = true
		}
		if slices.Contains(tk.Tags, "qa") {
			qa[f] = true
			if !slices.Contains(tk.Tags, "repeat_guard") || !slices.Contains(tk.Tags, "final_recovery") {
				t.Errorf("%s: a Q&A task without the repeat_guard and final_recovery tags", tk.ID)
			}
		}
	}
	for f, n := range size {
		if n < 4 || n > 6 {
			t.Errorf("family %s: %d instances, want 4–6", f, n)
		}
	}
	want := map[string]int{"snapshot_ready": 4, "visual_progress": 3, "stale_ref_refresh": 3, "evaluate_isolation": 2,
		"intercept_hint": 3}
	for g, n := range want {
		if len(guard[g]) != n {
			t.Errorf("%s: %d code families, want %d", g, len(guard[g]), n)
		}
	}
	if len(size) != 20 || len(qa) != 7 {
		t.Errorf("%d code families (%d Q&A), want 20 (7)", len(size), len(qa))
	}
}
