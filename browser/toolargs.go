package browser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// The tools' argument types. Each is the Go type a tool's JSON arguments decode into and the source of the JSON
// schema the model is told (argSchema): the properties are the json names, a field without omitempty is
// required, a jsonschema tag is the property's description (Playwright MCP's words). Tags holding a backquote
// are written as interpreted strings.
type (
	// noArgs is the argument type of tools without arguments; their arguments are not decoded.
	noArgs struct{}

	navigateArgs struct {
		URL string `json:"url" jsonschema:"The URL to navigate to"`
	}
	snapshotArgs struct {
		Boxes bool `json:"boxes,omitempty" jsonschema:"Append each element's bounding box as [box=x,y,width,height] in viewport CSS pixels (for browser_mouse_click_xy)"`
	}
	// targetArgs is the element argument of the element tools, embedded in their argument types.
	targetArgs struct {
		Target string `json:"target" jsonschema:"Exact target element reference from the page snapshot, e.g. e12 or f1e3"`
	}
	clickArgs struct {
		targetArgs
		Element     string      `json:"element,omitempty" jsonschema:"Human-readable element description used to obtain permission to interact with the element"`
		DoubleClick bool        `json:"doubleClick,omitempty" jsonschema:"Whether to perform a double click instead of a single click"`
		Button      mouseButton `json:"button,omitempty" jsonschema:"Button to click, defaults to left"`
	}
	typeArgs struct {
		targetArgs
		Text   string `json:"text" jsonschema:"Text to type into the element"`
		Submit bool   `json:"submit,omitempty" jsonschema:"Whether to submit entered text (press Enter after)"`
	}
	selectArgs struct {
		targetArgs
		Values stringsArg `json:"values" jsonschema:"Array of values to select in the dropdown. This can be a single value or multiple values."`
	}
	formField struct {
		targetArgs
		Name  string    `json:"name,omitempty" jsonschema:"Human-readable field name"`
		Type  fieldType `json:"type,omitempty" jsonschema:"Type of the field"`
		Value scalarArg "json:\"value\" jsonschema:\"Value to fill in the field. If the field is a checkbox, the value should be `true` or `false`. If the field is a combobox, the value should be the text of the option.\""
	}
	fillFormArgs struct {
		Fields []formField `json:"fields" jsonschema:"Fields to fill in"`
	}
	pressKeyArgs struct {
		Key string "json:\"key\" jsonschema:\"Name of the key to press or a character to generate, such as `ArrowLeft` or `a`\""
	}
	evaluateArgs struct {
		Function string `json:"function" jsonschema:"() => { /* code */ } or (element) => { /* code */ } when element is provided"`
		Target   string `json:"target,omitempty" jsonschema:"Exact target element reference from the page snapshot, e.g. e12 or f1e3 (optional: the element passed to the function)"`
	}
	waitForArgs struct {
		Time     *float64 `json:"time,omitempty" jsonschema:"The time to wait in seconds"`
		Text     string   `json:"text,omitempty" jsonschema:"The text to wait for"`
		TextGone string   `json:"textGone,omitempty" jsonschema:"The text to wait for to disappear"`
	}
	xyArgs struct {
		X *float64 `json:"x" jsonschema:"X coordinate"`
		Y *float64 `json:"y" jsonschema:"Y coordinate"`
	}
)

// Argument field types whose schema is not the one their Go type implies (argTypeSchemas).
type (
	// mouseButton is browser_click's button: left, right or middle ("" is left).
	mouseButton string
	// fieldType is a browser_fill_form field's kind ("" takes the ref's role in the last snapshot).
	fieldType string
	// stringsArg is a list of strings kept as its JSON text: models send one scalar as well as a list, and
	// numbers or booleans for strings; strings reads it.
	stringsArg json.RawMessage
	// scalarArg is a string kept as its JSON text: models send numbers and booleans too; text reads it.
	scalarArg json.RawMessage
)

// UnmarshalJSON keeps the JSON text (as json.RawMessage does).
func (v *stringsArg) UnmarshalJSON(b []byte) error { return (*json.RawMessage)(v).UnmarshalJSON(b) }

// UnmarshalJSON keeps the JSON text (as json.RawMessage does).
func (v *scalarArg) UnmarshalJSON(b []byte) error { return (*json.RawMessage)(v).UnmarshalJSON(b) }

// strings reads the list: a JSON array of scalars or a single scalar, each rendered by scalarString; absent or
// null is none.
func (v stringsArg) strings() ([]string, error) {
	raw := bytes.TrimSpace(v)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		out := make([]string, 0, len(items))
		for _, it := range items {
			v, err := scalarString(it)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	s, err := scalarString(raw)
	if err != nil {
		return nil, err
	}
	return []string{s}, nil
}

// text reads the value with scalarString.
func (v scalarArg) text() (string, error) { return scalarString(json.RawMessage(v)) }

// scalarString renders a JSON string, number or boolean as a string; absent or null is "".
func scalarString(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case '{', '[':
		return "", fmt.Errorf("want a string, got %s", raw)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	return string(raw), nil
}

// argTypeSchemas are the schemas of the field types above, as the model is told them: the enums, and the
// leniently read arguments as what they stand for (a list of strings, a string).
var argTypeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[mouseButton](): {Type: "string", Enum: []any{"left", "right", "middle"}},
	reflect.TypeFor[fieldType](): {Type: "string",
		Enum: []any{"textbox", "checkbox", "radio", "combobox", "slider"}},
	reflect.TypeFor[stringsArg](): {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	reflect.TypeFor[scalarArg]():  {Type: "string"},
}

// argSchema generates the JSON schema of argument type A (jsonschema.For with argTypeSchemas; structs are
// objects with additionalProperties false) and its JSON value, the object sent as the tool's parameters. It
// panics if A has no schema: the tool table is built at init.
func argSchema[A any]() (*jsonschema.Schema, map[string]any) {
	s, err := jsonschema.For[A](&jsonschema.ForOptions{TypeSchemas: argTypeSchemas})
	var params map[string]any
	if err == nil {
		forModel(s)
		var b []byte
		if b, err = json.Marshal(s); err == nil {
			err = json.Unmarshal(b, &params)
		}
	}
	if err != nil {
		panic(fmt.Sprintf("browser: schema of %v: %v", reflect.TypeFor[A](), err))
	}
	return s, params
}

// forModel adjusts a generated schema, in place, to what the model is told. For lets pointers and slices be
// null (a nil Go value); the model is told the value's type alone, as Playwright MCP does (an absent or null
// argument decodes to the zero value, which the handlers treat as not given). An object without properties
// still lists them ("properties": {}).
func forModel(s *jsonschema.Schema) {
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	if s.Type == "object" && s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	for _, p := range s.Properties {
		forModel(p)
	}
	if s.Items != nil {
		forModel(s.Items)
	}
}
