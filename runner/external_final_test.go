package runner

import "testing"

// The answer of an external agent is read from its stdout ("the last line of its stdout that parses
// as the final JSON object of the built-in agent"), with a pretty-printed object at the end accepted too.
func TestLastFinal(t *testing.T) {
	cases := []struct {
		name, out string
		want      string // final; "" = no answer
		ok        bool
	}{
		{"last of several", "log line\n{\"ok\": false, \"final\": \"first\"}\nmore logs {not json}\n{\"ok\": true, \"final\": \"6 mm\", \"page\": \"http://x/\", \"error\": null}\n", "6 mm", true},
		{"json then junk", "{\"ok\": true, \"final\": \"kept\"}\nbye\n", "kept", true},
		{"fenced line is one line", "```json {\"ok\": true, \"final\": \"x\"}```\n", "", false},
		{"pretty-printed at the end", "working…\n{\n  \"ok\": true,\n  \"final\": \"order W-1\",\n  \"page\": \"http://x/done\",\n  \"error\": null\n}\n\n", "order W-1", true},
		{"pretty-printed, then junk", "{\n  \"ok\": true,\n  \"final\": \"x\"\n}\nbye\n", "", false},
		{"no ok field", "{\"final\": \"x\"}\n", "", false},
		{"nothing", "", "", false},
		{"prose", "The answer is 6 mm.\n", "", false},
	}
	for _, c := range cases {
		f := lastFinal([]byte(c.out))
		switch {
		case c.want == "" && f != nil:
			t.Errorf("%s: got %+v, want no answer", c.name, f)
		case c.want != "" && (f == nil || f.Final != c.want || f.OK != c.ok):
			t.Errorf("%s: got %+v, want final %q ok %v", c.name, f, c.want, c.ok)
		}
	}
}
