package workflows

// The local run of the workflows: each job's own run: steps, in order, with bash as GitHub runs them, the matrix
// expanded, in a fresh copy of the working tree per job — against the scripted policy, at reps 1 on a few tasks
// (the workflows' own knobs: nightly's workflow_dispatch inputs, pr-ablation's env). What is replaced, and how:
//   - actions/checkout copies the working tree (git ls-files: tracked and untracked-not-ignored files) into the
//     workspace (or its `path:`), with the repository's set-up caches linked in (below);
//   - actions/setup-go and actions/setup-node are no-ops (this machine has Go and Node; setup-go's go-version is
//     checked against go.mod);
//   - actions/upload-artifact and actions/download-artifact copy into and out of a per-run artifact folder, with
//     v4's layout (a directory's contents at the artifact's root; by pattern, one folder per artifact);
//   - the container's first step (apt-get install of git, ca-certificates, make, curl, gh) is replaced, not run:
//     this machine is Debian already, and `gh` is a fake on PATH (fakegh.sh) serving `run list`, `run download`
//     and `pr comment` from a folder;
//   - `make` is a fake on PATH too (fakemake.sh): it runs the real make, but for `make build` (the Makefile's
//     build target must be `go build -o bin/bench ./cmd/bench` alone): every checkout is the same working tree,
//     so each build is replaced by a copy of the bin/bench the test builds once in the repository (each logged,
//     and counted per run);
//   - ${{ }} expressions come from an explicit table (exprTable), `if:` conditions from another (ifTable): an
//     expression or condition that is not in them fails the test, so a workflow change that the test cannot
//     follow is noticed;
//   - GITHUB_STEP_SUMMARY, GITHUB_OUTPUT and GITHUB_ENV are files, read after each step as the runner does.
// Not covered: the runner itself, the container image, the real gh and the upload/download services.
//
// Sources for the runner semantics followed here: the default shell `bash --noprofile --norc -eo pipefail {0}`
// (docs.github.com, "Workflow syntax for GitHub Actions", jobs.<job_id>.steps[*].shell); a step without if: runs
// on success(); continue-on-error keeps the job's status; GITHUB_OUTPUT/GITHUB_ENV lines NAME=value
// ("Workflow commands for GitHub Actions"); actions/download-artifact v4 README ("download all artifacts" and
// pattern: each artifact into path/<name> unless merge-multiple).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The tasks and reps of the local run. Nightly's tasks land one pair on each of the 3 shards (Shard.Select
// hashes the pair_id: suite, task and rep; `bench ablate suites/zoo/ablations/nightly.yaml --reps 1 --tasks … --dry-run --shard i/3`), so every
// shard job has work; pr-ablation's are two tasks of its gate's selection (GATE_OPTIONS: one task per family of
// the five large-effect guards) that are hand-written, so that its guard ablation (demo.yaml) has them too.
const (
	nightlyTasks = "chat-post-off-topic-sam,planner-storefront-plan-switch-off,chat-post-town-square-luis"
	prTasks      = "chat-post-design-reviews-priya,planner-mobile-android-automated-plan-switch-on"
	testRepo     = "webbench/webbench"
	prNumber     = "16"
)

// nightlyArms are the arms the nightly run has attempts in on nightlyTasks: the baseline and the guard-off arm
// targeting each task (chat-post-*: snapshot_ready, planner-*: visual_progress).
var nightlyArms = []string{"baseline", "no_snapshot_ready", "no_visual_progress"}

type stringList []string

func (l *stringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = []string{n.Value}
		return nil
	}
	var s []string
	if err := n.Decode(&s); err != nil {
		return err
	}
	*l = s
	return nil
}

type wfStep struct {
	ID              string            `yaml:"id"`
	Name            string            `yaml:"name"`
	Uses            string            `yaml:"uses"`
	Run             string            `yaml:"run"`
	If              string            `yaml:"if"`
	Env             map[string]string `yaml:"env"`
	With            map[string]string `yaml:"with"`
	ContinueOnError bool              `yaml:"continue-on-error"`
	Shell           string            `yaml:"shell"`
	WorkDir         string            `yaml:"working-directory"`
}

type wfJob struct {
	Needs     stringList        `yaml:"needs"`
	If        string            `yaml:"if"`
	Container string            `yaml:"container"`
	Env       map[string]string `yaml:"env"`
	Strategy  struct {
		Matrix map[string][]string `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []wfStep `yaml:"steps"`
}

type workflow struct {
	Name string            `yaml:"name"`
	Env  map[string]string `yaml:"env"`
	Jobs map[string]*wfJob `yaml:"jobs"`
	raw  *yaml.Node
}

// runCtx is one workflow run: its event, inputs, env overrides, artifacts and the fake gh's state.
type runCtx struct {
	t         *testing.T
	wf        *workflow
	runID     string
	event     string // the event's action for pull_request ("synchronize"), the event name otherwise
	inputs    map[string]string
	envSet    map[string]string // workflow env overrides (must name a variable the workflow defines)
	ws        string            // GITHUB_WORKSPACE, the same path for every job (as on a runner)
	artifacts string
	ghDir     string
	fakeBin   string
	src       []string // the working tree's files, relative to repoRoot
	repoRoot  string

	// per job
	matrix  map[string]string
	env     map[string]string // workflow + job env (the env context)
	outputs map[string]map[string]string
	summary *bytes.Buffer
	failed  bool
	// results
	jobs     map[string]*jobResult
	replaced []string
	copied   []string // the jobs' `make build` calls replaced by a copy of the test's bin/bench
	makeEnv  map[string]string
	makeLog  string
}

type jobResult struct {
	conclusion string // success, failure, skipped
	summary    string
	steps      []stepResult
}

type stepResult struct {
	name, outcome string // success, failure, skipped, replaced, no-op
}

// exprTable is every ${{ }} expression the test knows, with its value in the local run. Anything else fails.
var exprTable = map[string]func(c *runCtx) string{
	"matrix.shard":                       func(c *runCtx) string { return c.need(c.matrix, "shard", "matrix") },
	"env.SHARDS":                         func(c *runCtx) string { return c.need(c.env, "SHARDS", "env") },
	"inputs.reps":                        func(c *runCtx) string { return c.inputs["reps"] },
	"inputs.tasks":                       func(c *runCtx) string { return c.inputs["tasks"] },
	"secrets.OPENAI_API_KEY":             func(*runCtx) string { return "" }, // no secret: the scripted policy
	"vars.WEBBENCH_MODEL":                func(*runCtx) string { return "" },
	"vars.WEBBENCH_BASE_URL":             func(*runCtx) string { return "" },
	"github.token":                       func(*runCtx) string { return "fake-token" },
	"github.event.pull_request.number":   func(*runCtx) string { return prNumber },
	"github.event.pull_request.base.sha": func(*runCtx) string { return "0000000000000000000000000000000000000000" },
}

// ifTable is every if: condition the test knows, evaluated for the local run. "" is the default, success().
var ifTable = map[string]func(c *runCtx) bool{
	"":         func(c *runCtx) bool { return !c.failed },
	"always()": func(*runCtx) bool { return true },
	"github.event.action != 'labeled' || github.event.label.name == 'ablation'": func(c *runCtx) bool {
		return c.event != "labeled" // no label on the simulated event
	},
	"steps.compare.outputs.exit_code == '1'": func(c *runCtx) bool { return c.outputs["compare"]["exit_code"] == "1" },
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (c *runCtx) need(m map[string]string, k, what string) string {
	v, ok := m[k]
	if !ok {
		c.t.Fatalf("%s.%s is not defined here", what, k)
	}
	return v
}

var exprRe = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// subst replaces every ${{ }} of s from exprTable.
func (c *runCtx) subst(s string) string {
	return exprRe.ReplaceAllStringFunc(s, func(m string) string {
		e := exprRe.FindStringSubmatch(m)[1]
		f, ok := exprTable[e]
		if !ok {
			c.t.Fatalf("%s: unknown expression ${{ %s }}: the local run cannot give it a value (add it to exprTable)", c.wf.Name, e)
		}
		return f(c)
	})
}

func loadWorkflow(t *testing.T, path string) *workflow {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw yaml.Node
	if err := yaml.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := raw.Decode(&wf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	wf.raw = &raw
	// Every expression and condition anywhere in the file must be known before anything runs.
	for _, p := range unknownExpressions(&raw) {
		t.Errorf("%s: %s", path, p)
	}
	if t.Failed() {
		t.FailNow()
	}
	return &wf
}

// unknownExpressions lists every ${{ }} expression of the document that is not in exprTable and every if:
// value not in ifTable.
func unknownExpressions(doc *yaml.Node) []string {
	var out []string
	var walk func(n *yaml.Node, key string)
	walk = func(n *yaml.Node, key string) {
		if n.Kind == yaml.ScalarNode {
			for _, m := range exprRe.FindAllStringSubmatch(n.Value, -1) {
				if _, ok := exprTable[m[1]]; !ok {
					out = append(out, fmt.Sprintf("unknown expression ${{ %s }} (add it to exprTable with its local value)", m[1]))
				}
			}
			if key == "if" {
				if _, ok := ifTable[n.Value]; !ok {
					out = append(out, fmt.Sprintf("unknown if: condition %q (add it to ifTable)", n.Value))
				}
			}
		}
		for i, ch := range n.Content {
			k := ""
			if n.Kind == yaml.MappingNode && i%2 == 1 {
				k = n.Content[i-1].Value
			}
			walk(ch, k)
		}
	}
	walk(doc, "")
	return out
}

// The local run refuses what it cannot simulate: an expression or an if: condition outside its tables, wherever
// it stands (a step's run, env or with, a job's if, the workflow's concurrency group), and accepts the tables'.
func TestLocalRunKnowsOnlyItsTables(t *testing.T) {
	doc := "on: push\nconcurrency:\n  group: g-${{ github.run_id }}\njobs:\n  a:\n    if: always()\n    steps:\n" +
		"      - run: echo ${{ matrix.shard }} ${{ github.sha }}\n      - if: success()\n        run: echo\n" +
		"      - env:\n          T: ${{ github.token }}\n        run: echo \"${T}\"\n"
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	got := unknownExpressions(&n)
	want := []string{
		"unknown expression ${{ github.run_id }} (add it to exprTable with its local value)",
		"unknown expression ${{ github.sha }} (add it to exprTable with its local value)",
		`unknown if: condition "success()" (add it to ifTable)`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("unknownExpressions:\n got %q\nwant %q", got, want)
	}
}

// jobOrder is the jobs in an order that respects needs: (names sorted within a level).
func jobOrder(t *testing.T, wf *workflow) []string {
	var order []string
	done := map[string]bool{}
	for len(order) < len(wf.Jobs) {
		var ready []string
		for name, j := range wf.Jobs {
			if done[name] {
				continue
			}
			if !slices.ContainsFunc(j.Needs, func(n string) bool { return !done[n] }) {
				ready = append(ready, name)
			}
		}
		if len(ready) == 0 {
			t.Fatalf("%s: needs: cycle or unknown job", wf.Name)
		}
		sort.Strings(ready)
		for _, n := range ready {
			done[n] = true
			order = append(order, n)
		}
	}
	return order
}

// matrixRuns expands a job's matrix (the cartesian product of its lists; one empty entry without a matrix).
func matrixRuns(j *wfJob) []map[string]string {
	runs := []map[string]string{{}}
	keys := make([]string, 0, len(j.Strategy.Matrix))
	for k := range j.Strategy.Matrix {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var next []map[string]string
		for _, r := range runs {
			for _, v := range j.Strategy.Matrix[k] {
				m := map[string]string{k: v}
				for a, b := range r {
					m[a] = b
				}
				next = append(next, m)
			}
		}
		runs = next
	}
	return runs
}

// run runs every job of the workflow and records the results in c.jobs (keyed "job" or "job (v1, …)").
func (c *runCtx) run() {
	t := c.t
	for k := range c.envSet {
		if _, ok := c.wf.Env[k]; !ok {
			t.Fatalf("%s: the test sets env %s, which the workflow no longer defines", c.wf.Name, k)
		}
	}
	c.jobs = map[string]*jobResult{}
	for _, name := range jobOrder(t, c.wf) {
		j := c.wf.Jobs[name]
		if j.Container != "debian:bookworm" {
			t.Errorf("%s job %s: container %q, want debian:bookworm (make setup installs Debian's chromium; see the workflow's header)", c.wf.Name, name, j.Container)
		}
		needsOK := !slices.ContainsFunc(j.Needs, func(n string) bool {
			for k, r := range c.jobs {
				if (k == n || strings.HasPrefix(k, n+" (")) && r.conclusion != "success" {
					return true
				}
			}
			return false
		})
		for _, m := range matrixRuns(j) {
			key := name
			if len(m) > 0 {
				var vs []string
				for _, k := range slices.Sorted(maps.Keys(m)) {
					vs = append(vs, m[k])
				}
				key += " (" + strings.Join(vs, ", ") + ")"
			}
			c.matrix = m
			c.failed = !needsOK
			if !ifTable[j.If](c) {
				c.jobs[key] = &jobResult{conclusion: "skipped"}
				continue
			}
			c.failed = false
			c.jobs[key] = c.runJob(key, j)
		}
	}
}

func (c *runCtx) runJob(key string, j *wfJob) *jobResult {
	t := c.t
	if err := os.RemoveAll(c.ws); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(c.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	c.env = map[string]string{}
	for k, v := range c.wf.Env {
		c.env[k] = or(c.envSet[k], v)
	}
	for k, v := range j.Env {
		c.env[k] = c.subst(v)
	}
	c.outputs = map[string]map[string]string{}
	c.summary = &bytes.Buffer{}
	res := &jobResult{}
	jobEnv := map[string]string{} // GITHUB_ENV additions
	sawCheckout := false
	for i, s := range j.Steps {
		label := or(s.Name, or(s.Uses, fmt.Sprintf("step %d", i+1)))
		label = c.subst(label)
		if !ifTable[s.If](c) {
			res.steps = append(res.steps, stepResult{label, "skipped"})
			continue
		}
		if s.Uses != "" {
			res.steps = append(res.steps, stepResult{label, c.action(key, s, &sawCheckout)})
			continue
		}
		if strings.Contains(s.Run, "apt-get install") {
			c.checkContainerStep(key, i, s)
			c.replaced = append(c.replaced, c.wf.Name+" / "+key+" / "+label)
			t.Logf("%s / %s: step %q replaced, not run: this machine is Debian with git and make; gh is the fake on PATH", c.wf.Name, key, label)
			res.steps = append(res.steps, stepResult{label, "replaced"})
			continue
		}
		outcome := c.runStep(key, label, s, jobEnv)
		if outcome == "failure" && !s.ContinueOnError {
			c.failed = true
		}
		res.steps = append(res.steps, stepResult{label, outcome})
	}
	res.summary = c.summary.String()
	res.conclusion = "success"
	if c.failed {
		res.conclusion = "failure"
	}
	return res
}

// checkContainerStep checks the replaced first step: it is the job's first, before any checkout (so that
// checkout finds git and makes a repository), installs exactly what the workflows' header says, and marks the
// workspace safe for git.
func (c *runCtx) checkContainerStep(key string, i int, s wfStep) {
	t := c.t
	if i != 0 {
		t.Errorf("%s / %s: the container's install step is step %d, want the first (checkout needs git)", c.wf.Name, key, i+1)
	}
	m := regexp.MustCompile(`apt-get install -y(?: -qq)? ([^\n>]*)`).FindStringSubmatch(s.Run)
	want := []string{"ca-certificates", "curl", "gh", "git", "make"}
	if m == nil {
		t.Fatalf("%s / %s: no apt-get install -y line in %q", c.wf.Name, key, s.Run)
	}
	got := strings.Fields(m[1])
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s / %s: the container step installs %v, want %v", c.wf.Name, key, got, want)
	}
	for _, tool := range []string{"git", "make"} { // what the replaced step installs and the steps use
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s / %s: the container step is replaced, but this machine has no %s", c.wf.Name, key, tool)
		}
	}
	// '*': the runner's user owns the workspace and pr-ablation's head/ and base/ checkouts, not the container's
	// root, so git refuses them as "dubious ownership" without it.
	if !strings.Contains(s.Run, `git config --global --add safe.directory '*'`) {
		t.Errorf("%s / %s: the container step does not mark every directory safe for git (safe.directory '*')", c.wf.Name, key)
	}
}

// action runs a uses: step the test knows and returns its outcome.
func (c *runCtx) action(key string, s wfStep, sawCheckout *bool) string {
	t := c.t
	with := map[string]string{}
	for k, v := range s.With {
		with[k] = c.subst(v)
	}
	name, _, _ := strings.Cut(s.Uses, "@")
	switch name {
	case "actions/checkout":
		*sawCheckout = true
		c.checkout(filepath.Join(c.ws, with["path"]))
		return "success"
	case "actions/setup-go":
		gomod, err := os.ReadFile(filepath.Join(c.repoRoot, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		if v := with["go-version"]; !regexp.MustCompile(`(?m)^go ` + regexp.QuoteMeta(v) + `(\.|$)`).Match(gomod) {
			t.Errorf("%s / %s: setup-go go-version %q does not match go.mod's go line", c.wf.Name, key, v)
		}
		return "no-op"
	case "actions/setup-node":
		return "no-op"
	case "actions/upload-artifact":
		src := filepath.Join(c.ws, with["path"])
		dst := filepath.Join(c.artifacts, c.runID, with["name"])
		if _, err := os.Stat(dst); err == nil {
			t.Fatalf("%s / %s: artifact %s uploaded twice in run %s", c.wf.Name, key, with["name"], c.runID)
		}
		if _, err := os.Stat(src); err != nil {
			t.Logf("%s / %s: upload-artifact %s: no files at %s (warned, as if-no-files-found: warn)", c.wf.Name, key, with["name"], with["path"])
			return "success"
		}
		copyTree(t, src, dst)
		return "success"
	case "actions/download-artifact":
		dir := filepath.Join(c.ws, with["path"])
		all, _ := os.ReadDir(filepath.Join(c.artifacts, c.runID))
		n := 0
		for _, a := range all {
			switch {
			case with["name"] != "":
				if a.Name() == with["name"] {
					copyTree(t, filepath.Join(c.artifacts, c.runID, a.Name()), dir)
					n++
				}
			case with["pattern"] != "":
				if ok, _ := filepath.Match(with["pattern"], a.Name()); ok {
					copyTree(t, filepath.Join(c.artifacts, c.runID, a.Name()), filepath.Join(dir, a.Name()))
					n++
				}
			default:
				t.Fatalf("%s / %s: download-artifact without name or pattern is not simulated", c.wf.Name, key)
			}
		}
		if n == 0 {
			t.Logf("%s / %s: download-artifact found no artifact", c.wf.Name, key)
			return "failure"
		}
		return "success"
	}
	t.Fatalf("%s / %s: action %s is not simulated by the local run", c.wf.Name, key, s.Uses)
	return ""
}

// checkout copies the working tree's files into dir, keeping modification times (make compares them), and links
// the git-ignored caches that `make setup` fills (.cache, the Node agent's node_modules; its dist is copied) so
// that setup finds them installed instead of reaching the network. Every checkout, pr-ablation's base too, is
// this same working tree: what lets fakemake.sh share one build's bin/bench.
func (c *runCtx) checkout(dir string) {
	t := c.t
	for _, rel := range c.src {
		from := filepath.Join(c.repoRoot, rel)
		fi, err := os.Lstat(from)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or not a file
		}
		copyFile(t, from, filepath.Join(dir, rel), fi)
	}
	for _, rel := range []string{".cache", "examples/agents/node/node_modules"} {
		if _, err := os.Stat(filepath.Join(c.repoRoot, rel)); err == nil {
			if err := os.Symlink(filepath.Join(c.repoRoot, rel), filepath.Join(dir, rel)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d := filepath.Join(c.repoRoot, "examples/agents/node/dist"); dirExists(d) {
		copyTree(t, d, filepath.Join(dir, "examples/agents/node/dist"))
	}
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// runStep runs one run: step with bash as the runner does and applies its GITHUB_OUTPUT, GITHUB_ENV and
// GITHUB_STEP_SUMMARY files.
func (c *runCtx) runStep(key, label string, s wfStep, jobEnv map[string]string) string {
	t := c.t
	if s.Shell != "" {
		t.Fatalf("%s / %s / %s: shell %q is not simulated (the default bash only)", c.wf.Name, key, label, s.Shell)
	}
	tmp := t.TempDir()
	script := filepath.Join(tmp, "step.sh")
	if err := os.WriteFile(script, []byte(c.subst(s.Run)), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"} {
		files[f] = filepath.Join(tmp, strings.ToLower(f))
		if err := os.WriteFile(files[f], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || k == "GH_TOKEN" || k == "OPENAI_API_KEY" {
			continue
		}
		env[k] = v
	}
	for k, v := range c.env {
		env[k] = v
	}
	for k, v := range jobEnv {
		env[k] = v
	}
	for k, v := range s.Env {
		env[k] = c.subst(v)
	}
	env["CI"], env["GITHUB_ACTIONS"] = "true", "true"
	env["GITHUB_WORKSPACE"], env["GITHUB_REPOSITORY"], env["GITHUB_RUN_ID"] = c.ws, testRepo, c.runID
	env["RUNNER_TEMP"] = tmp
	env["FAKE_GH_DIR"] = c.ghDir
	for k, v := range c.makeEnv {
		env[k] = v
	}
	env["PATH"] = c.fakeBin + string(os.PathListSeparator) + env["PATH"]
	for f, p := range files {
		env[f] = p
	}
	var envList []string
	for k, v := range env {
		envList = append(envList, k+"="+v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = filepath.Join(c.ws, s.WorkDir)
	cmd.Env = envList
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	makeCalls := len(readLines(t, c.makeLog))
	start := time.Now()
	err := cmd.Run()
	for _, line := range readLines(t, c.makeLog)[makeCalls:] {
		if bin, ok := strings.CutPrefix(line, "copied "); ok {
			c.copied = append(c.copied, c.wf.Name+" / "+key+" / "+label)
			t.Logf("%s / %s / %s: make build replaced, not run: %s is a copy of the test's build of the same working tree", c.wf.Name, key, label, bin)
		}
	}
	outcome := "success"
	if err != nil {
		outcome = "failure"
		t.Logf("%s / %s / %s: %v (%s)\n%s", c.wf.Name, key, label, err, time.Since(start).Round(time.Second), tail(out.String(), 4000))
	} else {
		t.Logf("%s / %s / %s: ok (%s)", c.wf.Name, key, label, time.Since(start).Round(time.Second))
	}
	for k, v := range readKV(t, files["GITHUB_OUTPUT"]) {
		if s.ID != "" {
			if c.outputs[s.ID] == nil {
				c.outputs[s.ID] = map[string]string{}
			}
			c.outputs[s.ID][k] = v
		}
	}
	for k, v := range readKV(t, files["GITHUB_ENV"]) {
		jobEnv[k] = v
	}
	sum, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	c.summary.Write(sum)
	return outcome
}

// readLines reads a file's lines (none when it does not exist).
func readLines(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// readKV reads a GITHUB_OUTPUT/GITHUB_ENV file of NAME=value lines (the multi-line NAME<<DELIM form is not
// simulated: it fails the test).
func readKV(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.Contains(k, "<<") {
			t.Fatalf("%s: line %q is not NAME=value", filepath.Base(path), line)
		}
		m[k] = v
	}
	return m
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func copyFile(t *testing.T, from, to string, fi os.FileInfo) {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(to, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the directory from into to (merging), files and symlinks as they are.
func copyTree(t *testing.T, from, to string) {
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		switch {
		case fi.IsDir():
			return os.MkdirAll(dst, 0o755)
		case fi.Mode()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, dst)
		default:
			copyFile(t, p, dst, fi)
			return nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// localRun sets up the shared state of the test's workflow runs: the working tree's file list, the fake gh and
// make, and a workspace path that is the same on every run of the test from this repository (so go build's
// cache, keyed by the source directory, is reused by the one `make build` that runs).
type localRun struct {
	root, base, ghDir, fakeBin, artifacts string
	src                                   []string
	makeEnv                               map[string]string // fakemake.sh's: the real make, the shared binary, the log
}

// buildRecipe is the Makefile's build target as fakemake.sh relies on it: no prerequisites, one command that
// writes bin/bench and nothing else.
const buildRecipe = "$(GO) build -o bin/bench ./cmd/bench"

// checkBuildTarget fails the test unless the Makefile's build target is buildRecipe alone: fakemake.sh replaces
// `make build` by a copy of the test's own build of cmd/bench, which is the same only while that is all it makes.
func checkBuildTarget(t *testing.T, root string) {
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var prereq string
	var recipe []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "build:"); ok {
			in, prereq = true, strings.TrimSpace(rest)
			continue
		}
		if !in {
			continue
		}
		cmd, ok := strings.CutPrefix(line, "\t")
		if !ok {
			break
		}
		recipe = append(recipe, cmd)
	}
	if !in || prereq != "" || !slices.Equal(recipe, []string{buildRecipe}) {
		t.Fatalf("the Makefile's build target (found %v, prerequisites %q, recipe %q) is no longer %q alone: "+
			"fakemake.sh, which shares one build's bin/bench between the jobs, must learn what it makes now", in, prereq, recipe, buildRecipe)
	}
}

func newLocalRun(t *testing.T) *localRun {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "-c", "-o", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("the local workflow run copies the working tree with git ls-files: %v", err)
	}
	var src []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			src = append(src, f)
		}
	}
	sum := sha256.Sum256([]byte(root))
	base := filepath.Join(os.TempDir(), "webbench-wfrun-"+hex.EncodeToString(sum[:6]))
	if err := os.RemoveAll(base); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			os.RemoveAll(base)
		} else {
			t.Logf("left for inspection: %s", base)
		}
	})
	l := &localRun{root: root, base: base, src: src, ghDir: filepath.Join(base, "gh"),
		fakeBin: filepath.Join(base, "fakebin"), artifacts: filepath.Join(base, "gh", "artifacts")}
	for _, d := range []string{l.ghDir, l.fakeBin, l.artifacts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	realMake, err := exec.LookPath("make")
	if err != nil {
		t.Fatalf("the workflows' steps run make, and this machine has none: %v", err)
	}
	checkBuildTarget(t, root)
	// The one build every `make build` of the run copies (fakemake.sh), made where go's build cache already
	// holds this module's packages: the repository's own path.
	bench := filepath.Join(base, "shared", "bench")
	build := exec.Command("go", "build", "-o", bench, "./cmd/bench")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -o %s ./cmd/bench: %v\n%s", bench, err, out)
	}
	l.makeEnv = map[string]string{"FAKE_MAKE_REAL": realMake, "FAKE_MAKE_BENCH": bench,
		"FAKE_MAKE_LOG": filepath.Join(base, "make.log")}
	for name, script := range map[string]string{"gh": "fakegh.sh", "make": "fakemake.sh"} {
		b, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(l.fakeBin, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// ctx is a run of wf. Its workspace is the same path for every job (as on a runner: /__w/REPO/REPO), placed so
// that nightly's checkout and pr-ablation's head checkout share one path.
func (l *localRun) ctx(t *testing.T, wf *workflow, runID, event string) *runCtx {
	ws := filepath.Join(l.base, "work", "webbench", "head")
	if wf.Name == "pr-ablation" {
		ws = filepath.Dir(ws)
	}
	return &runCtx{t: t, wf: wf, runID: runID, event: event, ws: ws,
		artifacts: l.artifacts, ghDir: l.ghDir, fakeBin: l.fakeBin, src: l.src, repoRoot: l.root,
		inputs: map[string]string{}, envSet: map[string]string{}, makeEnv: l.makeEnv, makeLog: l.makeEnv["FAKE_MAKE_LOG"]}
}

func requireSuccess(t *testing.T, c *runCtx, want ...string) {
	t.Helper()
	var keys []string
	for k := range c.jobs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !slices.Equal(keys, want) {
		t.Fatalf("%s run %s: jobs %v, want %v", c.wf.Name, c.runID, keys, want)
	}
	for _, k := range keys {
		if r := c.jobs[k]; r.conclusion != "success" {
			t.Fatalf("%s run %s: job %s concluded %s: steps %v", c.wf.Name, c.runID, k, r.conclusion, r.steps)
		}
	}
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		recs = append(recs, r)
	}
	return recs
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, tail(s, 3000))
		}
	}
}

// checkNight checks one nightly run's artifacts: every shard uploaded its run, the merged run holds each
// planned attempt once (one record per attempt id, each pair whole: its baseline and its arm), report.json has
// the expected arms and report.html exists.
func checkNight(t *testing.T, l *localRun, runID string) {
	t.Helper()
	dir := filepath.Join(l.artifacts, runID)
	shardIDs := map[string]string{}
	for i := 1; i <= 3; i++ {
		for _, r := range readJSONL(t, filepath.Join(dir, fmt.Sprintf("nightly-shard-%d", i), "attempts.jsonl")) {
			id := r["attempt_id"].(string)
			if s, ok := shardIDs[id]; ok {
				t.Errorf("night %s: attempt %s in shards %s and %d", runID, id, s, i)
			}
			shardIDs[id] = fmt.Sprint(i)
		}
	}
	merged := readJSONL(t, filepath.Join(dir, "nightly-merged", "attempts.jsonl"))
	wantAttempts := len(strings.Split(nightlyTasks, ",")) * 2 // reps 1; each task: the baseline and its one arm
	if len(merged) != wantAttempts || len(shardIDs) != wantAttempts {
		t.Errorf("night %s: %d merged attempt records, %d in the shards; want %d", runID, len(merged), len(shardIDs), wantAttempts)
	}
	seen := map[string]int{}
	pairs := map[string][]string{}
	for _, r := range merged {
		id := r["attempt_id"].(string)
		seen[id]++
		if _, ok := shardIDs[id]; !ok {
			t.Errorf("night %s: merged attempt %s is in no shard", runID, id)
		}
		pairs[r["pair_id"].(string)] = append(pairs[r["pair_id"].(string)], r["variant"].(string))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("night %s: attempt %s merged %d times", runID, id, n)
		}
	}
	if len(pairs) != len(strings.Split(nightlyTasks, ",")) {
		t.Errorf("night %s: %d pairs merged, want %d: %v", runID, len(pairs), len(strings.Split(nightlyTasks, ",")), pairs)
	}
	for p, arms := range pairs {
		sort.Strings(arms)
		if len(arms) != 2 || arms[0] != "baseline" {
			t.Errorf("night %s: pair %s has arms %v, want the baseline and one guard-off arm", runID, p, arms)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "nightly-merged", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Baseline string `json:"baseline"`
		Attempts int    `json:"attempts"`
		Arms     []struct {
			Name     string `json:"name"`
			Attempts int    `json:"attempts"`
		} `json:"arms"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("night %s: report.json: %v", runID, err)
	}
	var withAttempts []string
	for _, a := range rep.Arms {
		if a.Attempts > 0 {
			withAttempts = append(withAttempts, a.Name)
		}
	}
	sort.Strings(withAttempts)
	if rep.Baseline != "baseline" || rep.Attempts != wantAttempts || !slices.Equal(withAttempts, nightlyArms) || len(rep.Arms) != 8 {
		t.Errorf("night %s: report.json baseline %q, %d attempts, %d arms, arms with attempts %v; want baseline, %d, 8 (the baseline and the seven guard-off arms), %v",
			runID, rep.Baseline, rep.Attempts, len(rep.Arms), withAttempts, wantAttempts, nightlyArms)
	}
	html, err := os.ReadFile(filepath.Join(dir, "nightly-merged", "report.html"))
	if err != nil || !bytes.Contains(html, []byte("<html")) {
		t.Errorf("night %s: report.html missing or not HTML (%v)", runID, err)
	}
}

// TestWorkflowsRunLocally runs nightly.yml twice (night 1: 3 shards → merge → report → compare, with no previous
// night → upload → gate; night 2 the same, finding night 1 through the fake gh and comparing with it) and
// pr-ablation.yml once, as described at the top of this file.
func TestWorkflowsRunLocally(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the workflows' steps (builds and short benchmark runs): not with -short")
	}
	l := newLocalRun(t)
	nightly := loadWorkflow(t, "../../.github/workflows/nightly.yml")
	pr := loadWorkflow(t, "../../.github/workflows/pr-ablation.yml")
	jobsNightly := []string{"merge", "shard (1)", "shard (2)", "shard (3)"}

	// Night 1.
	n1 := l.ctx(t, nightly, "1001", "workflow_dispatch")
	n1.inputs = map[string]string{"reps": "1", "tasks": nightlyTasks}
	n1.run()
	requireSuccess(t, n1, jobsNightly...)
	if len(n1.replaced) != 4 {
		t.Errorf("night 1: %d container install steps replaced, want 4 (one per job): %v", len(n1.replaced), n1.replaced)
	}
	// Every job's `make build` was a copy of the test's binary.
	if len(n1.copied) != 4 {
		t.Errorf("night 1: %d builds copied, want 4 (one per job): %v", len(n1.copied), n1.copied)
	}
	checkNight(t, l, "1001")
	sum1 := n1.jobs["merge"].summary
	mustContain(t, "night 1's job summary", sum1, "## Ablation: 7 variants vs baseline `baseline`", "| arm | model | attempts |",
		"| variant | scope |", "No previous nightly artifact to compare with.")
	if strings.Contains(sum1, "## Compared with the previous night") {
		t.Errorf("night 1's summary compares with a previous night, but there was none")
	}
	// The run concluded success: what `gh run list` reports for it from now on.
	if err := os.WriteFile(filepath.Join(l.ghDir, "runs.txt"), []byte("1000 failure nightly.yml\n1001 success nightly.yml\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Night 2: a rerun, which finds night 1 as the last successful night.
	n2 := l.ctx(t, nightly, "1002", "workflow_dispatch")
	n2.inputs = map[string]string{"reps": "1", "tasks": nightlyTasks}
	n2.run()
	requireSuccess(t, n2, jobsNightly...)
	if len(n2.copied) != 4 {
		t.Errorf("night 2: %d builds copied, want 4 (one per job): %v", len(n2.copied), n2.copied)
	}
	checkNight(t, l, "1002")
	sum2 := n2.jobs["merge"].summary
	mustContain(t, "night 2's job summary", sum2, "## Ablation: 7 variants vs baseline `baseline`",
		"## Compared with the previous night (run 1001)", "**compare runs/previous → runs/nightly", "| run A | run B | comparison |")
	if strings.Contains(sum2, "No previous nightly artifact") {
		t.Errorf("night 2 did not find night 1")
	}
	calls, _ := os.ReadFile(filepath.Join(l.ghDir, "calls.log"))
	mustContain(t, "the fake gh's calls", string(calls), "run download 1001 --repo "+testRepo+" --name nightly-merged --dir runs/previous")

	// pr-ablation: the PR and its base are both the working copy, so the comparison finds no change and the
	// gate step is skipped. (Even a timing-moved outcome could not fail the gate: on 2 tasks the exact sign-flip
	// p is at least 0.5.)
	p := l.ctx(t, pr, "2001", "synchronize")
	p.envSet = map[string]string{"REPS": "1", "TASKS": prTasks, "GATE_TASKS": prTasks}
	p.run()
	requireSuccess(t, p, "evaluate")
	if len(p.copied) != 2 {
		t.Errorf("pr-ablation: %d builds copied (%v); want 2 (head and base)", len(p.copied), p.copied)
	}
	steps := p.jobs["evaluate"].steps
	if last := steps[len(steps)-1]; last.name != "Gate" || last.outcome != "skipped" {
		t.Errorf("pr-ablation's last step %v, want Gate skipped (exit_code %q)", last, p.outputs["compare"]["exit_code"])
	}
	if got := p.outputs["compare"]["exit_code"]; got != "0" {
		t.Errorf("pr-ablation compare exit_code %q, want 0 (base and head are the same code)", got)
	}
	body, err := os.ReadFile(filepath.Join(l.ghDir, "pr-"+prNumber+"-comment.md"))
	if err != nil {
		t.Fatalf("no PR comment posted: %v", err)
	}
	mustContain(t, "the PR comment", string(body), "## This PR vs base (Zoo, 1 reps, same seeds; gate: worse by more than 0.05)",
		"| run A | run B | comparison |", "|---|", "## Guard ablation on this PR (leave-one-out, report only)",
		"## Ablation: 7 variants vs baseline `baseline`", "| no_snapshot_ready | variant scope |")
	for _, bad := range []string{"(comparison not available)", "(ablation not available)"} {
		if strings.Contains(string(body), bad) {
			t.Errorf("the PR comment says %s", bad)
		}
	}
	if p.jobs["evaluate"].summary != string(body) {
		t.Errorf("the job summary differs from the PR comment")
	}
	for _, side := range []string{"base", "head", "guards"} {
		if recs := readJSONL(t, filepath.Join(l.artifacts, "2001", "pr-evaluation", side, "attempts.jsonl")); len(recs) == 0 {
			t.Errorf("pr-evaluation artifact: no attempts in %s", side)
		}
	}
	t.Logf("replaced, not run (the container's apt-get step): %v", append(n1.replaced, append(n2.replaced, p.replaced...)...))
	t.Logf("make build replaced by a copy of the test's bin/bench: %v", append(n1.copied, append(n2.copied, p.copied...)...))
}
