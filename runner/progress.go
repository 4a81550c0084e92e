package runner

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"webbench/results"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress reports attempts done/total, pass rate so far, errors, uncertain verdicts (when there are any:
// counted apart from errors and out of the rate) and ETA: a bar on a terminal, plain lines every 10 s (and at
// the end) otherwise, e.g. in CI.
type progress struct {
	mu                          sync.Mutex
	out                         io.Writer
	bar                         *progressbar.ProgressBar
	total, finished             int
	pass, fail, errs, uncertain int
	start, lastLine             time.Time
}

func newProgress(out io.Writer, total, skipped int) *progress {
	p := &progress{out: out, total: total, start: time.Now(), lastLine: time.Now()}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(out), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionSetDescription("attempts"),
			progressbar.OptionClearOnFinish())
	}
	if skipped > 0 {
		fmt.Fprintf(out, "resuming: %s already recorded, %d to run\n", results.Count(skipped, "attempt", "attempts"), total)
	} else {
		fmt.Fprintf(out, "running %s\n", results.Count(total, "attempt", "attempts"))
	}
	return p
}

func (p *progress) done(r results.Attempt) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished++
	switch r.Status {
	case results.StatusPass:
		p.pass++
	case results.StatusFail:
		p.fail++
	default:
		if r.ErrorClass == results.ClassUncertain {
			p.uncertain++
		} else {
			p.errs++
		}
	}
	judged := p.pass + p.fail
	rate := 0.0
	if judged > 0 {
		rate = float64(p.pass) / float64(judged)
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("pass %.0f%% errors %d%s", 100*rate, p.errs, p.uncertainNote(" ")))
		_ = p.bar.Add(1)
		return
	}
	if time.Since(p.lastLine) >= 10*time.Second || p.finished == p.total {
		p.lastLine = time.Now()
		eta := time.Duration(0)
		if p.finished > 0 {
			eta = time.Duration(float64(time.Since(p.start)) / float64(p.finished) * float64(p.total-p.finished))
		}
		fmt.Fprintf(p.out, "progress: %d/%d attempts, pass rate %.1f%% (%d/%d), errors %d%s, ETA %s\n",
			p.finished, p.total, 100*rate, p.pass, judged, p.errs, p.uncertainNote(", "), eta.Round(time.Second))
	}
}

// drop takes an attempt that will not start (a sequential design's skip, a budget reached) out of the total.
func (p *progress) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total--
	if p.bar != nil {
		p.bar.ChangeMax(p.total)
	}
}

// uncertainNote is "<sep>uncertain N" when the judge was uncertain on N > 0 attempts so far, else "".
func (p *progress) uncertainNote(sep string) string {
	if p.uncertain == 0 {
		return ""
	}
	return fmt.Sprintf("%suncertain %d", sep, p.uncertain)
}

func (p *progress) close() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
