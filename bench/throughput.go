package bench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"webbench/results"
	"webbench/suites"
)

// ThroughputTasks are the Zoo tasks of the throughput batch: two checkouts, a cart edit and a Q&A lookup, all
// solved by the clean scripted policy. Twice over (Reps 2) they make a batch of 8 attempts, which 1, 2 and 4
// workers divide evenly.
var ThroughputTasks = []string{
	"shop-checkout-cork-blocks-standard",
	"shop-checkout-hero-hoodie-standard",
	"shop-cart-radiant-tee-quantity",
	"shop-qa-yoga-mat-thickness",
}

// ThroughputOptions size the throughput measurement.
type ThroughputOptions struct {
	// Workers to measure (default 1, 2, 4); Runs per worker count (default 2); Reps of the task batch per
	// run (default 2, i.e. 8 attempts).
	Workers    []int
	Runs, Reps int
	// SampleEvery is the memory sampling period (default 500 ms).
	SampleEvery time.Duration
	// BrowserArgs are extra Chromium flags for the workers' browsers (runner.Options.BrowserArgs), to compare
	// flags by their memory; none by default (the runner adds its own for the Zoo: browser.NoSoftwareGLFlag).
	BrowserArgs []string
	Log         func(format string, args ...any)
}

// ThroughputFigures are one worker count's figures.
type ThroughputFigures struct {
	Workers  int `json:"workers"`
	Attempts int `json:"attempts"`
	// PerMinute is attempts per minute of wall time (median over runs; a run's wall time includes the
	// driver start and the browser launches); Speedup is PerMinute over the 1-worker figure.
	PerMinute, Speedup float64
	// Passed counts passing attempts over all runs (of Attempts × runs).
	Passed, Total int
	// WorkerPSS is a worker's browser process tree PSS, bytes: the median over samples of the mean over the
	// worker browsers alive at the sample; WorkerPeak the largest single tree seen; TotalPeak the largest sum of
	// all browser trees plus the Playwright driver at one sample.
	WorkerPSS, WorkerPeak, TotalPeak int64
	// WorkerAnon is the anonymous part of WorkerPSS (TreeMemory), bytes, median over samples of the mean over
	// the worker browsers alive: the worker's private memory, which other processes mapping the same executable
	// do not change.
	WorkerAnon int64
	// AttemptMS is the median attempt duration (from the records), ms.
	AttemptMS float64
}

// memSampler samples the PSS of every Chromium browser tree below this process, and of the driver (the
// process's own non-Chromium children, i.e. node).
type memSampler struct {
	mu        sync.Mutex
	perWorker []float64 // mean browser-tree PSS at each sample with ≥1 browser
	anon      []float64 // mean browser-tree anonymous PSS at the same samples
	peak      int64
	totalPeak int64
	stop      chan struct{}
	done      chan struct{}
}

func startSampler(every time.Duration) *memSampler {
	m := &memSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.sample()
			}
		}
	}()
	return m
}

func (m *memSampler) sample() {
	me := os.Getpid()
	roots, err := BrowserRoots(me)
	if err != nil || len(roots) == 0 {
		return
	}
	var sum, big, anon int64
	for _, r := range roots {
		p, a, err := TreeMemory(r)
		if err != nil {
			continue
		}
		sum += p
		anon += a
		big = max(big, p)
	}
	total := sum
	if procs, err := readProcs(); err == nil {
		for _, p := range procs {
			if p.ppid == me && !isChromium(p.comm) {
				if kb, err := pssKB(p.pid); err == nil {
					total += kb * 1024
				}
			}
		}
	}
	m.mu.Lock()
	m.perWorker = append(m.perWorker, float64(sum)/float64(len(roots)))
	m.anon = append(m.anon, float64(anon)/float64(len(roots)))
	m.peak = max(m.peak, big)
	m.totalPeak = max(m.totalPeak, total)
	m.mu.Unlock()
}

func (m *memSampler) finish() (perWorker, anon []float64, peak, totalPeak int64) {
	close(m.stop)
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.perWorker, m.anon, m.peak, m.totalPeak
}

// MeasureThroughput runs the ThroughputTasks batch through runner.Run (scripted policy, clean profile) at each
// worker count and samples memory meanwhile.
func MeasureThroughput(ctx context.Context, o ThroughputOptions) ([]ThroughputFigures, error) {
	if len(o.Workers) == 0 {
		o.Workers = []int{1, 2, 4}
	}
	if o.Runs <= 0 {
		o.Runs = 2
	}
	if o.Reps <= 0 {
		o.Reps = 2
	}
	if o.SampleEvery <= 0 {
		o.SampleEvery = 500 * time.Millisecond
	}
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	suite, err := openZoo()
	if err != nil {
		return nil, err
	}
	defer suite.Close()
	var tasks []suites.Task
	for _, id := range ThroughputTasks {
		t, err := zooTask(suite, id)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	plan := scriptedPlan(tasks, o.Reps)
	var out []ThroughputFigures
	for _, w := range o.Workers {
		f := ThroughputFigures{Workers: w, Attempts: len(tasks) * o.Reps}
		var rates, pss, anon, attMS []float64
		for r := 0; r < o.Runs; r++ {
			logf("throughput: %d worker(s), run %d/%d (%d attempts)", w, r+1, o.Runs, f.Attempts)
			smp := startSampler(o.SampleEvery)
			zr, err := runZoo(ctx, suite, plan, w, false, o.BrowserArgs...)
			per, an, peak, total := smp.finish()
			if err != nil {
				return nil, err
			}
			if len(zr.Records) != f.Attempts {
				return nil, fmt.Errorf("bench: throughput run recorded %d of %d attempts", len(zr.Records), f.Attempts)
			}
			for _, rec := range zr.Records {
				f.Total++
				if rec.Status == results.StatusPass {
					f.Passed++
				}
				attMS = append(attMS, float64(rec.DurationMS))
			}
			rates = append(rates, float64(len(zr.Records))/zr.Wall.Minutes())
			pss = append(pss, per...)
			anon = append(anon, an...)
			f.WorkerPeak = max(f.WorkerPeak, peak)
			f.TotalPeak = max(f.TotalPeak, total)
		}
		f.PerMinute = Median(rates)
		f.WorkerPSS = int64(Median(pss))
		f.WorkerAnon = int64(Median(anon))
		f.AttemptMS = Median(attMS)
		out = append(out, f)
	}
	for i := range out {
		if out[0].PerMinute > 0 {
			out[i].Speedup = out[i].PerMinute / out[0].PerMinute
		}
	}
	return out, nil
}
