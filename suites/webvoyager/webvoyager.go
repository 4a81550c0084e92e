// Package webvoyager is the WebVoyager suite (He et al., 2024, "WebVoyager: Building an End-to-End Web Agent
// with Large Multimodal Models"): a loader for the official task file (WebVoyager_data.jsonl, one JSON object a
// line: web_name, id, ques, web) and its reference answers (reference_answer.json), task hygiene for dates
// that are now past (dates.go), live runs against the real sites with a reachability probe, and offline
// fixtures — locally served pages that reproduce the blockers agents meet on WebVoyager sites (fixtures.go).
//
// The repository ships no copy of the dataset: pass its paths (suite options "tasks_file" and "answers").
//
// Task mapping: ID = id ("Allrecipes--0"), Suite = "webvoyager", App = Cluster = web_name (the site is the
// unit for clustered standard errors), Goal = ques, Start = web, Check.Answer = the joined reference answer
// (Type golden|possible, Reference = ans, and for golden answers a MustInclude/Number rule when one can be
// derived: DeriveGoldenRule), Meta = stale-date flags, the site's notice, unknown fields. Reference answers
// join tasks by site and number: answer {id: N} under site S belongs to the task with web_name S whose id
// ends in "--N".
//
// Year-less dates ("December 25-26") are read as their next occurrence, so they are never stale; see
// dates.go for every date rule.
package webvoyager

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"webbench/srcerr"
	"webbench/suites"
)

// Name is the registry name of the suite.
const Name = "webvoyager"

func init() {
	suites.Register(Name, func(o suites.Options) (suites.Suite, error) { return Open(o) })
	suites.RegisterClusterUnit(Name, "site")
}

// Config configures the suite. Options maps onto it (ConfigFromOptions).
type Config struct {
	// TasksFile is a WebVoyager task file (option "tasks_file"). Empty with Fixtures set means the shipped
	// fixture tasks.
	TasksFile string
	// AnswersFile is a reference_answer.json (option "answers"); empty means no reference answers (the shipped
	// fixture answers in fixture mode).
	AnswersFile string
	// StaleDates is keep (default), skip or shift (option "stale_dates").
	StaleDates string
	// Sites keeps only tasks whose site (web_name) matches one of these comma-separated globs (option
	// "sites", path.Match syntax, case-sensitive). A glob that matches no site is an error.
	Sites string
	// IDs keeps only tasks whose id matches one of these comma-separated globs (option "tasks";
	// suites.Filter).
	IDs string
	// Today is the date stale dates are judged against (option "today", YYYY-MM-DD); zero means time.Now().
	Today time.Time
	// Fixtures serves the fixture pages on 127.0.0.1 and resolves "{base}" in task URLs to the server (option
	// "fixtures" = "builtin"). A TasksFile whose content is the shipped fixture file switches it on too.
	Fixtures bool
	// ProbeTimeout bounds the reachability probe of Open (option "probe_timeout", a Go duration; default 5 s;
	// negative or "off" disables the probe).
	ProbeTimeout time.Duration
}

// Option keys Open understands.
var optionKeys = []string{"tasks_file", "answers", "stale_dates", "sites", "tasks", "today", "fixtures", "probe_timeout"}

// ConfigFromOptions reads suite options. Unknown keys and bad values are errors.
func ConfigFromOptions(o suites.Options) (Config, error) {
	var c Config
	for k := range o {
		if err := srcerr.OneOf("option", k, optionKeys); err != nil {
			return c, fmt.Errorf("webvoyager: %w", err)
		}
	}
	c.TasksFile, c.AnswersFile, c.StaleDates = o["tasks_file"], o["answers"], o["stale_dates"]
	c.Sites, c.IDs = o["sites"], o["tasks"]
	if v := strings.TrimSpace(o["today"]); v != "" {
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			return c, fmt.Errorf("webvoyager: option today=%q: want YYYY-MM-DD", v)
		}
		c.Today = t
	}
	switch v := strings.TrimSpace(o["fixtures"]); v {
	case "":
	case "builtin":
		c.Fixtures = true
	default:
		return c, fmt.Errorf("webvoyager: option fixtures=%q: the only value is \"builtin\"", v)
	}
	switch v := strings.TrimSpace(o["probe_timeout"]); v {
	case "":
	case "off", "none":
		c.ProbeTimeout = -1
	default:
		d, err := time.ParseDuration(v)
		if err != nil {
			return c, fmt.Errorf("webvoyager: option probe_timeout=%q: %v", v, err)
		}
		c.ProbeTimeout = d
	}
	return c, nil
}

// Suite is the loaded WebVoyager suite. Safe for concurrent use.
type Suite struct {
	cfg      Config
	tasks    []suites.Task
	stale    []StaleFlag
	unjoined []RefAnswer
	fixture  *FixtureServer

	probeMu sync.Mutex
	probed  map[string]time.Time // origin → last successful probe
	client  *http.Client
}

// Open builds the suite from options (the registry's factory).
func Open(o suites.Options) (*Suite, error) {
	c, err := ConfigFromOptions(o)
	if err != nil {
		return nil, err
	}
	return New(c)
}

// New loads the tasks (and answers), applies the stale-date policy and filters, and in fixture mode starts
// the fixture server. Errors name the file and line of bad input.
func New(cfg Config) (*Suite, error) {
	switch cfg.StaleDates {
	case "":
		cfg.StaleDates = StaleKeep
	case StaleKeep, StaleSkip, StaleShift:
	default:
		return nil, fmt.Errorf("webvoyager: stale_dates=%q: want keep, skip or shift", cfg.StaleDates)
	}
	if cfg.ProbeTimeout == 0 {
		cfg.ProbeTimeout = 5 * time.Second
	}
	today := cfg.Today
	if today.IsZero() {
		today = time.Now()
	}

	var raws []RawTask
	var err error
	switch {
	case cfg.TasksFile != "":
		b, rerr := os.ReadFile(cfg.TasksFile)
		if rerr != nil {
			return nil, fmt.Errorf("webvoyager: tasks file: %w", rerr)
		}
		if bytes.Equal(b, fixtureTasksBytes()) {
			cfg.Fixtures = true
		}
		raws, err = ParseTasks(bytes.NewReader(b), cfg.TasksFile)
	case cfg.Fixtures:
		raws, err = ParseTasks(bytes.NewReader(fixtureTasksBytes()), "fixtures/"+fixtureTasksName)
	default:
		return nil, errors.New("webvoyager: no task file: pass --tasks-file PATH/WebVoyager_data.jsonl (the WebVoyager " +
			"task file; the repository ships no copy of the dataset), or run the offline fixtures with " +
			"--tasks-file suites/webvoyager/fixtures/tasks.jsonl")
	}
	if err != nil {
		return nil, err
	}

	var answers []RefAnswer
	switch {
	case cfg.AnswersFile != "":
		if answers, err = ReadAnswersFile(cfg.AnswersFile); err != nil {
			return nil, err
		}
	case cfg.Fixtures:
		if answers, err = ParseAnswers(fixtureAnswersBytes(), "fixtures/"+fixtureAnswersName); err != nil {
			return nil, err
		}
	}

	s := &Suite{cfg: cfg, probed: map[string]time.Time{}, client: &http.Client{}}
	var solutions map[string][]suites.Step
	if cfg.Fixtures {
		if solutions, err = FixtureSolutions(); err != nil {
			return nil, err
		}
		if s.fixture, err = StartFixtureServer(); err != nil {
			return nil, err
		}
	}

	tasks, unjoined := Join(raws, answers)
	s.unjoined = unjoined
	if tasks, err = FilterSites(tasks, cfg.Sites); err != nil {
		s.Close()
		return nil, err
	}
	if tasks, err = suites.Filter(tasks, cfg.IDs); err != nil {
		s.Close()
		return nil, fmt.Errorf("suite option tasks: %v", err)
	}
	for i := range tasks {
		t := tasks[i]
		if s.fixture != nil {
			t.Start = strings.ReplaceAll(t.Start, "{base}", s.fixture.URL())
			t.Solution = solutions[t.ID]
		}
		flag, keep := applyStale(&t, today, cfg.StaleDates)
		if flag != nil {
			s.stale = append(s.stale, *flag)
		}
		if keep {
			s.tasks = append(s.tasks, t)
		}
	}
	return s, nil
}

// Join turns raw tasks into suite tasks in file order, attaching each reference answer to the task with the
// same site and number. It returns the answers that joined no task (sorted by site, then id).
func Join(raws []RawTask, answers []RefAnswer) ([]suites.Task, []RefAnswer) {
	byKey := map[string]*RefAnswer{}
	for i := range answers {
		byKey[answers[i].Key()] = &answers[i]
	}
	used := map[string]bool{}
	out := make([]suites.Task, 0, len(raws))
	for _, r := range raws {
		var a *RefAnswer
		if _, n := splitID(r.ID); n >= 0 {
			k := r.WebName + "--" + fmt.Sprint(n)
			if a = byKey[k]; a != nil {
				used[k] = true
			}
		}
		out = append(out, ToTask(r, a))
	}
	var unjoined []RefAnswer
	for _, a := range answers {
		if !used[a.Key()] {
			unjoined = append(unjoined, a)
		}
	}
	return out, unjoined
}

// FilterSites keeps the tasks whose App (site) matches one of the comma-separated globs (path.Match syntax;
// empty keeps all). A glob that matches no site is an error listing the sites.
func FilterSites(tasks []suites.Task, globs string) ([]suites.Task, error) {
	if strings.TrimSpace(globs) == "" {
		return tasks, nil
	}
	pats, err := suites.Globs(globs)
	if err != nil {
		return nil, fmt.Errorf("webvoyager: sites: %v", err)
	}
	hit := make([]bool, len(pats))
	var out []suites.Task
	sites := map[string]bool{}
	for _, t := range tasks {
		sites[t.App] = true
		keep := false
		for i, p := range pats {
			if ok, _ := path.Match(p, t.App); ok {
				hit[i], keep = true, true
			}
		}
		if keep {
			out = append(out, t)
		}
	}
	for i, p := range pats {
		if !hit[i] {
			var names []string
			for n := range sites {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("webvoyager: sites: glob %q matches no site (sites: %s)", p, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// Name is "webvoyager".
func (s *Suite) Name() string { return Name }

// NeedsWebGL implements suites.WebGLNeeds: true, live sites draw with WebGL (Google Maps' map is a WebGL canvas).
func (s *Suite) NeedsWebGL() bool { return true }

// Tasks lists the tasks in file order (stale ones dropped under stale_dates=skip). The slice is a copy.
func (s *Suite) Tasks() []suites.Task { return append([]suites.Task(nil), s.tasks...) }

// Stale is the stale-date report of the loaded file after filtering, including tasks dropped by
// stale_dates=skip.
func (s *Suite) Stale() []StaleFlag { return append([]StaleFlag(nil), s.stale...) }

// UnjoinedAnswers are the reference answers that matched no task of the file (e.g. a file variant with fewer
// tasks); before site/id filtering.
func (s *Suite) UnjoinedAnswers() []RefAnswer { return append([]RefAnswer(nil), s.unjoined...) }

// FixtureURL is the fixture server's root ("http://127.0.0.1:PORT"), "" when not in fixture mode.
func (s *Suite) FixtureURL() string {
	if s.fixture == nil {
		return ""
	}
	return s.fixture.URL()
}

// ErrUnreachable wraps every reachability failure of Open.
var ErrUnreachable = errors.New("site unreachable")

// Open returns the attempt's environment: StartURL is the task's start URL, every URL is allowed, there is no
// state. Before returning it probes the start URL (HEAD, then GET when HEAD is refused, within
// ProbeTimeout); no HTTP answer, or a 5xx to both, is an error wrapping ErrUnreachable — an infrastructure
// error, never an agent failure. A 4xx counts as reachable (sites answer bots with 403 but serve browsers).
// A successful probe of an origin is reused for one minute.
func (s *Suite) Open(ctx context.Context, t suites.Task, attemptID string) (suites.Env, error) {
	if t.Start == "" {
		return nil, fmt.Errorf("webvoyager: task %s has no start URL (\"web\")", t.ID)
	}
	u, err := url.Parse(t.Start)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("webvoyager: task %s: start URL %q is not an absolute http(s) URL", t.ID, t.Start)
	}
	if strings.Contains(t.Start, "{base}") {
		return nil, fmt.Errorf("webvoyager: task %s: start URL %q needs the fixture server (fixtures=builtin)", t.ID, t.Start)
	}
	if s.cfg.ProbeTimeout > 0 {
		if err := s.probe(ctx, u); err != nil {
			return nil, fmt.Errorf("webvoyager: task %s: %w", t.ID, err)
		}
	}
	return &env{start: t.Start}, nil
}

func (s *Suite) probe(ctx context.Context, u *url.URL) error {
	origin := u.Scheme + "://" + u.Host
	s.probeMu.Lock()
	last, ok := s.probed[origin]
	s.probeMu.Unlock()
	if ok && time.Since(last) < time.Minute {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ProbeTimeout)
	defer cancel()
	status, err := s.request(ctx, http.MethodHead, u.String())
	if err == nil && (status >= 500 || status == http.StatusMethodNotAllowed) {
		status, err = s.request(ctx, http.MethodGet, u.String())
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnreachable, u.String(), err)
	}
	if status >= 500 {
		return fmt.Errorf("%w: %s answers HTTP %d", ErrUnreachable, u.String(), status)
	}
	s.probeMu.Lock()
	s.probed[origin] = time.Now()
	s.probeMu.Unlock()
	return nil
}

func (s *Suite) request(ctx context.Context, method, u string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) webbench-probe")
	req.Header.Set("Accept", "text/html,*/*")
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// Close stops the fixture server, if any. Safe to call twice.
func (s *Suite) Close() error {
	if s.fixture != nil {
		return s.fixture.Close()
	}
	return nil
}

// env is a live (or fixture) site's environment: nothing to prepare, nothing to clean up.
type env struct{ start string }

func (e *env) StartURL() string                               { return e.start }
func (e *env) Allowed(string) bool                            { return true }
func (e *env) State(context.Context) (json.RawMessage, error) { return nil, nil }
func (e *env) Close(context.Context) error                    { return nil }

// ReplayOptions are options o for a run replayed from a cassette recorded at recordedAt: the stale-date "today"
// is the record date (a task stale today was not stale when its pages were recorded, and the recorded pages
// answer as of that day), and the reachability probe is off (a replay reaches no site). Keys o sets stay.
func ReplayOptions(o suites.Options, recordedAt time.Time) suites.Options {
	if o["today"] == "" {
		o["today"] = recordedAt.UTC().Format("2006-01-02")
	}
	if o["probe_timeout"] == "" {
		o["probe_timeout"] = "off"
	}
	return o
}
