package cassette

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// harLog is the part of an HTTP Archive that an import reads (HAR 1.2, "HTTP Archive format",
// w3c.github.io/web-performance/specs/HAR/Overview.html: log.pages[].startedDateTime, log.entries[].request
// {method, url, headers, postData.text}, response {status, headers, redirectURL, content {size, text,
// encoding}}). A dozen fields of one JSON document: decoded with encoding/json rather than a HAR library.
type harLog struct {
	Log struct {
		Pages []struct {
			Started time.Time `json:"startedDateTime"`
		} `json:"pages"`
		Entries []harEntry `json:"entries"`
	} `json:"log"`
}

type harEntry struct {
	Started time.Time `json:"startedDateTime"`
	Request struct {
		Method   string      `json:"method"`
		URL      string      `json:"url"`
		Headers  []harHeader `json:"headers"`
		PostData *struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"postData"`
	} `json:"request"`
	Response struct {
		Status      int         `json:"status"`
		Headers     []harHeader `json:"headers"`
		RedirectURL string      `json:"redirectURL"`
		Content     struct {
			Size     int64  `json:"size"`
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"content"`
	} `json:"response"`
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ImportStats says what an import kept and what it left out.
type ImportStats struct {
	// Entries is the HAR's entry count; Imported the entries stored.
	Entries  int `json:"entries"`
	Imported int `json:"imported"`
	// NoBody are entries left out because the HAR has no body for a response that had one (content.size > 0,
	// no content.text: browsers leave binary bodies out of a HAR unless asked): a replay misses them.
	NoBody int `json:"no_body"`
	// Revalidated are 304 responses whose body the HAR holds (the browser's cached copy), stored as 200: a
	// fresh replay context has no cache to revalidate.
	Revalidated int `json:"revalidated"`
	// Skipped are entries that are not HTTP(S) requests (data: URLs, a missing status).
	Skipped int `json:"skipped"`
}

// ImportHAR reads an HTTP Archive (plain or gzip-compressed JSON) from r into a new cassette at dir as the tape
// of task, entries in the HAR's order as one attempt ("har"). The tape's record time is its first entry's start
// and a new cassette's the HAR's first page start (else its first entry's), so a replay's page clock reads the
// capture's date. Secrets are stripped as in a recording unless o.Secrets. o.Now is replaced by the HAR's times.
func ImportHAR(dir, task string, r io.Reader, o Options) (ImportStats, error) {
	var h harLog
	br := bufio.NewReader(r)
	var in io.Reader = br
	// A gzip file starts with the magic number 1f 8b (RFC 1952 §2.3.1).
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return ImportStats{}, fmt.Errorf("har: %w", err)
		}
		defer zr.Close()
		in = zr
	}
	if err := json.NewDecoder(in).Decode(&h); err != nil {
		return ImportStats{}, fmt.Errorf("har: %w", err)
	}
	es := h.Log.Entries
	if len(es) == 0 {
		return ImportStats{}, fmt.Errorf("har: no entries")
	}
	start := es[0].Started
	if len(h.Log.Pages) > 0 && !h.Log.Pages[0].Started.IsZero() {
		start = h.Log.Pages[0].Started
	}
	now := start
	o.Now = func() time.Time { return now }
	c, err := Create(dir, o)
	if err != nil {
		return ImportStats{}, err
	}
	a := c.Attempt(task, "har")
	st := ImportStats{Entries: len(es)}
	for _, e := range es {
		x, why := harExchange(e)
		switch why {
		case "skip":
			st.Skipped++
			continue
		case "nobody":
			st.NoBody++
			continue
		case "304":
			st.Revalidated++
		}
		if !e.Started.IsZero() {
			now = e.Started
		}
		if err := a.Put(x); err != nil {
			return st, err
		}
		st.Imported++
	}
	return st, a.Close()
}

// harExchange converts one HAR entry; why is "" (as recorded), "304" (a revalidation stored as 200), "nobody"
// (a body the HAR left out) or "skip" (not an HTTP exchange).
func harExchange(e harEntry) (Exchange, string) {
	u, status := e.Request.URL, e.Response.Status
	if !(strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) || status <= 0 {
		return Exchange{}, "skip"
	}
	c := e.Response.Content
	body := []byte(c.Text)
	if c.Encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(c.Text)
		if err != nil {
			return Exchange{}, "skip"
		}
		body = b
	}
	x := Exchange{Method: e.Request.Method, URL: u, Status: status, Body: body}
	for _, h := range e.Request.Headers {
		x.RequestHeaders = append(x.RequestHeaders, Header(h))
	}
	if pd := e.Request.PostData; pd != nil {
		x.RequestBody = []byte(pd.Text)
		if headerValue(x.RequestHeaders, "content-type") == "" && pd.MimeType != "" {
			x.RequestHeaders = append(x.RequestHeaders, Header{Name: "Content-Type", Value: pd.MimeType})
		}
	}
	for _, h := range e.Response.Headers {
		x.ResponseHeaders = append(x.ResponseHeaders, Header(h))
	}
	if headerValue(x.ResponseHeaders, "content-type") == "" && c.MimeType != "" {
		x.ResponseHeaders = append(x.ResponseHeaders, Header{Name: "Content-Type", Value: c.MimeType})
	}
	redirect := status/100 == 3 && status != 304
	switch {
	case redirect:
		if headerValue(x.ResponseHeaders, "location") == "" && e.Response.RedirectURL != "" {
			x.ResponseHeaders = append(x.ResponseHeaders, Header{Name: "Location", Value: e.Response.RedirectURL})
		}
		return x, ""
	case len(body) == 0 && c.Size > 0:
		return Exchange{}, "nobody"
	case status == 304 && len(body) > 0:
		x.Status = 200
		return x, "304"
	case status == 304:
		return Exchange{}, "nobody"
	}
	return x, ""
}
