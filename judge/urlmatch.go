package judge

import (
	"net/url"
	"slices"
	"strings"
)

// urlMatch: some URL in the answer has the item's scheme (when both have one), host, port, whole path (a
// trailing slash aside) and query parameters: ok with near "". Failing that, a URL that differs only in what many sites
// treat alike — a "www." prefix on one side, http for https, the path's letter case (GitHub's owner/repo) — is
// ok with near saying how (the caller makes it uncertain: a careful grader would not fail it outright, nor
// pass it unseen). lo, hi is the URL's span in fold(g.raw).
func (g *grader) urlMatch(item string) (lo, hi int, near string, ok bool) {
	ref, err := parseLooseURL(item)
	if err != nil {
		return 0, 0, "", false
	}
	text := fold(g.raw)
	nearLo, nearHi, nearWhy := 0, 0, ""
	for _, loc := range urlAnsRe.FindAllStringIndex(text, -1) {
		s := strings.TrimRight(text[loc[0]:loc[1]], ".,;:!?")
		u, err := parseLooseURL(s)
		if err != nil {
			continue
		}
		var why []string
		if ref.Scheme != "" && u.Scheme != "" && !strings.EqualFold(ref.Scheme, u.Scheme) {
			if !httpPair(ref.Scheme, u.Scheme) {
				continue
			}
			why = append(why, u.Scheme+" for "+ref.Scheme)
		}
		if !strings.EqualFold(ref.Host, u.Host) {
			if !strings.EqualFold(strings.TrimPrefix(strings.ToLower(ref.Host), "www."), strings.TrimPrefix(strings.ToLower(u.Host), "www.")) {
				continue
			}
			why = append(why, "host "+u.Host+" for "+ref.Host)
		}
		// The whole path: a longer one is another page (another season's stats, a sub-page of a repository).
		rp, up := pathSegments(ref.Path), pathSegments(u.Path)
		if len(up) != len(rp) {
			continue
		}
		if !slices.Equal(rp, up) {
			if !slices.EqualFunc(rp, up, strings.EqualFold) {
				continue
			}
			why = append(why, "the path in another letter case")
		}
		ok := true
		uq := u.Query()
		for k, vs := range ref.Query() {
			for _, v := range vs {
				if !slices.Contains(uq[k], v) {
					ok = false
				}
			}
		}
		if !ok {
			continue
		}
		if len(why) == 0 {
			return loc[0], loc[0] + len(s), "", true
		}
		if nearWhy == "" {
			nearLo, nearHi, nearWhy = loc[0], loc[0]+len(s), strings.Join(why, ", ")
		}
	}
	if nearWhy != "" {
		return nearLo, nearHi, nearWhy, true
	}
	return 0, 0, "", false
}

// httpPair reports whether schemes a and b are http and https, in either order.
func httpPair(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	return a == "http" && b == "https" || a == "https" && b == "http"
}

// parseLooseURL parses s with net/url, reading a URL without a scheme as host/path.
func parseLooseURL(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") {
		u, err := url.Parse("//" + s)
		if err != nil {
			return nil, err
		}
		return u, nil
	}
	return url.Parse(s)
}

func pathSegments(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
