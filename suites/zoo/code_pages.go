package zoo

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// The `code` app's repository tabs (code.go has the app, its routes and its state).

// codeFileView is a file or directory page: the path, its parent directory's entries or the file's lines.
type codeFileView struct {
	Path    string
	Parent  string
	Entries []codeEntry
	Lines   []string
}

func (s *codeInstance) code(r *http.Request, repo *codeRepo) codeView {
	return codeView{Content: "code", Tab: "code", Title: repo.Description, Data: codeReadme(repo)}
}

// codeReadme is the README's paragraphs.
func codeReadme(repo *codeRepo) []string {
	return []string{repo.Description,
		fmt.Sprintf("Issues and pull requests are welcome: read CONTRIBUTING in .github/ first. The latest release is %s (%s).",
			repo.Releases[0].Tag, codeDate(repo.Releases[0].Date)),
		"Maintained by the Northwind platform team. Licensed under the MIT License."}
}

// codeDirFiles are the files a root directory lists (the same few names in every repository).
var codeDirFiles = map[string][]string{
	".github": {"CODEOWNERS", "CONTRIBUTING.md", "workflows"}, "app": {"layout.tsx", "page.tsx", "cart"},
	"components": {"Button.tsx", "CartBadge.tsx"}, "public": {"favicon.ico", "robots.txt"},
	"cmd": {"server"}, "internal": {"refunds", "payouts", "webhooks"}, "migrations": {"0001_init.sql"},
	"android": {"app", "build.gradle.kts"}, "ios": {"Northwind.xcodeproj", "Podfile"}, "fastlane": {"Fastfile"},
	"packages": {"react", "icons"}, "tokens": {"color.json", "space.json"}, "docs": {"getting-started.mdx"},
	"dags": {"orders_nightly.py", "returns_backfill.py"}, "sql": {"orders.sql"}, "tests": {"test_orders.py"},
	"modules": {"cdn", "database", "load-balancer"}, "environments": {"staging", "production"},
	"scripts": {"rotate-credentials.sh"},
}

func (s *codeInstance) tree(r *http.Request, repo *codeRepo) codeView {
	dir := strings.Trim(r.PathValue("path"), "/")
	i := slices.IndexFunc(repo.Entries, func(e codeEntry) bool { return e.Dir && e.Name == dir })
	if i < 0 {
		return codeView{}
	}
	v := &codeFileView{Path: dir}
	for _, n := range codeDirFiles[dir] {
		v.Entries = append(v.Entries, codeEntry{Name: n, Dir: !strings.Contains(n, "."), Message: repo.Entries[i].Message,
			Date: repo.Entries[i].Date})
	}
	return codeView{Content: "tree", Tab: "code", Title: dir, Data: v}
}

func (s *codeInstance) blob(r *http.Request, repo *codeRepo) codeView {
	p := strings.Trim(r.PathValue("path"), "/")
	lines := codeFileLines(repo, p)
	if lines == nil {
		return codeView{}
	}
	return codeView{Content: "blob", Tab: "code", Title: p, Data: &codeFileView{Path: p, Lines: lines}}
}

// codeFileLines is a root file's text (nil for a path the tree does not list as a file).
func codeFileLines(repo *codeRepo, p string) []string {
	if !slices.ContainsFunc(repo.Entries, func(e codeEntry) bool { return !e.Dir && e.Name == p }) {
		return nil
	}
	tag := strings.TrimPrefix(repo.Releases[0].Tag, "v")
	switch p {
	case "README.md":
		out := []string{"# " + repo.Name, ""}
		for _, para := range codeReadme(repo) {
			out = append(out, para, "")
		}
		return out
	case "package.json":
		return []string{"{", fmt.Sprintf(`  "name": "@northwind/%s",`, repo.Name), fmt.Sprintf(`  "version": "%s",`, tag),
			`  "private": true,`, `  "scripts": { "build": "next build", "test": "vitest run" }`, "}"}
	case "go.mod":
		return []string{"module github.example/northwind/" + repo.Name, "", "go 1.24", "",
			"require github.com/jackc/pgx/v5 v5.7.2"}
	case "LICENSE":
		return []string{"MIT License", "", "Copyright (c) 2026 Northwind Outfitters"}
	}
	return []string{"# " + p + " — " + repo.Full(), "# " + repo.Entries[0].Message}
}

func (s *codeInstance) commits(r *http.Request, repo *codeRepo) codeView {
	var msgs []codeEntry
	for _, e := range repo.Entries {
		if !slices.ContainsFunc(msgs, func(m codeEntry) bool { return m.Message == e.Message }) {
			msgs = append(msgs, e)
		}
	}
	return codeView{Content: "commits", Tab: "code", Title: "Commits", Data: msgs}
}

// codeIssueView is an issue as the list and the issue page show it (seeded or created, labels as applied).
type codeIssueView struct {
	codeIssue
	Mine bool
}

// issueList returns the repository's issues, newest first: the viewer's, then the seeded ones with the labels
// the viewer applied.
func (s *codeInstance) issueList(repo *codeRepo) []codeIssueView {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []codeIssueView
	for i := len(s.Created) - 1; i >= 0; i-- {
		c := s.Created[i]
		if c.Repo == repo.Full() {
			out = append(out, codeIssueView{codeIssue{Number: c.Number, Title: c.Title, Labels: c.Labels,
				Assignee: c.Assignee, Author: codeViewer.Login, Opened: "2026-03-23", Body: c.Body}, true})
		}
	}
	for _, is := range repo.Issues {
		for _, e := range s.Edits {
			if e.Repo == repo.Full() && e.Number == is.Number {
				is.Labels = e.Labels
			}
		}
		out = append(out, codeIssueView{is, false})
	}
	return out
}

func (s *codeInstance) issues(r *http.Request, repo *codeRepo) codeView {
	return codeView{Content: "issues", Tab: "issues", Title: "Issues", Data: s.issueList(repo)}
}

func (s *codeInstance) issue(r *http.Request, repo *codeRepo) codeView {
	n := codeAtoi(r.PathValue("n"))
	for _, is := range s.issueList(repo) {
		if is.Number == n {
			return codeView{Content: "issue", Tab: "issues", Title: fmt.Sprintf("%s #%d", is.Title, n),
				Data: map[string]any{"I": is, "Labels": codeLabels}}
		}
	}
	return codeView{}
}

// codeNewIssue is the new-issue form's data: the choices and, after a refusal, what was sent and why.
type codeNewIssue struct {
	People  []codePerson
	Labels  []codeLabel
	Sent    codeCreated
	Problem string
}

func (s *codeInstance) newIssue(r *http.Request, repo *codeRepo) codeView {
	return codeView{Content: "issue_new", Tab: "issues", Title: "New issue",
		Data: &codeNewIssue{People: codePeople, Labels: codeLabels}}
}

// checkedLabels reads the labels a form checked (known names only), sorted.
func checkedLabels(r *http.Request) []string {
	out := []string{}
	for _, l := range r.PostForm["labels"] {
		if codeLabelByName(l) != nil && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// createIssue files the viewer's issue (number: one past the repository's highest, counting the viewer's)
// and shows it; an empty title or an unknown assignee is refused with the form (422).
func (s *codeInstance) createIssue(r *http.Request, repo *codeRepo) codeView {
	r.ParseForm()
	c := codeCreated{Repo: repo.Full(), Title: strings.TrimSpace(r.PostFormValue("title")),
		Body: strings.TrimSpace(r.PostFormValue("body")), Labels: checkedLabels(r),
		Assignee: r.PostFormValue("assignee")}
	problem := ""
	switch {
	case c.Title == "":
		problem = "Title can't be blank."
	case c.Assignee != "" && codePersonByLogin(c.Assignee) == nil:
		problem = "Assignee is not a member of northwind."
	}
	if problem != "" {
		return codeView{Content: "issue_new", Tab: "issues", Title: "New issue", Status: http.StatusUnprocessableEntity,
			Data: &codeNewIssue{People: codePeople, Labels: codeLabels, Sent: c, Problem: problem}}
	}
	s.mu.Lock()
	top := 0
	for _, is := range repo.Issues {
		top = max(top, is.Number)
	}
	for _, p := range repo.Pulls {
		top = max(top, p.Number)
	}
	for _, x := range s.Created {
		if x.Repo == repo.Full() {
			top = max(top, x.Number)
		}
	}
	c.Number = top + 1
	s.Created = append(s.Created, c)
	s.mu.Unlock()
	return codeView{Location: fmt.Sprintf("northwind/%s/issues/%d", repo.Name, c.Number)}
}

// editLabels applies the labels checked in the issue page's label menu to a seeded issue (a created issue's
// labels are edited in its own record).
func (s *codeInstance) editLabels(r *http.Request, repo *codeRepo) codeView {
	r.ParseForm()
	n := codeAtoi(r.PathValue("n"))
	labels := checkedLabels(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case repo.Issue(n) != nil:
		i := slices.IndexFunc(s.Edits, func(e codeLabelEdit) bool { return e.Repo == repo.Full() && e.Number == n })
		if i < 0 {
			s.Edits = append(s.Edits, codeLabelEdit{Repo: repo.Full(), Number: n})
			i = len(s.Edits) - 1
		}
		s.Edits[i].Labels = labels
	default:
		i := slices.IndexFunc(s.Created, func(c codeCreated) bool { return c.Repo == repo.Full() && c.Number == n })
		if i < 0 {
			return codeView{}
		}
		s.Created[i].Labels = labels
	}
	return codeView{Location: fmt.Sprintf("northwind/%s/issues/%d", repo.Name, n)}
}

func (s *codeInstance) pulls(r *http.Request, repo *codeRepo) codeView {
	return codeView{Content: "pulls", Tab: "pulls", Title: "Pull requests", Data: repo.Pulls}
}

func (s *codeInstance) releases(r *http.Request, repo *codeRepo) codeView {
	return codeView{Content: "releases", Tab: "releases", Title: "Releases", Data: repo.Releases}
}

// codeSettingsView is a settings form: its heading, where it posts, its switches and its submit button's text.
type codeSettingsView struct {
	Section, Heading, Action, Submit string
	Switches                         []codeSwitchRow
	Nameless                         bool
}

func (s *codeInstance) settingsView(repo *codeRepo, notify bool) codeView {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := &codeSettingsView{Section: "general", Heading: "Features", Action: "settings/features",
		Submit: "Save changes", Switches: codeSwitchRows(codeFeatureSwitches, s.Features[repo.Full()])}
	if notify {
		v = &codeSettingsView{Section: "notifications", Heading: "Notifications", Action: "settings/notifications",
			Submit: "Save notification settings", Switches: codeSwitchRows(codeNotifySwitches, s.Notify[repo.Full()])}
	}
	v.Action = "northwind/" + repo.Name + "/" + v.Action
	v.Nameless = s.env.Mutations.Has("nameless_switch")
	return codeView{Content: "settings", Tab: "settings", Title: v.Heading, Data: v}
}

func (s *codeInstance) settings(r *http.Request, repo *codeRepo) codeView {
	return s.settingsView(repo, false)
}

func (s *codeInstance) notifications(r *http.Request, repo *codeRepo) codeView {
	return s.settingsView(repo, true)
}

func (s *codeInstance) saveFeatures(r *http.Request, repo *codeRepo) codeView {
	s.mu.Lock()
	readSwitches(r, codeFeatureSwitches, s.Features[repo.Full()])
	s.mu.Unlock()
	return codeView{Location: "northwind/" + repo.Name + "/settings?notice=" + url.QueryEscape("Settings saved.")}
}

func (s *codeInstance) saveNotifications(r *http.Request, repo *codeRepo) codeView {
	s.mu.Lock()
	readSwitches(r, codeNotifySwitches, s.Notify[repo.Full()])
	s.mu.Unlock()
	return codeView{Location: "northwind/" + repo.Name + "/settings/notifications?notice=" +
		url.QueryEscape("Notification settings saved.")}
}
