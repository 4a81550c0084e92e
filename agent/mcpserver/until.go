package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"webbench/agent"
	"webbench/llm"
	"webbench/results"
)

// Why serving by hand stopped (Stopped.Why).
const (
	StopSignal   = "interrupted (SIGINT/SIGTERM)"
	StopDeadline = "attempt deadline reached"
	StopEOF      = "standard input ended (MCP client gone)"
	StopFinal    = "final answer received on standard input"
	StopServe    = "MCP transport failed"
)

// Stopped is why ServeUntil returned (Why, one of the Stop constants), with the final answer and its line when
// one came on standard input, or the transport's error.
type Stopped struct {
	Why   string
	Final *results.FinalAnswer
	Line  string
	Err   error
}

// Finish is the trajectory's finish for how serving stopped: answered with the final answer that came, a
// timeout at deadline, the transport's error, else stopped by hand or the MCP client gone, without a final
// answer (the answer judge fails it).
func (s Stopped) Finish(deadline time.Time) results.FinishRecord {
	switch {
	case s.Final != nil:
		return results.FinishRecord{Reason: results.FinishAnswered, Output: s.Line, Final: s.Final}
	case s.Why == StopDeadline:
		return results.FinishRecord{Reason: results.FinishTimeout,
			Error: "attempt deadline " + deadline.Format(time.RFC3339) + " reached"}
	case s.Err != nil:
		return results.FinishRecord{Error: llm.RedactString(s.Err.Error())}
	}
	return results.FinishRecord{Error: "bench mcp serve stopped (" + s.Why + ") before a final answer"}
}

// ServeUntil serves an attempt by hand (bench mcp serve) until ctx ends, the deadline passes, in ends (stdio:
// MCP over in and out, the stream) or a final answer line arrives on in (HTTP mode, the server already started
// with StartHTTP; other lines are reported on errw and ignored, the end of in is ignored: a backgrounded
// process has no stdin).
func (s *Server) ServeUntil(ctx context.Context, stdio bool, in io.Reader, out, errw io.Writer,
	deadline time.Time) Stopped {
	done := make(chan Stopped, 2)
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	if stdio {
		go func() {
			err := s.ServeStdio(sctx, in, out)
			if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
				done <- Stopped{Why: StopServe, Err: err}
				return
			}
			done <- Stopped{Why: StopEOF}
		}()
	} else {
		go readFinal(in, errw, done)
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return Stopped{Why: StopSignal}
	case <-timer.C:
		return Stopped{Why: StopDeadline}
	case st := <-done:
		return st
	}
}

// readFinal reads lines from r until one parses as the final answer (agent.ParseFinal) and sends it on done.
// Other lines are reported on errw; the end of r sends nothing.
func readFinal(r io.Reader, errw io.Writer, done chan<- Stopped) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		fa, err := agent.ParseFinal(line)
		if err != nil {
			fmt.Fprintf(errw, "standard input: not a final answer (%v); want {\"ok\": true|false, \"final\": \"…\"}\n", err)
			continue
		}
		done <- Stopped{Why: StopFinal, Final: fa, Line: line}
		return
	}
}
