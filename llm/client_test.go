package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

func okBody(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`)
}

func errBody(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg}})
}

func newClient(t *testing.T, url string, retries int) *Client {
	t.Helper()
	c, err := New(Config{Model: "m", BaseURL: url + "/v1", Retries: retries, PricePerMTokIn: 1, PricePerMTokOut: 2})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var msgs = []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}}

// okJSON is a minimal OpenAI chat.completion answering "hi" with usage 7/3.
const okJSON = `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`

// reply is one scripted HTTP answer: status, Retry-After header ("" = none) and body.
type reply struct {
	status     int
	retryAfter string
	body       string
}

// replay is a loopback server answering its replies in order (the last one repeats), recording each request's
// arrival time and body.
type replay struct {
	*httptest.Server
	calls  atomic.Int32
	mu     sync.Mutex
	times  []time.Time
	bodies [][]byte
}

func replayServer(t *testing.T, replies ...reply) *replay {
	t.Helper()
	rs := &replay{}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		n := int(rs.calls.Add(1)) - 1
		rs.mu.Lock()
		rs.times = append(rs.times, time.Now())
		rs.bodies = append(rs.bodies, b)
		rs.mu.Unlock()
		rp := replies[min(n, len(replies)-1)]
		if rp.retryAfter != "" {
			w.Header().Set("Retry-After", rp.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rp.status)
		io.WriteString(w, rp.body)
	}))
	t.Cleanup(rs.Close)
	return rs
}

func (rs *replay) at(i int) time.Time {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.times[i]
}

// request is the i-th request body decoded as a JSON object.
func (rs *replay) request(t *testing.T, i int) map[string]any {
	t.Helper()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var m map[string]any
	if err := json.Unmarshal(rs.bodies[i], &m); err != nil {
		t.Fatalf("request %d: %v: %s", i, err, rs.bodies[i])
	}
	return m
}

func (rs *replay) rawRequest(i int) []byte {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.bodies[i]
}

// A 429 with Retry-After: 1 is retried no sooner than one second later, then succeeds; usage and cost recorded.
func TestRetryAfterHonoured(t *testing.T) {
	var n atomic.Int32
	var first, second time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			errBody(w, 429, "slow down")
			return
		}
		second = time.Now()
		okBody(w)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, 3)
	resp, err := c.Chat(context.Background(), Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if gap := second.Sub(first); gap < 950*time.Millisecond {
		t.Errorf("retried after %v, Retry-After said 1 s", gap)
	}
	if resp.Retries != 1 || resp.Usage != (Usage{Prompt: 7, Completion: 3}) || resp.Message.Content != "hi" {
		t.Errorf("response %+v", resp)
	}
	if got := c.Cost(resp.Usage); got < 12.999e-6 || got > 13.001e-6 {
		t.Errorf("cost %v", got)
	}
}

func TestErrorClasses(t *testing.T) {
	cases := []struct {
		status int
		msg    string
		class  string
		calls  int32
	}{
		{402, "insufficient credit", "quota", 1},
		{401, "invalid api key sk-abcdefghijklmnop", "auth", 1},
		{400, "This model's maximum context length is 8192 tokens", "context_overflow", 1},
		{400, "bad request", "config", 1},
		{503, "overloaded", "rate_limit", 3},
		{500, "boom", "infra", 3},
	}
	for _, tc := range cases {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			errBody(w, tc.status, tc.msg)
		}))
		c := newClient(t, srv.URL, 2)
		c.cfg.CallTimeout = 5 * time.Second
		_, err := c.Chat(context.Background(), Request{Messages: msgs})
		srv.Close()
		var le *Error
		if !errors.As(err, &le) || string(le.Class) != tc.class {
			t.Errorf("HTTP %d %q: error %v, want class %s", tc.status, tc.msg, err, tc.class)
			continue
		}
		if n.Load() != tc.calls {
			t.Errorf("HTTP %d: %d calls, want %d", tc.status, n.Load(), tc.calls)
		}
		if strings.Contains(err.Error(), "sk-abcdefghijklmnop") {
			t.Errorf("key leaked in error: %v", err)
		}
	}
}

func TestConnectionRefusedIsInfra(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c := newClient(t, url, 1)
	_, err := c.Chat(context.Background(), Request{Messages: msgs})
	var le *Error
	if !errors.As(err, &le) || le.Class != "infra" || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error %v", err)
	}
}

func TestRedactString(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "plainsecretvalue123")
	s := RedactString("auth Bearer abcdefgh12345678 key sk-proj-ABCDEFGH1234 env plainsecretvalue123")
	for _, leak := range []string{"abcdefgh12345678", "sk-proj-ABCDEFGH1234", "plainsecretvalue123"} {
		if strings.Contains(s, leak) {
			t.Errorf("%q survived: %s", leak, s)
		}
	}
}
