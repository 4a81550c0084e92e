package cassette

import (
	"context"
	"mime"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"webbench/browser/drift"
)

// TaskSummary is one tape as `bench cassette ls` lists it.
type TaskSummary struct {
	Task string `json:"task"`
	// Entries are the tape's exchanges; Attempts the distinct attempts that recorded them.
	Entries  int `json:"entries"`
	Attempts int `json:"attempts"`
	// Bytes is the sum of the responses' decoded body sizes, as served (a body served twice counts twice).
	Bytes int64 `json:"bytes"`
	// RecordedAt is when the tape was (re-)recorded (UTC).
	RecordedAt time.Time `json:"recorded_at"`
}

// List summarises every tape of the cassette, by task id.
func (c *Cassette) List() ([]TaskSummary, error) {
	ids, err := c.Tasks()
	if err != nil {
		return nil, err
	}
	out := []TaskSummary{}
	for _, id := range ids {
		t, err := c.Tape(id)
		if err != nil {
			return nil, err
		}
		s := TaskSummary{Task: id, Entries: len(t.Entries), RecordedAt: t.RecordedAt}
		attempts := map[string]bool{}
		for _, e := range t.Entries {
			attempts[e.Attempt] = true
			s.Bytes += e.Response.Size
		}
		s.Attempts = len(attempts)
		out = append(out, s)
	}
	return out, nil
}

// GroupStats are the responses of one host and content type.
type GroupStats struct {
	Host string `json:"host"`
	// ContentType is the response's media type ("text/html"; "" when it had none).
	ContentType string `json:"content_type"`
	Entries     int    `json:"entries"`
	// Bytes are the decoded bodies as served (repeats counted); Unique the distinct bodies' decoded bytes; Stored
	// their compressed size on disk (a body shared with another group is counted in both).
	Bytes  int64 `json:"bytes"`
	Unique int64 `json:"unique_bytes"`
	Stored int64 `json:"stored_bytes"`
}

// Stats is what a cassette holds, as `bench cassette stats` shows it.
type Stats struct {
	Tasks   int `json:"tasks"`
	Entries int `json:"entries"`
	// Bytes, Unique and Stored as in GroupStats, over the whole cassette (each blob once).
	Bytes  int64 `json:"bytes"`
	Unique int64 `json:"unique_bytes"`
	Stored int64 `json:"stored_bytes"`
	// Compression is Unique / Stored (zstd's ratio on the distinct bodies; 0 with nothing stored); Dedup is
	// Bytes / Unique (how much content addressing saved over storing each response).
	Compression float64 `json:"compression_ratio"`
	Dedup       float64 `json:"dedup_ratio"`
	// Stripped is the number of secrets left out (Entry.Stripped summed); Secrets whether the cassette was
	// recorded with them kept.
	Stripped int  `json:"secrets_stripped"`
	Secrets  bool `json:"secrets_kept"`
	// Groups are per host and content type, most bytes first.
	Groups []GroupStats `json:"groups"`
}

// Stats reads every tape and the blob sizes on disk.
func (c *Cassette) Stats() (Stats, error) {
	ids, err := c.Tasks()
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Tasks: len(ids), Secrets: c.man.Secrets, Groups: []GroupStats{}}
	groups := map[[2]string]*GroupStats{}
	groupBlobs := map[[2]string]map[string]bool{}
	blobs := map[string]int64{} // body sum → decoded size
	for _, id := range ids {
		t, err := c.Tape(id)
		if err != nil {
			return Stats{}, err
		}
		for _, e := range t.Entries {
			k := [2]string{hostOf(e.Request.URL), mediaTypeOf(e.Response.Headers)}
			g := groups[k]
			if g == nil {
				g = &GroupStats{Host: k[0], ContentType: k[1]}
				groups[k], groupBlobs[k] = g, map[string]bool{}
			}
			g.Entries++
			g.Bytes += e.Response.Size
			st.Entries++
			st.Bytes += e.Response.Size
			st.Stripped += e.Stripped
			if sum := e.Response.Body; sum != "" && !groupBlobs[k][sum] {
				groupBlobs[k][sum] = true
				g.Unique += e.Response.Size
				g.Stored += c.blobSize(sum)
				blobs[sum] = e.Response.Size
			}
		}
	}
	for sum, n := range blobs {
		st.Unique += n
		st.Stored += c.blobSize(sum)
	}
	if st.Stored > 0 {
		st.Compression = float64(st.Unique) / float64(st.Stored)
	}
	if st.Unique > 0 {
		st.Dedup = float64(st.Bytes) / float64(st.Unique)
	}
	for _, g := range groups {
		st.Groups = append(st.Groups, *g)
	}
	sort.Slice(st.Groups, func(i, j int) bool {
		a, b := st.Groups[i], st.Groups[j]
		if a.Bytes != b.Bytes {
			return a.Bytes > b.Bytes
		}
		return a.Host+" "+a.ContentType < b.Host+" "+b.ContentType
	})
	return st, nil
}

// blobSize is the compressed size of a blob on disk, 0 when it is missing.
func (c *Cassette) blobSize(sum string) int64 {
	fi, err := os.Stat(c.BlobPath(sum))
	if err != nil {
		return 0
	}
	return fi.Size()
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// mediaTypeOf is the media type of a Content-Type header, lower case ("" when absent).
func mediaTypeOf(hs []Header) string {
	ct := headerValue(hs, "content-type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	return strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
}

// isPage reports whether an entry is an HTML page with content: a 2xx text/html (or XHTML) response.
func isPage(e Entry) bool {
	mt := mediaTypeOf(e.Response.Headers)
	return e.Response.Status >= 200 && e.Response.Status < 300 && e.Response.Body != "" &&
		(mt == "text/html" || mt == "application/xhtml+xml")
}

// Pages are the HTML pages of task's tape (isPage), one per matching key (the first recorded), in recording
// order: what `bench cassette diff` compares.
func (c *Cassette) Pages(task string) ([]drift.Page, error) {
	t, err := c.Tape(task)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []drift.Page
	for _, e := range t.Entries {
		if !isPage(e) || seen[e.Request.Key] {
			continue
		}
		seen[e.Request.Key] = true
		body, err := c.Blob(e.Response.Body)
		if err != nil {
			return nil, err
		}
		out = append(out, drift.Page{URL: e.Request.URL, Body: body})
	}
	return out, nil
}

// Later is a drift.Later that reads a page's later version from this cassette (a second recording): the first
// entry of the same task with the URL's matching key (Key: the loopback port, cache-busters and parameter
// order do not count) and its status; status 0 when the task or the key is not in it.
func (c *Cassette) Later() drift.Later {
	return func(_ context.Context, task, rawURL string) ([]byte, int, error) {
		t, err := c.Tape(task)
		if err != nil {
			if isNotExist(err) {
				return nil, 0, nil
			}
			return nil, 0, err
		}
		key, _ := Key("GET", rawURL, "", nil, c.now())
		for _, e := range t.Entries {
			if e.Request.Key != key || e.Response.Status/100 == 3 {
				continue
			}
			body, err := c.Blob(e.Response.Body)
			if err != nil {
				return nil, 0, err
			}
			return body, e.Response.Status, nil
		}
		return nil, 0, nil
	}
}
