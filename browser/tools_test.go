package browser

import (
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The tool list and schemas sent to the model are byte-identical to those of the code before the tool table
// (testdata/tools*.golden.json were written by it), with and without browser_evaluate.
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

// jsonFields returns the json names of a struct type's fields.
func jsonFields(ty reflect.Type) []string {
	var out []string
	for f := range ty.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Every schema matches its argument type: the properties are exactly the type's json fields (for
// browser_fill_form, also those of its items), and every required property is one of them.
func TestToolSchemasMatchArgumentTypes(t *testing.T) {
	for _, tool := range Tools() {
		check := func(what string, sch map[string]any, ty reflect.Type) {
			props, _ := sch["properties"].(map[string]any)
			names := slices.Sorted(maps.Keys(props))
			if want := jsonFields(ty); !slices.Equal(names, want) && !(len(names) == 0 && len(want) == 0) {
				t.Errorf("%s %s: schema properties %v, argument fields %v", tool.Name, what, names, want)
			}
			req, _ := sch["required"].([]string)
			for _, r := range req {
				if !slices.Contains(names, r) {
					t.Errorf("%s %s: required %q is not a property", tool.Name, what, r)
				}
			}
		}
		check("arguments", tool.Schema, tool.Args)
		if tool.Name == ToolFillForm {
			items := tool.Schema["properties"].(map[string]any)["fields"].(map[string]any)["items"].(map[string]any)
			check("fields", items, tool.Args.Field(0).Type.Elem())
		}
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
