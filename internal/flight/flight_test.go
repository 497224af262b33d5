package flight

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// waitFor fails t unless ch is closed or sends within a generous deadline:
// the tests assert what happens, never how fast.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not happen within 30 s", what)
		panic("unreachable")
	}
}

// runs is how many runs g has not forgotten.
func (g *Group[K, V]) runsLen() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.runs)
}

// runOf is the run g holds for key, nil when none.
func (g *Group[K, V]) runOf(key K) *run[V] {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.runs[key]
}

// doneWatcher is a context that closes waiting when Do first asks for its
// Done channel: the caller has joined or started a run and waits for it.
type doneWatcher struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func (w *doneWatcher) Done() <-chan struct{} {
	w.once.Do(func() { close(w.waiting) })
	return w.Context.Done()
}

type result struct {
	v       string
	started bool
	err     error
}

func TestIdenticalCallsShareOneRun(t *testing.T) {
	var g Group[string, string]
	var runs atomic.Int32
	release := make(chan struct{})
	work := func(context.Context) string {
		runs.Add(1)
		<-release
		return "answer"
	}
	const n = 20
	results := make(chan result, n)
	first := make(chan struct{})
	go func() {
		v, started, err := g.Do(context.Background(), "k", func(ctx context.Context) string {
			close(first)
			return work(ctx)
		})
		results <- result{v, started, err}
	}()
	waitFor(t, first, "the first run")
	for range n - 1 {
		go func() {
			v, started, err := g.Do(context.Background(), "k", work)
			results <- result{v, started, err}
		}()
	}
	// Every caller has joined once the run counts n waiting.
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.runs["k"] != nil && g.runs["k"].waiting == n
	}, 30*time.Second, time.Millisecond)
	close(release)
	starters := 0
	for range n {
		r := waitFor(t, results, "an answer")
		require.NoError(t, r.err)
		require.Equal(t, "answer", r.v)
		if r.started {
			starters++
		}
	}
	require.Equal(t, 1, starters)
	require.Equal(t, int32(1), runs.Load(), "identical calls ran the work more than once")
	require.Equal(t, 0, g.runsLen(), "a finished run is still joinable")

	// The next call, after the run ended, runs again.
	v, started, err := g.Do(context.Background(), "k", func(context.Context) string { return "again" })
	require.NoError(t, err)
	require.True(t, started)
	require.Equal(t, "again", v)
}

func TestDifferentKeysRunApart(t *testing.T) {
	var g Group[int, int]
	var wg sync.WaitGroup
	got := make([]int, 10)
	for i := range got {
		wg.Go(func() {
			v, started, err := g.Do(context.Background(), i, func(context.Context) int { return i * i })
			require.NoError(t, err)
			require.True(t, started)
			got[i] = v
		})
	}
	wg.Wait()
	for i, v := range got {
		require.Equal(t, i*i, v)
	}
}

// The caller that started a run leaves; the run goes on for the one that
// joined it.
func TestOneCallerLeavingDoesNotCancel(t *testing.T) {
	var g Group[string, string]
	running := make(chan struct{})
	release := make(chan struct{})
	var workErr atomic.Value
	work := func(ctx context.Context) string {
		close(running)
		select {
		case <-release:
			return "answer"
		case <-ctx.Done():
			workErr.Store(ctx.Err())
			return "cancelled"
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	firstDone := make(chan result, 1)
	go func() {
		v, started, err := g.Do(ctx, "k", work)
		firstDone <- result{v, started, err}
	}()
	waitFor(t, running, "the run")
	joined := make(chan result, 1)
	go func() {
		v, started, err := g.Do(context.Background(), "k", work)
		joined <- result{v, started, err}
	}()
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.runs["k"].waiting == 2
	}, 30*time.Second, time.Millisecond)
	cancel()
	require.Equal(t, result{"", true, context.Canceled}, waitFor(t, firstDone, "the first caller's return"))
	require.Equal(t, 1, g.runsLen(), "the run was forgotten while a caller waits for it")
	close(release)
	require.Equal(t, result{"answer", false, nil}, waitFor(t, joined, "the joined caller's answer"))
	require.Nil(t, workErr.Load(), "the run was cancelled while a caller waited for it")
}

// The last caller leaves: the run is cancelled and forgotten before Do
// returns.
func TestLastCallerLeavingCancelsAndForgets(t *testing.T) {
	var g Group[string, string]
	running := make(chan struct{})
	workEnded := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 2)
	for i := range 2 {
		go func() {
			v, started, err := g.Do(ctx, "k", func(wctx context.Context) string {
				close(running)
				<-wctx.Done()
				workEnded <- wctx.Err()
				return "late"
			})
			done <- result{v, started, err}
		}()
		if i == 0 {
			waitFor(t, running, "the run")
		}
	}
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.runs["k"].waiting == 2
	}, 30*time.Second, time.Millisecond)
	cancel()
	for range 2 {
		r := waitFor(t, done, "a caller's return")
		require.ErrorIs(t, r.err, context.Canceled)
		require.Empty(t, r.v)
	}
	require.Equal(t, 0, g.runsLen(), "a cancelled run can still be joined")
	require.ErrorIs(t, waitFor(t, workEnded, "the work's end"), context.Canceled)
}

// TestCancelledRunNotJoined is the window between a run's cancellation and
// its work's return: the work has seen the cancellation but still unwinds
// (it releases a lock, say). A caller with a live context that arrives
// then starts a run of its own and gets its answer; the old run, when it
// ends, does not forget the new one.
func TestCancelledRunNotJoined(t *testing.T) {
	var g Group[string, string]
	running := make(chan struct{})
	sawCancel := make(chan struct{})
	unwind := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan result, 1)
	go func() {
		v, started, err := g.Do(ctx, "k", func(wctx context.Context) string {
			close(running)
			<-wctx.Done()
			close(sawCancel)
			<-unwind
			return "from the cancelled run"
		})
		first <- result{v, started, err}
	}()
	waitFor(t, running, "the first run")
	old := g.runOf("k")
	cancel()
	require.Equal(t, result{"", true, context.Canceled}, waitFor(t, first, "the first caller's return"))
	waitFor(t, sawCancel, "the cancellation reaching the work")

	// In the window: the old work has not returned.
	late := &doneWatcher{Context: context.Background(), waiting: make(chan struct{})}
	finish := make(chan struct{})
	second := make(chan result, 1)
	go func() {
		v, started, err := g.Do(late, "k", func(context.Context) string {
			<-finish
			return "fresh"
		})
		second <- result{v, started, err}
	}()
	waitFor(t, late.waiting, "the late caller waiting for a run")
	require.NotSame(t, old, g.runOf("k"), "the late caller joined the cancelled run")

	// The old run ends; the new one stays joinable.
	close(unwind)
	waitFor(t, old.done, "the old run's end")
	require.Equal(t, "from the cancelled run", old.val)
	third := make(chan result, 1)
	go func() {
		v, started, err := g.Do(context.Background(), "k", func(context.Context) string { return "a third run" })
		third <- result{v, started, err}
	}()
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		r := g.runs["k"]
		return r != nil && r.waiting == 2
	}, 30*time.Second, time.Millisecond, "the third caller did not join the new run")
	close(finish)
	require.Equal(t, result{"fresh", true, nil}, waitFor(t, second, "the late caller's answer"))
	require.Equal(t, result{"fresh", false, nil}, waitFor(t, third, "the third caller's answer"))
	require.Equal(t, 0, g.runsLen())
}

type ctxKey struct{}

// The work sees the starting caller's values, not its cancellation.
func TestWorkKeepsValues(t *testing.T) {
	var g Group[string, string]
	ctx := context.WithValue(context.Background(), ctxKey{}, "member alice")
	v, started, err := g.Do(ctx, "k", func(wctx context.Context) string {
		s, _ := wctx.Value(ctxKey{}).(string)
		return s
	})
	require.NoError(t, err)
	require.True(t, started)
	require.Equal(t, "member alice", v)
}

func TestEndedContextStartsNothing(t *testing.T) {
	var g Group[string, string]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	_, started, err := g.Do(ctx, "k", func(context.Context) string { ran = true; return "" })
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, started)
	require.False(t, ran)
	require.Equal(t, 0, g.runsLen())
}

// TestConcurrentCallersLeaveAtRandom: 8 goroutines × 200 calls over 4 keys,
// a third of them cancelled at a random moment. Every answer is its key's;
// a call with a live context never gets an error; nothing is left behind.
// Run with -race.
func TestConcurrentCallersLeaveAtRandom(t *testing.T) {
	var g Group[int, string]
	var wg sync.WaitGroup
	var runs atomic.Int64
	for w := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for range 200 {
				key := rng.IntN(4)
				ctx, cancel := context.WithCancel(context.Background())
				leave := rng.IntN(3) == 0
				if leave {
					after := time.Duration(rng.IntN(200)) * time.Microsecond
					go func() {
						time.Sleep(after)
						cancel()
					}()
				}
				v, _, err := g.Do(ctx, key, func(wctx context.Context) string {
					runs.Add(1)
					select {
					case <-time.After(time.Duration(key*50) * time.Microsecond):
					case <-wctx.Done():
						return "cancelled"
					}
					return fmt.Sprint("answer ", key)
				})
				if err != nil {
					require.True(t, leave, "a live caller got %v", err)
					require.ErrorIs(t, err, context.Canceled)
				} else {
					require.Equal(t, fmt.Sprint("answer ", key), v)
				}
				cancel()
			}
		})
	}
	wg.Wait()
	require.Eventually(t, func() bool { return g.runsLen() == 0 }, 30*time.Second, time.Millisecond)
	require.Positive(t, runs.Load())
}
