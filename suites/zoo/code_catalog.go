package zoo

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The `code` app's catalog: the Northwind organisation's repositories on "Gitlane" (a GitHub-like code host),
// their files, languages, issues, pull requests and releases, the people who work on them, and the switches of
// the notification and feature settings. Fixed data: the pages, the task families' params (the code.* domains
// registered below) and the checks all read it, so a goal, its check and its solution agree.

// codeOrg is the one organisation the app hosts; every repository path is /northwind/{repo}.
const codeOrg = "northwind"

// codeLanguage is one row of a repository's "Languages" bar: the share of its code, in percent, one decimal.
type codeLanguage struct {
	Name string
	Pct  float64
}

// codeIssue is a seeded issue. Assignee is a login ("" when nobody is assigned); Opened is an ISO date.
type codeIssue struct {
	Number           int
	Title            string
	Labels           []string
	Assignee, Author string
	Opened           string
	Comments         int
	Body             string
}

// codePull is a seeded open pull request from Branch into main.
type codePull struct {
	Number                int
	Title, Author, Branch string
}

// codeRelease is a published release: its tag, its title, its ISO date and one line of notes. A repository's
// releases are listed newest first; the first is "Latest".
type codeRelease struct {
	Tag, Name, Date, Notes string
}

// codeEntry is a root entry of a repository's file tree with the message and date of the last commit that
// touched it.
type codeEntry struct {
	Name    string
	Dir     bool
	Message string
	Date    string
}

// codeRepo is a repository of the organisation.
type codeRepo struct {
	Name, Description, Topics string
	Languages                 []codeLanguage
	Stars, Forks, Watchers    int
	Commits                   int
	Updated                   string
	Entries                   []codeEntry
	Issues                    []codeIssue
	Pulls                     []codePull
	Releases                  []codeRelease
}

// Full is the repository's full name, "northwind/storefront".
func (r *codeRepo) Full() string { return codeOrg + "/" + r.Name }

// Language is the repository's main language (the first of its Languages).
func (r *codeRepo) Language() string { return r.Languages[0].Name }

// Issue returns the seeded issue number n, or nil.
func (r *codeRepo) Issue(n int) *codeIssue {
	for i := range r.Issues {
		if r.Issues[i].Number == n {
			return &r.Issues[i]
		}
	}
	return nil
}

// codePerson is a member of the organisation (an assignee, an author).
type codePerson struct{ Login, Name string }

// codeViewer is the signed-in user every tenant browses as.
var codeViewer = codePerson{"alex-rivera", "Alex Rivera"}

var codePeople = []codePerson{
	{"dana-kim", "Dana Kim"}, {"luis-ortega", "Luis Ortega"}, {"mei-chen", "Mei Chen"},
	{"priya-nair", "Priya Nair"}, {"sam-okafor", "Sam Okafor"},
}

func codePersonByLogin(login string) *codePerson {
	for i := range codePeople {
		if codePeople[i].Login == login {
			return &codePeople[i]
		}
	}
	return nil
}

// codeLabel is one of the labels every repository has (GitHub's default set, with its descriptions).
type codeLabel struct{ Name, Description, Color string }

var codeLabels = []codeLabel{
	{"bug", "Something isn't working", "d73a4a"},
	{"documentation", "Improvements or additions to documentation", "0075ca"},
	{"duplicate", "This issue or pull request already exists", "cfd3d7"},
	{"enhancement", "New feature or request", "a2eeef"},
	{"good first issue", "Good for newcomers", "7057ff"},
	{"help wanted", "Extra attention is needed", "008672"},
	{"invalid", "This doesn't seem right", "e4e669"},
	{"question", "Further information is requested", "d876e3"},
	{"wontfix", "This will not be worked on", "ffffff"},
}

func codeLabelByName(name string) *codeLabel {
	for i := range codeLabels {
		if codeLabels[i].Name == name {
			return &codeLabels[i]
		}
	}
	return nil
}

// codeSwitch is one switch of a settings form: its form key, its visible label and its help text.
type codeSwitch struct{ Key, Label, Help string }

// codeNotifySwitches are a repository's Settings → Notifications switches (what a custom watch sends).
var codeNotifySwitches = []codeSwitch{
	{"issues", "Issues", "Opened, closed and commented issues."},
	{"pull_requests", "Pull requests", "New pull requests, reviews and merges."},
	{"releases", "Releases", "Published releases."},
	{"discussions", "Discussions", "New discussions and answers."},
	{"security_alerts", "Security alerts", "Dependabot alerts for this repository."},
}

// codeFeatureSwitches are a repository's Settings → General → Features switches.
var codeFeatureSwitches = []codeSwitch{
	{"wikis", "Wikis", "Wikis host documentation for your repository."},
	{"projects", "Projects", "Projects on Gitlane are flexible tables and boards for planning work."},
	{"discussions", "Discussions", "A place for your community to ask questions and share ideas."},
	{"sponsorships", "Sponsorships", "Show a Sponsor button on the repository."},
}

// codeAccountSwitches are the viewer's account-wide notification switches (/settings/notifications).
var codeAccountSwitches = []codeSwitch{
	{"participating_email", "Participating, @mentions and custom: email", "Email me about threads I take part in."},
	{"watching_email", "Watching: email", "Email me about activity in repositories I watch."},
	{"watching_web", "Watching: on Gitlane", "Show activity of watched repositories in my inbox."},
	{"actions_failed_only", "Actions: only failed workflows", "Notify me only when a workflow I triggered fails."},
	{"dependabot_email", "Dependabot alerts: email", "Email me new vulnerability alerts."},
	{"weekly_digest", "Weekly security digest", "A weekly summary of alerts across my repositories."},
}

// codeDefault is switch k's initial value for repository index ri (−1: the account): a fixed pattern, so some
// switches start on and some off.
func codeDefault(ri, k int) bool { return (ri*3+k*5)%4 < 2 }

var codeRepos = []codeRepo{
	{Name: "storefront", Description: "Next.js storefront for Northwind Outfitters: catalogue, cart and checkout.",
		Topics:    "nextjs, ecommerce, typescript",
		Languages: []codeLanguage{{"TypeScript", 78.4}, {"CSS", 12.9}, {"JavaScript", 6.1}, {"Shell", 2.6}},
		Stars:     342, Forks: 57, Watchers: 18, Commits: 2917, Updated: "2026-03-20",
		Entries: codeEntries("Bump next from 15.1.2 to 15.2.0", ".github/", "app/", "components/", "public/",
			"package.json", "tsconfig.json", "README.md", "LICENSE"),
		Issues: []codeIssue{
			{412, "Cart badge shows a stale count after removing an item", []string{"bug"}, "luis-ortega", "mei-chen", "2026-03-17", 4, "Removing the last item leaves the badge at 1 until the page is reloaded."},
			{409, "Add a size guide dialog to product pages", []string{"enhancement"}, "priya-nair", "dana-kim", "2026-03-12", 2, "Apparel pages need the size chart that the catalogue team sent."},
			{405, "Search results flash before the filters apply", []string{"bug", "help wanted"}, "dana-kim", "sam-okafor", "2026-03-06", 7, "The unfiltered list renders for a frame after every filter change."},
			{398, "Document the checkout feature flags", []string{"documentation"}, "sam-okafor", "luis-ortega", "2026-02-26", 1, "List every flag, its default and who owns it."},
			{391, "Guest checkout loses the shipping method on back navigation", []string{"bug"}, "mei-chen", "priya-nair", "2026-02-19", 3, "Going back from the payment step resets the method to Standard."},
		},
		Pulls: []codePull{{414, "Keep the cart badge in sync with the cart store", "luis-ortega", "fix/cart-badge"},
			{410, "Size guide dialog", "priya-nair", "feat/size-guide"}},
		Releases: []codeRelease{
			{"v3.2.0", "Saved carts", "2026-03-18", "Carts survive a new session for signed-in shoppers."},
			{"v3.1.2", "Checkout fixes", "2026-02-24", "Fixes the postcode validation for Canadian addresses."},
			{"v3.1.0", "Express shipping", "2026-01-29", "Adds the express shipping method to the checkout."},
			{"v3.0.0", "App router", "2025-11-12", "Moves every page to the app router."},
		}},
	{Name: "payments-api", Description: "Payments service: card authorisation, refunds and payouts.",
		Topics:    "payments, go, postgres",
		Languages: []codeLanguage{{"Go", 91.2}, {"PLpgSQL", 5.3}, {"Makefile", 2.1}, {"Dockerfile", 1.4}},
		Stars:     128, Forks: 21, Watchers: 11, Commits: 1486, Updated: "2026-03-16",
		Entries: codeEntries("Retry refunds with exponential backoff", ".github/", "cmd/", "internal/", "migrations/",
			"go.mod", "Makefile", "Dockerfile", "README.md"),
		Issues: []codeIssue{
			{233, "Refund webhook retries ignore Retry-After", []string{"bug"}, "sam-okafor", "dana-kim", "2026-03-14", 5, "The retry loop uses its own backoff even when the provider asks for more time."},
			{230, "Support partial captures for split shipments", []string{"enhancement"}, "dana-kim", "luis-ortega", "2026-03-09", 3, "An order shipped in two parcels should capture twice."},
			{227, "Explain idempotency keys in the API reference", []string{"documentation"}, "priya-nair", "mei-chen", "2026-03-02", 0, "Which endpoints take Idempotency-Key and for how long keys are kept."},
			{221, "Payout report totals are off by one cent", []string{"bug", "help wanted"}, "luis-ortega", "sam-okafor", "2026-02-20", 9, "Rounding each line before summing loses a cent on large reports."},
			{218, "Are 3-D Secure exemptions logged?", []string{"question"}, "mei-chen", "priya-nair", "2026-02-13", 2, "Audit needs to know where exemptions are recorded."},
		},
		Pulls: []codePull{{235, "Honour Retry-After in the webhook retrier", "sam-okafor", "fix/retry-after"},
			{231, "Partial captures", "dana-kim", "feat/partial-capture"}},
		Releases: []codeRelease{
			{"v1.14.0", "Partial refunds", "2026-03-05", "Refunds can be split across several payouts."},
			{"v1.13.1", "Webhook fixes", "2026-02-11", "Signs webhook payloads with the rotated key."},
			{"v1.13.0", "Payout reports", "2026-01-20", "Adds the daily payout report endpoint."},
		}},
	{Name: "mobile-app", Description: "Northwind Outfitters for Android and iOS.",
		Topics:    "android, ios, kotlin, swift",
		Languages: []codeLanguage{{"Kotlin", 64.7}, {"Swift", 31.8}, {"Ruby", 3.5}},
		Stars:     96, Forks: 14, Watchers: 9, Commits: 3402, Updated: "2026-03-22",
		Entries: codeEntries("Release 5.8.1", ".github/", "android/", "ios/", "fastlane/", "Gemfile",
			"README.md", "LICENSE"),
		Issues: []codeIssue{
			{587, "Crash when rotating the device on the order summary", []string{"bug"}, "mei-chen", "luis-ortega", "2026-03-19", 6, "Android 15 only; the view model is recreated without its order."},
			{581, "Dark mode for the wishlist screen", []string{"enhancement"}, "luis-ortega", "priya-nair", "2026-03-11", 1, "The wishlist still uses the light palette."},
			{574, "Push opt-in prompt appears twice on first launch", []string{"bug"}, "priya-nair", "sam-okafor", "2026-03-03", 4, "Both the onboarding and the home screen ask."},
			{569, "Update the release checklist for the App Store", []string{"documentation"}, "dana-kim", "mei-chen", "2026-02-24", 0, "The privacy manifest step is missing."},
			{560, "Align the empty-cart illustration", []string{"good first issue"}, "sam-okafor", "dana-kim", "2026-02-10", 2, "It sits 8 px left of centre on tablets."},
		},
		Pulls: []codePull{{589, "Keep the order in the saved state on rotation", "mei-chen", "fix/rotation-crash"},
			{583, "Wishlist dark palette", "luis-ortega", "feat/wishlist-dark"}},
		Releases: []codeRelease{
			{"v5.8.1", "Checkout hotfix", "2026-03-22", "Fixes a crash when Apple Pay is cancelled."},
			{"v5.8.0", "Order tracking", "2026-03-09", "Live order tracking on the order page."},
			{"v5.7.0", "Wishlist sharing", "2026-02-02", "Share a wishlist by link."},
		}},
	{Name: "design-system", Description: "Tokens, icons and React components shared across Northwind apps.",
		Topics:    "design-system, react, tokens",
		Languages: []codeLanguage{{"TypeScript", 58.3}, {"SCSS", 29.6}, {"MDX", 12.1}},
		Stars:     511, Forks: 73, Watchers: 24, Commits: 1129, Updated: "2026-03-13",
		Entries: codeEntries("Add focus-visible tokens", ".github/", "packages/", "tokens/", "docs/",
			"package.json", "README.md", "LICENSE"),
		Issues: []codeIssue{
			{156, "Button focus ring is invisible on dark surfaces", []string{"bug"}, "dana-kim", "mei-chen", "2026-03-15", 3, "The ring uses the surface colour at 20% opacity."},
			{152, "Add a Switch component with a visible label", []string{"enhancement"}, "mei-chen", "priya-nair", "2026-03-08", 5, "Our toggles ship without an accessible name."},
			{149, "Storybook docs for the Toast component", []string{"documentation"}, "luis-ortega", "sam-okafor", "2026-03-01", 0, "Props and the timing guidance are undocumented."},
			{143, "Icon font ships unused glyphs", []string{"help wanted"}, "sam-okafor", "dana-kim", "2026-02-18", 2, "Half of the glyphs are never referenced."},
			{138, "Which token should disabled text use?", []string{"question"}, "priya-nair", "luis-ortega", "2026-02-05", 4, "text-muted and text-disabled look the same in light mode."},
		},
		Pulls: []codePull{{157, "Focus ring tokens for dark surfaces", "dana-kim", "fix/focus-ring"}},
		Releases: []codeRelease{
			{"v2.6.0", "Switch and Toast", "2026-02-27", "Adds the Switch and Toast components."},
			{"v2.5.3", "Token fixes", "2026-01-15", "Corrects the warning palette's contrast."},
			{"v2.5.0", "Dark theme", "2025-12-03", "Dark theme tokens for every component."},
		}},
	{Name: "data-pipeline", Description: "Nightly ETL from the order database to the analytics warehouse.",
		Topics:    "etl, airflow, python",
		Languages: []codeLanguage{{"Python", 88.9}, {"SQL", 9.7}, {"Dockerfile", 1.4}},
		Stars:     64, Forks: 9, Watchers: 7, Commits: 847, Updated: "2026-03-11",
		Entries: codeEntries("Skip orders without a postcode", ".github/", "dags/", "sql/", "tests/",
			"requirements.txt", "Dockerfile", "README.md"),
		Issues: []codeIssue{
			{74, "Nightly load fails on orders with a null postcode", []string{"bug"}, "priya-nair", "sam-okafor", "2026-03-10", 3, "The COPY step rejects the row and the whole batch."},
			{71, "Backfill job for the 2025 returns table", []string{"enhancement"}, "sam-okafor", "mei-chen", "2026-03-04", 1, "Returns before March 2025 are missing."},
			{68, "Describe the warehouse schema in the README", []string{"documentation"}, "mei-chen", "dana-kim", "2026-02-25", 0, "New analysts ask for it every week."},
			{65, "Dedupe customers by normalised email", []string{"enhancement", "help wanted"}, "dana-kim", "luis-ortega", "2026-02-16", 6, "Case and dots in Gmail addresses create duplicates."},
			{61, "Airflow DAG times out at month end", []string{"bug"}, "luis-ortega", "priya-nair", "2026-02-02", 8, "The orders task runs past its 2-hour timeout."},
		},
		Pulls: []codePull{{75, "Skip orders without a postcode", "priya-nair", "fix/null-postcode"}},
		Releases: []codeRelease{
			{"v0.9.2", "Null-safe loads", "2026-03-11", "Rows with missing postcodes are quarantined."},
			{"v0.9.0", "Returns table", "2026-01-08", "Loads the returns table nightly."},
		}},
	{Name: "infra", Description: "Terraform modules and deployment workflows for every Northwind service.",
		Topics:    "terraform, aws, ci",
		Languages: []codeLanguage{{"HCL", 82.5}, {"Shell", 11.2}, {"Python", 6.3}},
		Stars:     41, Forks: 6, Watchers: 12, Commits: 1973, Updated: "2026-03-19",
		Entries: codeEntries("Pin the AWS provider to 5.82", ".github/", "modules/", "environments/", "scripts/",
			"main.tf", "README.md"),
		Issues: []codeIssue{
			{129, "Staging load balancer health check points at the old path", []string{"bug"}, "luis-ortega", "dana-kim", "2026-03-18", 2, "It still probes /healthz instead of /health."},
			{126, "Module for the read replica in eu-west-1", []string{"enhancement"}, "priya-nair", "sam-okafor", "2026-03-07", 3, "Reporting needs a replica close to the warehouse."},
			{122, "Runbook for rotating the database credentials", []string{"documentation"}, "sam-okafor", "mei-chen", "2026-02-27", 1, "Step by step, including the application restarts."},
			{117, "Terraform plan shows drift on the CDN cache rules", []string{"bug", "help wanted"}, "mei-chen", "luis-ortega", "2026-02-14", 5, "Someone edited the rules in the console."},
			{113, "Pin the provider versions", []string{"good first issue"}, "dana-kim", "priya-nair", "2026-02-01", 0, "Every module should pin its providers."},
		},
		Pulls: []codePull{{131, "Point the staging health check at /health", "luis-ortega", "fix/staging-health"}},
		Releases: []codeRelease{
			{"v4.1.0", "Read replicas", "2026-03-02", "A module for cross-region read replicas."},
			{"v4.0.0", "Terraform 1.10", "2025-12-15", "Requires Terraform 1.10 or later."},
		}},
}

// codeEntries builds a root listing: names ending in "/" are directories; every entry's last commit is msg,
// dated over the preceding weeks (a fixed pattern).
func codeEntries(msg string, names ...string) []codeEntry {
	out := make([]codeEntry, len(names))
	for i, n := range names {
		m := msg
		if i%3 == 1 {
			m = "Update " + strings.TrimSuffix(n, "/")
		}
		out[i] = codeEntry{Name: strings.TrimSuffix(n, "/"), Dir: strings.HasSuffix(n, "/"), Message: m,
			Date: fmt.Sprintf("2026-03-%02d", 20-i*2)}
	}
	return out
}

func codeRepoByName(name string) (*codeRepo, int) {
	for i := range codeRepos {
		if codeRepos[i].Name == name {
			return &codeRepos[i], i
		}
	}
	return nil, -1
}

// codeDate renders an ISO date as the pages show it: "Mar 18, 2026".
func codeDate(iso string) string {
	d, err := time.Parse("2006-01-02", iso)
	if err != nil {
		return iso
	}
	return d.Format("Jan 2, 2006")
}

// codePct renders a language share as the Languages list shows it: "78.4".
func codePct(p float64) string { return strconv.FormatFloat(p, 'f', 1, 64) }

func init() {
	for name, mk := range map[string]func() []map[string]any{
		"code.repos":     codeRepoDomain,
		"code.issues":    codeIssueDomain,
		"code.releases":  codeReleaseDomain,
		"code.languages": codeLanguageDomain,
		"code.people":    codePeopleDomain,
		"code.labels":    codeLabelDomain,
		"code.notify":    func() []map[string]any { return codeSwitchDomain(codeNotifySwitches) },
		"code.features":  func() []map[string]any { return codeSwitchDomain(codeFeatureSwitches) },
		"code.account":   codeAccountDomain,
	} {
		catalogDomains[name] = mk
	}
	familyFuncs["codeNewLabel"] = codeNewLabelFunc
}

// codeNewLabelFunc is the template function codeNewLabel: label, refused when the seeded issue (a code.issues
// key, "storefront/412") already carries it (a task that adds a label must change the issue's labels).
func codeNewLabelFunc(issue, label string) (string, error) {
	name, num, _ := strings.Cut(issue, "/")
	repo, _ := codeRepoByName(name)
	n, _ := strconv.Atoi(num)
	if repo == nil || repo.Issue(n) == nil {
		return "", refuse("no issue %q", issue)
	}
	for _, l := range repo.Issue(n).Labels {
		if l == label {
			return "", refuse("issue %s already has the label %q", issue, label)
		}
	}
	return label, nil
}

func codeRepoRecord(r *codeRepo) map[string]any {
	return map[string]any{"key": r.Name, "repo": r.Name, "full": r.Full(), "description": r.Description,
		"language": r.Language(), "stars": r.Stars, "commits": r.Commits, "latest": r.Releases[0].Tag,
		"latest_date": codeDate(r.Releases[0].Date)}
}

// codeRepoDomain: one record per repository: repo (name), full ("northwind/storefront"), description,
// language, stars, commits, latest (the latest release's tag), latest_date ("Mar 18, 2026").
func codeRepoDomain() []map[string]any {
	var out []map[string]any
	for i := range codeRepos {
		out = append(out, codeRepoRecord(&codeRepos[i]))
	}
	return out
}

// codeIssueDomain: one record per seeded issue: the repository's fields plus number, title, label (the first),
// label_count, assignee (login), assignee_name.
func codeIssueDomain() []map[string]any {
	var out []map[string]any
	for i := range codeRepos {
		for _, is := range codeRepos[i].Issues {
			r := codeRepoRecord(&codeRepos[i])
			p := codePersonByLogin(is.Assignee)
			r["key"], r["number"], r["title"] = fmt.Sprintf("%s/%d", codeRepos[i].Name, is.Number), is.Number, is.Title
			r["label"], r["label_count"], r["assignee"], r["assignee_name"] = is.Labels[0], len(is.Labels),
				p.Login, p.Name
			out = append(out, r)
		}
	}
	return out
}

// codeReleaseDomain: one record per release: the repository's fields plus tag, name, date ("Mar 18, 2026")
// and is_latest.
func codeReleaseDomain() []map[string]any {
	var out []map[string]any
	for i := range codeRepos {
		for k, rel := range codeRepos[i].Releases {
			r := codeRepoRecord(&codeRepos[i])
			r["key"], r["tag"], r["name"], r["date"], r["is_latest"] = codeRepos[i].Name+"/"+rel.Tag, rel.Tag,
				rel.Name, codeDate(rel.Date), k == 0
			out = append(out, r)
		}
	}
	return out
}

// codeLanguageDomain: one record per row of a repository's Languages list: lang and pct ("78.4").
func codeLanguageDomain() []map[string]any {
	var out []map[string]any
	for i := range codeRepos {
		for _, l := range codeRepos[i].Languages {
			r := codeRepoRecord(&codeRepos[i])
			r["key"], r["lang"], r["pct"] = codeRepos[i].Name+"/"+staysSlug(l.Name), l.Name, codePct(l.Pct)
			out = append(out, r)
		}
	}
	return out
}

// codePeopleDomain: the assignable members: login, name.
func codePeopleDomain() []map[string]any {
	var out []map[string]any
	for _, p := range codePeople {
		out = append(out, map[string]any{"key": p.Login, "login": p.Login, "name": p.Name})
	}
	return out
}

// codeLabelDomain: the labels a task may put on an issue (the default set minus duplicate, invalid and
// wontfix, which triage sets): label, slug.
func codeLabelDomain() []map[string]any {
	var out []map[string]any
	for _, l := range codeLabels {
		if l.Name == "duplicate" || l.Name == "invalid" || l.Name == "wontfix" {
			continue
		}
		out = append(out, map[string]any{"key": staysSlug(l.Name), "label": l.Name, "slug": staysSlug(l.Name)})
	}
	return out
}

// codeSwitchDomain: one record per repository × switch of a repository settings form: the repository's fields
// plus setting (the state's key), label, nth (its index among the form's switches), on (its initial value),
// want (the other value: a task always flips it) and want_word ("on" / "off").
func codeSwitchDomain(sws []codeSwitch) []map[string]any {
	var out []map[string]any
	for i := range codeRepos {
		for k, sw := range sws {
			r := codeRepoRecord(&codeRepos[i])
			on := codeDefault(i, k)
			r["key"], r["setting"], r["label"], r["nth"], r["on"], r["want"], r["want_word"] =
				codeRepos[i].Name+"/"+sw.Key, sw.Key, sw.Label, k, on, !on, map[bool]string{true: "on", false: "off"}[!on]
			out = append(out, r)
		}
	}
	return out
}

// codeAccountDomain: one record per account notification switch: setting, label, nth, on, want, want_word.
func codeAccountDomain() []map[string]any {
	var out []map[string]any
	for k, sw := range codeAccountSwitches {
		on := codeDefault(-1, k)
		out = append(out, map[string]any{"key": sw.Key, "setting": sw.Key, "label": sw.Label, "nth": k, "on": on,
			"want": !on, "want_word": map[bool]string{true: "on", false: "off"}[!on]})
	}
	return out
}
