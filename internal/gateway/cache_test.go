package gateway_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway/redistest"
)

// replicaCaches returns two Caches, each with its own Redis client on srv
// behind a FailoverStore, and the Fallbacks.
func replicaCaches(t *testing.T, srv *redistest.Server, opts gateway.CacheOptions) ([2]*gateway.Cache, [2]*gateway.FailoverStore) {
	var cs [2]*gateway.Cache
	var fs [2]*gateway.FailoverStore
	opts.Logf = t.Logf
	for i := range cs {
		fs[i] = gateway.NewFailoverStore(openRedis(t, srv), gateway.NewMemStore(gateway.MemStoreOptions{}),
			gateway.FailoverOptions{Logf: t.Logf, RetryAfter: 50 * time.Millisecond})
		cs[i] = gateway.NewCache(fs[i], opts)
	}
	return cs, fs
}

// deepseek counts the work a Cache runs: one "request to DeepSeek" each.
type deepseek struct {
	calls atomic.Int32
	delay time.Duration
	fail  atomic.Int32 // fail this many calls first
}

func (d *deepseek) work(answer string) func(context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		d.calls.Add(1)
		select {
		case <-time.After(d.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if d.fail.Add(-1) >= 0 {
			return nil, errors.New("deepseek: 503")
		}
		return []byte(answer), nil
	}
}

func TestCacheTwentyCallsTwoReplicasOneRequest(t *testing.T) {
	srv := redistest.Start(t)
	cs, _ := replicaCaches(t, srv, gateway.CacheOptions{})
	ds := &deepseek{delay: 300 * time.Millisecond}
	id := []byte("search\x00golang generics\x00v1")
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	sources := map[gateway.Source]int{}
	for i := range 20 {
		wg.Go(func() {
			v, src, err := cs[i%2].Do(ctx, id, time.Minute, ds.work("answer"))
			require.NoError(t, err)
			require.Equal(t, "answer", string(v))
			mu.Lock()
			sources[src]++
			mu.Unlock()
		})
	}
	wg.Wait()
	require.Equal(t, int32(1), ds.calls.Load(), "20 identical calls reached DeepSeek more than once")
	require.Equal(t, map[gateway.Source]int{gateway.Computed: 1, gateway.Coalesced: 19}, sources)

	// The answer one replica computed is served by the other from the cache.
	for _, c := range cs {
		v, src, err := c.Do(ctx, id, time.Minute, ds.work("other"))
		require.NoError(t, err)
		require.Equal(t, gateway.CacheHit, src)
		require.Equal(t, "answer", string(v))
	}
	require.Equal(t, int32(1), ds.calls.Load())
}

func TestCacheIdentities(t *testing.T) {
	srv := redistest.Start(t)
	cs, _ := replicaCaches(t, srv, gateway.CacheOptions{})
	ds := &deepseek{}
	ctx := context.Background()
	tests := []struct {
		identity, answer string
		want             gateway.Source
	}{
		{"fetch\x00https://go.dev/\x00text", "page text", gateway.Computed},
		{"fetch\x00https://go.dev/\x00html", "page html", gateway.Computed},
		{"fetch\x00https://go.dev/\x00text", "unused", gateway.CacheHit},
	}
	for i, tt := range tests {
		v, src, err := cs[i%2].Do(ctx, []byte(tt.identity), time.Minute, ds.work(tt.answer))
		require.NoError(t, err)
		require.Equal(t, tt.want, src, tt.identity)
		if tt.want == gateway.CacheHit {
			require.Equal(t, "page text", string(v))
		} else {
			require.Equal(t, tt.answer, string(v))
		}
	}
	require.Equal(t, int32(2), ds.calls.Load())
	require.Regexp(t, `^c:[0-9a-f]{64}$`, gateway.Key([]byte("fetch\x00https://go.dev/?key=sk-secret")))
	require.NotContains(t, gateway.Key([]byte("sk-secret")), "secret")
}

func TestCacheErrorsAreNotCached(t *testing.T) {
	srv := redistest.Start(t)
	cs, _ := replicaCaches(t, srv, gateway.CacheOptions{})
	ds := &deepseek{delay: 100 * time.Millisecond}
	ds.fail.Store(1)
	ctx := context.Background()
	id := []byte("search\x00flaky")
	// Three calls on one replica share the failing run and its error.
	var wg sync.WaitGroup
	var failed atomic.Int32
	for range 3 {
		wg.Go(func() {
			_, _, err := cs[0].Do(ctx, id, time.Minute, ds.work("ok"))
			if err != nil {
				require.EqualError(t, err, "deepseek: 503")
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	require.Equal(t, int32(3), failed.Load())
	require.Equal(t, int32(1), ds.calls.Load())
	v, src, err := cs[1].Do(ctx, id, time.Minute, ds.work("ok"))
	require.NoError(t, err)
	require.Equal(t, gateway.Computed, src, "the error was cached")
	require.Equal(t, "ok", string(v))
}

// TestCacheTakeOver: the replica holding the lock dies (its lock is left
// behind, no answer comes); a waiting replica computes once the lock
// expires, or once WaitTimeout passes if the lock is kept alive.
func TestCacheTakeOver(t *testing.T) {
	srv := redistest.Start(t)
	tests := []struct {
		name    string
		lockTTL time.Duration
		opts    gateway.CacheOptions
		minWait time.Duration
	}{
		{"lock expires", 300 * time.Millisecond, gateway.CacheOptions{}, 250 * time.Millisecond},
		{"wait times out", time.Minute, gateway.CacheOptions{WaitTimeout: 400 * time.Millisecond}, 400 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, _ := replicaCaches(t, srv, tt.opts)
			id := []byte("fetch\x00" + tt.name)
			dead := openRedis(t, srv)
			lockKey := "l:" + strings.TrimPrefix(gateway.Key(id), "c:")
			ok, err := dead.SetNX(context.Background(), lockKey, []byte("dead replica"), tt.lockTTL)
			require.NoError(t, err)
			require.True(t, ok)
			ds := &deepseek{}
			start := time.Now()
			v, src, err := cs[0].Do(context.Background(), id, time.Minute, ds.work("mine"))
			require.NoError(t, err)
			require.Equal(t, gateway.Computed, src)
			require.Equal(t, "mine", string(v))
			require.GreaterOrEqual(t, time.Since(start), tt.minWait, "did not wait for the lock owner")
			require.Less(t, time.Since(start), tt.minWait+time.Second)
		})
	}
}

// TestCacheLockRenewed: work that outlasts LockTTL keeps its lock, so the
// other replica waits instead of computing a second time.
func TestCacheLockRenewed(t *testing.T) {
	srv := redistest.Start(t)
	cs, _ := replicaCaches(t, srv, gateway.CacheOptions{LockTTL: 150 * time.Millisecond})
	ds := &deepseek{delay: 600 * time.Millisecond}
	id := []byte("search\x00slow")
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			if i == 1 {
				time.Sleep(50 * time.Millisecond)
			}
			v, _, err := cs[i].Do(context.Background(), id, time.Minute, ds.work("slow answer"))
			require.NoError(t, err)
			require.Equal(t, "slow answer", string(v))
		})
	}
	wg.Wait()
	require.Equal(t, int32(1), ds.calls.Load(), "the lock expired while its owner worked")
}

func TestCacheCallerGoesAway(t *testing.T) {
	c := gateway.NewCache(gateway.NewMemStore(gateway.MemStoreOptions{}), gateway.CacheOptions{})
	workEnded := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, _, err := c.Do(ctx, []byte("x"), time.Minute, func(wctx context.Context) ([]byte, error) {
		<-wctx.Done()
		workEnded <- wctx.Err()
		return nil, wctx.Err()
	})
	require.ErrorIs(t, err, context.Canceled)
	select {
	case err := <-workEnded:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(time.Second):
		t.Fatal("work kept running after its only caller left")
	}
}

func TestCacheInProcess(t *testing.T) {
	c := gateway.NewCache(gateway.NewMemStore(gateway.MemStoreOptions{}), gateway.CacheOptions{})
	ds := &deepseek{delay: 100 * time.Millisecond}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			v, _, err := c.Do(context.Background(), []byte("same"), time.Minute, ds.work("a"))
			require.NoError(t, err)
			require.Equal(t, "a", string(v))
		})
	}
	wg.Wait()
	require.Equal(t, int32(1), ds.calls.Load())
}

// TestCacheRedisOutage: Redis stops between calls and while a call waits
// on another replica's lock; every call still gets its answer.
func TestCacheRedisOutage(t *testing.T) {
	srv := redistest.Start(t)
	cs, fs := replicaCaches(t, srv, gateway.CacheOptions{})
	ctx := context.Background()
	ds := &deepseek{delay: 300 * time.Millisecond}
	_, _, err := cs[0].Do(ctx, []byte("before"), time.Minute, ds.work("b"))
	require.NoError(t, err)

	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			v, _, err := cs[i].Do(ctx, []byte("during"), time.Minute, ds.work("d"))
			require.NoError(t, err)
			require.Equal(t, "d", string(v))
		})
	}
	time.Sleep(100 * time.Millisecond)
	srv.Stop()
	wg.Wait()
	for i, id := range []string{"before", "after", "after"} {
		v, _, err := cs[i%2].Do(ctx, []byte(id), time.Minute, ds.work(id))
		require.NoError(t, err, id)
		require.Equal(t, id, string(v))
	}
	require.True(t, fs[0].Degraded() || fs[1].Degraded())
}

// TestCacheShortTTL: an answer with no useful ttl is still kept a second,
// so every kind of store lets waiting replicas read it (Redis would keep
// a ttl of 0 forever, a MemStore not at all).
func TestCacheShortTTL(t *testing.T) {
	srv := redistest.Start(t)
	type run struct {
		name string
		c    *gateway.Cache
		ttl  time.Duration
		ds   *deepseek
	}
	var runs []run
	for _, ttl := range []time.Duration{0, -time.Second, time.Millisecond} {
		for name, st := range map[string]gateway.Store{"mem": gateway.NewMemStore(gateway.MemStoreOptions{}), "redis": openRedis(t, srv)} {
			runs = append(runs, run{name + " ttl " + ttl.String(), gateway.NewCache(st, gateway.CacheOptions{}), ttl, &deepseek{}})
		}
	}
	ctx := context.Background()
	for _, want := range []gateway.Source{gateway.Computed, gateway.CacheHit} {
		for _, r := range runs {
			_, src, err := r.c.Do(ctx, []byte(r.name), r.ttl, r.ds.work("a"))
			require.NoError(t, err)
			require.Equal(t, want, src, r.name)
		}
	}
	time.Sleep(1100 * time.Millisecond)
	for _, r := range runs {
		_, src, err := r.c.Do(ctx, []byte(r.name), r.ttl, r.ds.work("a"))
		require.NoError(t, err)
		require.Equal(t, gateway.Computed, src, r.name+": kept past a second")
	}
}

func TestCacheWorkPanics(t *testing.T) {
	c := gateway.NewCache(gateway.NewMemStore(gateway.MemStoreOptions{}), gateway.CacheOptions{})
	_, _, err := c.Do(context.Background(), []byte("p"), time.Minute, func(context.Context) ([]byte, error) {
		panic("decoder bug")
	})
	require.ErrorIs(t, err, gateway.ErrWorkPanicked)
	require.EqualError(t, err, "cache: work panicked: decoder bug")
}

// stuckUnlockStore is a MemStore whose DelIf (a flight releasing its
// coalescing lock, the last thing it does) waits until release is closed,
// after saying so on entered.
type stuckUnlockStore struct {
	*gateway.MemStore
	entered chan struct{}
	release chan struct{}
}

func (s *stuckUnlockStore) DelIf(ctx context.Context, key string, value []byte) (bool, error) {
	s.entered <- struct{}{}
	<-s.release
	return s.MemStore.DelIf(ctx, key, value)
}

// doneWatcher is a context that says on waiting when Do first asks for its
// Done channel: the call has joined or started a flight and waits for it.
type doneWatcher struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func (w *doneWatcher) Done() <-chan struct{} {
	w.once.Do(func() { close(w.waiting) })
	return w.Context.Done()
}

// TestCacheCancelledFlightNotJoined: the last caller of a flight leaves, so
// the flight is cancelled; while it unwinds (releasing its lock), a caller
// with a live context arrives. It must get an answer of its own, not the
// cancelled flight's "context canceled".
func TestCacheCancelledFlightNotJoined(t *testing.T) {
	store := &stuckUnlockStore{MemStore: gateway.NewMemStore(gateway.MemStoreOptions{}), entered: make(chan struct{}, 1), release: make(chan struct{})}
	c := gateway.NewCache(store, gateway.CacheOptions{Logf: t.Logf, Poll: time.Millisecond})
	id := []byte("fetch\x00https://go.dev/doc")

	started := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, _, err := c.Do(ctx, id, time.Minute, func(wctx context.Context) ([]byte, error) {
			close(started)
			<-wctx.Done()
			return nil, wctx.Err()
		})
		first <- err
	}()
	<-started
	cancel()
	require.ErrorIs(t, <-first, context.Canceled)
	<-store.entered // the cancelled flight is releasing its lock

	late := &doneWatcher{Context: context.Background(), waiting: make(chan struct{})}
	type result struct {
		v   string
		src gateway.Source
		err error
	}
	second := make(chan result, 1)
	go func() {
		v, src, err := c.Do(late, id, time.Minute, func(context.Context) ([]byte, error) { return []byte("fresh"), nil })
		second <- result{string(v), src, err}
	}()
	<-late.waiting // the late call has joined or started a flight
	close(store.release)
	select {
	case r := <-second:
		require.NoError(t, r.err, "a call with a live context joined a cancelled flight")
		require.Equal(t, result{"fresh", gateway.Computed, nil}, r)
	case <-time.After(30 * time.Second):
		t.Fatal("the late call got no answer within 30 s")
	}
}
