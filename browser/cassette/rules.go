package cassette

import (
	"bytes"
	"encoding/json"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"webbench/secret"
)

// Rule is one row of the matching table: a normalisation applied to a request before its key is formed, so
// that a replayed request finds the recorded one although a site made part of it volatile.
type Rule struct {
	// Name is the rule's id (docs/CASSETTES.md's table); Why says what volatility it absorbs.
	Name, Why string
	apply     func(*keyParts)
}

// keyParts is a request taken apart for the rules.
type keyParts struct {
	method, scheme, host, port, path string
	query                            [][2]string // name, value in request order
	contentType                      string
	body                             []byte
	// at is when the request is keyed (recorded or replayed): a query value counts as a Unix time only near it.
	at time.Time
}

// Rules is the matching table, applied in order by Key. Every rule only removes or rewrites volatile parts, so
// two requests a site treats alike get one key; requests it treats differently keep different keys.
var Rules = []Rule{
	{Name: "fragment", Why: "the #fragment is never sent to the server; in-page anchors differ between runs",
		apply: func(*keyParts) {}}, // Key never reads the fragment: the rule is listed so the table is whole
	{Name: "host-case", Why: "scheme and host are case-insensitive (RFC 3986 §6.2.2.1)",
		apply: func(k *keyParts) { k.scheme, k.host = strings.ToLower(k.scheme), strings.ToLower(k.host) }},
	{Name: "loopback-port", Why: "local servers (fixtures, the Zoo) listen on a free port chosen at each start",
		apply: func(k *keyParts) {
			if isLoopback(k.host) {
				k.port = ""
			}
		}},
	{Name: "opaque-path-id", Why: "the Zoo's tenant id (/t/<tenant>/: a hex string of 16+ digits or a UUID) is " +
		"new in every session; elsewhere such a segment names a resource (a commit, an order) and is kept",
		apply: func(k *keyParts) {
			segs := strings.SplitN(k.path, "/", 4) // "", "t", tenant, rest
			if len(segs) >= 3 && segs[0] == "" && segs[1] == "t" && opaqueID.MatchString(segs[2]) {
				segs[2] = "{id}"
				k.path = strings.Join(segs, "/")
			}
		}},
	{Name: "secret-params", Why: "tokens and session ids in the query (access_token, sig, sid, …) change per " +
		"session and are not stored (SecretParam)", apply: func(k *keyParts) {
		k.query = dropParams(k.query, func(name, _ string) bool { return SecretParam(name) })
	}},
	{Name: "cache-busters", Why: "cache-busting and timestamp parameters (cb=, ts=, a number in _=, v= or t=, a " +
		"10- or 13-digit Unix time within two years of the request under any name) are new on every load",
		apply: func(k *keyParts) {
			k.query = dropParams(k.query, func(n, v string) bool { return volatileParam(n, v, k.at) })
		}},
	{Name: "param-order", Why: "query parameter order carries no meaning for servers that read them into a map; " +
		"scripts build queries from objects in varying order", apply: func(k *keyParts) {
		sort.SliceStable(k.query, func(i, j int) bool { return k.query[i][0] < k.query[j][0] })
	}},
	{Name: "json-body", Why: "a JSON POST body's key order and whitespace vary with the serialiser",
		apply: func(k *keyParts) { k.body = canonicalJSON(k.contentType, k.body) }},
	{Name: "form-body", Why: "a form POST body is a query: the secret, cache-buster and order rules apply to it",
		apply: func(k *keyParts) { k.body = canonicalForm(k.contentType, k.body, k.at) }},
}

var (
	opaqueID = regexp.MustCompile(`^(?i:[0-9a-f]{16,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$`)
	unixTime = regexp.MustCompile(`^1\d{9}(?:\d{3})?$`)
	number   = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)*$`)
	// volatileNames are cache-buster parameter names (lower case).
	volatileNames = map[string]bool{"cb": true, "cachebust": true, "cache_bust": true, "cachebuster": true,
		"nocache": true, "rnd": true, "rand": true, "random": true, "ts": true, "timestamp": true,
		"_t": true, "_ts": true, "bust": true}
	// numericVolatileNames are cache-buster names only when their value is a number: sites also use them for
	// content (YouTube's ?v=<video>, a ?t=<topic>), and a content value must keep its own key.
	numericVolatileNames = map[string]bool{"_": true, "t": true, "v": true}
)

// SecretParam reports whether a query, form or fragment parameter named name carries a credential or session
// id (secret.Param, the module's one rule).
func SecretParam(name string) bool { return secret.Param(name) }

// SecretHeader reports whether a request or response header carries a credential or session state
// (secret.Header).
func SecretHeader(name string) bool { return secret.Header(name) }

// KeptRequestHeaders are the request headers a cassette stores without secrets (lower case); with secrets it
// stores every header.
var KeptRequestHeaders = []string{"accept", "accept-language", "content-type", "origin", "referer"}

// unixWindow is how far from the request's time a 10- or 13-digit value may lie to count as a timestamp: a
// cache-buster is the loading time, while an id of the same shape (an ISBN-10, an account number) is mostly
// far from it.
const unixWindow = 2 * 365 * 24 * time.Hour

func volatileParam(name, value string, at time.Time) bool {
	n := strings.ToLower(name)
	if volatileNames[n] || numericVolatileNames[n] && number.MatchString(value) {
		return true
	}
	if !unixTime.MatchString(value) {
		return false
	}
	v, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return false
	}
	t := time.Unix(v, 0)
	if len(value) == 13 {
		t = time.UnixMilli(v)
	}
	d := t.Sub(at)
	return d < unixWindow && d > -unixWindow
}

func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func dropParams(q [][2]string, drop func(name, value string) bool) [][2]string {
	out := q[:0:0]
	for _, p := range q {
		if !drop(p[0], p[1]) {
			out = append(out, p)
		}
	}
	return out
}

// parseQuery splits a raw query into name/value pairs in order, unescaped (a malformed escape stays as is).
func parseQuery(raw string) [][2]string {
	var q [][2]string
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		n, v, _ := strings.Cut(part, "=")
		if un, err := url.QueryUnescape(n); err == nil {
			n = un
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		q = append(q, [2]string{n, v})
	}
	return q
}

func encodeQuery(q [][2]string) string {
	parts := make([]string, len(q))
	for i, p := range q {
		parts[i] = url.QueryEscape(p[0]) + "=" + url.QueryEscape(p[1])
	}
	return strings.Join(parts, "&")
}

func mediaType(ct string) string {
	t, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// canonicalJSON re-encodes a JSON body (by content type, or one that parses as a JSON object or array) with
// sorted keys and no whitespace; other bodies come back unchanged.
func canonicalJSON(ct string, body []byte) []byte {
	mt := mediaType(ct)
	trimmed := bytes.TrimSpace(body)
	looks := len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
	if !strings.HasSuffix(mt, "json") && !looks {
		return body
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return body
	}
	out, err := json.Marshal(v) // encoding/json sorts map keys
	if err != nil {
		return body
	}
	return out
}

// canonicalForm applies the query rules to an application/x-www-form-urlencoded body.
func canonicalForm(ct string, body []byte, at time.Time) []byte {
	if mediaType(ct) != "application/x-www-form-urlencoded" {
		return body
	}
	k := keyParts{query: parseQuery(string(body))}
	k.query = dropParams(k.query, func(n, v string) bool { return SecretParam(n) || volatileParam(n, v, at) })
	sort.SliceStable(k.query, func(i, j int) bool { return k.query[i][0] < k.query[j][0] })
	return []byte(encodeQuery(k.query))
}

// Key is a request's matching key after the Rules: "METHOD scheme://host[:port]/path[?query]", and " body="
// with the hex SHA-256 of the normalised body when there is one. bodySum is that hash ("" without a body). at
// is when the request is made (a value counts as a Unix-time cache-buster only near it). A URL that does not
// parse is its own key, secret values redacted.
func Key(method, rawURL, contentType string, body []byte, at time.Time) (key, bodySum string) {
	method = strings.ToUpper(method)
	u, err := url.Parse(rawURL)
	if err != nil {
		stripped := stripText(rawURL) // the key is stored: no secret value in it
		if len(body) > 0 {
			bodySum = Sum(body)
			return method + " " + stripped + " body=" + bodySum, bodySum
		}
		return method + " " + stripped, ""
	}
	k := keyParts{method: method, scheme: u.Scheme, host: u.Hostname(), port: u.Port(), path: u.EscapedPath(),
		query: parseQuery(u.RawQuery), contentType: contentType, body: body, at: at}
	for _, r := range Rules {
		r.apply(&k)
	}
	var b strings.Builder
	b.WriteString(k.method + " " + k.scheme + "://" + k.host)
	if k.port != "" {
		b.WriteString(":" + k.port)
	}
	b.WriteString(k.path)
	if len(k.query) > 0 {
		b.WriteString("?" + encodeQuery(k.query))
	}
	if len(k.body) > 0 {
		bodySum = Sum(k.body)
		b.WriteString(" body=" + bodySum)
	}
	return b.String(), bodySum
}

// StripURL replaces the value of every secret parameter (SecretParam) of the query and of the fragment (an
// OAuth implicit-flow redirect carries #access_token=…) with Redacted and drops user information
// (user:password@). A URL that does not parse gets the same replacements in its text.
func StripURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return stripText(rawURL)
	}
	u.User = nil
	if u.RawQuery != "" {
		q := parseQuery(u.RawQuery)
		changed := false
		for i, p := range q {
			if SecretParam(p[0]) {
				q[i][1] = Redacted
				changed = true
			}
		}
		if changed {
			u.RawQuery = encodeQuery(q)
		}
	}
	if f, n := redactPairs(u.EscapedFragment()); n > 0 {
		u.Fragment, u.RawFragment = "", ""
		s := u.String()
		return s + "#" + f
	}
	return u.String()
}

// userInfo is the user:password@ of a URL's text.
var userInfo = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]*@`)

// stripText is StripURL on a URL's text, for one url.Parse rejects.
func stripText(raw string) string {
	raw = userInfo.ReplaceAllString(raw, "$1")
	rest, frag, hasFrag := strings.Cut(raw, "#")
	base, query, hasQuery := strings.Cut(rest, "?")
	out := base
	if hasQuery {
		q, _ := redactPairs(query)
		out += "?" + q
	}
	if hasFrag {
		f, _ := redactPairs(frag)
		out += "#" + f
	}
	return out
}

// redactPairs replaces the values of the secret name=value pairs of raw (an &-separated query or fragment,
// escaped) with Redacted, leaving the rest byte for byte; n is how many it replaced.
func redactPairs(raw string) (out string, n int) {
	parts := strings.Split(raw, "&")
	for i, part := range parts {
		name, _, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		if un, err := url.QueryUnescape(name); err == nil {
			name = un
		}
		name = name[strings.LastIndex(name, "?")+1:] // a hash route's query: #/cb?code=…
		if SecretParam(name) {
			parts[i] = part[:strings.Index(part, "=")] + "=" + Redacted
			n++
		}
	}
	return strings.Join(parts, "&"), n
}
