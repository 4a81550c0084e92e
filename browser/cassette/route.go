package cassette

import (
	"fmt"
	"net/http"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"
)

// Install routes every request of bctx through the attempt: recording, each is fetched live (Route.Fetch with
// no redirect followed, so a redirect is stored as its own 3xx entry) and the response served as fetched;
// replaying, each is answered from the tape (Route.Fulfill) and a request without an entry gets a 404 and is
// counted (Misses). Replay also sets the context's clock to the cassette's record time with Clock.SetSystemTime
// (time then runs on from there; timers keep firing in real time — Playwright's clock controller is resumed
// on injection), so date-relative pages render as recorded.
//
// Install must run before any other route of the context: Playwright runs the last registered route first,
// and a later allow-list route falls back to this one for the requests it lets through.
//
// Chromium follows a redirect answered by Route.Fulfill with a 3xx status and a Location header (a fulfilled
// 3xx is followed: https://github.com/lightpanda-io/browser/issues/2828 contrasts this with Chromium).
func (a *Attempt) Install(bctx playwright.BrowserContext) error {
	if a.c.mode == Replay {
		if err := bctx.Clock().SetSystemTime(a.c.RecordedAt()); err != nil {
			return fmt.Errorf("cassette: clock: %w", err)
		}
		return bctx.Route("**/*", a.replayRoute)
	}
	return bctx.Route("**/*", a.recordRoute)
}

// recordRoute fetches a request live, records the exchange and serves the response.
func (a *Attempt) recordRoute(r playwright.Route) {
	if _, ok := a.fetchAndPut(r); !ok {
		// The live fetch failed (connection refused, DNS): the browser sees the same failure, nothing stored.
		_ = r.Abort("failed")
	}
}

// fetchAndPut fetches a request live (no redirect followed), records the exchange (Put) and serves the
// response; false when the live fetch failed and nothing was served.
func (a *Attempt) fetchAndPut(r playwright.Route) (Exchange, bool) {
	req := r.Request()
	resp, err := r.Fetch(playwright.RouteFetchOptions{MaxRedirects: playwright.Int(0)})
	if err != nil {
		return Exchange{}, false
	}
	body, err := resp.Body()
	if err != nil {
		_ = r.Fulfill(playwright.RouteFulfillOptions{Response: resp})
		return Exchange{}, true
	}
	x := Exchange{Method: req.Method(), URL: req.URL(), ResourceType: req.ResourceType(), Status: resp.Status(),
		Body: body}
	if hs, err := req.HeadersArray(); err == nil {
		x.RequestHeaders = fromNameValues(hs)
	}
	if pd, err := req.PostDataBuffer(); err == nil {
		x.RequestBody = pd
	}
	x.ResponseHeaders = fromNameValues(resp.HeadersArray())
	_ = a.Put(x) // a failed write loses the entry (a miss on replay), never the attempt
	_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(x.Status),
		Headers: fulfillHeaders(x.ResponseHeaders), Body: body})
	return x, true
}

// replayRoute answers a request from the tape, or with a 404 counted as a miss.
func (a *Attempt) replayRoute(r playwright.Route) {
	req := r.Request()
	var hs []Header
	if arr, err := req.HeadersArray(); err == nil {
		hs = fromNameValues(arr)
	}
	body, _ := req.PostDataBuffer()
	e, respBody, ok, err := a.Lookup(req.Method(), req.URL(), hs, body)
	if err != nil || !ok {
		if err != nil {
			a.miss(req.URL())
		}
		if a.c.fill && a.fillRoute(r) {
			return
		}
		_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(http.StatusNotFound),
			ContentType: playwright.String("text/plain; charset=utf-8"),
			Body:        "webbench cassette: no recorded response for " + StripURL(req.URL())})
		return
	}
	if respBody == nil {
		respBody = []byte{}
	}
	_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(e.Response.Status),
		Headers: fulfillHeaders(e.Response.Headers), Body: respBody})
}

func fromNameValues(nv []playwright.NameValue) []Header {
	out := make([]Header, len(nv))
	for i, h := range nv {
		out[i] = Header{Name: h.Name, Value: h.Value}
	}
	return out
}

// fulfillHeaders is Route.Fulfill's header map: names lower case, repeated Set-Cookie joined by newlines (how
// playwright-go passes several cookies), other repeated headers by ", " (RFC 9110 §5.3). Content-Encoding and
// Content-Length are left out: the body is decoded and Fulfill sets its length.
func fulfillHeaders(hs []Header) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		n := strings.ToLower(h.Name)
		if n == "content-encoding" || n == "content-length" || n == "transfer-encoding" {
			continue
		}
		sep := ", "
		if n == "set-cookie" {
			sep = "\n"
		}
		if old, ok := out[n]; ok {
			out[n] = old + sep + h.Value
		} else {
			out[n] = h.Value
		}
	}
	return out
}
