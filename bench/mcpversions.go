package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"webbench/results"
	"webbench/spec"
	"webbench/suites"
)

// MCPVersionsSpec is the shipped spec comparing Playwright MCP releases as the built-in agent's tool backend
// (tools: {kind: mcp}); MeasureMCPVersions times its arms' steps.
const MCPVersionsSpec = "suites/zoo/ablations/mcp-versions.yaml"

// CmdMCPVersions reproduces the MCP-versions section.
const CmdMCPVersions = "go run ./bench/cmd/benchreport -only mcp-versions"

// MCPVersionTools are the tools whose step latency the section reports, in order (then all tool calls).
var MCPVersionTools = []string{"browser_navigate", "browser_snapshot", "browser_click", "browser_type",
	"browser_press_key", "browser_select_option"}

// MCPVersionsOptions size the MCP-versions measurement.
type MCPVersionsOptions struct {
	// Spec is the spec file (default MCPVersionsSpec, found upward from the working directory).
	Spec string
	// Tasks overrides the spec's task filter ("" = the spec's; -quick uses one task).
	Tasks string
	// Log receives progress lines (nil: none).
	Log func(format string, args ...any)
}

// ArmSteps are one arm's step latencies: per tool, the wall time of each call (ToolRecord.DurationMS: the
// tools/call round trip to the Playwright MCP server, its action, settle and snapshot included, plus reading a
// linked snapshot file), over every attempt of the arm.
type ArmSteps struct {
	// Arm is the variant's name; Tools its server command (joined).
	Arm, Tools string
	// Passed of Total attempts.
	Passed, Total int
	// ByTool maps a tool name to its calls' latency distribution (ms); All is every tool call's.
	ByTool map[string]Dist
	All    Dist
}

// findUp returns rel found in the working directory or one of its parents.
func findUp(rel string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("bench: %s not found from %s upward", rel, wd)
		}
	}
}

// MeasureMCPVersions runs the spec's plan through runner.Run (its arms, tasks, reps and seed; one Playwright
// MCP server per attempt, the pinned installs of `make setup`) into a temporary run directory and returns each
// arm's step latencies from the trajectories, in the spec's arm order.
func MeasureMCPVersions(ctx context.Context, o MCPVersionsOptions) ([]ArmSteps, error) {
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	path := o.Spec
	if path == "" {
		var err error
		if path, err = findUp(MCPVersionsSpec); err != nil {
			return nil, err
		}
	}
	spec, err := spec.LoadSpec(path)
	if err != nil {
		return nil, err
	}
	suite, err := suites.Open(spec.Suite, suites.Options(spec.SuiteOptions))
	if err != nil {
		return nil, err
	}
	defer suite.Close()
	filter := spec.Tasks
	if o.Tasks != "" {
		filter = o.Tasks
	}
	tasks, err := suites.Filter(suite.Tasks(), filter)
	if err != nil {
		return nil, err
	}
	arms, err := spec.Expand(tasks)
	if err != nil {
		return nil, err
	}
	plan := scriptedPlan(tasks, max(spec.Reps, 1))
	plan.BaseSeed, plan.Variants = spec.Seed, arms.Variants
	for _, v := range plan.Variants {
		if v.Tools == nil {
			return nil, fmt.Errorf("bench: %s: arm %s has no tools: {kind: mcp}", path, v.Name)
		}
	}
	logf("mcp-versions: %s, %d arm(s) × %d task(s) × %d rep(s)", path, len(plan.Variants), len(tasks), plan.Reps)
	zr, err := runZoo(ctx, suite, plan, max(spec.Workers, 1), true)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(zr.Dir)
	samples := map[string]map[string][]float64{}
	out := make([]ArmSteps, len(plan.Variants))
	for i, v := range plan.Variants {
		out[i] = ArmSteps{Arm: v.Name, Tools: strings.Join(v.Tools.Command, " "), ByTool: map[string]Dist{}}
		samples[v.Name] = map[string][]float64{}
	}
	for _, rec := range zr.Records {
		i := slices.IndexFunc(out, func(a ArmSteps) bool { return a.Arm == rec.Variant })
		if i < 0 {
			continue
		}
		out[i].Total++
		if rec.Status == results.StatusPass {
			out[i].Passed++
		}
		tr, err := zr.Run.Trajectory(rec.AttemptID)
		if err != nil {
			return nil, err
		}
		for _, st := range tr.Steps {
			if st == nil {
				continue
			}
			for _, r := range st.Results {
				if r == nil {
					continue
				}
				d := float64(r.DurationMS)
				samples[rec.Variant][r.Call.Name] = append(samples[rec.Variant][r.Call.Name], d)
				samples[rec.Variant][""] = append(samples[rec.Variant][""], d)
			}
		}
	}
	for i := range out {
		for name, xs := range samples[out[i].Arm] {
			if name == "" {
				out[i].All = NewDist(xs)
			} else {
				out[i].ByTool[name] = NewDist(xs)
			}
		}
	}
	return out, nil
}
