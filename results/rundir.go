package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// File names inside a run directory.
const (
	ManifestFile    = "manifest.json"
	AttemptsFile    = "attempts.jsonl"
	TrajectoriesDir = "trajectories"
	ScreenshotsDir  = "screenshots"
	// TracesDir holds the Playwright traces (<attempt_id>.zip) of attempts that did not pass (bench run --trace).
	TracesDir = "traces"
)

// Writer appends attempt records to a run directory. Safe for concurrent use.
type Writer struct {
	dir string
	mu  sync.Mutex
	f   *os.File
}

// OpenWriter opens (creating) dir and its attempts.jsonl for appending. A torn last line left by a killed run
// is truncated away first so the next record starts on its own line; the number of bytes dropped is returned
// through Dropped for a warning.
func OpenWriter(dir string) (*Writer, error) {
	if err := os.MkdirAll(filepath.Join(dir, TrajectoriesDir), 0o755); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, AttemptsFile)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, f: f}
	if _, err := w.repairTail(); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// repairTail truncates an unterminated last line (a record torn by SIGKILL mid-write).
func (w *Writer) repairTail() (int64, error) {
	st, err := w.f.Stat()
	if err != nil || st.Size() == 0 {
		return 0, err
	}
	size := st.Size()
	buf := make([]byte, 1)
	if _, err := w.f.ReadAt(buf, size-1); err != nil {
		return 0, err
	}
	if buf[0] == '\n' {
		return 0, nil
	}
	// Find the previous newline.
	const chunk = 64 * 1024
	end := size
	for end > 0 {
		start := end - chunk
		if start < 0 {
			start = 0
		}
		b := make([]byte, end-start)
		if _, err := w.f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			keep := start + int64(i) + 1
			return size - keep, w.f.Truncate(keep)
		}
		end = start
	}
	return size, w.f.Truncate(0)
}

// Dir is the run directory.
func (w *Writer) Dir() string { return w.dir }

// Append writes one record as a JSON line (schema version SchemaVersion, without the Verdicts attached on
// load) and fsyncs it before returning.
func (w *Writer) Append(a Attempt) error {
	a.SchemaVersion = SchemaVersion
	a.Verdicts = nil
	b, err := jsonLine(a)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(b); err != nil {
		return fmt.Errorf("append %s: %w", AttemptsFile, err)
	}
	return w.f.Sync()
}

// RecordKey is a as Writer.Append writes it (schema version SchemaVersion, no attached Verdicts), as a string:
// two records with the same key are the same record, whichever schema version they were read from. bench
// merge skips records whose key the merged run already holds.
func RecordKey(a Attempt) string {
	a.SchemaVersion = SchemaVersion
	a.Verdicts = nil
	b, _ := json.Marshal(a)
	return string(b)
}

// jsonLine is v as one JSON line, newline included.
func jsonLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return append(b, '\n'), err
}

// WriteJSON writes v as indented JSON to rel (relative to the run directory) atomically (temp + rename).
func (w *Writer) WriteJSON(rel string, v any) error {
	return WriteJSONFile(filepath.Join(w.dir, rel), v)
}

// WriteTrajectory writes t to rel (relative to the run directory; TrajectoryPath) with WriteTrajectory:
// gzip-compressed for a name ending in TrajectoryExt.
func (w *Writer) WriteTrajectory(rel string, t *Trajectory) error {
	return WriteTrajectory(filepath.Join(w.dir, rel), t)
}

// WriteFile writes bytes to rel atomically, creating directories.
func (w *Writer) WriteFile(rel string, b []byte) error {
	return writeAtomic(filepath.Join(w.dir, rel), b)
}

// Close closes the attempts file.
func (w *Writer) Close() error { return w.f.Close() }

// WriteJSONFile writes v as indented JSON to path atomically.
func WriteJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}

func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadResult is what ReadAttempts found.
type ReadResult struct {
	// Records are all lines in file order (retries included).
	Records []Attempt
	// Latest maps attempt_id to its last record.
	Latest map[string]Attempt
	// Order lists attempt ids in order of first appearance.
	Order []string
	// TornTail is true when the last line was incomplete and was ignored.
	TornTail bool
}

// ReadAttempts reads dir/attempts.jsonl (records of schema version 1 or 2: their shape is the same). A missing
// file is an empty result. A malformed line other than an unterminated last one is an error naming the file,
// the line and, where the decoder knows it, the field. Most callers want Open, which also reads the manifest.
func ReadAttempts(dir string) (*ReadResult, error) {
	p := filepath.Join(dir, AttemptsFile)
	f, err := os.Open(p)
	rr := &ReadResult{Latest: map[string]Attempt{}}
	if errors.Is(err, os.ErrNotExist) {
		return rr, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Streamed line by line: a run of 100k attempts is ~100 MB of JSON, which need not be held whole.
	br := bufio.NewReaderSize(f, 1<<20)
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		txt := bytes.TrimSpace(raw)
		if errors.Is(err, io.EOF) {
			// An unterminated last line is a record torn by a kill mid-write (the writer always ends lines).
			rr.TornTail = len(txt) > 0
			return rr, nil
		}
		if len(txt) == 0 {
			continue
		}
		a, err := decodeAttempt(p, line, txt)
		if err != nil {
			return nil, err
		}
		if _, ok := rr.Latest[a.AttemptID]; !ok {
			rr.Order = append(rr.Order, a.AttemptID)
		}
		rr.Latest[a.AttemptID] = a
		rr.Records = append(rr.Records, a)
	}
}

// decodeAttempt decodes one line of attempts.jsonl strictly and checks the fields every record has.
func decodeAttempt(path string, line int, txt []byte) (Attempt, error) {
	var a Attempt
	if err := decodeStrict(txt, &a); err != nil {
		return a, fmt.Errorf("malformed record: %s", jsonError(path, txt, line, err))
	}
	loc := fmt.Sprintf("%s:%d", path, line)
	switch {
	case a.SchemaVersion != SchemaVersion && a.SchemaVersion != schemaV1:
		return a, fmt.Errorf("%s: field schema_version: %d, this bench reads %d and %d", loc, a.SchemaVersion, schemaV1, SchemaVersion)
	case a.AttemptID == "":
		return a, fmt.Errorf("%s: field attempt_id is empty", loc)
	case !a.Status.Valid():
		return a, fmt.Errorf("%s: field status: %q is not pass, fail or error", loc, a.Status)
	}
	return a, nil
}

// Final returns the latest record of every attempt id, in order of first appearance.
func (r *ReadResult) Final() []Attempt {
	out := make([]Attempt, 0, len(r.Order))
	for _, id := range r.Order {
		out = append(out, r.Latest[id])
	}
	return out
}
