package browser

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The tool list and schemas sent to the model are byte-identical to those of the hand-written schemas the
// generated ones replaced: testdata/tools*.golden.json are the ToolDefs output of that code (checked against it
// before the schemas were generated from the argument types), with and without browser_evaluate.
func TestToolDefsGolden(t *testing.T) {
	for file, disable := range map[string]bool{"testdata/tools.golden.json": false, "testdata/tools_noeval.golden.json": true} {
		s := &Session{opts: SessionOptions{DisableEvaluate: disable}}
		got, err := json.MarshalIndent(s.ToolDefs(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got)+"\n" != string(want) {
			t.Errorf("%s: tool definitions differ:\n%s", file, got)
		}
	}
}

// Every property the model is told of has a type and a description (a field without a jsonschema tag would
// have none); every tool is found by its prefixed name; the flags agree.
func TestToolTable(t *testing.T) {
	var check func(path string, s *jsonschema.Schema)
	check = func(path string, s *jsonschema.Schema) {
		for name, p := range s.Properties {
			if p.Type == "" || p.Description == "" {
				t.Errorf("%s.%s: type %q, description %q", path, name, p.Type, p.Description)
			}
			check(path+"."+name, p)
		}
		if s.Items != nil {
			check(path+"[]", s.Items)
		}
	}
	for _, tool := range Tools() {
		if tool.Schema.Type != "object" || tool.Schema.Properties == nil || tool.Args.Kind() != reflect.Struct {
			t.Errorf("%s: schema type %q, properties %v, arguments %v", tool.Name, tool.Schema.Type,
				tool.Schema.Properties, tool.Args)
		}
		check(string(tool.Name), tool.Schema)
		if got, ok := LookupTool("mcp__playwright__" + string(tool.Name)); !ok || got.Name != tool.Name {
			t.Errorf("LookupTool(prefixed %s) = %v, %v", tool.Name, got.Name, ok)
		}
		if tool.ReadOnly && tool.Acts || tool.Progress && !tool.Acts {
			t.Errorf("%s: inconsistent flags %+v", tool.Name, tool)
		}
	}
	if _, ok := LookupTool("browser_drag"); ok {
		t.Error("browser_drag is not a tool")
	}
	var readOnly []string
	for _, tool := range Tools() {
		if tool.ReadOnly {
			readOnly = append(readOnly, string(tool.Name))
		}
	}
	if got := strings.Join(readOnly, " "); got != "browser_snapshot browser_wait_for browser_take_screenshot" {
		t.Errorf("read-only tools: %s", got)
	}
}

// Arguments decode into the types their schemas come from: the embedded target, and the leniently read list
// and scalar (a single value for a list, numbers and booleans for strings), which the schemas call a list of
// strings and a string.
func TestToolArgsDecode(t *testing.T) {
	var c clickArgs
	if err := decode(ToolClick, json.RawMessage(`{"target":"e3","button":"right","doubleClick":true}`), &c); err != nil ||
		c.Target != "e3" || c.Button != "right" || !c.DoubleClick {
		t.Errorf("click arguments %+v, %v", c, err)
	}
	for in, want := range map[string][]string{`"Green"`: {"Green"}, `["a", 2, true]`: {"a", "2", "true"},
		`null`: nil, `[]`: {}} {
		var a selectArgs
		if err := decode(ToolSelectOption, json.RawMessage(`{"target":"e1","values":`+in+`}`), &a); err != nil {
			t.Fatalf("values %s: %v", in, err)
		}
		if got, err := a.Values.strings(); err != nil || !slices.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("values %s: %q, %v; want %q", in, got, err, want)
		}
	}
	var a selectArgs
	_ = decode(ToolSelectOption, json.RawMessage(`{"values":[{"x":1}]}`), &a)
	if _, err := a.Values.strings(); err == nil || err.Error() != `want a string, got {"x":1}` {
		t.Errorf("values [{...}]: %v", err)
	}
	var f fillFormArgs
	if err := decode(ToolFillForm, json.RawMessage(`{"fields":[{"target":"e2","type":"checkbox","value":true},`+
		`{"target":"e4","value":"x"}]}`), &f); err != nil || len(f.Fields) != 2 {
		t.Fatalf("fields %+v, %v", f, err)
	}
	v0, err0 := f.Fields[0].Value.text()
	v1, err1 := f.Fields[1].Value.text()
	if f.Fields[0].Target != "e2" || f.Fields[0].Type != "checkbox" || v0 != "true" || v1 != "x" || err0 != nil ||
		err1 != nil {
		t.Errorf("fields %+v: values %q %v, %q %v", f.Fields, v0, err0, v1, err1)
	}
}

// schemaDiff lists how the JSON schema ours differs from theirs at path: keywords other than properties and
// items that differ ("path: description differs", "path: required [a], Playwright [a b]"), properties only one side
// has ("path.name: Playwright only" / "webbench only"); properties and items both have are compared in turn.
func schemaDiff(path string, ours, theirs map[string]any) []string {
	var out []string
	keys := slices.Sorted(maps.Keys(ours))
	for k := range theirs {
		if _, ok := ours[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch k {
		case "$schema":
		case "properties":
			op, _ := ours[k].(map[string]any)
			tp, _ := theirs[k].(map[string]any)
			names := slices.Sorted(maps.Keys(op))
			for n := range tp {
				if _, ok := op[n]; !ok {
					names = append(names, n)
				}
			}
			slices.Sort(names)
			for _, n := range names {
				o, inOurs := op[n].(map[string]any)
				th, inTheirs := tp[n].(map[string]any)
				switch {
				case !inOurs:
					out = append(out, path+"."+n+": Playwright only")
				case !inTheirs:
					out = append(out, path+"."+n+": webbench only")
				default:
					out = append(out, schemaDiff(path+"."+n, o, th)...)
				}
			}
		case "items":
			o, _ := ours[k].(map[string]any)
			th, _ := theirs[k].(map[string]any)
			out = append(out, schemaDiff(path+"[]", o, th)...)
		case "description":
			if ours[k] != theirs[k] {
				out = append(out, path+": description differs")
			}
		case "required": // absent is []
			o, _ := ours[k].([]any)
			th, _ := theirs[k].([]any)
			if !slices.Equal(o, th) {
				out = append(out, fmt.Sprintf("%s: required %v, Playwright %v", path, o, th))
			}
		default:
			if !reflect.DeepEqual(ours[k], theirs[k]) {
				out = append(out, fmt.Sprintf("%s: %s %v, Playwright %v", path, k, ours[k], theirs[k]))
			}
		}
	}
	return out
}

// Every tool and schema the model gets is Playwright MCP's, apart from the deliberate differences listed here.
// testdata/playwright-mcp-0.0.83.tools.json is the tools/list result of @playwright/mcp 0.0.83 --caps vision
// (the release in .cache/mcp that suites/zoo/ablations/mcp-versions.yaml compares against), indented.
func TestToolSchemasFollowPlaywrightMCP(t *testing.T) {
	raw, err := os.ReadFile("testdata/playwright-mcp-0.0.83.tools.json")
	if err != nil {
		t.Fatal(err)
	}
	type pwTool struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"inputSchema"`
	}
	var pw struct {
		Tools []pwTool `json:"tools"`
	}
	if err := json.Unmarshal(raw, &pw); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range (&Session{}).ToolDefs() {
		f := d.Function
		i := slices.IndexFunc(pw.Tools, func(p pwTool) bool { return p.Name == f.Name })
		if i < 0 {
			got = append(got, f.Name+": not a Playwright MCP tool")
			continue
		}
		if f.Description != pw.Tools[i].Description {
			got = append(got, f.Name+": description differs")
		}
		// The schema as the model reads it: its JSON.
		var ours map[string]any
		b, err := json.Marshal(f.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &ours); err != nil {
			t.Fatal(err)
		}
		got = append(got, schemaDiff(f.Name, ours, pw.Tools[i].InputSchema)...)
	}
	want := []string{
		// The boxes option exists for browser_mouse_click_xy, and says so.
		"browser_snapshot.boxes: description differs",
		// Options webbench does not implement are not offered (here and below: "Playwright only").
		"browser_snapshot.depth: Playwright only",
		"browser_snapshot.filename: Playwright only",
		"browser_snapshot.target: Playwright only",
		"browser_click.modifiers: Playwright only",
		// Targets are refs from the snapshot ("e12 or f1e3"); selectors are not accepted.
		"browser_click.target: description differs",
		"browser_type.element: Playwright only",
		"browser_type.slowly: Playwright only",
		"browser_type.target: description differs",
		"browser_hover.element: Playwright only",
		"browser_hover.target: description differs",
		"browser_select_option.element: Playwright only",
		"browser_select_option.target: description differs",
		"browser_fill_form.fields[].element: Playwright only",
		"browser_fill_form.fields[].target: description differs",
		// name and type are optional: the type defaults to the ref's role in the last snapshot.
		"browser_fill_form.fields[]: required [target value], Playwright [target name type value]",
		"browser_evaluate.element: Playwright only",
		"browser_evaluate.filename: Playwright only",
		"browser_evaluate.target: description differs",
		// Playwright's says "at most 30"; webbench caps the wait at 30 s too (maxWait) without saying so.
		"browser_wait_for.time: description differs",
		"browser_take_screenshot.element: Playwright only",
		"browser_take_screenshot.filename: Playwright only",
		"browser_take_screenshot.fullPage: Playwright only",
		"browser_take_screenshot.scale: Playwright only",
		"browser_take_screenshot.target: Playwright only",
		"browser_take_screenshot.type: Playwright only",
		"browser_take_screenshot: required [], Playwright [scale]",
		// The coordinates are explained for the snapshot's boxes; only the left button's single click.
		"browser_mouse_click_xy: description differs",
		"browser_mouse_click_xy.button: Playwright only",
		"browser_mouse_click_xy.clickCount: Playwright only",
		"browser_mouse_click_xy.delay: Playwright only",
	}
	if !slices.Equal(got, want) {
		t.Errorf("differences from Playwright MCP 0.0.83:\n%s", strings.Join(got, "\n"))
	}
}
