package browser

import "testing"

// The reference pairs: Playwright's tests of incremental AI snapshots, microsoft/playwright
// tests/page/page-aria-snapshot-ai.spec.ts ("should create incremental snapshots on multiple tracks", "… for
// attribute change", "… for child removal", "… for child addition", "… for prop change", "… for cursor change",
// "… for text change", "should create multiple chunks in incremental snapshot", "… for children swap"; the
// revision that has page._snapshotForAI({mode: 'incremental', track}), 2025; the stored copy at commit
// 1ca8d3f7c33a0658d170b622b20e46cdf04a9c81 predates them). want is the test's expected incremental text
// verbatim; old is its expected full snapshot before the change; cur is the full snapshot after the change,
// written by us from the test's DOM edit (Playwright asserts only the incremental one there).
var playwrightDiffPairs = []struct {
	name, old, cur, want string
}{
	{"multiple tracks: text change and child shown",
		`- list [ref=e2]:
  - listitem [ref=e3]:
    - button "a button" [ref=e4]
  - listitem [ref=e5]: a span`,
		`- list [ref=e2]:
  - listitem [ref=e3]:
    - button "a button" [ref=e4]
  - listitem [ref=e5]: changed span
  - listitem [ref=e6]: some text`,
		`- <changed> list [ref=e2]:
  - ref=e3 [unchanged]
  - listitem [ref=e5]: changed span
  - listitem [ref=e6]: some text`},
	{"multiple tracks: changed back",
		`- list [ref=e2]:
  - listitem [ref=e3]:
    - button "a button" [ref=e4]
  - listitem [ref=e5]: changed span
  - listitem [ref=e6]: some text`,
		`- list [ref=e2]:
  - listitem [ref=e3]:
    - button "a button" [ref=e4]
  - listitem [ref=e5]: a span`,
		`- <changed> list [ref=e2]:
  - ref=e3 [unchanged]
  - listitem [ref=e5]: a span`},
	{"multiple tracks: nothing changed",
		`- list [ref=e2]:
  - listitem [ref=e3]:
    - button "a button" [ref=e4]
  - listitem [ref=e5]: a span`,
		`- list [ref=e2]:
  - listitem [ref=e3]:
    - button "a button" [ref=e4]
  - listitem [ref=e5]: a span`,
		``},
	{"attribute change",
		`- button "a button" [active] [ref=e2]`,
		`- button "a button" [ref=e2]`,
		`- <changed> button "a button" [ref=e2]`},
	{"child removal",
		`- listitem [ref=e2]:
  - button "a button" [ref=e3]
  - text: some text`,
		`- listitem [ref=e2]:
  - button "a button" [ref=e3]`,
		`- <changed> listitem [ref=e2]:
  - ref=e3 [unchanged]`},
	{"child addition",
		`- listitem [ref=e2]:
  - button "a button" [ref=e3]`,
		`- listitem [ref=e2]:
  - button "a button" [ref=e3]
  - text: some text`,
		`- <changed> listitem [ref=e2]:
  - ref=e3 [unchanged]
  - text: some text`},
	{"prop change",
		`- link "a link" [ref=e2] [cursor=pointer]:
  - /url: about:blank`,
		`- link "a link" [ref=e2] [cursor=pointer]:
  - /url: https://playwright.dev`,
		`- <changed> link "a link" [ref=e2] [cursor=pointer]:
  - /url: https://playwright.dev`},
	{"cursor change",
		`- link "a link" [ref=e2] [cursor=pointer]:
  - /url: about:blank`,
		`- link "a link" [ref=e2]:
  - /url: about:blank`,
		`- <changed> link "a link" [ref=e2]:
  - /url: about:blank`},
	{"text change",
		`- listitem [ref=e2]: an item`,
		`- listitem [ref=e2]: new text`,
		`- <changed> listitem [ref=e2]: new text`},
	{"multiple chunks",
		`- list [ref=e2]:
  - listitem [ref=e3]: item1
  - listitem [ref=e4]: item2
  - listitem [ref=e5]:
    - group [ref=e6]: item3
  - list [ref=e7]:
    - listitem [ref=e8]: to be removed
    - listitem [ref=e9]: one more`,
		`- list [ref=e2]:
  - listitem [ref=e3]: new item1
  - listitem [ref=e4]: item2
  - listitem [ref=e5]:
    - group [ref=e6]:
      - text: new item3
      - button "button" [ref=e10]
  - list [ref=e7]:
    - listitem [ref=e9]: one more`,
		`- <changed> listitem [ref=e3]: new item1
- <changed> group [ref=e6]:
  - text: new item3
  - button "button" [ref=e10]
- <changed> list [ref=e7]:
  - ref=e9 [unchanged]`},
	{"children swap",
		`- list [ref=e2]:
  - listitem [ref=e3]: item 1
  - listitem [ref=e4]: item 2`,
		`- list [ref=e2]:
  - listitem [ref=e4]: item 2
  - listitem [ref=e3]: item 1`,
		`- <changed> list [ref=e2]:
  - ref=e4 [unchanged]
  - ref=e3 [unchanged]`},
}

func TestDiffSnapshotPlaywrightPairs(t *testing.T) {
	for _, p := range playwrightDiffPairs {
		got, ok := DiffSnapshot(p.old, p.cur)
		if !ok || got != p.want {
			t.Errorf("%s: DiffSnapshot = %q, %v; want (Playwright) %q", p.name, got, ok, p.want)
			continue
		}
		back, ok := ApplySnapshotDiff(p.old, got)
		if !ok || back != p.cur {
			t.Errorf("%s: ApplySnapshotDiff(old, diff) = %q, %v; want the new snapshot %q", p.name, back, ok, p.cur)
		}
		if p.want != "" && !IsSnapshotDiff(got) {
			t.Errorf("%s: IsSnapshotDiff(%q) = false", p.name, got)
		}
	}
}

// Playwright MCP's test "should respect --snapshot-mode=incremental" expects, after a second button is added to
// a page whose snapshot was `- button "Button 1" [ref=e2]` (the body's generic collapsed),
// "- <changed> generic [active] [ref=e1]:\n  - ref=e2 [unchanged]\n  - button \"Button 2\" [ref=e3]": Playwright
// diffs its own tree, where the collapsed generic e1 was there all along. From the texts alone the top level
// changed (e2 became e1), which no chunk can carry: DiffSnapshot says so, and the caller sends the whole
// snapshot.
func TestDiffSnapshotTopLevelChangeFallsBack(t *testing.T) {
	old := `- button "Button 1" [ref=e2]`
	cur := "- generic [active] [ref=e1]:\n  - button \"Button 1\" [ref=e2]\n  - button \"Button 2\" [ref=e3]"
	if d, ok := DiffSnapshot(old, cur); ok {
		t.Fatalf("DiffSnapshot = %q, ok; want not ok (top level changed)", d)
	}
	// With the generic in both texts the chunk is Playwright MCP's expected text.
	old = "- generic [active] [ref=e1]:\n  - button \"Button 1\" [ref=e2]"
	want := "- <changed> generic [active] [ref=e1]:\n  - ref=e2 [unchanged]\n  - button \"Button 2\" [ref=e3]"
	if d, ok := DiffSnapshot(old, cur); !ok || d != want {
		t.Fatalf("DiffSnapshot = %q, %v; want %q", d, ok, want)
	}
}

func TestApplySnapshotDiffRefusesForeignBase(t *testing.T) {
	if _, ok := ApplySnapshotDiff("- list [ref=e2]", "- <changed> listitem [ref=e9]: x"); ok {
		t.Fatal("a chunk whose ref is not in the base applied")
	}
	if _, ok := ApplySnapshotDiff("- list [ref=e2]:\n  - listitem [ref=e3]", "- <changed> list [ref=e2]:\n  - ref=e7 [unchanged]"); ok {
		t.Fatal("an elided ref that is not in the base applied")
	}
	if got, ok := ApplySnapshotDiff("- a [ref=e1]", NoChangesYAML); !ok || got != "- a [ref=e1]" {
		t.Fatalf("no-changes diff: %q, %v", got, ok)
	}
	if IsSnapshotDiff("- list [ref=e2]:\n  - <changed> x") || !IsSnapshotDiff(NoChangesYAML) {
		t.Fatal("IsSnapshotDiff")
	}
}
