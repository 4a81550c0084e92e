package mcptools

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"sync"
	"time"
)

// proxy is the HTTP proxy a Playwright MCP server's browser is started with (--proxy-server): it forwards the
// requests allowed(url) accepts and answers every other one with 403, so the server's browser stays on the
// attempt's tenant as webbench's own session does (browser.SessionOptions.Allowed). Playwright sends loopback
// traffic through a configured proxy too (it adds Chromium's "<-loopback>" bypass rule,
// playwright-core chromium.ts _innerDefaultArgs), so the Zoo's 127.0.0.1 URLs are filtered. HTTPS (CONNECT) is
// tunnelled when allowed("https://HOST/") accepts it.
type proxy struct {
	srv     *http.Server
	ln      net.Listener
	allowed func(string) bool
	rp      *httputil.ReverseProxy

	mu      sync.Mutex
	blocked []string
}

func startProxy(allowed func(string) bool) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{ln: ln, allowed: allowed}
	p.rp = &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.Out.URL = pr.In.URL
		pr.Out.Host = pr.In.Host
		pr.Out.Header.Del("Proxy-Connection")
	}, Transport: &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 16,
		IdleConnTimeout: 30 * time.Second}}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// URL is the proxy's address for --proxy-server.
func (p *proxy) URL() string { return "http://" + p.ln.Addr().String() }

func (p *proxy) blockedURLs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.blocked...)
}

func (p *proxy) refuse(w http.ResponseWriter, u string) {
	p.mu.Lock()
	p.blocked = append(p.blocked, u)
	p.mu.Unlock()
	http.Error(w, "blocked by webbench: outside this attempt's allow-list", http.StatusForbidden)
}

// ServeHTTP forwards an allowed absolute-URL request (or tunnels an allowed CONNECT) and refuses the rest.
func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		u := "https://" + r.Host + "/"
		if !p.allowed(u) {
			p.refuse(w, u)
			return
		}
		p.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() {
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	if !p.allowed(r.URL.String()) {
		p.refuse(w, r.URL.String())
		return
	}
	p.rp.ServeHTTP(w, r)
}

func (p *proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	dst, err := net.DialTimeout("tcp", r.Host, 10*time.Second)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = dst.Close()
		http.Error(w, "no hijacking", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	src, _, err := hj.Hijack()
	if err != nil {
		_ = dst.Close()
		return
	}
	go func() { _, _ = io.Copy(dst, src); _ = dst.Close() }()
	go func() { _, _ = io.Copy(src, dst); _ = src.Close() }()
}

func (p *proxy) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = p.srv.Shutdown(ctx)
	_ = p.srv.Close()
}
