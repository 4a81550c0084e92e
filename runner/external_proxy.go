package runner

import (
	"net/http"
	"time"

	"webbench/runner/modelproxy"
)

// modelProxy records the model calls an external agent makes in front of the variant's endpoint.
type modelProxy interface {
	// URL is the base URL the agent is given (WEBBENCH_BASE_URL).
	URL() string
	// Close stops it and returns the calls it recorded, in the order they started.
	Close() []modelCallStep
}

// recordingProxy is a modelProxy backed by runner/modelproxy.
type recordingProxy struct{ p *modelproxy.Proxy }

// URL is the proxy's base URL (the upstream's path kept, e.g. http://127.0.0.1:PORT/v1).
func (r recordingProxy) URL() string { return r.p.URL() }

// Close stops the proxy (cutting calls still open) and returns every recorded call as a step with its start.
func (r recordingProxy) Close() []modelCallStep {
	_ = r.p.Close()
	var out []modelCallStep
	for _, c := range r.p.Calls() {
		out = append(out, modelCallStep{Start: c.Start, Step: c.Step, Endpoint: c.Endpoint, Status: c.Status})
	}
	return out
}

// startModelProxy starts the recording proxy (runner/modelproxy) on loopback in front of upstream (the
// scripted policy's URL, or the openai base URL), sending key as the bearer token upstream when not empty; one
// call is bounded by callTimeout (the model block's call_timeout, else the built-in client's 120 s): a hung
// endpoint answers the agent 502 and the call is recorded as failed, the endpoint's fault.
func startModelProxy(upstream, key string, callTimeout time.Duration) (modelProxy, error) {
	if callTimeout <= 0 {
		callTimeout = 120 * time.Second
	}
	p, err := modelproxy.Start(upstream, modelproxy.Options{APIKey: key, Client: &http.Client{Timeout: callTimeout}})
	if err != nil {
		return nil, err
	}
	return recordingProxy{p}, nil
}
