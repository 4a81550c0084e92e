package results

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"webbench/judge"
)

// OriginalJudge names the verdicts recorded during the run in (*Run).Attempts and bench judge --agreement.
const OriginalJudge = "original"

// Run is a run directory read back: its manifest, its attempt records (re-judged verdicts attached) and, on
// demand, trajectories and screenshots. Every command and report reads runs through Open.
type Run struct {
	// Dir is the run directory as given to Open.
	Dir string
	// Manifest is the plan and provenance (schema version 1 converted).
	Manifest *Manifest
	// Records are all lines of attempts.jsonl in file order, retries included.
	Records []Attempt
	// TornTail is true when the last line of attempts.jsonl was incomplete and was ignored.
	TornTail bool

	latest   map[string]Attempt
	order    []string
	verdicts map[string]map[string]VerdictRecord
}

// Open reads the run directory dir: manifest.json (ReadManifest: version 1 with its ablation.json converted),
// attempts.jsonl (ReadAttempts) and every verdicts-<judge>.jsonl, whose verdicts are attached to the final
// records' Verdicts by judge name. Trajectories are read lazily (Trajectory). Errors name the file, the line and
// the field; a directory without manifest.json is ErrNoManifest.
func Open(dir string) (*Run, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	rr, err := ReadAttempts(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Manifest: m, Records: rr.Records, TornTail: rr.TornTail, latest: rr.Latest, order: rr.Order,
		verdicts: map[string]map[string]VerdictRecord{}}
	files, err := filepath.Glob(filepath.Join(dir, "verdicts-*.jsonl"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "verdicts-"), ".jsonl")
		vs, err := readVerdicts(f)
		if err != nil {
			return nil, err
		}
		r.verdicts[name] = vs
		for id, v := range vs {
			a, ok := r.latest[id]
			if !ok {
				continue
			}
			if a.Verdicts == nil {
				a.Verdicts = map[string]judge.Verdict{}
			}
			a.Verdicts[name] = v.Verdict
			r.latest[id] = a
		}
	}
	return r, nil
}

// Final returns the latest record of every attempt id, in order of first appearance, with Verdicts attached.
func (r *Run) Final() []Attempt {
	out := make([]Attempt, 0, len(r.order))
	for _, id := range r.order {
		out = append(out, r.latest[id])
	}
	return out
}

// Latest returns the final record of attempt id.
func (r *Run) Latest(id string) (Attempt, bool) {
	a, ok := r.latest[id]
	return a, ok
}

// Judges lists the names of the judges with a verdicts-<judge>.jsonl in the run directory, sorted.
func (r *Run) Judges() []string { return slices.Sorted(maps.Keys(r.verdicts)) }

// Attempts returns the final records as judged by judgeName: "" or OriginalJudge returns them as recorded;
// another name re-scores every record with that judge's verdict (WithVerdict, the one status rule): records the
// run's judge decided or doubted take the verdict ("no verdict of judge X", a judge error, when the judge
// skipped the attempt); other records with status error are kept as recorded (bench judge does not re-score
// them). An unknown judge name is an error listing the known ones.
func (r *Run) Attempts(judgeName string) ([]Attempt, error) {
	recs := r.Final()
	if judgeName == "" || judgeName == OriginalJudge {
		return recs, nil
	}
	vs, ok := r.verdicts[judgeName]
	if !ok {
		return nil, fmt.Errorf("%s has no verdicts of judge %q (run bench judge %s --judge %s first; it has: %s)",
			r.Dir, judgeName, r.Dir, judgeName, strings.Join(append([]string{OriginalJudge}, r.Judges()...), ", "))
	}
	for i, a := range recs {
		vr, ok := vs[a.AttemptID]
		v := vr.Verdict
		if !ok {
			v = judge.Verdict{Judge: judgeName, Error: "no verdict of judge " + judgeName + " for this attempt"}
		}
		recs[i] = WithVerdict(a, v)
	}
	return recs, nil
}

// Trajectory reads the trajectory of attempt id (the final record's Trajectory path), strictly: an unknown
// field or a schema_version other than TrajectorySchemaVersion and 1 (converted) is an error naming the file. An attempt without
// one (an infrastructure error before the agent ran) is an error wrapping os.ErrNotExist.
func (r *Run) Trajectory(id string) (*Trajectory, error) {
	a, ok := r.latest[id]
	if !ok {
		return nil, fmt.Errorf("%s: no attempt %s", r.Dir, id)
	}
	if a.Trajectory == "" {
		return nil, fmt.Errorf("%s: attempt %s has no trajectory: %w", r.Dir, id, os.ErrNotExist)
	}
	return ReadTrajectory(filepath.Join(r.Dir, a.Trajectory))
}

// ErrBadTrajectory is wrapped by Trajectory and ReadTrajectory when a trajectory file cannot be read as one:
// malformed JSON, an unknown field, a field of the wrong type or another schema version.
var ErrBadTrajectory = errors.New("bad trajectory")

// ReadTrajectory reads the trajectory file at p strictly (see (*Run).Trajectory, which most callers want), in
// either layout: gzip-compressed JSON (the layout written since TrajectoryExt, trajectories/<id>.json.gz) or
// plain JSON (earlier run directories, trajectories/<id>.json). The layout is told by the content, not the
// name: a file starting with the gzip magic bytes 1f 8b (RFC 1952 §2.3.1) is decompressed. When p does not
// exist, the same attempt's file in the other layout is read instead (p with ".gz" added or removed), so a
// record still names its trajectory after `gzip trajectories/*.json` or `gunzip trajectories/*.gz` in the run
// directory. This is the one reader of trajectory files: every command and report reads them through it.
// A trajectory of schema version 1 (results stored as text) is converted to the current shape
// (decodeTrajectoryV1). Errors: a missing file wraps os.ErrNotExist (naming p); corrupt gzip data, malformed
// JSON, an unknown field or another schema version wrap ErrBadTrajectory, naming the file read.
func ReadTrajectory(p string) (*Trajectory, error) {
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		if alt := otherTrajectoryLayout(p); alt != "" {
			if b2, err2 := os.ReadFile(alt); err2 == nil {
				b, err, p = b2, nil, alt
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err == nil {
			b, err = io.ReadAll(zr)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: gzip: %v", ErrBadTrajectory, p, err)
		}
	}
	v := trajectoryVersion(b)
	if v != trajectorySchemaV1 && v != TrajectorySchemaVersion && json.Valid(b) {
		// The version first: another version's fields need not decode as this one's.
		return nil, fmt.Errorf("%w: %s: field schema_version: %d, this bench reads trajectories of versions %d and %d",
			ErrBadTrajectory, p, v, trajectorySchemaV1, TrajectorySchemaVersion)
	}
	t, err := decodeTrajectory(b, v)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadTrajectory, jsonError(p, b, 0, err))
	}
	return t, nil
}

// decodeTrajectory decodes the trajectory JSON b of schema version v strictly, converting version 1.
func decodeTrajectory(b []byte, v int) (*Trajectory, error) {
	if v == trajectorySchemaV1 {
		return decodeTrajectoryV1(b)
	}
	var t Trajectory
	if err := decodeStrict(b, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// WriteTrajectory writes t to path atomically (temp + rename, creating directories) as indented JSON,
// gzip-compressed (RFC 1952, compress/gzip at gzip.BestCompression) when path ends in TrajectoryExt and plain
// otherwise. ReadTrajectory reads either back.
func WriteTrajectory(path string, t *Trajectory) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if strings.HasSuffix(path, ".gz") {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // the level is valid: no error
		if _, err := zw.Write(b); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		b = buf.Bytes()
	}
	return writeAtomic(path, b)
}

// Screenshots returns the paths (joined to Dir) of the screenshots kept for attempt id, oldest first; none when
// the attempt has no trajectory or the run kept none.
func (r *Run) Screenshots(id string) ([]string, error) {
	t, err := r.Trajectory(id)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return r.ScreenshotFiles(t), nil
}

// ScreenshotFiles returns the paths (joined to Dir) of t's kept screenshots, oldest first, for a trajectory
// already read with Trajectory.
func (r *Run) ScreenshotFiles(t *Trajectory) []string {
	out := make([]string, 0, len(t.Screenshots))
	for _, rel := range t.Screenshots {
		out = append(out, filepath.Join(r.Dir, filepath.FromSlash(rel)))
	}
	return out
}

// Verdicts returns the verdicts of judgeName by attempt id: OriginalJudge gives the recorded verdicts of the
// pass/fail attempts; another name the verdicts-<judge>.jsonl ones (false when there is no such file).
func (r *Run) Verdicts(judgeName string) (map[string]judge.Verdict, bool) {
	if judgeName == OriginalJudge {
		out := map[string]judge.Verdict{}
		for _, a := range r.Final() {
			if a.Done() {
				out[a.AttemptID] = a.Verdict
			}
		}
		return out, true
	}
	recs, ok := r.verdicts[judgeName]
	if !ok {
		return nil, false
	}
	out := make(map[string]judge.Verdict, len(recs))
	for id, v := range recs {
		out[id] = v.Verdict
	}
	return out, true
}

// VerdictRecords returns the records of verdicts-<judgeName>.jsonl, one per attempt id (the last line of an
// id), sorted by attempt id; nil when there is no such file.
func (r *Run) VerdictRecords(judgeName string) []VerdictRecord {
	recs := r.verdicts[judgeName]
	out := make([]VerdictRecord, 0, len(recs))
	for _, id := range slices.Sorted(maps.Keys(recs)) {
		out = append(out, recs[id])
	}
	return out
}

// joinErrors joins the non-empty error texts with "; ".
func joinErrors(errs ...string) string {
	var out []string
	for _, e := range errs {
		if e != "" {
			out = append(out, e)
		}
	}
	return strings.Join(out, "; ")
}
