package zoo

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"webbench/srcerr"
	"webbench/suites"
)

//go:embed tasks/*.yaml
var taskFS embed.FS

// BuiltinTasks loads the embedded task files (tasks/*.yaml): the hand-written tasks, the suite's default
// selection.
func BuiltinTasks() ([]suites.Task, error) { return LoadTasks(taskFS, "tasks", SelectTasks) }

// BuiltinInstances loads the embedded task files with every instance of every family (SelectAll): the
// hand-written tasks, then the instances family by family.
func BuiltinInstances() ([]suites.Task, error) { return LoadTasks(taskFS, "tasks", SelectAll) }

func init() {
	suites.Register("zoo", NewSuite)
	suites.RegisterClusterUnit("zoo", "family")
}

// Suite is the "zoo" suite: the loaded tasks and a lazily started Server. Safe for concurrent use.
type Suite struct {
	tasks []suites.Task
	opts  Options

	mu  sync.Mutex
	srv *Server
}

// NewSuite is the suites.Factory of "zoo". Options (all optional):
//
//	tasks_dir       a directory of extra task files; a file with the same base name as an embedded file
//	                replaces it, others are added. Ids and goals must stay unique across all files.
//	builtin_tasks   "false" / "off" / "0" loads only tasks_dir.
//	instances       "tasks" (default): the hand-written tasks; "all": those and every instance of every
//	                family (ZOO.md "Task families"); "one": one task of every family (a hand-written one
//	                where the family has any). Families are checked either way.
//	tag_instances   with instances=one, more tasks of the families carrying a tag: "TAG=N|TAG=N" (e.g.
//	                "evaluate_isolation=2": two instances of each of that guard's families, whose failure is
//	                drawn per attempt, so that its verdict holds at more seeds; docs/ZOO.md "Seed robustness").
//	mix             "realistic": from every task and instance, the realistic mix (mix.go, SelectMix): each
//	                failure mode at the share of tasks the seeds report; implies instances=all.
//	mix_seed        the mix's draw of instances (default 1).
//	tags            keeps, of the selection, the tasks carrying at least one of these tags, separated by "|"
//	                (e.g. the PR workflow's "intercept_hint|snapshot_ready|…": the families of five guards).
//	addr            the app listener address (default 127.0.0.1:0).
//	control_addr    the control API address (default 127.0.0.1:0).
//
// An unknown key, selection, mix or tag is an error with its near miss. Errors name the file and line of bad
// task input. The server starts on the first Open (or Server()).
func NewSuite(opts suites.Options) (suites.Suite, error) { return newSuite(opts) }

// optionKeys are the option keys NewSuite understands; any other is refused, so that a misspelt key does not
// quietly plan the default selection.
var optionKeys = []string{"tasks_dir", "builtin_tasks", "instances", "tag_instances", "mix", "mix_seed", "tags", "addr", "control_addr"}

func newSuite(opts suites.Options) (*Suite, error) {
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if err := srcerr.OneOf("option", k, optionKeys); err != nil {
			return nil, fmt.Errorf("zoo: %w", err)
		}
	}
	s := &Suite{opts: Options{Addr: opts["addr"], ControlAddr: opts["control_addr"]}}
	var files []taskFile
	switch opts["builtin_tasks"] {
	case "false", "off", "0", "no":
	case "", "true", "on", "1", "yes":
		b, err := readTaskFS(taskFS, "tasks")
		if err != nil {
			return nil, err
		}
		files = b
	default:
		return nil, fmt.Errorf("zoo: builtin_tasks: want true or false, got %q", opts["builtin_tasks"])
	}
	if dir := opts["tasks_dir"]; dir != "" {
		extra, err := readTaskDir(dir)
		if err != nil {
			return nil, err
		}
		for _, x := range extra {
			replaced := false
			for i := range files {
				if filepath.Base(files[i].name) == filepath.Base(x.name) {
					files[i], replaced = x, true
				}
			}
			if !replaced {
				files = append(files, x)
			}
		}
	}
	sel := opts["instances"]
	if err := checkSelection(sel); err != nil {
		return nil, err
	}
	switch opts["mix"] {
	case "":
	case MixRealistic:
		sel = SelectAll
	default:
		return nil, fmt.Errorf("zoo: mix: %w", srcerr.OneOf("mix", opts["mix"], []string{MixRealistic}))
	}
	more, err := parseTagInstances(opts["tag_instances"], sel)
	if err != nil {
		return nil, err
	}
	tasks, err := parseTaskFilesMore(files, sel, more)
	if err != nil {
		return nil, err
	}
	for _, tag := range slices.Sorted(maps.Keys(more)) {
		if !slices.ContainsFunc(tasks, func(t suites.Task) bool { return t.HasTag(tag) }) {
			return nil, fmt.Errorf("zoo: tag_instances: no task carries %q%s", tag, srcerr.Suggest(tag, tagsOf(tasks)))
		}
	}
	if opts["mix"] != "" {
		seed, err := parseMixSeed(opts["mix_seed"])
		if err != nil {
			return nil, err
		}
		if tasks, err = SelectMix(tasks, seed); err != nil {
			return nil, err
		}
	}
	if tasks, err = selectTags(tasks, opts["tags"]); err != nil {
		return nil, err
	}
	s.tasks = tasks
	return s, nil
}

// parseTagInstances parses the suite option tag_instances ("TAG=N|TAG=N", N ≥ 1), which only instances=one
// takes.
func parseTagInstances(v, sel string) (map[string]int, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	if sel == "" {
		sel = SelectTasks
	}
	if sel != SelectOne {
		return nil, fmt.Errorf("zoo: tag_instances: needs instances=%s, got instances=%s", SelectOne, sel)
	}
	out := map[string]int{}
	for _, item := range strings.Split(v, "|") {
		tag, n, ok := strings.Cut(strings.TrimSpace(item), "=")
		k, err := strconv.Atoi(strings.TrimSpace(n))
		if !ok || err != nil || k < 1 || strings.TrimSpace(tag) == "" {
			return nil, fmt.Errorf("zoo: tag_instances: want TAG=N (N ≥ 1) separated by \"|\", got %q", item)
		}
		out[strings.TrimSpace(tag)] = k
	}
	return out, nil
}

// selectTags keeps the tasks carrying at least one of the "|"-separated tags (all tasks when tags is empty); a
// tag no task carries is an error, as a glob that matches no task is.
func selectTags(tasks []suites.Task, tags string) ([]suites.Task, error) {
	if strings.TrimSpace(tags) == "" {
		return tasks, nil
	}
	want := strings.Split(tags, "|")
	var out []suites.Task
	for i, tag := range want {
		want[i] = strings.TrimSpace(tag)
		if !slices.ContainsFunc(tasks, func(t suites.Task) bool { return t.HasTag(want[i]) }) {
			return nil, fmt.Errorf("zoo: tags: no task carries %q%s", want[i], srcerr.Suggest(want[i], tagsOf(tasks)))
		}
	}
	for _, t := range tasks {
		if slices.ContainsFunc(want, t.HasTag) {
			out = append(out, t)
		}
	}
	return out, nil
}

// tagsOf lists the tags the tasks carry, sorted: the candidates of a misspelt tag's "did you mean".
func tagsOf(tasks []suites.Task) []string {
	seen := map[string]bool{}
	for _, t := range tasks {
		for _, tag := range t.Tags {
			seen[tag] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// Name implements suites.Suite.
func (s *Suite) Name() string { return "zoo" }

// NeedsWebGL implements suites.WebGLNeeds: false, no Zoo page draws on a canvas (TestNoZooPageUsesWebGL), so
// the runner launches a Zoo run's browsers without software GL.
func (s *Suite) NeedsWebGL() bool { return false }

// Tasks implements suites.Suite: the loaded tasks in file order, then order within a file.
func (s *Suite) Tasks() []suites.Task { return append([]suites.Task(nil), s.tasks...) }

// Server returns the suite's Zoo server, starting it on first use.
func (s *Suite) Server() (*Server, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		srv, err := Start(s.opts)
		if err != nil {
			return nil, err
		}
		s.srv = srv
	}
	return s.srv, nil
}

// Open implements suites.Suite: a fresh tenant of t.App with t.Mutations. attemptID is not used for the
// tenant id (which is random); it only labels errors.
func (s *Suite) Open(ctx context.Context, t suites.Task, attemptID string) (suites.Env, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	srv, err := s.Server()
	if err != nil {
		return nil, err
	}
	tn, err := srv.NewTenant(t.App, t.Mutations)
	if err != nil {
		return nil, fmt.Errorf("zoo: attempt %s task %s: %w", attemptID, t.ID, err)
	}
	start := t.Start
	if start == "" {
		start = "/"
	}
	return &env{t: tn, start: tn.URL(start)}, nil
}

// Close implements suites.Suite: stops the server if it was started.
func (s *Suite) Close() error {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		return srv.Close()
	}
	return nil
}

// env is one attempt's tenant as a suites.Env.
type env struct {
	t     *Tenant
	start string
}

// StartURL implements suites.Env.
func (e *env) StartURL() string { return e.start }

// Allowed implements suites.Env: only the tenant's own prefix on the Zoo origin.
func (e *env) Allowed(url string) bool { return e.t.Allowed(url) }

// MustAsk implements suites.PatternEnv: the URLs the tenant's Allowed may refuse (Tenant.MustAsk).
func (e *env) MustAsk() *regexp.Regexp { return e.t.MustAsk() }

// State implements suites.Env: the app's state JSON.
func (e *env) State(ctx context.Context) (json.RawMessage, error) { return e.t.State(), nil }

// Volatile implements suites.VolatileEnv: the tenant's path prefix, random per attempt ("/t/<id>/").
func (e *env) Volatile() []string {
	id, _, _ := strings.Cut(strings.TrimPrefix(e.t.Prefix(), "/t/"), "/")
	return []string{"/t/" + id + "/"}
}

// Close implements suites.Env: deletes the tenant. Safe to call twice.
func (e *env) Close(ctx context.Context) error {
	e.t.Close()
	return nil
}

// Tenant exposes the env's tenant (tests, `bench zoo serve`).
func (e *env) Tenant() *Tenant { return e.t }
