package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"webbench/runner"
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

// A model cache no variant uses is a usage error (exit 2) whose message names the flag and why.
func TestModelCacheUnusedExit(t *testing.T) {
	err := runErr(fmt.Errorf("run: %w", runner.ErrModelCacheUnused))
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitUsage || !strings.Contains(err.Error(), "--model-cache") ||
		!strings.Contains(err.Error(), "built-in agent") {
		t.Errorf("got %#v: %v", ee, err)
	}
}
