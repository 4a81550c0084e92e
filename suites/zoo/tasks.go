package zoo

// Task files (tasks/*.yaml, embedded; more from Options "tasks_dir"). A file holds one task mapping or a
// sequence of them. Schema (every key but the optional ones is required; unknown keys are errors):
//
//	id: shop-checkout-yoga-mat-express   # unique in the suite; [a-z0-9][a-z0-9._-]*
//	app: shop                            # a registered app
//	start: /                             # path relative to the tenant's app root, begins with "/"
//	goal: Buy one blue Yoga Mat …        # what the agent is told; unique in the suite (whitespace/case-folded)
//	mutations: [consent]                 # optional; registered names the app implements
//	tags: [intercept_hint]               # optional; guards exercised + free labels
//	max_steps: 40                        # optional, ≥ 0 (0 = the agent's default)
//	timeout: 90s                         # optional Go duration > 0
//	check:                               # at least one of state / answer
//	  state: {orders: [{email: a@b.test, shipping: express}]}   # expected subset of the app's state JSON
//	  answer: {exact: "MH-07"}           # or must_include: [..], number: 6, tolerance: 0.5, reference: ".."
//	solution:                            # non-empty, ends with an answer step; one-key maps:
//	  - navigate: /cart                  # or {url: /cart}
//	  - click: {role: link, name: Yoga Mat}          # target keys: role, name | name_regex, nth, within
//	  - hover: {role: link, name: Apparel}
//	  - visual_click: {role: switch, nth: 0}
//	  - fill: {role: textbox, name: Email, text: ana@example.test}
//	  - select: {role: combobox, name: Shipping method, values: [Express]}
//	  - press: Enter                     # or {key: Enter}
//	  - evaluate: "() => document.title" # or {function: "…", role/name…: optional target}
//	  - answer: {from: {role: heading, name_regex: 'Order #(\d+)'}}   # or {literal: "6 mm"}
//
// Errors name the file and line ("tasks/shop.yaml:12: task shop-x: mutations: unknown mutation …"); all
// errors of a load are reported together.

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"webbench/srcerr"
	"webbench/suites"
)

// StepKinds are the solution step kinds a task may use (ZOO.md).
var StepKinds = []string{"navigate", "click", "fill", "select", "press", "hover", "visual_click", "evaluate",
	"answer"}

var taskKeys = []string{"id", "family", "app", "start", "goal", "mutations", "tags", "max_steps", "timeout",
	"check", "solution"}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// instanceIDPattern is a family instance's id, "<family>/<slug>" (families.go).
var instanceIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9-]*$`)

// taskFile is one file's name (as shown in errors) and bytes.
type taskFile struct {
	name string
	data []byte
}

// Selections of a load (the suite option "instances"): the hand-written tasks only; those and every instance
// of every family; or one task of every family (the demo's and the PR workflow's unit is the family, and a
// family's instances are correlated, so one instance per family buys most of the information per attempt).
const (
	SelectTasks = "tasks"
	SelectAll   = "all"
	SelectOne   = "one"
)

// checkSelection refuses a value of the option "instances" that is not a selection ("" is the default,
// SelectTasks).
func checkSelection(sel string) error {
	if sel == "" {
		return nil
	}
	if err := srcerr.OneOf("selection", sel, []string{SelectTasks, SelectAll, SelectOne}); err != nil {
		return fmt.Errorf("zoo: instances: %w", err)
	}
	return nil
}

// LoadTasks loads every *.yaml / *.yml file directly in dir of fsys, in name order, and checks them together
// (duplicate ids and goals across files are errors, families' instances included), returning the tasks of sel
// (SelectTasks or SelectAll). Source fields read "<dir>/<file>:<line>".
func LoadTasks(fsys fs.FS, dir, sel string) ([]suites.Task, error) {
	files, err := readTaskFS(fsys, dir)
	if err != nil {
		return nil, err
	}
	return parseTaskFiles(files, sel)
}

func readTaskFS(fsys fs.FS, dir string) ([]taskFile, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("zoo tasks: %w", err)
	}
	var out []taskFile
	for _, e := range ents {
		if e.IsDir() || !isYAML(e.Name()) {
			continue
		}
		p := path.Join(dir, e.Name())
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("zoo tasks: %w", err)
		}
		out = append(out, taskFile{p, b})
	}
	return out, nil
}

// readTaskDir reads the YAML files of a directory on disk; names are the paths as joined with dir.
func readTaskDir(dir string) ([]taskFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("zoo tasks_dir: %w", err)
	}
	var out []taskFile
	for _, e := range ents {
		if e.IsDir() || !isYAML(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("zoo tasks_dir: %w", err)
		}
		out = append(out, taskFile{p, b})
	}
	return out, nil
}

func isYAML(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// parseTaskFiles parses files in order, makes the families' instances and runs the cross-file checks; it
// returns the hand-written tasks, followed by the instances when sel is SelectAll. The same files give the same
// tasks, so a load is kept by the files' contents (every suite open and test reads the embedded files again;
// making the instances takes tens of milliseconds). Tasks of two loads share their check maps: read-only.
func parseTaskFiles(files []taskFile, sel string) ([]suites.Task, error) {
	return parseTaskFilesMore(files, sel, nil)
}

// parseTaskFilesMore is parseTaskFiles where, with SelectOne, a family whose tasks carry a tag of more gives its
// first more[tag] tasks (the largest such count) instead of one.
func parseTaskFilesMore(files []taskFile, sel string, more map[string]int) ([]suites.Task, error) {
	if err := checkSelection(sel); err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%d:%s\x00%d:", len(f.name), f.name, len(f.data))
		h.Write(f.data)
	}
	key := string(h.Sum(nil))
	loadMu.Lock()
	l, ok := loadCache[key]
	loadMu.Unlock()
	if !ok {
		l.tasks, l.insts, l.err = parseAll(files)
		for _, ts := range [][]suites.Task{l.tasks, l.insts} {
			for i := range ts { // an append by one caller must not write into another's tasks
				ts[i].Tags, ts[i].Mutations, ts[i].Solution = slices.Clip(ts[i].Tags), slices.Clip(ts[i].Mutations),
					slices.Clip(ts[i].Solution)
			}
		}
		loadMu.Lock()
		loadCache[key] = l
		loadMu.Unlock()
	}
	if l.err != nil {
		return nil, l.err
	}
	switch sel {
	case SelectAll:
		return append(slices.Clone(l.tasks), l.insts...), nil
	case SelectOne:
		return perFamily(l.tasks, l.insts, more), nil
	}
	return slices.Clone(l.tasks), nil
}

// perFamily returns one task of every family — more[tag] for a family whose tasks carry tag (the largest count
// of its tags in more) —: the first hand-written tasks of a family by id (Sample), so the families the
// hand-written tasks form keep the tasks the demo has always run, then the first instances by id.
func perFamily(tasks, insts []suites.Task, more map[string]int) []suites.Task {
	want := func(t suites.Task) int {
		n := 1
		for tag, k := range more {
			if t.HasTag(tag) {
				n = max(n, k)
			}
		}
		return n
	}
	taken := map[string]int{}
	var out []suites.Task
	for _, t := range append(Sample(tasks, 0), Sample(insts, 0)...) {
		if f := Family(t); taken[f] < want(t) {
			taken[f]++
			out = append(out, t)
		}
	}
	return out
}

// loadCache holds parsed task files by the hash of their names and contents.
var (
	loadMu    sync.Mutex
	loadCache = map[string]struct {
		tasks, insts []suites.Task
		err          error
	}{}
)

// parseAll parses files into hand-written tasks and family instances, checked together.
func parseAll(files []taskFile) ([]suites.Task, []suites.Task, error) {
	var errs []error
	var tasks []suites.Task
	var refs []familyRef
	fams := map[string]*family{}
	var famOrder []*family
	for _, f := range files {
		r := parseTaskFile(f.name, f.data)
		tasks = append(tasks, r.tasks...)
		refs = append(refs, r.refs...)
		errs = append(errs, r.errs...)
		for _, fam := range r.families {
			if prev, dup := fams[fam.ID]; dup {
				errs = append(errs, fmt.Errorf("%s: family %s: duplicate family, first declared at %s", fam.Source,
					fam.ID, prev.Source))
				continue
			}
			fams[fam.ID] = fam
			famOrder = append(famOrder, fam)
		}
	}
	tasks, es := checkFamilyRefs(tasks, refs, fams)
	errs = append(errs, es...)
	var insts []suites.Task
	for _, fam := range famOrder {
		ts, es := fam.instances()
		insts = append(insts, ts...)
		errs = append(errs, es...)
	}
	ids := map[string]suites.Task{}
	goals := map[string]suites.Task{}
	for _, t := range append(slices.Clip(tasks), insts...) {
		if prev, dup := ids[t.ID]; dup {
			errs = append(errs, fmt.Errorf("%s: task %s: duplicate id, first defined at %s", t.Source, t.ID,
				prev.Source))
		} else {
			ids[t.ID] = t
		}
		g := normGoal(t.Goal)
		if prev, dup := goals[g]; dup {
			errs = append(errs, fmt.Errorf("%s: task %s: duplicate goal, same as task %s at %s", t.Source, t.ID,
				prev.ID, prev.Source))
		} else {
			goals[g] = t
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return tasks, insts, nil
}

// normGoal folds case and collapses whitespace, so goals differing only in spacing count as duplicates.
func normGoal(g string) string { return strings.ToLower(strings.Join(strings.Fields(g), " ")) }

// fileResult is what one task file declares: tasks, their family keys, families, and the errors found.
type fileResult struct {
	tasks    []suites.Task
	refs     []familyRef
	families []*family
	errs     []error
}

// parseTaskFile parses one file into tasks and families; errors carry "name:line".
func parseTaskFile(name string, data []byte) fileResult {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fileResult{errs: []error{srcerr.FromYAML(name, data, err, nil)}}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return fileResult{} // empty file
	}
	root := doc.Content[0]
	var items []*yaml.Node
	switch root.Kind {
	case yaml.MappingNode:
		items = []*yaml.Node{root}
	case yaml.SequenceNode:
		items = root.Content
	default:
		return fileResult{errs: []error{srcerr.AtNode(name, root, "", "a task file holds a task mapping or a list of "+
			"tasks, got %s", srcerr.Got(root))}}
	}
	var r fileResult
	for _, it := range items {
		p := &taskParser{file: name}
		if isFamily(it) {
			fam := p.family(it)
			if len(p.errs) > 0 {
				r.errs = append(r.errs, p.errs...)
				continue
			}
			r.families = append(r.families, fam)
			continue
		}
		t := p.task(it)
		if len(p.errs) > 0 {
			r.errs = append(r.errs, p.errs...)
			continue
		}
		r.tasks = append(r.tasks, t)
		if p.famRef != nil {
			p.famRef.task = t
			r.refs = append(r.refs, *p.famRef)
		}
	}
	return r
}

// isFamily reports whether item declares a family: a mapping with a family key and no id.
func isFamily(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	fam, id := false, false
	for i := 0; i+1 < len(n.Content); i += 2 {
		fam = fam || n.Content[i].Value == "family"
		id = id || n.Content[i].Value == "id"
	}
	return fam && !id
}

// taskParser collects the errors of one task.
type taskParser struct {
	file   string
	id     string
	errs   []error
	famRef *familyRef // the task's family key, when it has one
	// instance is set while parsing a family's rendered instance, whose id is "<family>/<slug>".
	instance bool
}

func (p *taskParser) errf(n *yaml.Node, field, format string, args ...any) {
	p.errs = append(p.errs, srcerr.AtNode(p.file, n, p.where(field), format, args...))
}

// mismatch records a value n of field that is not what the field takes (want, with its article: "a number"),
// in srcerr's wording of a type mismatch.
func (p *taskParser) mismatch(n *yaml.Node, field, want string) {
	p.errs = append(p.errs, srcerr.Mismatch(p.file, n, p.where(field), want))
}

// where is an error's field part: the task or family being parsed, then field.
func (p *taskParser) where(field string) string {
	var where []string
	if strings.HasPrefix(p.id, "family ") {
		where = append(where, p.id)
	} else if p.id != "" {
		where = append(where, "task "+p.id)
	}
	if field != "" {
		where = append(where, field)
	}
	return strings.Join(where, ": ")
}

// fields returns a mapping's key → value nodes (and key nodes), reporting unknown and duplicate keys.
func (p *taskParser) fields(n *yaml.Node, field string, allowed []string) (map[string]*yaml.Node,
	map[string]*yaml.Node) {
	vals, keys := map[string]*yaml.Node{}, map[string]*yaml.Node{}
	if n.Kind != yaml.MappingNode {
		p.mismatch(n, field, "a mapping")
		return vals, keys
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(allowed, k.Value) {
			p.errf(k, field, "%v", srcerr.OneOf("key", k.Value, allowed))
			continue
		}
		if prev, dup := keys[k.Value]; dup {
			p.errf(k, field, "duplicate key %q (first at line %d)", k.Value, prev.Line)
			continue
		}
		vals[k.Value], keys[k.Value] = v, k
	}
	return vals, keys
}

func (p *taskParser) str(n *yaml.Node, field string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.mismatch(n, field, "a string")
		return ""
	}
	return n.Value
}

func (p *taskParser) strs(n *yaml.Node, field string) []string {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []string{n.Value}
	}
	if n.Kind != yaml.SequenceNode {
		p.mismatch(n, field, "a list of strings")
		return nil
	}
	out := []string{}
	for _, c := range n.Content {
		if s := p.str(c, field); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (p *taskParser) num(n *yaml.Node, field string) float64 {
	var f float64
	if n.Kind != yaml.ScalarNode || n.Decode(&f) != nil {
		p.mismatch(n, field, "a number")
	}
	return f
}

func (p *taskParser) task(n *yaml.Node) suites.Task {
	t := suites.Task{Suite: "zoo", Source: fmt.Sprintf("%s:%d", p.file, n.Line)}
	if n.Kind != yaml.MappingNode {
		p.mismatch(n, "", "a task mapping")
		return t
	}
	for i := 0; i+1 < len(n.Content); i += 2 { // know the id before reporting any error of the task
		if k, v := n.Content[i], n.Content[i+1]; k.Value == "id" && v.Kind == yaml.ScalarNode {
			p.id = v.Value
		}
	}
	f, _ := p.fields(n, "", taskKeys)
	if v, ok := f["id"]; ok {
		t.ID = p.str(v, "id")
		if pat := idPattern; t.ID != "" && !pat.MatchString(t.ID) {
			if p.instance {
				pat = instanceIDPattern
			}
			if !pat.MatchString(t.ID) {
				p.errf(v, "id", "%q must match %s", t.ID, pat)
			}
		}
		p.id = t.ID
	}
	for _, req := range []string{"id", "app", "start", "goal", "check", "solution"} {
		if _, ok := f[req]; !ok {
			p.errf(n, "", "missing required key %q", req)
		}
	}
	t.Cluster = t.ID
	if v, ok := f["family"]; ok {
		if name := p.str(v, "family"); name != "" {
			p.famRef = &familyRef{name: name, line: v.Line, col: v.Column}
		}
	}
	var app App
	if v, ok := f["app"]; ok {
		t.App = p.str(v, "app")
		if a, ok := lookupApp(t.App); ok {
			app = a
		} else if t.App != "" {
			p.errf(v, "app", "%v", srcerr.OneOf("app", t.App, AppNames()))
		}
	}
	if v, ok := f["start"]; ok {
		t.Start = p.str(v, "start")
		if t.Start != "" && !strings.HasPrefix(t.Start, "/") {
			p.errf(v, "start", "%q must be a path relative to the app root, beginning with \"/\"", t.Start)
		}
	}
	if v, ok := f["goal"]; ok {
		t.Goal = strings.TrimSpace(p.str(v, "goal"))
		if t.Goal == "" && v.Kind == yaml.ScalarNode {
			p.errf(v, "goal", "empty goal")
		}
	}
	if v, ok := f["mutations"]; ok {
		t.Mutations = p.mutations(v, app)
	}
	if v, ok := f["tags"]; ok {
		t.Tags = p.strs(v, "tags")
	}
	if v, ok := f["max_steps"]; ok {
		if !srcerr.Scalar(v, &t.MaxSteps) || t.MaxSteps < 0 {
			p.mismatch(v, "max_steps", "an integer ≥ 0")
		}
	}
	if v, ok := f["timeout"]; ok {
		s := p.str(v, "timeout")
		d, err := time.ParseDuration(s)
		if s != "" && (err != nil || d <= 0) {
			p.mismatch(v, "timeout", "a positive Go duration like 90s")
		}
		t.Timeout = d
	}
	if v, ok := f["check"]; ok {
		t.Check = p.check(v)
	}
	if v, ok := f["solution"]; ok {
		t.Solution = p.solution(v)
	}
	return t
}

// mutations reads a list of mutation names that app (nil: unknown) implements; sorted, deduplicated.
func (p *taskParser) mutations(v *yaml.Node, app App) []string {
	if v.Kind != yaml.SequenceNode {
		p.mismatch(v, "mutations", "a list of mutation names")
		return nil
	}
	var out []string
	for _, c := range v.Content {
		m := p.str(c, "mutations")
		if m == "" {
			continue
		}
		if _, ok := LookupMutation(m); !ok {
			p.errf(c, "mutations", "%v", srcerr.OneOf("mutation", m, MutationNames()))
		} else if app != nil && !slices.Contains(app.Mutations(), m) {
			p.errf(c, "mutations", "app %s does not implement mutation %q (it implements: %s)", app.Name(), m,
				strings.Join(app.Mutations(), ", "))
		} else if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

func (p *taskParser) check(n *yaml.Node) suites.Check {
	var c suites.Check
	f, _ := p.fields(n, "check", []string{"state", "answer"})
	if n.Kind == yaml.MappingNode && len(f) == 0 && len(p.errs) == 0 {
		p.errf(n, "check", "want state and/or answer")
	}
	if v, ok := f["state"]; ok {
		if v.Kind != yaml.MappingNode {
			p.mismatch(v, "check.state", "a mapping (an expected subset of the app state)")
		} else {
			var raw any
			if err := v.Decode(&raw); err != nil {
				p.errf(v, "check.state", "%v", err)
			} else if b, err := json.Marshal(raw); err != nil {
				p.errf(v, "check.state", "not representable as JSON: %v", err)
			} else {
				// Round-trip through JSON so the expected values have the judge's types (float64 numbers,
				// map[string]any objects), exactly like the app's state JSON.
				json.Unmarshal(b, &c.State)
			}
		}
	}
	if v, ok := f["answer"]; ok {
		c.Answer = p.answerRule(v)
	}
	return c
}

func (p *taskParser) answerRule(n *yaml.Node) *suites.AnswerRule {
	r := &suites.AnswerRule{}
	f, _ := p.fields(n, "check.answer", []string{"exact", "must_include", "number", "tolerance", "reference"})
	if v, ok := f["exact"]; ok {
		r.Exact = p.str(v, "check.answer.exact")
	}
	if v, ok := f["must_include"]; ok {
		r.MustInclude = p.strs(v, "check.answer.must_include")
	}
	if v, ok := f["number"]; ok {
		x := p.num(v, "check.answer.number")
		r.Number = &x
	}
	if v, ok := f["tolerance"]; ok {
		r.Tolerance = p.num(v, "check.answer.tolerance")
		if r.Tolerance < 0 {
			p.errf(v, "check.answer.tolerance", "must be ≥ 0")
		}
		if r.Number == nil {
			p.errf(v, "check.answer.tolerance", "tolerance needs number")
		}
	}
	if v, ok := f["reference"]; ok {
		r.Reference = p.str(v, "check.answer.reference")
	}
	if n.Kind == yaml.MappingNode && r.Exact == "" && len(r.MustInclude) == 0 && r.Number == nil {
		p.errf(n, "check.answer", "want at least one of exact, must_include, number")
	}
	return r
}

func (p *taskParser) solution(n *yaml.Node) []suites.Step {
	if n.Kind != yaml.SequenceNode {
		p.mismatch(n, "solution", "a list of steps")
		return nil
	}
	if len(n.Content) == 0 {
		p.errf(n, "solution", "empty solution")
		return nil
	}
	var steps []suites.Step
	for i, sn := range n.Content {
		field := fmt.Sprintf("solution[%d]", i)
		if sn.Kind != yaml.MappingNode || len(sn.Content) != 2 {
			p.errf(sn, field, "a step is a one-key mapping like `- click: {role: link, name: Cart}`, got %s",
				srcerr.Got(sn))
			continue
		}
		k, v := sn.Content[0], sn.Content[1]
		if !slices.Contains(StepKinds, k.Value) {
			p.errf(k, field, "%v", srcerr.OneOf("step kind", k.Value, StepKinds))
			continue
		}
		steps = append(steps, p.step(k.Value, v, field+"."+k.Value))
	}
	if len(steps) > 0 && steps[len(steps)-1].Kind != "answer" {
		last := n.Content[len(n.Content)-1]
		p.errf(last, "solution", "the last step must be an answer step (the policy's final answer)")
	}
	return steps
}

var targetKeys = []string{"role", "name", "name_regex", "nth", "within"}

func (p *taskParser) step(kind string, n *yaml.Node, field string) suites.Step {
	st := suites.Step{Kind: kind}
	switch kind {
	case "navigate":
		if n.Kind == yaml.ScalarNode {
			st.URL = p.str(n, field)
		} else {
			f, _ := p.fields(n, field, []string{"url"})
			if v, ok := f["url"]; ok {
				st.URL = p.str(v, field+".url")
			}
		}
		if st.URL == "" {
			p.errf(n, field, "missing url")
		}
	case "press":
		if n.Kind == yaml.ScalarNode {
			st.Key = p.str(n, field)
		} else {
			f, _ := p.fields(n, field, []string{"key"})
			if v, ok := f["key"]; ok {
				st.Key = p.str(v, field+".key")
			}
		}
		if st.Key == "" {
			p.errf(n, field, "missing key")
		}
	case "click", "hover", "visual_click":
		f, _ := p.fields(n, field, targetKeys)
		st.Target = p.target(n, f, field, true)
	case "fill":
		f, _ := p.fields(n, field, append([]string{"text"}, targetKeys...))
		st.Target = p.target(n, f, field, true)
		if v, ok := f["text"]; ok {
			st.Text = p.str(v, field+".text")
		} else {
			p.errf(n, field, "missing text")
		}
	case "select":
		f, _ := p.fields(n, field, append([]string{"values"}, targetKeys...))
		st.Target = p.target(n, f, field, true)
		if v, ok := f["values"]; ok {
			st.Values = p.strs(v, field+".values")
		}
		if len(st.Values) == 0 {
			p.errf(n, field, "missing values")
		}
	case "evaluate":
		if n.Kind == yaml.ScalarNode {
			st.Function = p.str(n, field)
		} else {
			f, _ := p.fields(n, field, append([]string{"function"}, targetKeys...))
			if v, ok := f["function"]; ok {
				st.Function = p.str(v, field+".function")
			}
			if _, ok := f["role"]; ok {
				st.Target = p.target(n, f, field, true)
			}
		}
		if strings.TrimSpace(st.Function) == "" {
			p.errf(n, field, "missing function")
		}
	case "answer":
		f, _ := p.fields(n, field, []string{"from", "literal"})
		from, hasFrom := f["from"]
		lit, hasLit := f["literal"]
		switch {
		case hasFrom && hasLit:
			p.errf(n, field, "give either from or literal, not both")
		case hasFrom:
			tf, _ := p.fields(from, field+".from", targetKeys)
			st.Target = p.target(from, tf, field+".from", true)
		case hasLit:
			st.Literal = p.str(lit, field+".literal")
			if st.Literal == "" && lit.Kind == yaml.ScalarNode {
				p.errf(lit, field+".literal", "empty literal")
			}
		case n.Kind == yaml.MappingNode:
			p.errf(n, field, "want from: {role, name_regex} or literal: \"…\"")
		}
	}
	return st
}

// target builds a Target from already-split fields of mapping n; needName demands name or name_regex.
func (p *taskParser) target(n *yaml.Node, f map[string]*yaml.Node, field string, needName bool) *suites.Target {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	t := &suites.Target{}
	if v, ok := f["role"]; ok {
		t.Role = p.str(v, field+".role")
	} else {
		p.errf(n, field, "missing role")
	}
	if v, ok := f["name"]; ok {
		t.Name = p.str(v, field+".name")
	}
	if v, ok := f["name_regex"]; ok {
		t.NameRegex = p.str(v, field+".name_regex")
		if _, err := regexp.Compile(t.NameRegex); err != nil {
			p.errf(v, field+".name_regex", "bad regex: %v", err)
		}
	}
	if t.Name != "" && t.NameRegex != "" {
		p.errf(n, field, "give name or name_regex, not both")
	}
	_, hasNth := f["nth"]
	if needName && t.Name == "" && t.NameRegex == "" && !hasNth {
		p.errf(n, field, "missing name, name_regex or nth")
	}
	if v, ok := f["nth"]; ok {
		if !srcerr.Scalar(v, &t.Nth) || t.Nth < 0 {
			p.mismatch(v, field+".nth", "an integer ≥ 0")
		}
	}
	if v, ok := f["within"]; ok {
		wf, _ := p.fields(v, field+".within", targetKeys)
		t.Within = p.target(v, wf, field+".within", true)
	}
	return t
}
