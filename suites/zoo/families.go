package zoo

// Task families (ZOO.md "Task families"). A list item of a task file with a `family` key (and no `id`) declares
// a family: a template whose instances are concrete tasks. Schema (unknown keys are errors):
//
//	family: shop-cart-consent           # the family id; [a-z0-9][a-z0-9._-]*, unique in the suite
//	app: shop                           # declared once for every instance
//	mutations: [consent]                # declared once; the instances' page conditions
//	tags: [intercept_hint, cart]        # declared once; guards exercised + free labels
//	start: /                            # the keys of a task (tasks.go) below are templates over the params
//	max_steps: 25
//	timeout: 60s
//	params:                             # name → a catalog domain (filtered) or literal values
//	  v: {domain: shop.variants, where: {has_color: true, has_size: false}}
//	  qty: {values: [2, 3, 4]}
//	count: 5                            # instances drawn by seed (distinct slugs)
//	seed: 1                             # optional, default 1
//	instances: [{v: yoga-mat/blue, qty: 2}]   # optional fixed instances, by record key; refused when unservable
//	slug: '{{.v.slug}}-{{.v.color_lc}}-x{{.qty}}'   # the instance's id is family/slug (slug folded to [a-z0-9-])
//	goal: Put {{.qty}} {{.v.color_lc}} {{.v.name}} in the cart …
//	check: {state: {cart: [{sku: '{{.v.sku}}', qty: !!int '{{.qty}}', color: '{{.v.color_lc}}'}]}}
//	solution: [...]
//
// Templates are Go text/template (a library, not a home-made substitution: conditionals, missingkey=error and
// function calls come with it) applied to every scalar of start, goal, check and solution; a scalar keeps its
// YAML tag, so `!!int '{{.qty}}'` is a number after rendering and a quoted postcode stays a string. A
// hand-written task joins a family with `family: <id>` and must match its app, mutations and guard tags.

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/template"

	"gopkg.in/yaml.v3"

	"webbench/srcerr"
	"webbench/suites"
)

var familyKeys = []string{"family", "app", "start", "goal", "mutations", "tags", "max_steps", "timeout", "check",
	"solution", "params", "count", "seed", "instances", "slug"}

// familyTemplated are the keys whose scalars are templates.
var familyTemplated = []string{"start", "goal", "check", "solution"}

// guardTags are the tags naming a guard (GUARDS.md): each mutation's guard plus the two that act on any task.
// A family declares them once; a task mapped to it carries the same ones.
var guardTags = func() []string {
	out := []string{"repeat_guard", "final_recovery"}
	for _, m := range Mutations {
		if !slices.Contains(out, m.Guard) {
			out = append(out, m.Guard)
		}
	}
	sort.Strings(out)
	return out
}()

// GuardTags returns the guard names among tags, sorted.
func GuardTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		if slices.Contains(guardTags, t) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// family is one declared family: its head (what every instance shares) and its template node.
type family struct {
	ID, App, Source string
	Mutations, Tags []string
	node            *yaml.Node
	file            string
}

// familyRef is a hand-written task's `family:` key, checked once every file is read.
type familyRef struct {
	task      suites.Task
	name      string
	line, col int
}

// errRefused marks a parameter combination the app cannot serve (a template function's refusal): a drawn
// instance with it is drawn again, a fixed one is an error.
var errRefused = errors.New("not served by the app")

// refusal is a template function's refusal: errors.Is(r, errRefused).
type refusal struct{ msg string }

func (r *refusal) Error() string        { return errRefused.Error() + ": " + r.msg }
func (r *refusal) Is(target error) bool { return target == errRefused }

func refuse(format string, args ...any) error { return &refusal{fmt.Sprintf(format, args...)} }

// fieldErr is a template error at a line and field of a family.
type fieldErr struct {
	line  int
	field string
	err   error
}

func (e *fieldErr) Error() string { return fmt.Sprintf("line %d: %s: %v", e.line, e.field, e.err) }
func (e *fieldErr) Unwrap() error { return e.err }

// family reads a family declaration's head; its instances are made later (instances).
func (p *taskParser) family(n *yaml.Node) *family {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, v := n.Content[i], n.Content[i+1]; k.Value == "family" && v.Kind == yaml.ScalarNode {
			p.id = "family " + v.Value
		}
	}
	f, _ := p.fields(n, "", familyKeys)
	fam := &family{node: n, file: p.file, Source: fmt.Sprintf("%s:%d", p.file, n.Line)}
	fam.ID = p.str(f["family"], "family")
	if fam.ID != "" && !idPattern.MatchString(fam.ID) {
		p.errf(f["family"], "family", "%q must match %s", fam.ID, idPattern)
	}
	for _, req := range []string{"app", "goal", "check", "solution", "params", "slug"} {
		if _, ok := f[req]; !ok {
			p.errf(n, "", "missing required key %q", req)
		}
	}
	if _, ok := f["count"]; !ok {
		if _, ok := f["instances"]; !ok {
			p.errf(n, "", "want count and/or instances")
		}
	}
	if v, ok := f["app"]; ok {
		fam.App = p.str(v, "app")
	}
	app, known := lookupApp(fam.App)
	if !known && fam.App != "" {
		p.errf(f["app"], "app", "%v", srcerr.OneOf("app", fam.App, AppNames()))
	}
	if v, ok := f["mutations"]; ok {
		fam.Mutations = p.mutations(v, app)
	}
	if v, ok := f["tags"]; ok {
		fam.Tags = p.strs(v, "tags")
	}
	return fam
}

// checkFamilyRefs resolves the hand-written tasks' family keys: the family must be declared, with the same app,
// mutations and guard tags as the task. Cluster becomes the family.
func checkFamilyRefs(tasks []suites.Task, refs []familyRef, fams map[string]*family) ([]suites.Task, []error) {
	var errs []error
	byID := map[string]int{}
	for i, t := range tasks {
		byID[t.ID] = i
	}
	for _, r := range refs {
		where := func(format string, args ...any) error {
			return srcerr.At(strings.Split(r.task.Source, ":")[0], r.line, r.col, "task "+r.task.ID+": family", format, args...)
		}
		f, ok := fams[r.name]
		if !ok {
			errs = append(errs, where("%v", srcerr.OneOf("family", r.name, slices.Sorted(maps.Keys(fams)))))
			continue
		}
		switch {
		case f.App != r.task.App:
			errs = append(errs, where("family %s is of app %s, the task of %s", f.ID, f.App, r.task.App))
		case !slices.Equal(f.Mutations, r.task.Mutations):
			errs = append(errs, where("family %s declares mutations %v, the task has %v", f.ID,
				f.Mutations, r.task.Mutations))
		case !slices.Equal(GuardTags(f.Tags), GuardTags(r.task.Tags)):
			errs = append(errs, where("family %s declares guard tags %v, the task has %v", f.ID,
				GuardTags(f.Tags), GuardTags(r.task.Tags)))
		default:
			if i, ok := byID[r.task.ID]; ok {
				tasks[i].Cluster = f.ID
			}
		}
	}
	return tasks, errs
}

// instances makes a family's instances: its fixed instances, then count draws (distinct slugs; a refused
// combination is drawn again) from a PCG seeded with the seed and the family id, so the same catalog and count
// give the same instances, and a larger count only adds some.
func (fam *family) instances() ([]suites.Task, []error) {
	p := &taskParser{file: fam.file, id: "family " + fam.ID}
	f, _ := p.fields(fam.node, "", familyKeys)
	params := p.params(f["params"], fam.App)
	slugTpl := ""
	if v, ok := f["slug"]; ok {
		slugTpl = p.str(v, "slug")
	}
	count, seed := 0, 1
	if v, ok := f["count"]; ok && (!srcerr.Scalar(v, &count) || count < 0) {
		p.mismatch(v, "count", "an integer ≥ 0")
	}
	if v, ok := f["seed"]; ok && !srcerr.Scalar(v, &seed) {
		p.mismatch(v, "seed", "an integer")
	}
	if len(p.errs) > 0 || len(params) == 0 {
		return nil, p.errs
	}
	var out []suites.Task
	seen := map[string]bool{}
	// add makes one instance; at is the fixed instance's node (nil for a draw, whose refusal is drawn again).
	add := func(vals map[string]paramValue, at *yaml.Node, label string) bool {
		id, err := fam.instanceID(vals, slugTpl)
		if err == nil && seen[id] {
			if at != nil {
				p.errf(at, strings.TrimSuffix(label, ": "), "instance %s given twice", id)
			}
			return false
		}
		var t suites.Task
		if err == nil {
			t, err = fam.instance(vals, id)
		}
		var fe *fieldErr
		switch {
		case errors.Is(err, errRefused) && at == nil:
			return false
		case errors.As(err, &fe):
			line, col := fe.line, 0
			if at != nil {
				line, col = at.Line, at.Column
			}
			p.errs = append(p.errs, srcerr.At(p.file, line, col, "family "+fam.ID, "%s%s: %v", label, fe.field, fe.err))
			return false
		case err != nil:
			p.errs = append(p.errs, err)
			return false
		}
		seen[id] = true
		out = append(out, t)
		return true
	}
	if v, ok := f["instances"]; ok {
		for i, fx := range p.fixedInstances(v, params) {
			add(fx.vals, fx.node, fmt.Sprintf("instances[%d]: ", i))
		}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(staysHash("family", fam.ID))))
	drawn := 0
	for try := 0; drawn < count && try < 50*count+500 && len(p.errs) == 0; try++ {
		vals := map[string]paramValue{}
		for _, pr := range params {
			vals[pr.name] = pr.values[rng.IntN(len(pr.values))]
		}
		if add(vals, nil, "") {
			drawn++
		}
	}
	if drawn < count && len(p.errs) == 0 {
		p.errf(f["count"], "count", "only %d distinct servable instances found, want %d", drawn, count)
	}
	return out, p.errs
}

// instanceID renders the slug of the instance with vals: its id is "<family>/<slug>".
func (fam *family) instanceID(vals map[string]paramValue, slugTpl string) (string, error) {
	slugLine := fam.node.Line
	for i := 0; i+1 < len(fam.node.Content); i += 2 {
		if fam.node.Content[i].Value == "slug" {
			slugLine = fam.node.Content[i+1].Line
		}
	}
	slug, err := renderString(slugTpl, paramData(vals))
	if err != nil {
		return "", &fieldErr{slugLine, "slug", err}
	}
	if slug = staysSlug(slug); slug == "" {
		return "", &fieldErr{slugLine, "slug", errors.New("renders empty")}
	}
	return fam.ID + "/" + slug, nil
}

func paramData(vals map[string]paramValue) map[string]any {
	data := map[string]any{}
	for k, v := range vals {
		data[k] = v.data
	}
	return data
}

// instance renders the instance id of fam with vals and parses it as a task (tasks.go's checks, errors at the
// template's lines).
func (fam *family) instance(vals map[string]paramValue, id string) (suites.Task, error) {
	data := paramData(vals)
	keys := map[string]any{}
	for k, v := range vals {
		keys[k] = v.key
	}
	task := &yaml.Node{Kind: yaml.MappingNode, Line: fam.node.Line, Column: fam.node.Column}
	scalar := func(v string, line int) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: line}
	}
	task.Content = append(task.Content, scalar("id", fam.node.Line), scalar(id, fam.node.Line))
	for i := 0; i+1 < len(fam.node.Content); i += 2 {
		k, v := fam.node.Content[i], fam.node.Content[i+1]
		switch {
		case slices.Contains(familyTemplated, k.Value):
			r, err := renderNode(v, data, k.Value)
			if err != nil {
				return suites.Task{}, err
			}
			task.Content = append(task.Content, k, r)
		case slices.Contains(taskKeys, k.Value) && k.Value != "id" && k.Value != "family":
			task.Content = append(task.Content, k, v)
		}
	}
	sub := &taskParser{file: fam.file, instance: true}
	t := sub.task(task)
	if len(sub.errs) > 0 {
		return suites.Task{}, errors.Join(sub.errs...)
	}
	t.Cluster = fam.ID
	t.Meta = map[string]any{"family": fam.ID, "params": keys}
	return t, nil
}

// renderNode copies n with every scalar rendered as a template over data; tags and styles are kept. Errors
// name the field path and the scalar's line.
func renderNode(n *yaml.Node, data map[string]any, field string) (*yaml.Node, error) {
	c := *n
	switch n.Kind {
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "{{") {
			return &c, nil
		}
		s, err := renderString(n.Value, data)
		if err != nil {
			return nil, &fieldErr{n.Line, field, err}
		}
		c.Value = s
		return &c, nil
	case yaml.MappingNode, yaml.SequenceNode:
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, ch := range n.Content {
			sub := field
			switch {
			case n.Kind == yaml.SequenceNode:
				sub = fmt.Sprintf("%s[%d]", field, i)
			case i%2 == 1:
				sub = field + "." + n.Content[i-1].Value
			}
			r, err := renderNode(ch, data, sub)
			if err != nil {
				return nil, err
			}
			c.Content[i] = r
		}
		return &c, nil
	}
	return &c, nil
}

// tplCache holds parsed templates by text: a family's templates are rendered once per instance.
var (
	tplCacheMu sync.Mutex
	tplCache   = map[string]*template.Template{}
)

// renderString executes text as a text/template over data (missing keys are errors).
func renderString(text string, data map[string]any) (string, error) {
	tplCacheMu.Lock()
	tp, ok := tplCache[text]
	if !ok {
		var err error
		if tp, err = template.New("").Option("missingkey=error").Funcs(familyFuncs).Parse(text); err != nil {
			tplCacheMu.Unlock()
			return "", err
		}
		tplCache[text] = tp
	}
	tplCacheMu.Unlock()
	var b strings.Builder
	if err := tp.Execute(&b, data); err != nil {
		// A refusal is reported as the function said it, without the template's position.
		var r *refusal
		if errors.As(err, &r) {
			return "", r
		}
		return "", err
	}
	return b.String(), nil
}

// familyFuncs are the template functions: re quotes a regexp literal; lower folds case; the stays ones price
// a stay exactly as the app does and refuse what it cannot serve.
var familyFuncs = template.FuncMap{
	"re":                regexp.QuoteMeta,
	"lower":             strings.ToLower,
	"staysTotal":        staysTotalFunc,
	"staysResultsTotal": staysResultsTotalFunc,
	"nights":            staysNightsFunc,
}
