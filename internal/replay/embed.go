package replay

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
)

// shapeFiles are the recorded shapes, embedded so that tests of other packages (full bench runs) can use them
// without knowing this package's directory.
//
//go:embed testdata/shapes/*.json
var shapeFiles embed.FS

// Shapes returns the embedded recorded shapes (testdata/shapes/*.json), sorted by file name and validated.
func Shapes() ([]Shape, error) {
	names, err := fs.Glob(shapeFiles, "testdata/shapes/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Shape
	for _, n := range names {
		b, err := shapeFiles.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var s Shape
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("replay: %s: %w", n, err)
		}
		out = append(out, s)
	}
	return out, Validate(out)
}

// StartRecorded starts a server over the embedded shapes (Shapes) with opts.
func StartRecorded(opts Options) (*Server, error) {
	shapes, err := Shapes()
	if err != nil {
		return nil, err
	}
	return Start(shapes, opts)
}
