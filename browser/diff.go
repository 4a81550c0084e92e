package browser

import (
	"regexp"
	"strings"
)

// Snapshot diffs in the format of Playwright's incremental AI snapshots (page._snapshotForAI({mode:
// "incremental", track}) and @playwright/mcp's --snapshot-mode=incremental, since removed): the text is a list
// of chunks, one per topmost changed node, each "- <changed> " followed by the node's line, at indent 0, then
// its children, where a child whose whole subtree is unchanged is elided as "- ref=eN [unchanged]". A node
// changed when it is new (its ref was not in the old snapshot), its own line differs, or the list of its
// children differs (a child added, removed or moved; children without a ref are compared whole). The reference
// pairs are Playwright's tests "should create incremental snapshot for …" (tests/page/page-aria-snapshot-ai.spec.ts)
// and "should respect --snapshot-mode=incremental" (Playwright MCP's tests); browser/diff_test.go cites them.

const (
	// DiffChangedMarker begins each chunk of a snapshot diff: "- <changed> button \"Go\" [ref=e5]".
	DiffChangedMarker = "<changed> "
	// NoChangesYAML is the snapshot text of a diff with no chunk: nothing changed since the snapshot the model
	// last saw (Playwright returned an empty string; a YAML comment keeps the section readable).
	NoChangesYAML = "# no changes since the last snapshot"
)

// unchangedLine matches an elided child of a chunk: "- ref=e3 [unchanged]" (group 1 is the ref).
var unchangedLine = regexp.MustCompile(`^- ref=(` + refExpr + `) \[unchanged\]$`)

// IsSnapshotDiff reports whether a snapshot text is a diff (DiffSnapshot's output or NoChangesYAML) rather
// than a whole snapshot: its first line is a chunk ("- <changed> …") or it is NoChangesYAML.
func IsSnapshotDiff(yaml string) bool {
	y := strings.TrimSpace(yaml)
	return y == NoChangesYAML || strings.HasPrefix(y, "- "+DiffChangedMarker)
}

// snapNode is one node of a snapshot: a "- " line (with any continuation lines, e.g. of a multi-line
// scalar) and its children, the lines indented under it.
type snapNode struct {
	indent int      // spaces before "- "
	lines  []string // the node's line without indentation, then continuation lines with their own indentation
	ref    string   // the first ref on the node's line ("" when none)
	kids   []*snapNode
}

// parseSnapTree reads a snapshot into its root nodes. Lines that are not "- " items continue the node before
// them; text before the first item is dropped.
func parseSnapTree(yaml string) []*snapNode {
	var roots []*snapNode
	var stack []*snapNode
	var last *snapNode
	for _, raw := range strings.Split(strings.TrimRight(yaml, "\n"), "\n") {
		trimmed := strings.TrimLeft(raw, " ")
		ind := len(raw) - len(trimmed)
		if !strings.HasPrefix(trimmed, "- ") && trimmed != "-" {
			if last != nil {
				last.lines = append(last.lines, raw)
			}
			continue
		}
		n := &snapNode{indent: ind, lines: []string{trimmed}}
		if m := RefPattern.FindStringSubmatch(trimmed); m != nil {
			n.ref = m[1]
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= ind {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, n)
		} else {
			p := stack[len(stack)-1]
			p.kids = append(p.kids, n)
		}
		stack = append(stack, n)
		last = n
	}
	return roots
}

// sig is a node's own signature: its lines, then each child as its ref, or whole (recursively) when it has
// none. Two nodes with one ref and one sig are the same node unchanged in itself.
func (n *snapNode) sig() string {
	var b strings.Builder
	for _, l := range n.lines {
		b.WriteString(strings.TrimLeft(l, " ") + "\n")
	}
	kidsSig(&b, n.kids)
	return b.String()
}

func kidsSig(b *strings.Builder, kids []*snapNode) {
	for _, k := range kids {
		if k.ref != "" {
			b.WriteString("#" + k.ref + "\n")
			continue
		}
		b.WriteString("{" + k.sig() + "}\n")
	}
}

// index maps each ref of the tree to its node.
func index(roots []*snapNode) map[string]*snapNode {
	m := map[string]*snapNode{}
	var walk func([]*snapNode)
	walk = func(ns []*snapNode) {
		for _, n := range ns {
			if n.ref != "" {
				if _, dup := m[n.ref]; !dup {
					m[n.ref] = n
				}
			}
			walk(n.kids)
		}
	}
	walk(roots)
	return m
}

// write appends node n at depth (two spaces a level, as Playwright indents) with its subtree; continuation lines
// keep their indentation relative to the node.
func (n *snapNode) write(out *[]string, depth int, kid func(*snapNode, int) bool) {
	shift := 2*depth - n.indent
	*out = append(*out, strings.Repeat(" ", 2*depth)+n.lines[0])
	for _, l := range n.lines[1:] {
		*out = append(*out, reindent(l, shift))
	}
	for _, k := range n.kids {
		if kid == nil || !kid(k, depth+1) {
			k.write(out, depth+1, kid)
		}
	}
}

func reindent(l string, shift int) string {
	t := strings.TrimLeft(l, " ")
	ind := len(l) - len(t) + shift
	if ind < 0 {
		ind = 0
	}
	return strings.Repeat(" ", ind) + t
}

// DiffSnapshot returns what changed from snapshot old to snapshot cur, in Playwright's incremental format (see
// the package comment above): "" when nothing changed. ok is false when the change cannot be said so (the
// nodes at the top level, which have no parent to carry a chunk, differ): send cur whole then. Refs are
// Playwright's: an element keeps its ref across snapshots of one document, so an elided "ref=eN [unchanged]"
// names the subtree the old snapshot showed under eN.
func DiffSnapshot(old, cur string) (diff string, ok bool) {
	oldRoots, curRoots := parseSnapTree(old), parseSnapTree(cur)
	var ob, cb strings.Builder
	kidsSig(&ob, oldRoots)
	kidsSig(&cb, curRoots)
	if ob.String() != cb.String() {
		return "", false
	}
	oldIdx := index(oldRoots)
	selfChanged := map[*snapNode]bool{}
	for _, n := range index(curRoots) {
		o, had := oldIdx[n.ref]
		selfChanged[n] = !had || o.sig() != n.sig()
	}
	unchangedMemo := map[*snapNode]bool{}
	var unchanged func(n *snapNode) bool
	var kidsUnchanged func(ns []*snapNode) bool
	kidsUnchanged = func(ns []*snapNode) bool {
		for _, k := range ns {
			if k.ref != "" && !unchanged(k) || k.ref == "" && !kidsUnchanged(k.kids) {
				return false
			}
		}
		return true
	}
	unchanged = func(n *snapNode) bool {
		if v, ok := unchangedMemo[n]; ok {
			return v
		}
		v := !selfChanged[n] && kidsUnchanged(n.kids)
		unchangedMemo[n] = v
		return v
	}
	var out []string
	elide := func(k *snapNode, depth int) bool {
		if k.ref == "" || !unchanged(k) {
			return false
		}
		out = append(out, strings.Repeat(" ", 2*depth)+"- ref="+k.ref+" [unchanged]")
		return true
	}
	var search func(ns []*snapNode)
	search = func(ns []*snapNode) {
		for _, n := range ns {
			if n.ref == "" || !selfChanged[n] {
				search(n.kids)
				continue
			}
			chunk := *n
			chunk.lines = append([]string{"- " + DiffChangedMarker + strings.TrimPrefix(n.lines[0], "- ")}, n.lines[1:]...)
			chunk.write(&out, 0, elide)
		}
	}
	search(curRoots)
	return strings.Join(out, "\n"), true
}

// ApplySnapshotDiff is the inverse of DiffSnapshot: base with each chunk of diff put in place of the node of
// base with the chunk's ref, its "ref=eN [unchanged]" children replaced by base's subtree under eN. ok is false
// when a chunk's or an elided ref is not in base (the diff was not taken against base). A diff that is
// NoChangesYAML or "" returns base. For every old, cur with DiffSnapshot(old, cur) = d, ok:
// ApplySnapshotDiff(old, d) = cur (in Playwright's two-space indentation).
func ApplySnapshotDiff(base, diff string) (string, bool) {
	if d := strings.TrimSpace(diff); d == "" || d == NoChangesYAML {
		return base, true
	}
	roots := parseSnapTree(base)
	orig := index(roots)
	parent := map[*snapNode]*[]*snapNode{}
	var link func(ns *[]*snapNode)
	link = func(ns *[]*snapNode) {
		for _, n := range *ns {
			parent[n] = ns
			link(&n.kids)
		}
	}
	link(&roots)
	var resolve func(n *snapNode) (*snapNode, bool)
	resolve = func(n *snapNode) (*snapNode, bool) {
		if m := unchangedLine.FindStringSubmatch(n.lines[0]); m != nil && len(n.lines) == 1 && len(n.kids) == 0 {
			o, ok := orig[m[1]]
			return o, ok
		}
		c := &snapNode{indent: n.indent, lines: n.lines, ref: n.ref}
		for _, k := range n.kids {
			r, ok := resolve(k)
			if !ok {
				return nil, false
			}
			c.kids = append(c.kids, r)
		}
		return c, true
	}
	for _, ch := range parseSnapTree(diff) {
		line, found := strings.CutPrefix(ch.lines[0], "- "+DiffChangedMarker)
		if !found || ch.ref == "" {
			return "", false
		}
		target, ok := orig[ch.ref]
		if !ok {
			return "", false
		}
		ch.lines = append([]string{"- " + line}, ch.lines[1:]...)
		repl, ok := resolve(ch)
		if !ok {
			return "", false
		}
		repl.indent = target.indent
		list := parent[target]
		for i, n := range *list {
			if n == target {
				(*list)[i] = repl
			}
		}
	}
	var out []string
	for _, r := range roots {
		r.write(&out, 0, nil)
	}
	return strings.Join(out, "\n"), true
}
