// Package cassette records an attempt's network traffic and replays it: one cassette directory per run, one
// tape (a JSON file) per task, response bodies content-addressed by SHA-256 and compressed with zstd.
//
// On disk (docs/CASSETTES.md):
//
//	DIR/cassette.json                 Manifest: format, record time, whether secrets were kept
//	DIR/tasks/<escaped task id>.json  Tape: the task's entries (request → response), recording order
//	DIR/blobs/<2 hex>/<sha256>.zst    a body, zstd-compressed, named by the SHA-256 of its uncompressed bytes
//
// A tape is rewritten whole by the first attempt of a recording run that plays its task, so one task can be
// re-recorded alone (`--record DIR --tasks ID`) into an existing cassette; blobs are shared and never rewritten.
//
// The browser side (route.go) uses BrowserContext.Route with Route.Fetch and Route.Fulfill rather than
// Playwright's RouteFromHAR: a HAR route answers unmatched requests by aborting them or letting them through
// without telling the caller, matches only on URL, method and exact post body, and records every header and
// cookie as sent; a route handler of our own counts each miss, matches by the normalised key (rules.go) and
// strips secrets before anything is written.
package cassette

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// FormatName is the manifest's format value; Version the tape format number. A reader refuses other values.
const (
	FormatName = "webbench-cassette"
	Version    = 1
)

// Manifest is DIR/cassette.json.
type Manifest struct {
	// Format is FormatName; Version the format number (Version).
	Format  string `json:"format"`
	Version int    `json:"version"`
	// RecordedAt is when the cassette was first recorded (UTC); re-recording a task leaves it alone. It is the
	// stale-date "today" of a replay, and the page clock of a task whose tape has no record time of its own.
	RecordedAt time.Time `json:"recorded_at"`
	// Secrets is true when the cassette was recorded with --record-secrets (cookies, credentials, URL tokens
	// kept); every tape of a cassette is recorded in the same mode (Create refuses the other).
	Secrets bool `json:"secrets,omitempty"`
}

// Tape is one task's recording, DIR/tasks/<escaped id>.json.
type Tape struct {
	// Version is the format number (Version); Task the task id.
	Version int    `json:"version"`
	Task    string `json:"task"`
	// RecordedAt is when this tape was (re-)recorded (UTC, the first entry's time).
	RecordedAt time.Time `json:"recorded_at"`
	// Secrets is true when the tape was recorded with secrets kept.
	Secrets bool `json:"secrets,omitempty"`
	// Entries are the exchanges in recording order, attempt after attempt.
	Entries []Entry `json:"entries"`
}

// Entry is one request and the response served for it. A redirect is an entry of its own (status 3xx and its
// Location header); the browser follows it to the next entry.
type Entry struct {
	// Attempt is the id of the attempt that recorded it (results.AttemptID); Seq its order in that attempt.
	Attempt string `json:"attempt,omitempty"`
	Seq     int    `json:"seq"`
	// Time is when the response was recorded (UTC).
	Time     time.Time `json:"time"`
	Request  Request   `json:"request"`
	Response Response  `json:"response"`
	// Stripped counts the secrets left out of this entry (recorded without secrets): secret header lines of the
	// request and the response (Cookie, Set-Cookie, Authorization, …) and secret query values of the request URL.
	Stripped int `json:"stripped,omitempty"`
}

// Request is a recorded request: what identifies it, secrets stripped (unless recorded with secrets).
type Request struct {
	// Method is the HTTP method, upper case; URL the URL as requested, secret query values replaced by
	// Redacted.
	Method string `json:"method"`
	URL    string `json:"url"`
	// Key is the normalised matching key (Key, the rules of rules.go): replay looks requests up by it.
	Key string `json:"key"`
	// ResourceType is Playwright's resource type (document, script, xhr, fetch, image, …).
	ResourceType string `json:"resource_type,omitempty"`
	// Headers are the request headers kept (KeptRequestHeaders; every non-secret one with secrets kept).
	Headers []Header `json:"headers,omitempty"`
	// CookieNames are the names (never the values) of the cookies sent, sorted: a site that renders a page by
	// a cookie (a consent dialog answered) answers the same URL two ways, and replay tells them apart by these.
	CookieNames []string `json:"cookie_names,omitempty"`
	// BodySHA256 is the hex SHA-256 of the normalised request body (NormaliseBody), "" without a body.
	BodySHA256 string `json:"body_sha256,omitempty"`
}

// Response is a recorded response.
type Response struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
	// Headers are the response headers in order, secret ones dropped; Content-Encoding, Content-Length and
	// Transfer-Encoding are dropped always, since Body is stored decoded and replay sets its length.
	Headers []Header `json:"headers,omitempty"`
	// Body is the hex SHA-256 of the decoded body, the blob's name; "" for an empty body. Size is its length
	// in bytes.
	Body string `json:"body,omitempty"`
	Size int64  `json:"size"`
}

// Header is one header line.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Redacted replaces a secret query value in a stored URL.
const Redacted = "REDACTED"

// Mode is what a cassette is open for.
type Mode int

const (
	// Replay answers requests from the tapes (Open).
	Replay Mode = iota
	// Record fetches requests live and writes them (Create).
	Record
)

// Options configure a recording cassette.
type Options struct {
	// Secrets keeps cookies, credentials and URL tokens (--record-secrets).
	Secrets bool
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Cassette is one cassette directory, open for recording (Create) or replay (Open). Safe for concurrent use by
// the attempts of a run.
type Cassette struct {
	dir  string
	mode Mode
	man  Manifest
	now  func() time.Time
	// fill: a replay that fetches its misses live and appends them (OpenFill).
	fill bool

	// enc and dec are used through EncodeAll and DecodeAll only, which klauspost/compress documents as safe
	// for concurrent use (zstd.Encoder.EncodeAll, zstd.Decoder.DecodeAll).
	enc *zstd.Encoder
	dec *zstd.Decoder

	mu    sync.Mutex
	tapes map[string]*Tape // record: this run's tapes so far; replay: tapes read
	index map[string]*tapeIndex
	sess  sessionCounts
}

// Create opens dir for recording, creating it and its manifest when missing. An existing cassette keeps its
// blobs, its manifest's record time and the tapes of tasks this run does not play; one recorded in the other
// secrets mode is refused, since its manifest could then no longer say what its tapes hold.
func Create(dir string, o Options) (*Cassette, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	man := Manifest{Format: FormatName, Version: Version, RecordedAt: o.Now().UTC().Truncate(time.Second),
		Secrets: o.Secrets}
	switch old, err := readManifest(dir); {
	case err == nil && old.Secrets != o.Secrets:
		return nil, &SecretsModeError{Dir: dir, Recorded: old.Secrets}
	case err == nil:
		man.RecordedAt = old.RecordedAt
	case !isNotExist(err):
		return nil, err
	}
	for _, d := range []string{dir, filepath.Join(dir, "tasks"), filepath.Join(dir, "blobs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("cassette: %w", err)
		}
	}
	c, err := newCassette(dir, Record, o.Now)
	if err != nil {
		return nil, err
	}
	c.man = man
	if err := writeJSON(filepath.Join(dir, "cassette.json"), c.man); err != nil {
		return nil, err
	}
	return c, nil
}

// Open opens the cassette at dir for replay (and for reading: Tasks, Tape, Blob). It fails when dir has no
// manifest or one of another format.
func Open(dir string) (*Cassette, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	c, err := newCassette(dir, Replay, time.Now)
	if err != nil {
		return nil, err
	}
	c.man = m
	return c, nil
}

// readManifest reads DIR/cassette.json; an error wrapping fs.ErrNotExist when there is none.
func readManifest(dir string) (Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cassette.json"))
	if err != nil {
		return Manifest{}, fmt.Errorf("cassette: %s is not a cassette: %w", dir, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, fmt.Errorf("cassette: %s/cassette.json: %w", dir, err)
	}
	if m.Format != FormatName || m.Version != Version {
		return Manifest{}, fmt.Errorf("cassette: %s: format %q version %d, want %q version %d", dir, m.Format,
			m.Version, FormatName, Version)
	}
	return m, nil
}

func newCassette(dir string, mode Mode, now func() time.Time) (*Cassette, error) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		return nil, fmt.Errorf("cassette: zstd: %w", err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		return nil, fmt.Errorf("cassette: zstd: %w", err)
	}
	return &Cassette{dir: dir, mode: mode, now: now, enc: enc, dec: dec, tapes: map[string]*Tape{},
		index: map[string]*tapeIndex{}}, nil
}

// Dir is the cassette's directory.
func (c *Cassette) Dir() string { return c.dir }

// Mode is Record for a cassette from Create, Replay for one from Open.
func (c *Cassette) Mode() Mode { return c.mode }

// Manifest is the cassette's manifest.
func (c *Cassette) Manifest() Manifest { return c.man }

// RecordedAt is the manifest's record time (UTC): when the cassette was first recorded.
func (c *Cassette) RecordedAt() time.Time { return c.man.RecordedAt }

// TaskTime is the clock a replay of task sets its pages to: its tape's record time, so a task re-recorded
// later sees its own date and the others keep theirs; the manifest's record time when the tape has none.
func (c *Cassette) TaskTime(task string) (time.Time, error) {
	ix, err := c.tapeIndex(task)
	if err != nil {
		return time.Time{}, err
	}
	return c.tapeTime(ix), nil
}

// tapeTime is TaskTime of a task's index: its tape's record time, else the manifest's.
func (c *Cassette) tapeTime(ix *tapeIndex) time.Time {
	if ix.tape != nil && !ix.tape.RecordedAt.IsZero() {
		return ix.tape.RecordedAt
	}
	return c.man.RecordedAt
}

// SecretsModeError is Create's refusal to record into a cassette made in the other secrets mode: Recorded is
// the cassette's mode (true: secrets kept), the refused recording's the other one. Its text names no setting:
// the caller knows whether the mode came from a flag or a spec key, and names that.
type SecretsModeError struct {
	Dir      string
	Recorded bool
}

func (e *SecretsModeError) Error() string {
	return fmt.Sprintf("cassette: %s was recorded with secrets %s; this recording would have them %s", e.Dir,
		secretsMode(e.Recorded), secretsMode(!e.Recorded))
}

// secretsMode words a secrets flag as ls shows it.
func secretsMode(kept bool) string {
	if kept {
		return "kept"
	}
	return "stripped"
}

// Tasks lists the ids of the tasks with a tape, sorted.
func (c *Cassette) Tasks() ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(c.dir, "tasks"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("cassette: %w", err)
	}
	var ids []string
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		if id, err := unescapeTask(name); err == nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// TapePath is the file of task's tape.
func (c *Cassette) TapePath(task string) string {
	return filepath.Join(c.dir, "tasks", escapeTask(task)+".json")
}

// Tape reads task's tape; an error wrapping fs.ErrNotExist when the task has none.
func (c *Cassette) Tape(task string) (*Tape, error) {
	b, err := os.ReadFile(c.TapePath(task))
	if err != nil {
		return nil, fmt.Errorf("cassette: task %s: %w", task, err)
	}
	var t Tape
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("cassette: %s: %w", c.TapePath(task), err)
	}
	if t.Version != Version {
		return nil, fmt.Errorf("cassette: %s: version %d, want %d", c.TapePath(task), t.Version, Version)
	}
	return &t, nil
}

// BlobPath is the file of the body whose hex SHA-256 is sum.
func (c *Cassette) BlobPath(sum string) string {
	if len(sum) < 2 {
		return filepath.Join(c.dir, "blobs", sum+".zst")
	}
	return filepath.Join(c.dir, "blobs", sum[:2], sum+".zst")
}

// Blob reads and decompresses the body whose hex SHA-256 is sum ("" is the empty body), checking its hash.
func (c *Cassette) Blob(sum string) ([]byte, error) {
	if sum == "" {
		return nil, nil
	}
	z, err := os.ReadFile(c.BlobPath(sum))
	if err != nil {
		return nil, fmt.Errorf("cassette: body %s: %w", sum, err)
	}
	b, err := c.dec.DecodeAll(z, nil)
	if err != nil {
		return nil, fmt.Errorf("cassette: body %s: %w", sum, err)
	}
	if got := Sum(b); got != sum {
		return nil, fmt.Errorf("cassette: body %s: content hashes to %s", sum, got)
	}
	return b, nil
}

// PutBlob stores body (compressed, once per content) and returns its hex SHA-256, "" for an empty body.
func (c *Cassette) PutBlob(body []byte) (string, error) {
	if len(body) == 0 {
		return "", nil
	}
	sum := Sum(body)
	p := c.BlobPath(sum)
	if _, err := os.Stat(p); err == nil {
		return sum, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", fmt.Errorf("cassette: %w", err)
	}
	z := c.enc.EncodeAll(body, nil)
	if err := writeAtomic(p, z); err != nil {
		return "", err
	}
	c.storedBlob(sum, int64(len(z)))
	return sum, nil
}

// Sum is the hex SHA-256 of b.
func Sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// appendTape adds an attempt's entries to task's tape of this recording run and rewrites the tape file. The
// first call of a run for a task starts the tape afresh (re-recording replaces it).
func (c *Cassette) appendTape(task string, entries []Entry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tapes[task]
	if t == nil {
		t = &Tape{Version: Version, Task: task, Secrets: c.man.Secrets}
		c.tapes[task] = t
	}
	t.Entries = append(t.Entries, entries...)
	if t.RecordedAt.IsZero() && len(t.Entries) > 0 {
		t.RecordedAt = t.Entries[0].Time
	}
	if t.RecordedAt.IsZero() {
		t.RecordedAt = c.now().UTC()
	}
	return writeJSON(c.TapePath(task), t)
}

func writeJSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("cassette: %s: %w", path, err)
	}
	return writeAtomic(path, buf.Bytes())
}

// writeAtomic writes b to path through a temporary file and a rename, so a reader sees the old or the new file.
func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("cassette: %w", err)
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("cassette: %s: %w", path, werr)
	}
	return nil
}

// escapeTask makes a task id a file name: ASCII letters, digits, '.', '_' and '-' stay, every other byte is
// %XX, and a leading '.' too (no hidden files).
func escapeTask(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		ch := id[i]
		keep := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' ||
			ch == '-' || ch == '.' && i > 0
		if keep {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, "%%%02X", ch)
		}
	}
	return b.String()
}

func unescapeTask(name string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if name[i] != '%' {
			b.WriteByte(name[i])
			continue
		}
		if i+2 >= len(name) {
			return "", fmt.Errorf("cassette: bad tape name %q", name)
		}
		v, err := hex.DecodeString(name[i+1 : i+3])
		if err != nil {
			return "", fmt.Errorf("cassette: bad tape name %q", name)
		}
		b.WriteByte(v[0])
		i += 2
	}
	return b.String(), nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
