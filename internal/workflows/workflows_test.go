// Package workflows holds the test that lints .github/workflows with actionlint (as a Go library), so a broken
// workflow fails `make test`.
package workflows

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rhysd/actionlint"
)

func TestWorkflowsLint(t *testing.T) {
	files, err := filepath.Glob("../../.github/workflows/*.yml")
	if err != nil || len(files) < 2 {
		t.Fatalf("expected the nightly and pr-ablation workflows, found %v (%v)", files, err)
	}
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Fatalf("actionlint found %d problem(s):\n%s", len(errs), out.String())
	}
}

func TestLinterCatchesBrokenWorkflow(t *testing.T) {
	broken := []byte("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n")
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint("broken.yml", broken, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) == 0 {
		t.Fatal("actionlint accepted a workflow with an undefined context property")
	}
}
