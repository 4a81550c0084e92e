// Command bench is webbench's CLI: run suites, ablate guards, report, judge, compare, plan sample sizes, and
// serve the Zoo and the scripted policy by hand. Exit codes: 0 done, 1 run completed but a gate failed,
// 2 usage or input error, 3 infrastructure failure, 130 interrupted (re-run the same command to resume).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"webbench/llm"
	_ "webbench/suites/webvoyager"
	_ "webbench/suites/zoo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := newRoot().ExecuteContext(ctx)
	if err == nil {
		return
	}
	code := exitUsage
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if code == exitInterrupt {
		fmt.Fprintln(os.Stderr, "interrupted: results so far are saved; re-run the same command to resume")
	} else {
		fmt.Fprintln(os.Stderr, "bench:", llm.RedactString(err.Error()))
	}
	os.Exit(code)
}

// newRoot is the bench command with every subcommand.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "bench",
		Short:         "webbench: evaluate LLM browser agents in real Chromium, with paired guard ablations",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(runCmd(), reportCmd(), suitesCmd(), policyCmd(), zooCmd())
	for _, c := range extraCommands {
		root.AddCommand(c())
	}
	return root
}

// extraCommands lets other files register commands (ablate, power, judge, compare, merge).
var extraCommands []func() *cobra.Command
