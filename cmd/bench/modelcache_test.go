package main

import (
	"testing"

	"github.com/spf13/cobra"
)

// --model-cache (a run flag of bench run and bench ablate) reaches the runner's options.
func TestModelCacheFlag(t *testing.T) {
	var rf runFlags
	c := &cobra.Command{Use: "x"}
	rf.register(c)
	if err := c.ParseFlags([]string{"--model-cache", "runs/models"}); err != nil {
		t.Fatal(err)
	}
	opts, err := rf.options()
	if err != nil {
		t.Fatal(err)
	}
	if opts.ModelCache != "runs/models" {
		t.Errorf("ModelCache %q", opts.ModelCache)
	}
}
