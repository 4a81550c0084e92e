package scripted

import (
	"regexp"
	"strconv"
	"strings"

	"webbench/browser"
	"webbench/suites"
)

// node is one line of an AI-mode aria snapshot, e.g.
//
//   - 'heading "Order #12345 confirmed" [level=1] [ref=e2]'
//   - button "Close" [ref=e19] [box=153,224,23,21]: x
//   - text: Blue
//
// Role is the word at the start of the key, Name the quoted accessible name, Text the inline value after ": ".
type node struct {
	line    int
	indent  int
	role    string
	name    string
	hasName bool
	text    string
	ref     string
	box     []float64 // x, y, w, h in viewport px; nil when the snapshot has no boxes
	parent  int       // index in snap.nodes, -1 at top level
}

// label is the text a target name matches against: the accessible name, else the inline text.
func (n *node) label() string {
	if n.hasName {
		return n.name
	}
	return n.text
}

// desc is the human-readable element description the policy sends as `element` (Playwright MCP's field):
// `role "name"`, or the role alone for a nameless node.
func (n *node) desc() string {
	if n.hasName && n.name != "" {
		return n.role + " " + strconv.Quote(n.name)
	}
	return n.role
}

// snap is the policy's reading of a snapshot: its tree of nodes with names, inline text and boxes (what the
// policy matches targets against). Refs, roles-that-count and the ref grammar are the browser's: a node's ref is
// read with browser.ParseRef, emptiness is browser.Snapshot.HasInteractiveRef, the ref set browser.Snapshot.Nodes.
type snap struct {
	src   browser.Snapshot
	nodes []node
}

// parseSnapshot parses the YAML of an AI snapshot line by line (Playwright's format: `- key` or `- key: value`,
// the key single-quoted when YAML needs it, names in double quotes with backslash escapes, attributes in
// brackets) into the tree the policy walks. Lines it cannot read (`- /url: …` properties, anything odd) are
// skipped.
func parseSnapshot(text string) *snap {
	s := &snap{src: browser.Snapshot{YAML: text}}
	type open struct{ indent, idx int }
	var stack []open
	for i, raw := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(raw, " ")
		indent := len(raw) - len(trimmed)
		if !strings.HasPrefix(trimmed, "- ") {
			continue
		}
		key, value, ok := splitItem(strings.TrimRight(trimmed[2:], " \r"))
		if !ok {
			continue
		}
		n, ok := parseKey(key)
		if !ok {
			continue
		}
		n.line, n.indent, n.text = i, indent, value
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		n.parent = -1
		if len(stack) > 0 {
			n.parent = stack[len(stack)-1].idx
		}
		s.nodes = append(s.nodes, n)
		stack = append(stack, open{indent, len(s.nodes) - 1})
	}
	return s
}

// splitItem splits a sequence item into its key and inline value.
func splitItem(item string) (key, value string, ok bool) {
	if strings.HasPrefix(item, "'") {
		var b strings.Builder
		i := 1
		for ; i < len(item); i++ {
			if item[i] == '\'' {
				if i+1 < len(item) && item[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				break
			}
			b.WriteByte(item[i])
		}
		if i >= len(item) {
			return "", "", false
		}
		rest := strings.TrimSpace(item[i+1:])
		if strings.HasPrefix(rest, ":") {
			value = yamlValue(strings.TrimSpace(rest[1:]))
		}
		return b.String(), value, true
	}
	if strings.HasSuffix(item, ":") {
		return item[:len(item)-1], "", true
	}
	if i := strings.Index(item, ": "); i >= 0 {
		return item[:i], yamlValue(strings.TrimSpace(item[i+2:])), true
	}
	return item, "", true
}

// yamlValue unquotes a double-quoted YAML scalar (Playwright's yamlEscapeValueIfNeeded); others stay as is.
func yamlValue(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
		return v[1 : len(v)-1]
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}

// parseKey reads `role "name" [attr=value] [flag]…`.
func parseKey(k string) (node, bool) {
	var n node
	i := 0
	for i < len(k) && (k[i] >= 'a' && k[i] <= 'z' || k[i] >= 'A' && k[i] <= 'Z') {
		i++
	}
	if i == 0 {
		return n, false
	}
	n.role = k[:i]
	rest := strings.TrimLeft(k[i:], " ")
	if strings.HasPrefix(rest, `"`) {
		var b strings.Builder
		j := 1
		for ; j < len(rest); j++ {
			c := rest[j]
			if c == '\\' && j+1 < len(rest) {
				j++
				b.WriteByte(rest[j])
				continue
			}
			if c == '"' {
				break
			}
			b.WriteByte(c)
		}
		n.name, n.hasName = normSpace(b.String()), true
		if j < len(rest) {
			j++
		}
		rest = rest[j:]
	}
	for {
		rest = strings.TrimLeft(rest, " ")
		if !strings.HasPrefix(rest, "[") {
			break
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			break
		}
		attr := rest[1:end]
		rest = rest[end+1:]
		name, val, _ := strings.Cut(attr, "=")
		switch name {
		case "ref":
			if r, ok := browser.ParseRef(val); ok && r == val {
				n.ref = r
			}
		case "box":
			var box []float64
			for _, f := range strings.Split(val, ",") {
				x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
				if err != nil {
					box = nil
					break
				}
				box = append(box, x)
			}
			if len(box) == 4 {
				n.box = box
			}
		}
	}
	return n, true
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// hasInteractive reports whether the snapshot has an actionable element (browser.Snapshot.HasInteractiveRef, the
// rule snapshot_ready and the empty_snapshot failure mode use; GUARDS.md §4): a snapshot without one is "empty"
// (a pre-hydration shell).
func (s *snap) hasInteractive() bool { return s.src.HasInteractiveRef() }

// refs returns the set of refs the element tools accept in the snapshot (browser.Snapshot.Nodes).
func (s *snap) refs() map[string]bool {
	out := map[string]bool{}
	for _, n := range s.src.Nodes() {
		out[n.Ref] = true
	}
	return out
}

// matchOne reports whether n matches t's role and name (not nth, not within). A target with neither Name nor
// NameRegex matches on role alone. Name compares whitespace-normalised, exactly, then case-insensitively.
func matchOne(n *node, t *suites.Target) bool {
	if t.Role != "" && !strings.EqualFold(n.role, t.Role) {
		return false
	}
	return nameMatches(n.label(), t)
}

func nameMatches(name string, t *suites.Target) bool {
	switch {
	case t.Name != "":
		want := normSpace(t.Name)
		return name == want || strings.EqualFold(name, want)
	case t.NameRegex != "":
		re, err := regexp.Compile(t.NameRegex)
		return err == nil && re.MatchString(name)
	}
	return true
}

// within reports whether some ancestor of node i matches w (recursively for w.Within).
func (s *snap) within(i int, w *suites.Target) bool {
	for p := s.nodes[i].parent; p >= 0; p = s.nodes[p].parent {
		if matchOne(&s.nodes[p], w) && (w.Within == nil || s.within(p, w.Within)) {
			return true
		}
	}
	return false
}

// find returns the nth (0-based, document order) node matching t, or nil. needRef restricts to nodes with
// a ref (targets of actions).
func (s *snap) find(t *suites.Target, needRef bool) *node {
	if s == nil || t == nil {
		return nil
	}
	k := 0
	for i := range s.nodes {
		n := &s.nodes[i]
		if needRef && n.ref == "" {
			continue
		}
		if !matchOne(n, t) || (t.Within != nil && !s.within(i, t.Within)) {
			continue
		}
		if k == t.Nth {
			return n
		}
		k++
	}
	return nil
}

// isAncestor reports whether node a is an ancestor of node b (indexes).
func (s *snap) isAncestor(a, b int) bool {
	for p := s.nodes[b].parent; p >= 0; p = s.nodes[p].parent {
		if p == a {
			return true
		}
	}
	return false
}

func (s *snap) index(n *node) int {
	for i := range s.nodes {
		if &s.nodes[i] == n {
			return i
		}
	}
	return -1
}

// dismissNames are the buttons a policy that understood a blocking dialog clicks, in order of preference
// (GUARDS.md §1: prefer "Reject all" / "Close").
var dismissNames = []string{"reject all", "close", "stay on this site", "no thanks", "no, thanks", "decline",
	"dismiss", "not now", "continue without accepting", "reject", "stay", "accept all", "got it", "ok"}

// findDismiss returns the button or link that closes a blocking dialog: the most preferred name, exact
// (case-insensitive) before prefix matches, inside a dialog before anywhere.
func (s *snap) findDismiss() *node {
	inDialog := func(i int) bool {
		for p := s.nodes[i].parent; p >= 0; p = s.nodes[p].parent {
			switch strings.ToLower(s.nodes[p].role) {
			case "dialog", "alertdialog":
				return true
			}
		}
		return false
	}
	for _, dialogOnly := range []bool{true, false} {
		for _, prefix := range []bool{false, true} {
			for _, want := range dismissNames {
				for i := range s.nodes {
					n := &s.nodes[i]
					r := strings.ToLower(n.role)
					if n.ref == "" || (r != "button" && r != "link") || (dialogOnly && !inDialog(i)) {
						continue
					}
					name := strings.ToLower(n.label())
					if name == want || prefix && strings.HasPrefix(name, want+" ") {
						return n
					}
				}
			}
		}
	}
	return nil
}

// findLabel returns a clickable node that shows the visible label text of target (an input covered by its
// own icon): the enclosing label (a parent with a ref whose text child or inline text is the name), else the
// nearest other node with a ref whose name or text is the target's name. Nil when there is none.
func (s *snap) findLabel(target *node) *node {
	ti := s.index(target)
	if ti < 0 {
		return nil
	}
	want := target.label()
	if want == "" {
		return nil
	}
	for p := target.parent; p >= 0; p = s.nodes[p].parent {
		if s.nodes[p].ref == "" {
			continue
		}
		if s.nodes[p].text == want {
			return &s.nodes[p]
		}
		for i := range s.nodes {
			if s.nodes[i].parent == p && strings.EqualFold(s.nodes[i].role, "text") && s.nodes[i].text == want {
				return &s.nodes[p]
			}
		}
		break // only the closest ancestor with a ref can be the label
	}
	var best *node
	bestDist := 0
	for i := range s.nodes {
		n := &s.nodes[i]
		if i == ti || n.ref == "" || strings.EqualFold(n.role, target.role) || s.isAncestor(i, ti) {
			continue
		}
		if n.label() != want {
			continue
		}
		d := i - ti
		if d < 0 {
			d = -d
		}
		if best == nil || d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}
