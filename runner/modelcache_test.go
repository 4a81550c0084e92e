package runner

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"webbench/agent/guard"
	"webbench/internal/replay"
	"webbench/results"
	"webbench/suites"
)

// cacheRun runs plan on a fresh Zoo (a new port, new tenants: what changes between two runs of the same
// attempts) with the model cache dir, and returns the run and how many chat requests reached srv.
func cacheRun(t *testing.T, plan Plan, cache string, srv *replay.Server) (*results.Run, int) {
	t.Helper()
	s, err := suites.Open("zoo", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := srv.Count()
	dir := t.TempDir()
	if _, err := Run(context.Background(), plan, s, Options{OutDir: dir, Workers: 2, Log: io.Discard,
		BrowserEndpoint: sharedBrowser(t), ModelCache: cache}); err != nil {
		t.Fatal(err)
	}
	run, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run, srv.Count() - before
}

// sameOutcome fails when b's record of an attempt differs from a's in what the attempt did.
func sameOutcome(t *testing.T, a, b results.Attempt) {
	t.Helper()
	if a.Status != b.Status || a.Steps != b.Steps || a.Final != b.Final || a.FinishReason != b.FinishReason ||
		a.FailureMode != b.FailureMode || a.Tokens != b.Tokens || math.Abs(a.CostUSD-b.CostUSD) > 1e-12 {
		t.Errorf("%s: replayed %s/%d steps/%q/%v/%.6f, recorded %s/%d steps/%q/%v/%.6f", a.AttemptID, b.Status, b.Steps,
			b.Final, b.Tokens, b.CostUSD, a.Status, a.Steps, a.Final, a.Tokens, a.CostUSD)
	}
}

// A re-run of an unchanged arm with the model cache sends nothing to the endpoint and reproduces every
// attempt's record; a run whose attempt misses the cache at step k replays steps before k and pays for the
// rest only. The endpoint is the scripted policy behind internal/replay as DeepSeek's thinking mode without
// tool-call ids: the reasoning_content of replayed replies must go back on the live requests after the
// divergence (the replay server answers DeepSeek's 400 otherwise), and generated ids must be the same on replay.
func TestModelCacheReplaysUntilDivergence(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	s0, tasks := zooShop(t, "shop-qa-yoga-mat-thickness")
	up := startPolicy(t, s0)
	srv, err := replay.StartRecorded(replay.Options{Upstream: up, Transform: "deepseek+no_ids"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	v := Variant{Name: "default", Guards: guard.Default(), Model: Model{Kind: "openai", Name: "scripted",
		BaseURL: srv.URL(), PriceIn: 2, PriceOut: 8, CallTimeout: 10 * time.Second}}
	plan := Plan{Suite: "zoo", Tasks: tasks, Reps: 2, Variants: []Variant{v}, BaseSeed: 5}
	cache := t.TempDir()

	first, sent := cacheRun(t, plan, cache, srv)
	steps := 0
	for _, r := range first.Final() {
		id := r.AttemptID
		if r.Status != results.StatusPass || r.ModelCache == nil || r.ModelCache.Replayed != 0 || r.CostUSD <= 0 {
			t.Fatalf("first run %s: %s, cache %+v, cost %v", id, r.Status, r.ModelCache, r.CostUSD)
		}
		steps += r.Steps
	}
	if sent != steps || steps == 0 {
		t.Fatalf("first run: %d requests for %d steps", sent, steps)
	}

	again, sent := cacheRun(t, plan, cache, srv)
	if sent != 0 {
		t.Errorf("unchanged re-run sent %d requests, want 0", sent)
	}
	for _, a := range first.Final() {
		id := a.AttemptID
		b, ok := again.Latest(id)
		if !ok {
			t.Fatalf("re-run has no record of %s", id)
		}
		sameOutcome(t, a, b)
		if b.ModelCache == nil || b.ModelCache.Replayed != b.Steps || math.Abs(b.ModelCache.SavedUSD-b.CostUSD) > 1e-12 ||
			math.Abs(b.PaidUSD()) > 1e-12 {
			t.Errorf("%s: cache %+v, cost %v, paid %v; want every step replayed, nothing paid", id, b.ModelCache,
				b.CostUSD, b.PaidUSD())
		}
	}

	// Remove the stored reply of one attempt's step k: that attempt diverges there.
	rec := first.Final()[0]
	id := rec.AttemptID
	tr, err := first.Trajectory(id)
	if err != nil {
		t.Fatal(err)
	}
	k := rec.Steps / 2
	if k == 0 || tr.Steps[k].Reasoning == "" {
		t.Fatalf("attempt %s: %d steps, step %d reasoning %q", id, rec.Steps, k, tr.Steps[k].Reasoning)
	}
	removeEntryWith(t, cache, tr.Steps[k].Reasoning)
	third, sent := cacheRun(t, plan, cache, srv)
	if sent != rec.Steps-k {
		t.Errorf("diverged at step %d of %d: %d requests sent, want %d", k, rec.Steps, sent, rec.Steps-k)
	}
	if errs := srv.EchoErrors(); len(errs) > 0 {
		t.Errorf("requests after the divergence lacked what the replies required back: %v", errs)
	}
	c, _ := third.Latest(id)
	sameOutcome(t, rec, c)
	if c.ModelCache == nil || c.ModelCache.Replayed != k || c.PaidUSD() <= 0 || c.PaidUSD() >= c.CostUSD {
		t.Errorf("diverged attempt: cache %+v, cost %v, paid %v; want %d replayed and the rest paid", c.ModelCache,
			c.CostUSD, c.PaidUSD(), k)
	}
	ctr, err := third.Trajectory(id)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range ctr.Steps {
		if st.Cached != (i < k) {
			t.Errorf("step %d cached %v", i, st.Cached)
		}
	}
}

// removeEntryWith deletes the one cache entry whose stored reply contains text.
func removeEntryWith(t *testing.T, dir, text string) {
	t.Helper()
	var hits []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), text) {
			hits = append(hits, p)
		}
		return err
	})
	if err != nil || len(hits) != 1 {
		t.Fatalf("entries with %q: %v (%v)", text, hits, err)
	}
	if err := os.Remove(hits[0]); err != nil {
		t.Fatal(err)
	}
}

// A model cache on a run whose every variant is an external agent is refused (it would replay nothing), and
// with a built-in variant the cache is that variant's, the external one's calls staying uncached; the seed of
// an attempt in seed mode none is its pair's seed from the plan's base seed.
func TestUseCacheNeedsBuiltinAgent(t *testing.T) {
	ext := &agentFor{v: &Variant{Name: "ext", Agent: &AgentCmd{Kind: "command", Run: []string{"true"}}}}
	dir := filepath.Join(t.TempDir(), "models")
	if err := useCache(map[string]*agentFor{"ext": ext}, dir, 7); !errors.Is(err, ErrModelCacheUnused) {
		t.Fatalf("external agents only: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the refused cache directory was created: %v", err)
	}
	in := &agentFor{v: &Variant{Name: "in"}}
	if err := useCache(map[string]*agentFor{"ext": ext, "in": in}, dir, 7); err != nil {
		t.Fatal(err)
	}
	if in.cache == nil || ext.cache != nil || in.baseSeed != 7 {
		t.Errorf("cache on built-in %v, on external %v, base seed %d", in.cache != nil, ext.cache != nil, in.baseSeed)
	}
}
