package zoo

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"webbench/judge"
)

type plannerState struct {
	Plans []PlannerPlan `json:"plans"`
}

// cpNoRedirect is an HTTP client that returns redirects instead of following them.
var cpNoRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// cpGet fetches u and returns the status and body.
func cpGet(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := cpNoRedirect.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(res.Body)
	return res.StatusCode, buf.String()
}

// cpPost posts a form and returns the status, the Location header and the body.
func cpPost(t *testing.T, u string, v url.Values) (int, string, string) {
	t.Helper()
	res, err := cpNoRedirect.PostForm(u, v)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(res.Body)
	return res.StatusCode, res.Header.Get("Location"), buf.String()
}

func TestPlannerHTTP(t *testing.T) {
	_, tn := cpTenant(t, "planner")
	code, body := cpGet(t, tn.URL("/"))
	if code != 200 || !strings.Contains(body, `href="projects/storefront-web/plans">Storefront Web</a>`) ||
		!strings.Contains(body, "Payments API") {
		t.Fatalf("projects: %d\n%s", code, body)
	}
	if code, _ := cpGet(t, tn.URL("projects/nope/plans")); code != 404 {
		t.Fatalf("unknown project: %d", code)
	}
	// The form: the switch starts at the project's default and is named by its <label for>.
	_, body = cpGet(t, tn.URL("projects/storefront-web/plans/new"))
	for _, want := range []string{`<label for="plan-title">Title</label>`,
		`<button type="button" id="plan-run-manual" role="switch" aria-checked="true" class="group"><span class="flex-col"></span></button>`,
		`<label class="switch-caption" for="plan-run-manual">Run automated as manual</label>`,
		`name="run_automated_as_manual" value="true"`, `<button type="submit" class="btn btn-primary">Save</button>`} {
		if !strings.Contains(body, want) {
			t.Fatalf("form lacks %s:\n%s", want, body)
		}
	}
	_, body = cpGet(t, tn.URL("projects/mobile-app/plans/new"))
	if !strings.Contains(body, `aria-checked="false"`) || !strings.Contains(body, `value="false"`) {
		t.Fatalf("mobile-app default is not off:\n%s", body)
	}

	// A blank title is refused with the form (values kept), and nothing is stored.
	code, _, body = cpPost(t, tn.URL("projects/storefront-web/plans"), url.Values{"title": {"  "},
		"description": {"d"}, "type": {"mixed"}, "environment": {"any"}, "assignee": {""},
		"run_automated_as_manual": {"false"}})
	if code != 422 || !strings.Contains(body, "Title can&#39;t be blank.") || !strings.Contains(body, `aria-checked="false"`) ||
		!regexp.MustCompile(`value="mixed" checked`).MatchString(body) {
		t.Fatalf("blank title: %d\n%s", code, body)
	}
	if code, _, _ := cpPost(t, tn.URL("projects/storefront-web/plans"), url.Values{"title": {"X"},
		"type": {"weekly"}, "environment": {"any"}}); code != 422 {
		t.Fatalf("bad type accepted: %d", code)
	}
	var st plannerState
	cpStateOf(t, tn, &st)
	if len(st.Plans) != 0 {
		t.Fatalf("state after refused posts: %s", tn.State())
	}

	code, loc, _ := cpPost(t, tn.URL("projects/storefront-web/plans"), url.Values{"title": {" Checkout   regression 7.4 "},
		"description": {"Full pass"}, "type": {"manual"}, "environment": {"firefox-desktop"},
		"assignee": {"priya.nair"}, "run_automated_as_manual": {"false"}})
	if code != 303 || loc != tn.Prefix()+"projects/storefront-web/plans/101?created=1" {
		t.Fatalf("create: %d %q", code, loc)
	}
	cpStateOf(t, tn, &st)
	want := PlannerPlan{ID: 101, Project: "storefront-web", Title: "Checkout regression 7.4", Description: "Full pass",
		Type: "manual", Environment: "firefox-desktop", Assignee: "priya.nair", RunAutomatedAsManual: false}
	if len(st.Plans) != 1 || st.Plans[0] != want {
		t.Fatalf("state: %s", tn.State())
	}
	_, body = cpGet(t, tn.URL("projects/storefront-web/plans/101?created=1"))
	for _, want := range []string{"<h1>Checkout regression 7.4</h1>", "Plan “Checkout regression 7.4” was created.",
		"<dt>Run automated as manual</dt><dd>Off</dd>", "<dd>Firefox (desktop)</dd>", "<dd>Priya Nair</dd>"} {
		if !strings.Contains(body, want) {
			t.Fatalf("plan page lacks %s:\n%s", want, body)
		}
	}
	_, body = cpGet(t, tn.URL("projects/storefront-web/plans"))
	if !strings.Contains(body, `href="projects/storefront-web/plans/101">Checkout regression 7.4</a>`) ||
		!strings.Contains(body, "Accessibility audit Q3") {
		t.Fatalf("plans list:\n%s", body)
	}
	if code, _ := cpGet(t, tn.URL("projects/mobile-app/plans/101")); code != 404 {
		t.Fatalf("plan of another project: %d", code)
	}
	if _, b2 := cpGet(t, tn.URL("/")); !strings.Contains(b2, "4 plans") {
		t.Fatalf("projects page does not count the new plan:\n%s", b2)
	}
}

func TestPlannerNamelessSwitchHTML(t *testing.T) {
	_, tn := cpTenant(t, "planner", "nameless_switch")
	_, body := cpGet(t, tn.URL("projects/storefront-web/plans/new"))
	// Seed 004's control: no id, no label, no aria-label, no text.
	ctl := `<button type="button" role="switch" aria-checked="true" class="group"><span class="flex-col"></span></button>`
	if !strings.Contains(body, ctl) {
		t.Fatalf("no nameless switch:\n%s", body)
	}
	field := body[strings.Index(body, `<div class="switch-field">`):strings.Index(body, `<div class="form-actions">`)]
	for _, bad := range []string{"plan-run-manual", "aria-label", "<label", "title="} {
		if strings.Contains(field, bad) {
			t.Fatalf("nameless switch field contains %q:\n%s", bad, field)
		}
	}
	if strings.Contains(body, "plan-run-manual") {
		t.Fatalf("the form refers to the switch by id:\n%s", body)
	}
	if !strings.Contains(field, `<span class="switch-caption">Run automated as manual</span>`) {
		t.Fatalf("the visible caption is gone:\n%s", body)
	}
}

// TestPlannerTasks checks the planner tasks' shape (ZOO.md: ≥ 3 under nameless_switch tagged visual_progress
// whose solution is a visual_click on {role: switch} followed by a click on Save; one without the mutation,
// clicking the named switch) and that each check passes only when the switch is flipped from the project's
// default (the form posted over HTTP with the solution's values).
func TestPlannerTasks(t *testing.T) {
	tasks := appTasks(t, "planner")
	nameless, plain := 0, 0
	for _, tk := range tasks {
		if tk.Timeout < 30*time.Second || tk.Timeout > 90*time.Second {
			t.Errorf("%s: timeout %v", tk.ID, tk.Timeout)
		}
		vc := -1
		for i, st := range tk.Solution {
			if st.Kind == "visual_click" {
				vc = i
			}
		}
		switch strings.Join(tk.Mutations, ",") {
		case "nameless_switch":
			nameless++
			if !tk.HasTag("visual_progress") {
				t.Errorf("%s: nameless_switch without tag visual_progress", tk.ID)
			}
			if vc < 0 || tk.Solution[vc].Target.Role != "switch" || tk.Solution[vc].Target.Name != "" ||
				tk.Solution[vc+1].Kind != "click" || tk.Solution[vc+1].Target.Role != "button" ||
				tk.Solution[vc+1].Target.Name != "Save" {
				t.Errorf("%s: want visual_click {role: switch} then click Save: %+v", tk.ID, tk.Solution)
			}
		case "":
			plain++
			if vc >= 0 {
				t.Errorf("%s: visual_click without the mutation", tk.ID)
			}
		default:
			t.Errorf("%s: mutations %v", tk.ID, tk.Mutations)
		}
		// The solution's values as a form post.
		var proj *plannerProject
		form := url.Values{"type": {"manual"}, "environment": {"any"}, "assignee": {""}}
		flips := 0
		for _, st := range tk.Solution {
			switch {
			case st.Kind == "click" && st.Target.Role == "link":
				for i := range plannerProjects {
					if plannerProjects[i].Name == st.Target.Name {
						proj = &plannerProjects[i]
					}
				}
			case st.Kind == "fill" && st.Target.Name == "Title":
				form.Set("title", st.Text)
			case st.Kind == "fill" && st.Target.Name == "Description":
				form.Set("description", st.Text)
			case st.Kind == "click" && st.Target.Role == "radio":
				form.Set("type", strings.ToLower(st.Target.Name))
			case st.Kind == "select":
				opts := map[string][]plannerOption{"Environment": plannerEnvs, "Assignee": plannerAssignees}[st.Target.Name]
				for _, o := range opts {
					if o.Label == st.Values[0] {
						form.Set(strings.ToLower(st.Target.Name), o.Value)
					}
				}
			case st.Target != nil && st.Target.Role == "switch":
				flips++
			}
		}
		if proj == nil || flips != 1 {
			t.Fatalf("%s: project %v, %d switch steps", tk.ID, proj, flips)
		}
		for _, flip := range []bool{true, false} {
			_, tn := cpTenant(t, "planner", tk.Mutations...)
			v := proj.RunAsManual != flip
			form.Set("run_automated_as_manual", map[bool]string{true: "true", false: "false"}[v])
			if code, _, _ := cpPost(t, tn.URL("projects/"+proj.Slug+"/plans"), form); code != 303 {
				t.Fatalf("%s: create %v: %d", tk.ID, form, code)
			}
			var state any
			json.Unmarshal(tn.State(), &state)
			bs, _ := json.Marshal(tk.Check.State)
			var want any
			json.Unmarshal(bs, &want)
			if why := judge.Match(want, state, "state"); (why == "") != flip {
				t.Errorf("%s (switch flipped=%v): check verdict %q on %s", tk.ID, flip, why, tn.State())
			}
		}
	}
	if nameless < 3 || plain < 1 {
		t.Errorf("%d nameless_switch and %d plain planner tasks, want ≥ 3 and ≥ 1", nameless, plain)
	}
}

// cpSwitchLine matches the switch's line of an AI snapshot: the optional quoted name, then the attributes.
var cpSwitchLine = regexp.MustCompile(`(?m)^\s*- switch( "[^"]*")?( \[[^\n]*)$`)

// cpSwitch returns the switch's name part (` "…"` or ""), whether it is checked and its box centre, from an AI
// snapshot with boxes that must hold exactly one switch (with a ref).
func cpSwitch(t *testing.T, p playwright.Page) (name string, checked bool, x, y float64) {
	t.Helper()
	snap := aiSnapshot(t, p, true)
	ms := cpSwitchLine.FindAllStringSubmatch(snap, -1)
	if len(ms) != 1 {
		t.Fatalf("want exactly one switch line, got %d:\n%s", len(ms), snap)
	}
	attrs := ms[0][2]
	box := boxRe.FindStringSubmatch(attrs)
	if !refRe.MatchString(attrs) || box == nil {
		t.Fatalf("switch without ref or box: %s", ms[0][0])
	}
	var b [4]float64
	for i := range b {
		json.Unmarshal([]byte(box[1+i]), &b[i])
	}
	return ms[0][1], strings.Contains(attrs, "[checked]"), b[0] + b[2]/2, b[1] + b[3]/2
}

func TestPlannerBrowser(t *testing.T) {
	b := launchChromium(t)

	t.Run("nameless_switch", func(t *testing.T) {
		_, tn := cpTenant(t, "planner", "nameless_switch")
		p, _, _ := newPage(t, b, nil)
		if _, err := p.Goto(tn.URL("projects/storefront-web/plans/new")); err != nil {
			t.Fatal(err)
		}
		name, checked, x, y := cpSwitch(t, p)
		if name != "" || !checked {
			t.Fatalf("switch name %q checked %v, want nameless and on (Storefront Web default)", name, checked)
		}
		if n, _ := p.GetByRole("switch", playwright.PageGetByRoleOptions{Name: "Run automated as manual"}).Count(); n != 0 {
			t.Fatalf("%d switches found by name", n)
		}
		if x <= 0 || y <= 0 || x >= 1280 || y >= 720 {
			t.Fatalf("switch centre (%v,%v) is outside the viewport", x, y)
		}
		snap := aiSnapshot(t, p, false)
		p.GetByRef(cpRef(t, snap, `textbox "Title"`)).Fill("Coordinate click plan")
		// The coordinate click at the box centre toggles it, both ways.
		for i, want := range []bool{false, true, false} {
			if err := p.Mouse().Click(x, y); err != nil {
				t.Fatal(err)
			}
			if _, got, _, _ := cpSwitch(t, p); got != want {
				t.Fatalf("after %d clicks checked=%v, want %v", i+1, got, want)
			}
		}
		if v, _ := p.Locator(`input[name=run_automated_as_manual]`).InputValue(); v != "false" {
			t.Fatalf("hidden input = %q", v)
		}
		if err := p.GetByRef(cpRef(t, aiSnapshot(t, p, false), `button "Save"`)).Click(); err != nil {
			t.Fatal(err)
		}
		if err := p.GetByRole("heading", playwright.PageGetByRoleOptions{Name: "Coordinate click plan"}).WaitFor(); err != nil {
			t.Fatal(err)
		}
		var st plannerState
		cpStateOf(t, tn, &st)
		if len(st.Plans) != 1 || st.Plans[0].Title != "Coordinate click plan" || st.Plans[0].RunAutomatedAsManual ||
			st.Plans[0].Project != "storefront-web" {
			t.Fatalf("state: %s", tn.State())
		}
	})

	t.Run("named_switch", func(t *testing.T) {
		_, tn := cpTenant(t, "planner")
		p, _, _ := newPage(t, b, nil)
		if _, err := p.Goto(tn.URL("projects/mobile-app/plans/new")); err != nil {
			t.Fatal(err)
		}
		name, checked, _, _ := cpSwitch(t, p)
		if name != ` "Run automated as manual"` || checked {
			t.Fatalf("switch name %q checked %v, want named and off (Mobile App default)", name, checked)
		}
		snap := aiSnapshot(t, p, false)
		p.GetByRef(cpRef(t, snap, `textbox "Title"`)).Fill("Label click plan")
		if err := p.GetByRef(cpRef(t, snap, `switch "Run automated as manual"`)).Click(); err != nil {
			t.Fatal(err)
		}
		if _, on, _, _ := cpSwitch(t, p); !on {
			t.Fatal("click by ref did not switch it on")
		}
		// Its <label> toggles it too.
		p.Locator(`label[for=plan-run-manual]`).Click()
		p.Locator(`label[for=plan-run-manual]`).Click()
		if _, on, _, _ := cpSwitch(t, p); !on {
			t.Fatal("two label clicks changed the switch")
		}
		p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Save"}).Click()
		if err := p.GetByRole("heading", playwright.PageGetByRoleOptions{Name: "Label click plan"}).WaitFor(); err != nil {
			t.Fatal(err)
		}
		var st plannerState
		cpStateOf(t, tn, &st)
		if len(st.Plans) != 1 || !st.Plans[0].RunAutomatedAsManual || st.Plans[0].Project != "mobile-app" {
			t.Fatalf("state: %s", tn.State())
		}
	})

	// Every planner task's solution, played against AI snapshots (role + accessible name; visual_click at the
	// box centre), must pass the task's state check.
	t.Run("solutions", func(t *testing.T) {
		for _, tk := range appTasks(t, "planner") {
			t.Run(tk.ID, func(t *testing.T) {
				t.Parallel()
				if why := cpPlay(t, b, tk); why != "" {
					t.Fatalf("check failed: %s", why)
				}
			})
		}
	})
}
