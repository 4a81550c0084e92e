package zoo

import (
	"embed"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// The `planner` app: a test-management app ("Testmate", like Testomat.io / TestRail) with projects and test
// plans. Pages (app-relative paths; server-rendered forms, redirect after post):
//
//	/                                   projects list
//	/projects/{slug}                    → /projects/{slug}/plans
//	/projects/{slug}/plans              the project's plans (seeded + created), link "New plan"
//	/projects/{slug}/plans/new          "New plan" form: Title, Description, Plan type radios, Environment and
//	                                    Assignee selects, the switch "Run automated as manual", Save / Cancel
//	POST /projects/{slug}/plans         create → /projects/{slug}/plans/{id}?created=1 (422 + form on errors)
//	/projects/{slug}/plans/{id}         a plan's page (heading = its title)
//
// The switch is a <button role="switch" aria-checked> toggled by static/planner.js, which mirrors its value
// into a hidden input; its initial value is the project's default (Storefront Web: on; the others: off).
// Without a mutation it is named by a <label for> ("Run automated as manual"). Mutation nameless_switch
// renders seed 004's control instead — `<button type="button" role="switch" aria-checked="…" class="group">
// <span class="flex-col"></span></button>` with no accessible name (the visible caption is a plain span that
// is not associated with it), so it can only be found by role and clicked by coordinates.

//go:embed assets/planner
var plannerFS embed.FS

var plannerTpl = ParseTemplates(plannerFS, "assets/planner", nil)

// plannerProject is a seeded project. RunAsManual is the "Run automated as manual" default of its new plans.
type plannerProject struct {
	Slug        string
	Name        string
	Description string
	RunAsManual bool
}

var plannerProjects = []plannerProject{
	{"storefront-web", "Storefront Web", "Customer-facing web shop: catalogue, cart, checkout.", true},
	{"mobile-app", "Mobile App", "iOS and Android shopping app.", false},
	{"payments-api", "Payments API", "Card, wallet and refund services.", false},
}

func plannerProjectBySlug(slug string) *plannerProject {
	for i := range plannerProjects {
		if plannerProjects[i].Slug == slug {
			return &plannerProjects[i]
		}
	}
	return nil
}

// plannerOption is a value and its label (plan types, environments, assignees).
type plannerOption struct{ Value, Label string }

var (
	plannerTypes = []plannerOption{{"manual", "Manual"}, {"automated", "Automated"}, {"mixed", "Mixed"}}
	plannerEnvs  = []plannerOption{{"any", "Any environment"}, {"chrome-desktop", "Chrome (desktop)"},
		{"firefox-desktop", "Firefox (desktop)"}, {"safari-ios", "Safari (iOS)"}, {"chrome-android", "Chrome (Android)"}}
	plannerAssignees = []plannerOption{{"", "Unassigned"}, {"dana.kim", "Dana Kim"}, {"luis.ortega", "Luis Ortega"},
		{"priya.nair", "Priya Nair"}, {"sam.okafor", "Sam Okafor"}}
)

func plannerLabel(opts []plannerOption, v string) string {
	for _, o := range opts {
		if o.Value == v {
			return o.Label
		}
	}
	return ""
}

func plannerValid(opts []plannerOption, v string) bool {
	for _, o := range opts {
		if o.Value == v {
			return true
		}
	}
	return false
}

// PlannerPlan is a test plan. Project is the project's slug; Type one of manual, automated, mixed;
// Environment a code (any, chrome-desktop, firefox-desktop, safari-ios, chrome-android); Assignee a username
// or "" (unassigned); RunAutomatedAsManual the switch's value when saved.
type PlannerPlan struct {
	ID                   int    `json:"id"`
	Project              string `json:"project"`
	Title                string `json:"title"`
	Description          string `json:"description"`
	Type                 string `json:"type"`
	Environment          string `json:"environment"`
	Assignee             string `json:"assignee"`
	RunAutomatedAsManual bool   `json:"run_automated_as_manual"`
	Tests                int    `json:"-"`
	Status               string `json:"-"`
}

// plannerSeeded are the plans every tenant shows (not part of the state). Ids 1..N.
var plannerSeeded = []PlannerPlan{
	{Project: "storefront-web", Title: "Smoke: homepage and search", Type: "automated", Environment: "chrome-desktop", Assignee: "luis.ortega", Tests: 18, Status: "Passed"},
	{Project: "storefront-web", Title: "Checkout regression 7.3", Type: "mixed", Environment: "any", Assignee: "dana.kim", RunAutomatedAsManual: true, Tests: 64, Status: "Finished"},
	{Project: "storefront-web", Title: "Accessibility audit Q3", Type: "manual", Environment: "firefox-desktop", Assignee: "priya.nair", Tests: 31, Status: "In progress"},
	{Project: "mobile-app", Title: "Login and onboarding", Type: "automated", Environment: "safari-ios", Assignee: "sam.okafor", Tests: 22, Status: "Passed"},
	{Project: "mobile-app", Title: "Push notifications", Type: "manual", Environment: "chrome-android", Tests: 9, Status: "Not started"},
	{Project: "payments-api", Title: "Refund edge cases", Type: "automated", Environment: "any", Assignee: "luis.ortega", Tests: 40, Status: "Failed"},
}

func init() {
	for i := range plannerSeeded {
		plannerSeeded[i].ID = i + 1
	}
	RegisterApp(plannerApp{})
}

// plannerFirstID is the id of the first plan created in a tenant (seeded plans come before it).
const plannerFirstID = 101

type plannerApp struct{}

// Name implements App.
func (plannerApp) Name() string { return "planner" }

// Mutations implements App: the planner implements nameless_switch.
func (plannerApp) Mutations() []string { return []string{"nameless_switch"} }

// New implements App.
func (plannerApp) New(env *AppEnv) (Instance, error) {
	s := &plannerInstance{env: env, Plans: []PlannerPlan{}}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /{$}", s.projects)
	s.mux.HandleFunc("GET /projects/{slug}", func(w http.ResponseWriter, r *http.Request) {
		if plannerProjectBySlug(r.PathValue("slug")) == nil {
			s.notFound(w, r)
			return
		}
		env.Redirect(w, r, "projects/"+r.PathValue("slug")+"/plans")
	})
	s.mux.HandleFunc("GET /projects/{slug}/plans", s.plans)
	s.mux.HandleFunc("GET /projects/{slug}/plans/new", s.newPlan)
	s.mux.HandleFunc("POST /projects/{slug}/plans", s.createPlan)
	s.mux.HandleFunc("GET /projects/{slug}/plans/{id}", s.plan)
	s.mux.HandleFunc("GET /static/{file...}", func(w http.ResponseWriter, r *http.Request) {
		ServeStatic(w, r, plannerFS, "assets/planner/static", r.PathValue("file"))
	})
	s.mux.HandleFunc("/", s.notFound)
	return s, nil
}

type plannerInstance struct {
	env *AppEnv
	mux *http.ServeMux

	mu    sync.Mutex
	Plans []PlannerPlan
}

func (s *plannerInstance) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// State implements Instance: {"plans": [PlannerPlan]}, the plans created in the tenant (seeded plans are
// not in it), in creation order.
func (s *plannerInstance) State() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"plans": s.Plans})
	return b
}

// plannerCrumb is one breadcrumb link (Href "" = the current page).
type plannerCrumb struct{ Label, Href string }

// plannerPage is the data every planner template gets.
type plannerPage struct {
	Base    string
	Title   string
	Crumbs  []plannerCrumb
	Flash   string
	Error   string
	Project *plannerProject
	Data    any
}

func (s *plannerInstance) page(title string, p *plannerProject) *plannerPage {
	pg := &plannerPage{Base: s.env.Base, Title: title, Project: p}
	pg.Crumbs = []plannerCrumb{{"Projects", "./"}}
	if p != nil {
		pg.Crumbs = append(pg.Crumbs, plannerCrumb{p.Name, "projects/" + p.Slug + "/plans"})
	}
	return pg
}

func (s *plannerInstance) render(w http.ResponseWriter, name string, status int, p *plannerPage) {
	RenderPage(w, plannerTpl, name, status, p)
}

func (s *plannerInstance) notFound(w http.ResponseWriter, r *http.Request) {
	s.render(w, "notfound.html", http.StatusNotFound, s.page("Page not found", nil))
}

// plannerProjectRow is a project with its plan count, for the projects page.
type plannerProjectRow struct {
	P     *plannerProject
	Plans int
}

func (s *plannerInstance) projects(w http.ResponseWriter, r *http.Request) {
	var rows []plannerProjectRow
	for i := range plannerProjects {
		rows = append(rows, plannerProjectRow{&plannerProjects[i], len(s.projectPlans(plannerProjects[i].Slug))})
	}
	pg := s.page("Projects", nil)
	pg.Crumbs = nil
	pg.Data = rows
	s.render(w, "projects.html", http.StatusOK, pg)
}

// plannerPlanRow is a plan as lists and the plan page show it.
type plannerPlanRow struct {
	PlannerPlan
	TypeLabel     string
	EnvLabel      string
	AssigneeLabel string
	Created       bool
}

func plannerRow(p PlannerPlan, created bool) plannerPlanRow {
	return plannerPlanRow{PlannerPlan: p, TypeLabel: plannerLabel(plannerTypes, p.Type),
		EnvLabel: plannerLabel(plannerEnvs, p.Environment), AssigneeLabel: plannerLabel(plannerAssignees, p.Assignee),
		Created: created}
}

// projectPlans lists a project's seeded plans followed by the tenant's.
func (s *plannerInstance) projectPlans(slug string) []plannerPlanRow {
	var out []plannerPlanRow
	for _, p := range plannerSeeded {
		if p.Project == slug {
			out = append(out, plannerRow(p, false))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.Plans {
		if p.Project == slug {
			out = append(out, plannerRow(p, true))
		}
	}
	return out
}

func (s *plannerInstance) plans(w http.ResponseWriter, r *http.Request) {
	pr := plannerProjectBySlug(r.PathValue("slug"))
	if pr == nil {
		s.notFound(w, r)
		return
	}
	pg := s.page(pr.Name+" plans", pr)
	pg.Crumbs[len(pg.Crumbs)-1].Href = ""
	pg.Data = s.projectPlans(pr.Slug)
	s.render(w, "plans.html", http.StatusOK, pg)
}

// plannerForm is the "New plan" form's data.
type plannerForm struct {
	Plan      PlannerPlan
	Nameless  bool
	Types     []plannerOption
	Envs      []plannerOption
	Assignees []plannerOption
}

func (s *plannerInstance) form(w http.ResponseWriter, pr *plannerProject, status int, p PlannerPlan, errMsg string) {
	pg := s.page("New plan", pr)
	pg.Crumbs = append(pg.Crumbs, plannerCrumb{"New plan", ""})
	pg.Error = errMsg
	pg.Data = &plannerForm{Plan: p, Nameless: s.env.Mutations.Has("nameless_switch"), Types: plannerTypes,
		Envs: plannerEnvs, Assignees: plannerAssignees}
	s.render(w, "plan_form.html", status, pg)
}

func (s *plannerInstance) newPlan(w http.ResponseWriter, r *http.Request) {
	pr := plannerProjectBySlug(r.PathValue("slug"))
	if pr == nil {
		s.notFound(w, r)
		return
	}
	s.form(w, pr, http.StatusOK, PlannerPlan{Project: pr.Slug, Type: "manual", Environment: "any",
		RunAutomatedAsManual: pr.RunAsManual}, "")
}

func (s *plannerInstance) createPlan(w http.ResponseWriter, r *http.Request) {
	pr := plannerProjectBySlug(r.PathValue("slug"))
	if pr == nil {
		s.notFound(w, r)
		return
	}
	p := PlannerPlan{Project: pr.Slug, Title: strings.Join(strings.Fields(r.FormValue("title")), " "),
		Description: strings.TrimSpace(r.FormValue("description")), Type: r.FormValue("type"),
		Environment: r.FormValue("environment"), Assignee: r.FormValue("assignee"),
		RunAutomatedAsManual: r.FormValue("run_automated_as_manual") == "true"}
	var errs []string
	if p.Title == "" {
		errs = append(errs, "Title can't be blank.")
	} else if len(p.Title) > 200 {
		errs = append(errs, "Title is too long (maximum is 200 characters).")
	}
	if !plannerValid(plannerTypes, p.Type) {
		errs = append(errs, "Choose a plan type.")
	}
	if !plannerValid(plannerEnvs, p.Environment) {
		errs = append(errs, "Choose an environment.")
	}
	if !plannerValid(plannerAssignees, p.Assignee) {
		errs = append(errs, "Choose an assignee.")
	}
	if len(errs) > 0 {
		s.form(w, pr, http.StatusUnprocessableEntity, p, strings.Join(errs, " "))
		return
	}
	s.mu.Lock()
	p.ID = plannerFirstID + len(s.Plans)
	p.Status = "Not started"
	s.Plans = append(s.Plans, p)
	s.mu.Unlock()
	s.env.Redirect(w, r, "projects/"+pr.Slug+"/plans/"+strconv.Itoa(p.ID)+"?created=1")
}

func (s *plannerInstance) plan(w http.ResponseWriter, r *http.Request) {
	pr := plannerProjectBySlug(r.PathValue("slug"))
	id, err := strconv.Atoi(r.PathValue("id"))
	if pr == nil || err != nil {
		s.notFound(w, r)
		return
	}
	var row *plannerPlanRow
	for _, p := range s.projectPlans(pr.Slug) {
		if p.ID == id {
			p := p
			row = &p
		}
	}
	if row == nil {
		s.notFound(w, r)
		return
	}
	pg := s.page(row.Title, pr)
	pg.Crumbs = append(pg.Crumbs, plannerCrumb{row.Title, ""})
	if r.URL.Query().Get("created") != "" && row.Created {
		pg.Flash = "Plan \u201c" + row.Title + "\u201d was created."
	}
	pg.Data = row
	s.render(w, "plan.html", http.StatusOK, pg)
}
