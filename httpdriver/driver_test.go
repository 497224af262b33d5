package httpdriver_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/httpdriver"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

const driverKey = "sk-driver0123456789abcdef"

func driverSetup(t *testing.T, o core.Options) (*deepseektest.Server, *httpdriver.Driver, *core.Config) {
	t.Helper()
	d := deepseektest.New(t, driverKey)
	o.BaseURL = d.URL
	cfg, _, err := core.NewConfig(o)
	require.NoError(t, err)
	eng := core.NewEngine(core.Env{Now: func() int64 { return time.Now().UnixMilli() }})
	return d, &httpdriver.Driver{Engine: eng, Client: httpdriver.NewClient()}, cfg
}

func fetchOp(cfg *core.Config, url string) core.Operation {
	return core.Operation{Kind: core.KindFetch, URL: url, Config: cfg, APIKey: driverKey}
}

// A call beyond maxCalls waits, sending nothing, until the call in flight
// ends; then it runs.
func TestDriverWaitsForAdmission(t *testing.T) {
	d, drv, cfg := driverSetup(t, core.Options{MaxCalls: 1})
	release := make(chan struct{})
	d.Fetch = func(w http.ResponseWriter, r *http.Request) {
		<-release
		deepseektest.WriteJSON(w, 200, map[string]any{"title": "T", "content": "c"})
	}
	first := make(chan core.Step)
	go func() { first <- drv.Run(context.Background(), fetchOp(cfg, "https://go.dev/1"), nil) }()
	<-d.Arrived
	second := make(chan core.Step)
	go func() { second <- drv.Run(context.Background(), fetchOp(cfg, "https://go.dev/2"), nil) }()
	time.Sleep(100 * time.Millisecond)
	require.Len(t, d.Requests(), 1, "the second call was sent while the first was in flight")
	close(release)
	require.Nil(t, (<-first).Err)
	s := <-second
	require.Nil(t, s.Err)
	require.Equal(t, "# T\n\nc", s.Result.Fetch.Text)
	require.Len(t, d.Requests(), 2)
}

// Waiting for admission ends with the caller's cancellation, or after
// timeoutMs with an error saying why.
func TestDriverAdmissionWaitEnds(t *testing.T) {
	d, drv, long := driverSetup(t, core.Options{MaxCalls: 1, TimeoutMs: 10000})
	cfg, _, err := core.NewConfig(core.Options{BaseURL: d.URL, MaxCalls: 1, TimeoutMs: 1000})
	require.NoError(t, err)
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	d.Fetch = func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go drv.Run(ctx, fetchOp(long, "https://go.dev/1"), nil)
	<-d.Arrived

	wctx, wcancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer wcancel()
	s := drv.Run(wctx, fetchOp(cfg, "https://go.dev/2"), nil)
	require.Equal(t, &core.Error{Code: core.CodeCancelled, Message: "DeepSeek Fetch cancelled"}, s.Err)

	start := time.Now()
	s = drv.Run(context.Background(), fetchOp(cfg, "https://go.dev/3"), nil)
	require.GreaterOrEqual(t, time.Since(start), time.Second)
	require.Equal(t, &core.Error{Code: core.CodeBusy, Message: "DeepSeek Fetch could not start: 1 call is already in flight in this process (maxCalls 1), and none finished within 1000 ms; try again later or raise the limit"}, s.Err)
	require.Len(t, d.Requests(), 1)
}

// Identical calls in flight make one request; the first caller's
// cancellation does not cancel the others' request; cancelling every
// caller does.
func TestDriverSharesIdenticalCalls(t *testing.T) {
	d, drv, cfg := driverSetup(t, core.Options{CacheTTL: new(0)})
	release := make(chan struct{})
	var cancelled atomic.Bool
	d.Fetch = func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
			deepseektest.WriteJSON(w, 200, map[string]any{"title": "T", "content": "c"})
		case <-r.Context().Done():
			cancelled.Store(true)
		}
	}
	op := fetchOp(cfg, "https://go.dev/doc")
	leaderCtx, cancelLeader := context.WithCancel(context.Background())
	leader := make(chan core.Step)
	go func() { leader <- drv.Run(leaderCtx, op, nil) }()
	<-d.Arrived
	const n = 10
	var wg sync.WaitGroup
	steps := make([]core.Step, n)
	for i := range n {
		wg.Go(func() { steps[i] = drv.Run(context.Background(), op, nil) })
	}
	time.Sleep(100 * time.Millisecond)
	cancelLeader()
	require.Equal(t, core.CodeCancelled, (<-leader).Err.Code)
	time.Sleep(50 * time.Millisecond)
	require.False(t, cancelled.Load(), "the first caller's cancellation cancelled the shared request")
	close(release)
	wg.Wait()
	for _, s := range steps {
		require.Nil(t, s.Err)
		require.Equal(t, "# T\n\nc", s.Result.Fetch.Text)
		require.True(t, s.Result.Fetch.Cached, "a follower's answer cost nothing")
	}
	require.Len(t, d.Requests(), 1)

	// Another part of the page, or another page, is other work.
	other := op
	other.Offset = 2
	d.Fetch = deepseektest.Answer(200, map[string]any{"title": "T", "content": "c"})
	require.Nil(t, drv.Run(context.Background(), other, nil).Err)
	require.Len(t, d.Requests(), 2)

	// When every caller has gone, the request is cancelled.
	cancelled.Store(false)
	block := make(chan struct{})
	defer close(block)
	d.Fetch = func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
			cancelled.Store(true)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan core.Step, 2)
	go func() { done <- drv.Run(ctx, op, nil) }()
	<-d.Arrived
	go func() { done <- drv.Run(ctx, op, nil) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	<-done
	<-done
	require.Eventually(t, cancelled.Load, 2*time.Second, 10*time.Millisecond)
}

// Identical searches share one request too; a search that differs in an
// option that changes the answer does not.
func TestDriverSharesIdenticalSearches(t *testing.T) {
	d, drv, cfg := driverSetup(t, core.Options{CacheTTL: new(0)})
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	d.Search = func(w http.ResponseWriter, r *http.Request) {
		<-release
		deepseektest.WriteJSON(w, 200, map[string]any{"results": []any{map[string]any{"url": "https://go.dev/", "title": "Go"}}})
	}
	op := core.Operation{Kind: core.KindSearch, Query: "go", Config: cfg, APIKey: driverKey}
	fewer := op
	fewer.Config, _, _ = core.NewConfig(core.Options{BaseURL: d.URL, CacheTTL: new(0), MaxResults: 3})
	var wg sync.WaitGroup
	steps := make([]core.Step, 6)
	for i := range steps {
		wg.Go(func() {
			if i == 5 {
				steps[i] = drv.Run(context.Background(), fewer, nil)
			} else {
				steps[i] = drv.Run(context.Background(), op, nil)
			}
		})
	}
	require.Eventually(t, func() bool { return len(d.Requests()) == 2 }, 2*time.Second, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	once.Do(func() { close(release) })
	wg.Wait()
	for _, s := range steps {
		require.Nil(t, s.Err)
		require.Equal(t, "1. Go\nhttps://go.dev/", s.Result.Search.Text())
	}
	require.Len(t, d.Requests(), 2, "five identical searches and one with maxResults 3")
}
