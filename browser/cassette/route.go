package cassette

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"
)

// Install routes every request of bctx through the attempt: recording, each is fetched live (Route.Fetch with
// no redirect followed, so a redirect is stored as its own 3xx entry) and the response served as fetched;
// replaying, each is answered from the tape (Route.Fulfill) and a request without an entry gets a 404 and is
// counted (Misses).
//
// A replay also routes every WebSocket the pages open: a tape holds no WebSocket traffic, so each is closed
// without connecting to its server and counted as a miss (its URL in Misses). A recording lets WebSockets
// through unrecorded. The context should block service workers (the caller's BrowserNewContextOptions):
// their requests do not pass through a context's routes.
//
// Install must run before any other route of the context: Playwright runs the last registered route first,
// and a later allow-list route falls back to this one for the requests it lets through.
func (a *Attempt) Install(bctx playwright.BrowserContext) error {
	if a.c.mode != Replay {
		return bctx.Route("**/*", a.recordRoute)
	}
	if err := bctx.RouteWebSocket(anyURL, a.replayWebSocket); err != nil {
		return fmt.Errorf("cassette: websocket route: %w", err)
	}
	return bctx.Route("**/*", a.replayRoute)
}

// anyURL matches every URL (a glob would have to guess the ws:// and wss:// forms).
var anyURL = regexp.MustCompile(`.*`)

// replayWebSocket closes a page's WebSocket without connecting to its server and counts it as a miss.
func (a *Attempt) replayWebSocket(ws playwright.WebSocketRoute) {
	a.miss(ws.URL())
	// 1008 (policy violation, RFC 6455 §7.4.1): the page learns the connection was refused on purpose.
	ws.Close(playwright.WebSocketRouteCloseOptions{Code: playwright.Int(1008),
		Reason: playwright.String("webbench cassette: WebSockets are not replayed")})
}

// SetClock sets a replay's page clock to its task's record time (TaskTime) with Clock.SetSystemTime: Date starts
// there and runs on, so date-relative pages render as recorded. Any clock call installs Playwright's fake
// timers for the context's documents, resumed (they fire in real time); an init script added before SetClock
// still sees the browser's own timers. A recording's clock is left alone.
func (a *Attempt) SetClock(bctx playwright.BrowserContext) error {
	if a.c.mode != Replay {
		return nil
	}
	at, err := a.c.TaskTime(a.task)
	if err != nil {
		return fmt.Errorf("cassette: clock: %w", err)
	}
	if err := bctx.Clock().SetSystemTime(at); err != nil {
		return fmt.Errorf("cassette: clock: %w", err)
	}
	return nil
}

// maxHops bounds a redirect chain followed for one request (Chromium's own limit is 20).
const maxHops = 20

// recordRoute fetches a request live (each redirect hop an entry of its own), records the exchanges and
// serves the response: the final one of a subresource's chain, or a redirect page for a page load's 3xx.
func (a *Attempt) recordRoute(r playwright.Route) {
	req := r.Request()
	method, target := req.Method(), req.URL()
	body, _ := req.PostDataBuffer()
	var reqHeaders []Header
	if hs, err := req.HeadersArray(); err == nil {
		reqHeaders = fromNameValues(hs)
	}
	for hop := 0; ; hop++ {
		opts := playwright.RouteFetchOptions{MaxRedirects: playwright.Int(0)}
		if hop > 0 {
			opts.URL, opts.Method = playwright.String(target), playwright.String(method)
			if body == nil {
				opts.PostData = ""
			}
		}
		resp, err := r.Fetch(opts)
		if err != nil {
			// The live fetch failed (connection refused, DNS): the browser sees a failure, nothing is stored.
			_ = r.Abort("failed")
			return
		}
		respBody, err := resp.Body()
		if err != nil {
			_ = r.Fulfill(playwright.RouteFulfillOptions{Response: resp})
			return
		}
		x := Exchange{Method: method, URL: target, ResourceType: req.ResourceType(), RequestHeaders: reqHeaders,
			RequestBody: body, Status: resp.Status(), ResponseHeaders: fromNameValues(resp.HeadersArray()),
			Body: respBody}
		_ = a.Put(x) // a failed write loses the entry (a miss on replay), never the attempt
		next, ok := redirectTarget(target, x.Status, x.ResponseHeaders)
		switch {
		case ok && req.IsNavigationRequest():
			_ = fulfillRedirectPage(r, next, x.ResponseHeaders)
			return
		case ok && hop < maxHops:
			target = next
			if x.Status == http.StatusSeeOther || method == http.MethodPost && x.Status <= http.StatusFound {
				method, body = http.MethodGet, nil
			}
			continue
		}
		_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(x.Status),
			Headers: fulfillHeaders(x.ResponseHeaders), Body: respBody})
		return
	}
}

// replayRoute answers a request from the tape (a subresource's redirect chain followed in the tape, a page
// load's 3xx as a redirect page), or with a 404 counted as a miss.
func (a *Attempt) replayRoute(r playwright.Route) {
	req := r.Request()
	var hs []Header
	if arr, err := req.HeadersArray(); err == nil {
		hs = fromNameValues(arr)
	}
	method, target := req.Method(), req.URL()
	body, _ := req.PostDataBuffer()
	for hop := 0; ; hop++ {
		e, respBody, ok, err := a.Lookup(method, target, hs, body)
		if err != nil || !ok {
			if err != nil {
				a.miss(target)
			}
			if a.c.fill {
				a.fillRoute(r)
				return
			}
			_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(http.StatusNotFound),
				ContentType: playwright.String("text/plain; charset=utf-8"),
				Body:        "webbench cassette: no recorded response for " + StripURL(target)})
			return
		}
		next, isRedirect := redirectTarget(target, e.Response.Status, e.Response.Headers)
		switch {
		case isRedirect && req.IsNavigationRequest():
			_ = fulfillRedirectPage(r, next, e.Response.Headers)
			return
		case isRedirect && hop < maxHops:
			target = next
			if e.Response.Status == http.StatusSeeOther || method == http.MethodPost && e.Response.Status <= http.StatusFound {
				method, body = http.MethodGet, nil
			}
			continue
		}
		if respBody == nil {
			respBody = []byte{}
		}
		_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(e.Response.Status),
			Headers: fulfillHeaders(e.Response.Headers), Body: respBody})
		return
	}
}

// redirectTarget is the absolute URL a 3xx response with a Location header sends from to; ok is false for any
// other response.
func redirectTarget(from string, status int, hs []Header) (string, bool) {
	if status < 300 || status > 399 || status == http.StatusNotModified {
		return "", false
	}
	loc := headerValue(hs, "location")
	if loc == "" {
		return "", false
	}
	base, err := url.Parse(from)
	if err != nil {
		return "", false
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return "", false
	}
	return base.ResolveReference(ref).String(), true
}

// fulfillRedirectPage answers a page load that was redirected with a page that replaces itself with the
// target, the redirect's other headers (its cookies) kept. A route does not see the request that a fulfilled
// 3xx leads the browser to (Playwright's docs for BrowserContext.route; microsoft/playwright#33882), and the
// call Playwright's own HAR replay uses for this, Route.redirectNavigationRequest, is internal; a navigation
// started by the page is routed again.
func fulfillRedirectPage(r playwright.Route, target string, hs []Header) error {
	q, _ := json.Marshal(target)
	h := fulfillHeaders(hs)
	delete(h, "location")
	h["content-type"] = "text/html; charset=utf-8"
	page := "<!doctype html><meta charset=\"utf-8\"><title>Redirecting</title><script>location.replace(" +
		string(q) + ")</script>"
	return r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(http.StatusOK), Headers: h, Body: page})
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
