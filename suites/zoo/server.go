package zoo

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// serveApp routes the app port: /t/<tenant>/<app>/<rest> goes to the tenant's instance with r.URL.Path =
// "/<rest>"; <base>_zoo/… goes to the shared overlays. Unknown tenants, deleted tenants and a wrong app name
// are 404, indistinguishable from each other.
func (s *Server) serveApp(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/t/") {
		http.NotFound(w, r)
		return
	}
	parts := strings.SplitN(p[len("/t/"):], "/", 3)
	if len(parts) < 2 {
		http.NotFound(w, r)
		return
	}
	t := s.Tenant(parts[0])
	if t == nil || parts[1] != t.App {
		http.NotFound(w, r)
		return
	}
	if len(parts) == 2 {
		http.Redirect(w, r, t.env.Base, http.StatusMovedPermanently)
		return
	}
	rest := "/" + parts[2]
	if strings.HasPrefix(rest, "/_zoo/") {
		t.env.Overlays.serveZoo(w, r, strings.TrimPrefix(rest, "/_zoo/"))
		return
	}
	t.mu.Lock()
	inst := t.inst
	t.mu.Unlock()
	r2 := r.Clone(r.Context())
	r2.URL.Path = rest
	r2.URL.RawPath = ""
	inst.ServeHTTP(w, r2)
}

// CreateRequest is the control API's body for POST /tenants.
type CreateRequest struct {
	// App is the app's registry name ("shop").
	App string `json:"app"`
	// Mutations are mutation names to switch on (may be empty).
	Mutations []string `json:"mutations"`
}

// controlHandler is the control API (JSON over HTTP, on its own port):
//
//	GET    /apps                  → [{"name": "shop", "mutations": [...]}]
//	GET    /mutations             → the mutation registry
//	POST   /tenants               {"app": "shop", "mutations": ["consent"]} → 201 TenantInfo (id, url, …); 400 on
//	                              bad input ({"error": "…"})
//	GET    /tenants               → [TenantInfo]
//	GET    /tenants/{id}          → TenantInfo
//	GET    /tenants/{id}/state    → the app's state JSON
//	POST   /tenants/{id}/reset    → 204 (fresh state, same id and mutations)
//	DELETE /tenants/{id}          → 204
//
// Unknown tenant ids are 404.
func (s *Server) controlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /apps", func(w http.ResponseWriter, r *http.Request) {
		type appInfo struct {
			Name      string   `json:"name"`
			Mutations []string `json:"mutations"`
		}
		out := []appInfo{}
		for _, n := range AppNames() {
			out = append(out, appInfo{n, AppMutations(n)})
		}
		writeJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET /mutations", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, Mutations)
	})
	mux.HandleFunc("POST /tenants", func(w http.ResponseWriter, r *http.Request) {
		var req CreateRequest
		dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			writeErr(w, http.StatusBadRequest, errors.New("bad JSON body: "+err.Error()))
			return
		}
		t, err := s.NewTenant(req.App, req.Mutations)
		if err != nil {
			writeErr(w, http.StatusBadRequest, err)
			return
		}
		writeJSON(w, http.StatusCreated, t.Info())
	})
	mux.HandleFunc("GET /tenants", func(w http.ResponseWriter, r *http.Request) {
		out := []TenantInfo{}
		for _, t := range s.Tenants() {
			out = append(out, t.Info())
		}
		writeJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET /tenants/{id}", func(w http.ResponseWriter, r *http.Request) {
		if t := s.Tenant(r.PathValue("id")); t != nil {
			writeJSON(w, http.StatusOK, t.Info())
			return
		}
		writeErr(w, http.StatusNotFound, errNoTenant)
	})
	mux.HandleFunc("GET /tenants/{id}/state", func(w http.ResponseWriter, r *http.Request) {
		t := s.Tenant(r.PathValue("id"))
		if t == nil {
			writeErr(w, http.StatusNotFound, errNoTenant)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(t.State())
	})
	mux.HandleFunc("POST /tenants/{id}/reset", func(w http.ResponseWriter, r *http.Request) {
		t := s.Tenant(r.PathValue("id"))
		if t == nil {
			writeErr(w, http.StatusNotFound, errNoTenant)
			return
		}
		if err := t.Reset(); err != nil {
			writeErr(w, http.StatusInternalServerError, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("DELETE /tenants/{id}", func(w http.ResponseWriter, r *http.Request) {
		if !s.DeleteTenant(r.PathValue("id")) {
			writeErr(w, http.StatusNotFound, errNoTenant)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

func writeErr(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]string{"error": err.Error()})
}
