// Command calibrate runs the calibration suite (`make
// calibrate`): every setting of analysis.IssueSettings simulated with
// analysis.Calibrate (synthetic records built as the runner builds them, fed
// to the real analysis.Analyze), written as CALIBRATION.md. With -write-run
// DIR it instead writes a synthetic ablation run directory (attempts.jsonl
// and ablation.json) for `bench report` / `bench compare`, e.g. the
// 100,016-attempt speed case. With -only clustered it runs only the
// clustered designs (analysis.ClusterSettings) and replaces that section of
// the existing -out file; -only judge likewise the judge-corrected pass rates
// (analysis.JudgeCalSettings), -only sequential the sequential ablations'
// section (analysis.SeqSettings).
//
//	go run ./cmd/calibrate -out CALIBRATION.md -runs 400
//	go run ./cmd/calibrate -out CALIBRATION.md -runs 400 -only clustered
//	go run ./cmd/calibrate -out CALIBRATION.md -runs 2000 -only judge
//	go run ./cmd/calibrate -out CALIBRATION.md -runs 400 -only sequential
//	go run ./cmd/calibrate -write-run /tmp/run100k -tasks 1786 -reps 7 -arms 8
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"webbench/analysis"
	"webbench/results"
)

func main() {
	out := flag.String("out", "CALIBRATION.md", "the report to write")
	runs := flag.Int("runs", 400, "simulated A/A runs and power runs per setting")
	seed := flag.Uint64("seed", 1, "PCG seed of the suite")
	writeRun := flag.String("write-run", "", "write a synthetic ablation run directory here instead")
	tasks := flag.Int("tasks", 40, "-write-run: tasks (rates from the seeds mix)")
	reps := flag.Int("reps", 5, "-write-run: reps per task")
	arms := flag.Int("arms", 8, "-write-run: arms (a baseline and arms−1 variants)")
	model := flag.String("model", analysis.ModelSameSeed, "-write-run: outcome model (independent, same_seed, sticky)")
	delta := flag.Float64("delta", 0, "-write-run: pass-rate change of the first variant (the others are A/A copies)")
	match := flag.String("match", "", "-only clustered: run only the settings whose name contains this (e.g. \"R=2 strong\"), power runs only, and print their planned, reported and achieved power instead of writing -out")
	only := flag.String("only", "", "run only one section: clustered, judge or sequential (written into -out's section), or the cost calibration of one model, printed: tokens or counts")
	flag.Parse()
	var err error
	switch {
	case *writeRun != "":
		err = writeRunDir(*writeRun, *tasks, *reps, *arms, *model, *delta, *seed)
	case *only == "clustered" && *match != "":
		fmt.Print(clusteredPower(*runs, *seed, *match))
	case *only == "clustered":
		err = writeSection(*out, analysis.ClusterSectionHeading, clusteredSection(*runs, *seed, onlyCmd("clustered", *runs, *seed)))
	case *only == "judge":
		err = writeSection(*out, analysis.JudgeCalSectionHeading, judgeSection(*runs, *seed, onlyCmd("judge", *runs, *seed)))
	case *only == "sequential":
		err = writeSection(*out, analysis.SeqSectionHeading, sequentialSection(*runs, *seed, onlyCmd("sequential", *runs, *seed)))
	case *only != "":
		var md string
		if md, err = costCalibration(*only, *runs, *seed); err == nil {
			fmt.Print(md)
		}
	default:
		err = calibrate(*out, *runs, *seed)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(1)
	}
}

// costPilots is the number of pilot runs whose planned power is averaged per cost setting.
const costPilots = 20

func calibrate(out string, runs int, seed uint64) error {
	start := time.Now()
	var res []analysis.CalResult
	for i, s := range analysis.IssueSettings() {
		t0 := time.Now()
		res = append(res, analysis.Calibrate(s, runs, runs, 0.05, seed+uint64(i)))
		fmt.Fprintf(os.Stderr, "%-24s %v\n", s, time.Since(t0).Round(time.Millisecond))
	}
	md := analysis.CalibrationMarkdown(res, fmt.Sprintf("go run ./cmd/calibrate -runs %d -seed %d", runs, seed),
		time.Since(start))
	md += "\n" + clusteredSection(runs, seed, fmt.Sprintf("go run ./cmd/calibrate -runs %d -seed %d", runs, seed)) + "\n"
	md += "\n" + judgeSection(runs, seed, fmt.Sprintf("go run ./cmd/calibrate -runs %d -seed %d", runs, seed)) + "\n"
	for _, m := range []string{analysis.CostModelTokens, analysis.CostModelCounts} {
		cost, err := costCalibration(m, runs, seed)
		if err != nil {
			return err
		}
		md += cost
	}
	md += "\n" + sequentialSection(runs, seed, fmt.Sprintf("go run ./cmd/calibrate -runs %d -seed %d", runs, seed))
	return os.WriteFile(out, []byte(md), 0o644)
}

// costCalibration runs the cost calibration's settings of model (analysis.CostSettings: tokens or counts) and
// returns its CALIBRATION.md section.
func costCalibration(model string, runs int, seed uint64) (string, error) {
	if model != analysis.CostModelTokens && model != analysis.CostModelCounts {
		return "", fmt.Errorf("-only %q: clustered, judge, sequential, tokens or counts", model)
	}
	start := time.Now()
	var cost []analysis.CostCalResult
	for i, s := range analysis.CostSettings() {
		if s.Model != model {
			continue // the index still seeds the setting: a model's rows are the same alone or in the suite
		}
		t0 := time.Now()
		cost = append(cost, analysis.CalibrateCost(s, runs, costPilots, seed+uint64(i)))
		fmt.Fprintf(os.Stderr, "cost %-19s %v\n", s, time.Since(t0).Round(time.Millisecond))
	}
	cmd := fmt.Sprintf("go run ./cmd/calibrate -runs %d -seed %d", runs, seed)
	if model == analysis.CostModelCounts {
		cmd = fmt.Sprintf("go run ./cmd/calibrate -only counts -runs %d -seed %d", runs, seed)
	}
	return analysis.CostCalibrationMarkdown(cost, cmd, time.Since(start)), nil
}

// clusteredSection runs every clustered setting (setting i from seed + i)
// and renders the section; cmd is the command named in it.
func clusteredSection(runs int, seed uint64, cmd string) string {
	start := time.Now()
	var res []analysis.ClusterCalResult
	for i, s := range analysis.ClusterSettings() {
		t0 := time.Now()
		res = append(res, analysis.CalibrateClustered(s, runs, runs, 0.05, seed+uint64(i)))
		fmt.Fprintf(os.Stderr, "clustered %-22s %v\n", s, time.Since(t0).Round(time.Millisecond))
	}
	return analysis.ClusterCalibrationMarkdown(res, cmd, time.Since(start))
}

// clusteredPower runs the power runs of the clustered settings whose name contains match (setting i from seed +
// i, as clusteredSection seeds them) and prints planned, reported and achieved power, and the share of runs whose
// report labels its power as possibly overstated (analysis.PowerAnalysis.MayOverstate).
func clusteredPower(runs int, seed uint64, match string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| setting | runs | planned | reported | achieved | labelled |\n|---|---|---|---|---|---|\n")
	for i, s := range analysis.ClusterSettings() {
		if !strings.Contains(s.String(), match) {
			continue
		}
		t0 := time.Now()
		r := analysis.CalibrateClustered(s, 0, runs, 0.05, seed+uint64(i))
		fmt.Fprintf(os.Stderr, "clustered %-22s %v\n", s, time.Since(t0).Round(time.Millisecond))
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %.3f | %.3f |\n", s, runs, r.Predicted, r.Reported, r.Achieved, r.Labelled)
	}
	return b.String()
}

// judgeSection runs every judge-error setting (setting i from seed + i) and renders the section; cmd is the
// command named in it.
func judgeSection(runs int, seed uint64, cmd string) string {
	start := time.Now()
	var res []analysis.JudgeCalResult
	for i, s := range analysis.JudgeCalSettings() {
		t0 := time.Now()
		res = append(res, analysis.CalibrateJudge(s, runs, seed+uint64(i)))
		fmt.Fprintf(os.Stderr, "judge %-26s %v\n", s, time.Since(t0).Round(time.Millisecond))
	}
	return analysis.JudgeCalibrationMarkdown(res, cmd, time.Since(start))
}

// sequentialSection runs every sequential setting (setting i from seed + i)
// and renders the section; cmd is the command named in it.
func sequentialSection(runs int, seed uint64, cmd string) string {
	start := time.Now()
	var res []analysis.SeqCalResult
	for i, s := range analysis.SeqSettings() {
		t0 := time.Now()
		res = append(res, analysis.CalibrateSequential(s, runs, 0.05, seed+uint64(i)))
		fmt.Fprintf(os.Stderr, "sequential %-22s %v\n", s, time.Since(t0).Round(time.Millisecond))
	}
	return analysis.SeqCalibrationMarkdown(res, 0.05, cmd, time.Since(start))
}

// onlyCmd is the command a section made with -only names.
func onlyCmd(only string, runs int, seed uint64) string {
	return fmt.Sprintf("go run ./cmd/calibrate -only %s -runs %d -seed %d", only, runs, seed)
}

// writeSection writes sec into out in place of the section of that heading (spliceSection), keeping the rest.
func writeSection(out, heading, sec string) error {
	old, err := os.ReadFile(out)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	return os.WriteFile(out, []byte(spliceSection(string(old), heading, sec)), 0o644)
}

// spliceSection returns doc with the section that starts at the line
// heading (through to the next "## " heading, or the end) replaced by sec,
// or with sec appended when doc has no such heading.
func spliceSection(doc, heading, sec string) string {
	i := strings.Index(doc, heading+"\n")
	if i < 0 || (i > 0 && doc[i-1] != '\n') {
		if doc != "" && !strings.HasSuffix(doc, "\n\n") {
			doc = strings.TrimRight(doc, "\n") + "\n\n"
		}
		return doc + sec
	}
	rest := doc[i+len(heading):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		// One blank line before the next heading, whether or not sec ends in a newline (the judge's does not).
		return doc[:i] + strings.TrimRight(sec, "\n") + "\n\n" + rest[j+1:]
	}
	return doc[:i] + sec
}

// writeRunDir writes a synthetic ablation run: attempts.jsonl (one line per
// record), and manifest.json with ablation.json in the run directory format
// of schema version 1 (which results.Open converts), naming the baseline and
// variants.
func writeRunDir(dir string, g, r, arms int, model string, delta float64, seed uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	rates := analysis.IssueMix(rng, g)
	d := analysis.Design{Rates: rates, Rep: r, Model: model, Share: 0.8}
	names := []string{"baseline"}
	armRates := [][]float64{rates}
	for i := 1; i < arms; i++ {
		names = append(names, fmt.Sprintf("v%d", i))
		if i == 1 && delta != 0 {
			armRates = append(armRates, analysis.ShiftRates(rates, delta))
		} else {
			armRates = append(armRates, rates)
		}
	}
	recs := analysis.SimRecords(d, names, analysis.SimOutcomes(rng, d, armRates), int64(seed))
	f, err := os.Create(filepath.Join(dir, results.AttemptsFile))
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, rec := range recs {
		if err := enc.Encode(rec); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := writeManifestV1(dir, names, g, r, len(recs), seed); err != nil {
		return err
	}
	meta := map[string]any{"schema_version": 1, "spec": "synthetic", "baseline": "baseline",
		"variants": names[1:], "switched": map[string][]string{}, "targets": map[string][]string{},
		"task_tags": map[string][]string{}, "alpha": 0.05, "power": 0.8, "min_effect": 0.1}
	b, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %d attempts to %s\n", len(recs), dir)
	return os.WriteFile(filepath.Join(dir, "ablation.json"), b, 0o644)
}

// writeManifestV1 writes dir/manifest.json, schema version 1, for a
// synthetic run of the named arms over g tasks × r reps.
func writeManifestV1(dir string, names []string, g, r, attempts int, seed uint64) error {
	tasks := make([]string, g)
	for t := range tasks {
		tasks[t] = analysis.SimTaskID(t)
	}
	variants := make([]map[string]string, len(names))
	for i, n := range names {
		variants[i] = map[string]string{"name": n}
	}
	m := map[string]any{"schema_version": 1, "run_id": "synthetic", "spec": map[string]any{},
		"plan": map[string]any{"suite": "synthetic", "tasks": tasks, "reps": r, "base_seed": seed,
			"variants": variants, "attempts": attempts},
		"webbench_version": "synthetic", "go_version": "", "system_prompt_sha256": map[string]string{},
		"host": "", "started_at": time.Now().UTC().Format(time.RFC3339), "shard": ""}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, results.ManifestFile), b, 0o644)
}
