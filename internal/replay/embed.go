package replay

import "embed"

//go:generate env WEBBENCH_UPDATE_DOCS=1 go test -run TestEndpointsTable -count=1 .

// shapeFiles are the recorded shapes, embedded so that tests of other packages (full bench runs) can use them
// without knowing this package's directory.
//
//go:embed testdata/shapes/*.json
var shapeFiles embed.FS

// Shapes returns the embedded recorded shapes (testdata/shapes/*.json), sorted by file name and validated.
func Shapes() ([]Shape, error) {
	return load(shapeFiles, "testdata/shapes/*.json", "")
}

// StartRecorded starts a server over the embedded shapes (Shapes) with opts.
func StartRecorded(opts Options) (*Server, error) {
	shapes, err := Shapes()
	if err != nil {
		return nil, err
	}
	return Start(shapes, opts)
}
