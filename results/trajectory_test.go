package results

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A trajectory written in the compressed layout is a gzip member (RFC 1952 §2.3.1: ID1 0x1f, ID2 0x8b, CM 8 =
// deflate) holding the same indented JSON the plain layout holds, and reads back equal.
func TestWriteTrajectoryRoundTrip(t *testing.T) {
	src, err := ReadTrajectory(filepath.Join("testdata", "v2ablate", "trajectories", attBaseline+PlainTrajectoryExt))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gz, plain := filepath.Join(dir, TrajectoryPath(attBaseline)), filepath.Join(dir, "plain", attBaseline+PlainTrajectoryExt)
	if err := WriteTrajectory(gz, src); err != nil {
		t.Fatal(err)
	}
	if err := WriteTrajectory(plain, src); err != nil {
		t.Fatal(err)
	}
	zb, _ := os.ReadFile(gz)
	pb, _ := os.ReadFile(plain)
	if len(zb) < 10 || zb[0] != 0x1f || zb[1] != 0x8b || zb[2] != 8 {
		t.Fatalf("%s starts % x, want a gzip header 1f 8b 08", gz, zb[:min(len(zb), 10)])
	}
	if len(zb) >= len(pb) {
		t.Errorf("compressed %d bytes, plain %d", len(zb), len(pb))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zb))
	if err != nil {
		t.Fatal(err)
	}
	inner, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(inner, pb) {
		t.Errorf("the gzip member holds %d bytes (%v), the plain file %d: want the same JSON", len(inner), err, len(pb))
	}
	for _, p := range []string{gz, plain} {
		got, err := ReadTrajectory(p)
		if err != nil || !reflect.DeepEqual(got, src) {
			t.Errorf("%s read back: %v; equal %v", p, err, reflect.DeepEqual(got, src))
		}
	}
	if TrajectoryPath(attBaseline) != "trajectories/"+attBaseline+".json.gz" {
		t.Errorf("TrajectoryPath = %q", TrajectoryPath(attBaseline))
	}
}

// The same run in both layouts reads the same: v2ablate (plain, untouched) and v2ablate-gz (compressed by GNU
// gzip, the outside reference for the format) give equal trajectories for every attempt.
func TestTrajectoryLayoutsReadTheSame(t *testing.T) {
	plain, err := Open(filepath.Join("testdata", "v2ablate"))
	if err != nil {
		t.Fatal(err)
	}
	gz, err := Open(filepath.Join("testdata", "v2ablate-gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(gz.Final()) != 2 || len(plain.Final()) != 2 {
		t.Fatalf("%d and %d attempts, want 2", len(plain.Final()), len(gz.Final()))
	}
	for _, a := range plain.Final() {
		g, _ := gz.Latest(a.AttemptID)
		if a.Trajectory != filepath.Join(TrajectoriesDir, a.AttemptID+".json") || g.Trajectory != TrajectoryPath(a.AttemptID) {
			t.Errorf("record paths %q and %q", a.Trajectory, g.Trajectory)
		}
		want, err := plain.Trajectory(a.AttemptID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := gz.Trajectory(a.AttemptID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || len(got.Steps) == 0 || got.TaskID != a.TaskID {
			t.Errorf("attempt %s: compressed %+v, plain %+v", a.AttemptID, got, want)
		}
	}
}

// A record naming one layout finds its trajectory in the other (a run directory compressed or decompressed in
// place with gzip/gunzip); a file in neither is os.ErrNotExist; a corrupt gzip file is ErrBadTrajectory.
func TestReadTrajectoryOtherLayout(t *testing.T) {
	dir := copyFixture(t, "v2ablate")
	run, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := run.Trajectory(attVariant)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := run.Latest(attVariant)
	plain := filepath.Join(dir, a.Trajectory)
	// gzip in place: the record still names <id>.json.
	if err := WriteTrajectory(plain+".gz", want); err != nil {
		t.Fatal(err)
	}
	os.Remove(plain)
	if got, err := run.Trajectory(attVariant); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("record %s, file .gz: %v", a.Trajectory, err)
	}
	// gunzip in place: a record naming <id>.json.gz finds <id>.json.
	gzPath := filepath.Join(dir, TrajectoryPath(attVariant))
	if err := WriteTrajectory(plain, want); err != nil {
		t.Fatal(err)
	}
	os.Remove(gzPath)
	if got, err := ReadTrajectory(gzPath); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("%s read from its plain file: %v", gzPath, err)
	}
	os.Remove(plain)
	if _, err := ReadTrajectory(gzPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("neither layout: %v, want os.ErrNotExist", err)
	}
	// A truncated gzip member (the first half of a valid one) is a bad trajectory naming the file.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(bytes.Repeat([]byte(`{"schema_version": 1} `), 200))
	zw.Close()
	os.WriteFile(gzPath, buf.Bytes()[:buf.Len()/2], 0o644)
	if _, err := ReadTrajectory(gzPath); !errors.Is(err, ErrBadTrajectory) || !strings.Contains(err.Error(), gzPath) ||
		!strings.Contains(err.Error(), "gzip") {
		t.Errorf("truncated gzip: %v, want ErrBadTrajectory naming %s", err, gzPath)
	}
}
