package mcpserver

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// readFinal ends the wait on the first line that is a final answer, reporting others; EOF sends nothing.
func TestReadFinal(t *testing.T) {
	done := make(chan Stopped, 1)
	var errw bytes.Buffer
	readFinal(strings.NewReader("hello\n\n```json\n"+`{"ok": true, "final": "order ZOO-1"}`+"\nmore\n"), &errw, done)
	select {
	case s := <-done:
		if s.Final == nil || !s.Final.OK || s.Final.Final != "order ZOO-1" || s.Why != StopFinal {
			t.Errorf("stopped %+v", s)
		}
	default:
		t.Fatal("no final answer read")
	}
	if n := strings.Count(errw.String(), "not a final answer"); n != 2 {
		t.Errorf("%d lines reported (want 2: hello, ```json):\n%s", n, errw.String())
	}
	readFinal(strings.NewReader(`{"final": "no ok"}`+"\n"), io.Discard, done)
	select {
	case s := <-done:
		t.Errorf("a line without ok ended the wait: %+v", s)
	default:
	}
}
