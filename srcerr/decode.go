package srcerr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Decode decodes the YAML document data (the contents of file) into out, a pointer to a struct, strictly: an
// unknown key is an error. Every error comes in the format, joined one a line in document order: an unknown key
// with a "did you mean" among the keys of its block, a value of the wrong type as Mismatch words it (yaml.v3
// says only "cannot unmarshal !!str `two` into int" and the line; the value's field path and column are found by
// walking the document beside out's type, typeMismatches), a syntax error at its line (FromYAML). An error an
// UnmarshalYAML method returns as an *Error (placed at its node) gains the file; any other that is not a
// *yaml.TypeError comes back as it is, for the caller to place. An
// empty document decodes to nothing, without error.
func Decode(file string, data []byte, out any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(out)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err == nil {
		// yaml.v3 truncates a number with a fraction into an integer field (`reps: 3.5` reads as 3) without error;
		// the walk refuses it.
		var root yaml.Node
		_ = yaml.Unmarshal(data, &root)
		return joinErrors(typeMismatches(file, &root, reflect.TypeOf(out)))
	}
	if se := (*Error)(nil); errors.As(err, &se) {
		// An UnmarshalYAML method's error in the format, placed at its node: the file is known here.
		se.File = file
		return se
	}
	te := (*yaml.TypeError)(nil)
	if !errors.As(err, &te) {
		if strings.HasPrefix(err.Error(), "yaml: ") {
			return FromYAML(file, data, err, nil)
		}
		return err
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root) // decoded far enough to give type errors, so it parses
	found := typeMismatches(file, &root, reflect.TypeOf(out))
	keys := keysOf(reflect.TypeOf(out))
	var errs []*Error
	placed := false
	for _, e := range te.Errors {
		if strings.Contains(e, "cannot unmarshal ") && len(found) > 0 {
			if !placed {
				errs, placed = append(errs, found...), true
			}
			continue
		}
		errs = append(errs, fieldError(file, data, e, keys))
	}
	return joinErrors(errs)
}

// joinErrors joins errs in document order (line, then column); nil when there are none.
func joinErrors(errs []*Error) error {
	sort.SliceStable(errs, func(i, j int) bool {
		return errs[i].Line < errs[j].Line || errs[i].Line == errs[j].Line && errs[i].Col < errs[j].Col
	})
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return errors.Join(out...)
}

// Mismatch is the error of a value n (in file, at field path) that is not of the type wanted: `want WANT, got
// GOT` (Got), at n's line and column; want is a phrase with its article ("an integer", "a list of strings").
func Mismatch(file string, n *yaml.Node, path, want string) *Error {
	return AtNode(file, n, path, "want %s, got %s", want, Got(n))
}

// Got names a YAML value in an error: a scalar as written, quoted ("two"), else what it is (a list, a mapping,
// an alias); an empty document node is "nothing".
func Got(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing (null)"
		}
		return strconv.Quote(n.Value)
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

// Want words what a Go type accepts from YAML, with its article: "an integer", "a number", "true or false", "a
// string", "a duration like 90s", "a list", "a mapping".
func Want(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == durationType {
		return "a duration like 90s"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer ≥ 0"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	}
	return "a " + t.String()
}

var (
	durationType    = reflect.TypeFor[time.Duration]()
	nodeType        = reflect.TypeFor[yaml.Node]()
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
)

// typeMismatches walks the document root beside the Go type t (what yaml.v3 decodes it into) and returns an
// Error (Mismatch) for each value yaml.v3 cannot decode into its field's type, with the field's path
// (`variants[1].model.temperature`). Types with their own UnmarshalYAML, yaml.Node fields and unknown keys are
// left to yaml.v3 (their errors name themselves); whether a scalar fits a type is yaml.v3's own rule, asked by
// decoding the scalar alone.
func typeMismatches(file string, root *yaml.Node, t reflect.Type) []*Error {
	var out []*Error
	var walk func(n *yaml.Node, t reflect.Type, path string)
	walk = func(n *yaml.Node, t reflect.Type, path string) {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if n.Kind == yaml.DocumentNode {
			for _, c := range n.Content {
				walk(c, t, path)
			}
			return
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nodeType || reflect.PointerTo(t).Implements(unmarshalerType) || t.Kind() == reflect.Interface ||
			n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return
		}
		switch {
		case t.Kind() == reflect.Struct && t != durationType:
			if n.Kind != yaml.MappingNode {
				out = append(out, Mismatch(file, n, path, Want(t)))
				return
			}
			for j := 0; j+1 < len(n.Content); j += 2 {
				for _, kf := range structKeys(t) {
					if kf.key == n.Content[j].Value {
						walk(n.Content[j+1], kf.t, join(path, kf.key))
					}
				}
			}
		case t.Kind() == reflect.Map:
			if n.Kind != yaml.MappingNode {
				out = append(out, Mismatch(file, n, path, Want(t)))
				return
			}
			for j := 0; j+1 < len(n.Content); j += 2 {
				walk(n.Content[j], t.Key(), join(path, n.Content[j].Value))
				walk(n.Content[j+1], t.Elem(), join(path, n.Content[j].Value))
			}
		case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
			if n.Kind != yaml.SequenceNode {
				out = append(out, Mismatch(file, n, path, Want(t)))
				return
			}
			for i, c := range n.Content {
				walk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			}
		default:
			if !Scalar(n, reflect.New(t).Interface()) {
				out = append(out, Mismatch(file, n, path, Want(t)))
			}
		}
	}
	walk(root, t, "")
	return out
}

// Scalar decodes the scalar n into out (a pointer) by yaml.v3's rule, with Decode's one refusal on top: a
// number with a fractional part meant for an integer (fraction), which yaml.v3 would truncate. false when n is
// not a scalar or does not decode; the caller words the mismatch (Mismatch) at n. For files read node by node
// (task files), so that they refuse what a spec refuses.
func Scalar(n *yaml.Node, out any) bool {
	if n == nil || n.Kind != yaml.ScalarNode || fraction(n, reflect.TypeOf(out).Elem()) {
		return false
	}
	return n.Decode(out) == nil
}

// fraction reports a number with a fractional part (a !!float that is not whole) meant for an integer type t,
// which yaml.v3 would truncate.
func fraction(n *yaml.Node, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		return false
	}
	if n.ShortTag() != "!!float" {
		return false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	return err != nil || f != float64(int64(f))
}

// join is the field path of key in the block at path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// keyField is a yaml key of a struct type and its field's type.
type keyField struct {
	key string
	t   reflect.Type
}

// structKeys lists a struct type's yaml keys and their fields' types in field order (inline structs' keys in
// their place), as yaml.v3 reads them.
func structKeys(t reflect.Type) []keyField {
	var out []keyField
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case strings.Contains(opts, "inline"):
			out = append(out, structKeys(f.Type)...)
		case name == "":
			out = append(out, keyField{strings.ToLower(f.Name), f.Type})
		default:
			out = append(out, keyField{name, f.Type})
		}
	}
	return out
}

// keysOf is Keys for every struct type reachable from t through fields, pointers, lists and maps: FromYAML's
// candidates for "did you mean" in any block of the document.
func keysOf(t reflect.Type) map[string][]string {
	m := map[string][]string{}
	var visit func(t reflect.Type)
	visit = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if _, seen := m[t.String()]; seen || t.Kind() != reflect.Struct || t == nodeType {
			return
		}
		m[t.String()] = []string{}
		for _, kf := range structKeys(t) {
			m[t.String()] = append(m[t.String()], kf.key)
			visit(kf.t)
		}
	}
	visit(t)
	return m
}
