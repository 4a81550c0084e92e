package spec

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"webbench/runner"
	"webbench/srcerr"
)

// specDoc is the reference page of the spec format.
const specDoc = "../docs/SPEC.md"

// specKeysRe matches the generated list of a spec's keys in specDoc.
var specKeysRe = regexp.MustCompile(`(?s)<!-- spec-keys -->\n.*?<!-- /spec-keys -->`)

// TestDocsCoverSpecKeys holds docs/SPEC.md against the spec's types: its generated key list is exactly the keys
// ParseSpec accepts, block by block, and every key is also named in the page's prose. WEBBENCH_UPDATE_DOCS=1
// rewrites the list.
func TestDocsCoverSpecKeys(t *testing.T) {
	b, err := os.ReadFile(specDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	blocks := []struct {
		name string
		v    any
	}{{"top level", Spec{}}, {"baseline and each variant", Config{}}, {"model", runner.Model{}},
		{"observation", ObservationSpec{}}}
	var list strings.Builder
	list.WriteString("<!-- spec-keys -->\n")
	for _, bl := range blocks {
		var keys []string
		for _, ks := range srcerr.Keys(bl.v) {
			keys = append(keys, ks...)
		}
		slices.Sort(keys)
		// Wrapped at 120 columns, as every docs page's prose (cmd/bench TestDocsAreReadable).
		line := "- " + bl.name + ":"
		for i, k := range keys {
			word := " `" + k + "`"
			if i < len(keys)-1 {
				word += ","
			}
			if len(line)+len(word) > 120 {
				list.WriteString(line + "\n")
				line = " "
			}
			line += word
		}
		list.WriteString(line + "\n")
		prose := specKeysRe.ReplaceAllString(doc, "")
		for _, k := range keys {
			if !strings.Contains(prose, "`"+k) && !strings.Contains(prose, k+":") {
				t.Errorf("%s: key %s (%s) is not described outside the generated list", specDoc, k, bl.name)
			}
		}
	}
	list.WriteString("<!-- /spec-keys -->")
	if !specKeysRe.MatchString(doc) {
		t.Fatalf("%s has no <!-- spec-keys --> … <!-- /spec-keys --> list", specDoc)
	}
	out := specKeysRe.ReplaceAllLiteralString(doc, list.String())
	if out == doc {
		return
	}
	if os.Getenv("WEBBENCH_UPDATE_DOCS") != "" {
		if err := os.WriteFile(specDoc, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's key list differs from the spec's keys: run WEBBENCH_UPDATE_DOCS=1 go test ./spec -run "+
		"TestDocsCoverSpecKeys and describe the change in the page", specDoc)
}
