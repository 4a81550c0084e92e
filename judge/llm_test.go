package judge

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"webbench/llm"
	"webbench/suites"
)

// judgeServer is a loopback chat-completions endpoint that records and checks each request and answers with
// the next scripted reply.
type judgeServer struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []string
	status  int
	reqs    []seenRequest
}

// seenRequest is what the server decoded from one request.
type seenRequest struct {
	Model       string
	Temperature *float64
	HasTemp     bool
	Seed        *int
	System      string
	Texts       []string
	Images      [][]byte
	ImageMIME   []string
}

func newJudgeServer(t *testing.T, replies ...string) *judgeServer {
	js := &judgeServer{t: t, replies: replies}
	js.srv = httptest.NewServer(http.HandlerFunc(js.serve)) // httptest listens on 127.0.0.1
	t.Cleanup(js.srv.Close)
	return js
}

func (js *judgeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	var req struct {
		Model       string   `json:"model"`
		Temperature *float64 `json:"temperature"`
		Seed        *int     `json:"seed"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	seen := seenRequest{Model: req.Model, Temperature: req.Temperature, Seed: req.Seed}
	_, seen.HasTemp = raw["temperature"]
	for _, m := range req.Messages {
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			if m.Role == "system" {
				seen.System = s
			} else {
				seen.Texts = append(seen.Texts, s)
			}
			continue
		}
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		_ = json.Unmarshal(m.Content, &parts)
		for _, p := range parts {
			switch p.Type {
			case "text":
				seen.Texts = append(seen.Texts, p.Text)
			case "image_url":
				head, data, _ := strings.Cut(p.ImageURL.URL, ";base64,")
				b, err := base64.StdEncoding.DecodeString(data)
				if err != nil {
					js.t.Errorf("image part is not a base64 data URL: %.60s", p.ImageURL.URL)
				}
				seen.Images = append(seen.Images, b)
				seen.ImageMIME = append(seen.ImageMIME, strings.TrimPrefix(head, "data:"))
			}
		}
	}
	js.mu.Lock()
	js.reqs = append(js.reqs, seen)
	reply := "no reply scripted"
	if len(js.replies) > 0 {
		reply, js.replies = js.replies[0], js.replies[1:]
	}
	status := js.status
	js.mu.Unlock()
	if status != 0 {
		w.WriteHeader(status)
		fmt.Fprint(w, `{"error": {"message": "model does not accept images", "type": "invalid_request_error"}}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": reply}}},
		"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	})
}

func (js *judgeServer) client(t *testing.T) *llm.Client {
	t.Helper()
	// A config temperature of 0.7 proves the judge overrides it with 0 per call.
	temp := float32(0.7)
	c, err := llm.New(llm.Config{Model: "judge-model", BaseURL: js.srv.URL + "/v1", APIKeyEnv: "WEBBENCH_TEST_NO_KEY",
		Temperature: &temp, Retries: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (js *judgeServer) requests() []seenRequest {
	js.mu.Lock()
	defer js.mu.Unlock()
	return append([]seenRequest(nil), js.reqs...)
}

// png is a tiny distinct "PNG" (signature + a marker) so the server can tell screenshots apart.
func png(i int) []byte {
	return append([]byte("\x89PNG\r\n\x1a\n"), []byte(fmt.Sprintf("screenshot-%d", i))...)
}

func TestLLMJudgeProtocol(t *testing.T) {
	task := suites.Task{ID: "Amazon--0", Goal: "Search an Xbox Wireless controller with green color and rated above 4 stars."}
	answer := "Xbox Core Wireless Gaming Controller – Velocity Green, 4.7 stars"
	shots := [][]byte{png(1), png(2), png(3), png(4)}
	cases := []struct {
		name    string
		k       int
		shots   [][]byte
		reply   string
		pass    bool
		isError bool
	}{
		{"success", 2, shots, "The screenshots show the green controller rated 4.7.\nVERDICT: SUCCESS", true, false},
		{"not success", 15, shots, "The rating is not visible anywhere.\n\nVERDICT: NOT SUCCESS", false, false},
		{"bare success", 3, shots, "SUCCESS", true, false},
		{"bare not success", 0, shots, "NOT SUCCESS", false, false},
		{"garbage", 4, shots, "I am not able to grade this attempt, sorry.", false, true},
		{"no screenshots", 15, nil, "Without screenshots the claim cannot be verified.\nVERDICT: NOT SUCCESS", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			js := newJudgeServer(t, c.reply)
			j := NewLLM(js.client(t), c.k)
			v, err := j.Judge(t.Context(), Input{Task: task, Final: answer, OK: true, Screenshots: c.shots})
			if err != nil {
				t.Fatal(err)
			}
			if v.Judge != "llm" || v.Pass != c.pass || (v.Error != "") != c.isError || v.Reason != c.reply {
				t.Errorf("verdict %+v, want pass=%v error=%v reason=reply", v, c.pass, c.isError)
			}
			if c.isError && v.Pass {
				t.Error("a judge error must never pass")
			}
			reqs := js.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			k := c.k
			if k <= 0 {
				k = DefaultScreenshots
			}
			want := c.shots
			if len(want) > k {
				want = want[len(want)-k:]
			}
			if len(r.Images) != len(want) {
				t.Fatalf("%d images sent, want min(k=%d, %d) = %d", len(r.Images), k, len(c.shots), len(want))
			}
			for i := range want {
				if !bytes.Equal(r.Images[i], want[i]) || r.ImageMIME[i] != "image/png" {
					t.Errorf("image %d = %q (%s), want %q", i, r.Images[i], r.ImageMIME[i], want[i])
				}
			}
			if !r.HasTemp || r.Temperature == nil || *r.Temperature != 0 {
				t.Errorf("temperature must be sent as 0: present=%v value=%v", r.HasTemp, r.Temperature)
			}
			if r.Seed == nil || *r.Seed != 42 || r.Model != "judge-model" {
				t.Errorf("seed %v model %q", r.Seed, r.Model)
			}
			all := strings.Join(r.Texts, "\n")
			if !strings.Contains(all, task.Goal) || !strings.Contains(all, answer) {
				t.Errorf("request text lacks the task or the answer:\n%s", all)
			}
			if !strings.Contains(r.System, "VERDICT: SUCCESS") || !strings.Contains(r.System, "VERDICT: NOT SUCCESS") {
				t.Errorf("system prompt does not ask for the verdict line:\n%s", r.System)
			}
		})
	}
}

func TestLLMJudgeFailures(t *testing.T) {
	// No final answer: a fail without a model call.
	js := newJudgeServer(t, "VERDICT: SUCCESS")
	v, err := NewLLM(js.client(t), 15).Judge(t.Context(), Input{Task: suites.Task{Goal: "g"}, Final: "  ", Screenshots: [][]byte{png(1)}})
	if err != nil || v.Pass || v.Error != "" || len(js.requests()) != 0 {
		t.Errorf("empty answer: %+v %v (%d requests)", v, err, len(js.requests()))
	}
	// The endpoint refuses the request: an error (infrastructure), not a verdict.
	js = newJudgeServer(t)
	js.status = http.StatusBadRequest
	v, err = NewLLM(js.client(t), 15).Judge(t.Context(), Input{Task: suites.Task{Goal: "g"}, Final: "a"})
	if err == nil || v.Pass {
		t.Errorf("endpoint error: %+v %v", v, err)
	}
}

func TestParseVerdict(t *testing.T) {
	cases := []struct {
		reply    string
		pass, ok bool
	}{
		{"SUCCESS", true, true},
		{"NOT SUCCESS", false, true},
		{"not success.", false, true},
		{"**NOT SUCCESS**", false, true},
		{"Reasoning.\nVERDICT: SUCCESS", true, true},
		{"Reasoning.\n**Verdict:** NOT SUCCESS\n", false, true},
		{"Final verdict - success", true, true},
		{"VERDICT: SUCCESS\n\nNote: the screenshots were small.", true, true},
		{"The agent did not find the price, so SUCCESS is not warranted.\nVERDICT: NOT SUCCESS", false, true},
		{"Overall, the task is NOT SUCCESS.", false, true},
		{"Overall the task was completed: SUCCESS", true, true},
		{"It is either SUCCESS or NOT SUCCESS, I cannot tell.", false, false},
		{"The agent was successful.", false, false},
		{"UNSUCCESSFUL", false, false},
		{"SUCCESS\nThe grading above is final.", true, true}, // a bare verdict line, then a remark
		{"", false, false},
	}
	for _, c := range cases {
		pass, ok := ParseVerdict(c.reply)
		if pass != c.pass || ok != c.ok {
			t.Errorf("ParseVerdict(%q) = %v, %v; want %v, %v", c.reply, pass, ok, c.pass, c.ok)
		}
	}
}

// The answer judge's llm fallback sees the reference answer, the rule and the doubt (review M2): an uncertain
// golden case is sent with the golden, and the verdict says what the fallback saw.
func TestLLMFallbackSeesReference(t *testing.T) {
	js := newJudgeServer(t, "The reference is 9675; the answer commits to 9,674.\nVERDICT: NOT SUCCESS")
	n := 9675.0
	rule := suites.AnswerRule{Number: &n, Reference: "9675", Type: "golden"}
	task := suites.Task{Goal: "How many days are there between February 12, 2024 and August 9, 2050?", Check: suites.Check{Answer: &rule}}
	answer := "There are 9,674 days between the two dates (9,675 if the end date is included)."
	v, err := Answer{Fallback: NewLLM(js.client(t), 15)}.Judge(t.Context(), Input{Task: task, Final: answer})
	if err != nil || v.Pass || v.Error != "" || v.Uncertain {
		t.Fatalf("verdict %+v %v", v, err)
	}
	if !strings.Contains(v.Reason, `it saw the reference "9675"`) || !strings.Contains(v.Reason, "0 screenshot(s)") {
		t.Errorf("reason does not say what the fallback saw: %s", v.Reason)
	}
	reqs := js.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	all := strings.Join(reqs[0].Texts, "\n")
	for _, want := range []string{task.Goal, answer, "REFERENCE ANSWER: 9675", "RULE THE CHECKER APPLIED: the number 9675",
		"WHY THE CHECKER COULD NOT DECIDE: uncertain: ", "9,674"} {
		if !strings.Contains(all, want) {
			t.Errorf("request lacks %q:\n%s", want, all)
		}
	}
	if !strings.Contains(reqs[0].System, "reference answer") || !strings.Contains(reqs[0].System, "VERDICT: NOT SUCCESS") {
		t.Errorf("system prompt:\n%s", reqs[0].System)
	}
}
