package scripted

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The policy's endpoint is told from a real one by its model list.
func TestIsPolicyEndpoint(t *testing.T) {
	srv := New(nil, Clean())
	url, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !IsPolicyEndpoint(context.Background(), url) {
		t.Errorf("%s: the policy not recognised", url)
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"object":"list","data":[{"id":"gpt-4o-mini","object":"model","owned_by":"openai"}]}`))
	}))
	defer other.Close()
	if IsPolicyEndpoint(context.Background(), other.URL+"/v1") {
		t.Error("another endpoint taken for the policy")
	}
}
