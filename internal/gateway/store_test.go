package gateway_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway/redistest"
)

// openRedis returns a RedisStore on srv, closed when t ends.
func openRedis(t testing.TB, srv *redistest.Server) *gateway.RedisStore {
	t.Helper()
	s, err := gateway.OpenRedis(srv.URL, gateway.RedisOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	require.NoError(t, s.Ping(context.Background()))
	return s
}

// stores returns each Store implementation as two handles on one state:
// two replicas. For MemStore both handles are the same store.
func stores(t *testing.T) map[string][2]gateway.Store {
	srv := redistest.Start(t)
	mem := gateway.NewMemStore(gateway.MemStoreOptions{})
	return map[string][2]gateway.Store{
		"mem":   {mem, mem},
		"redis": {openRedis(t, srv), openRedis(t, srv)},
	}
}

// TestStoreContract runs the same cases against MemStore and two
// RedisStore clients: what one replica writes, the other reads.
func TestStoreContract(t *testing.T) {
	ctx := context.Background()
	for name, pair := range stores(t) {
		a, b := pair[0], pair[1]
		t.Run(name, func(t *testing.T) {
			t.Run("get set expire", func(t *testing.T) {
				_, ok, err := b.Get(ctx, "k1")
				require.NoError(t, err)
				require.False(t, ok)
				require.NoError(t, a.Set(ctx, "k1", []byte("v1"), 100*time.Millisecond))
				v, ok, err := b.Get(ctx, "k1")
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, "v1", string(v))
				time.Sleep(150 * time.Millisecond)
				_, ok, err = b.Get(ctx, "k1")
				require.NoError(t, err)
				require.False(t, ok, "value outlived its ttl")
			})
			t.Run("lock", func(t *testing.T) {
				ok, err := a.SetNX(ctx, "l1", []byte("A"), time.Minute)
				require.NoError(t, err)
				require.True(t, ok)
				ok, err = b.SetNX(ctx, "l1", []byte("B"), time.Minute)
				require.NoError(t, err)
				require.False(t, ok, "second SetNX won a held lock")
				ok, err = b.DelIf(ctx, "l1", []byte("B"))
				require.NoError(t, err)
				require.False(t, ok, "DelIf released another owner's lock")
				ok, err = b.ExpireIf(ctx, "l1", []byte("B"), time.Millisecond)
				require.NoError(t, err)
				require.False(t, ok, "ExpireIf changed another owner's lock")
				ok, err = a.ExpireIf(ctx, "l1", []byte("A"), 80*time.Millisecond)
				require.NoError(t, err)
				require.True(t, ok)
				time.Sleep(120 * time.Millisecond)
				ok, err = b.SetNX(ctx, "l1", []byte("B"), time.Minute)
				require.NoError(t, err)
				require.True(t, ok, "lock did not expire after ExpireIf shortened it")
				ok, err = b.DelIf(ctx, "l1", []byte("B"))
				require.NoError(t, err)
				require.True(t, ok)
				_, held, err := a.Get(ctx, "l1")
				require.NoError(t, err)
				require.False(t, held)
			})
			t.Run("incr up to", func(t *testing.T) {
				exp := time.Now().Add(time.Minute)
				for i, s := range []gateway.Store{a, b, a} {
					n, ok, err := s.IncrUpTo(ctx, "q1", 3, exp)
					require.NoError(t, err)
					require.True(t, ok)
					require.Equal(t, int64(i+1), n)
				}
				n, ok, err := b.IncrUpTo(ctx, "q1", 3, exp)
				require.NoError(t, err)
				require.False(t, ok, "counter passed its limit")
				require.Equal(t, int64(3), n)
				n, ok, err = a.IncrUpTo(ctx, "q1", 0, time.Time{})
				require.NoError(t, err)
				require.False(t, ok)
				require.Equal(t, int64(3), n, "limit 0 reads the count")
				n, ok, err = a.IncrUpTo(ctx, "q2", 1, time.Now().Add(100*time.Millisecond))
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, int64(1), n)
				time.Sleep(150 * time.Millisecond)
				n, ok, err = b.IncrUpTo(ctx, "q2", 1, time.Now().Add(time.Minute))
				require.NoError(t, err)
				require.True(t, ok, "counter outlived expireAt")
				require.Equal(t, int64(1), n)
			})
			t.Run("slots", func(t *testing.T) {
				for i, s := range []gateway.Store{a, b} {
					n, ok, err := s.AcquireSlot(ctx, "f1", fmt.Sprint("id", i), 2, time.Minute)
					require.NoError(t, err)
					require.True(t, ok)
					require.Equal(t, i+1, n)
				}
				n, ok, err := a.AcquireSlot(ctx, "f1", "id2", 2, time.Minute)
				require.NoError(t, err)
				require.False(t, ok, "third slot of two granted")
				require.Equal(t, 2, n)
				require.NoError(t, b.ReleaseSlot(ctx, "f1", "id0"))
				require.NoError(t, b.ReleaseSlot(ctx, "f1", "never-taken"))
				_, ok, err = a.AcquireSlot(ctx, "f1", "id2", 2, time.Minute)
				require.NoError(t, err)
				require.True(t, ok, "released slot not free")
				// A slot never released frees itself after its ttl.
				_, ok, err = a.AcquireSlot(ctx, "f2", "lost", 1, 80*time.Millisecond)
				require.NoError(t, err)
				require.True(t, ok)
				_, ok, err = b.AcquireSlot(ctx, "f2", "next", 1, time.Minute)
				require.NoError(t, err)
				require.False(t, ok)
				time.Sleep(120 * time.Millisecond)
				_, ok, err = b.AcquireSlot(ctx, "f2", "next", 1, time.Minute)
				require.NoError(t, err)
				require.True(t, ok, "lost slot did not expire")
			})
			t.Run("rate", func(t *testing.T) {
				window := 300 * time.Millisecond
				start := time.Now()
				for i := range 4 {
					ok, _, err := []gateway.Store{a, b}[i%2].TakeRate(ctx, "r1", 4, window)
					require.NoError(t, err)
					require.True(t, ok, "event %d of 4 refused", i)
				}
				ok, retry, err := b.TakeRate(ctx, "r1", 4, window)
				require.NoError(t, err)
				require.False(t, ok, "fifth event in the window allowed")
				// The oldest event is between start and now, so it leaves
				// the window within [window-elapsed, window].
				require.LessOrEqual(t, retry, window)
				require.GreaterOrEqual(t, retry, window-time.Since(start)-5*time.Millisecond)
				time.Sleep(retry + 5*time.Millisecond)
				ok, _, err = a.TakeRate(ctx, "r1", 4, window)
				require.NoError(t, err)
				require.True(t, ok, "no slot after retryIn")
			})
		})
	}
}

// TestStoreRateConcurrent: 200 events from 20 goroutines on two replicas
// against a limit of 50 per 10 s: exactly 50 get through.
func TestStoreRateConcurrent(t *testing.T) {
	for name, pair := range stores(t) {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			allowed := 0
			var wg sync.WaitGroup
			for g := range 20 {
				wg.Go(func() {
					for range 10 {
						ok, _, err := pair[g%2].TakeRate(context.Background(), "burst", 50, 10*time.Second)
						require.NoError(t, err)
						if ok {
							mu.Lock()
							allowed++
							mu.Unlock()
						}
					}
				})
			}
			wg.Wait()
			require.Equal(t, 50, allowed)
		})
	}
}

func TestMemStoreEvictsOverMaxBytes(t *testing.T) {
	ctx := context.Background()
	s := gateway.NewMemStore(gateway.MemStoreOptions{MaxBytes: 100})
	require.NoError(t, s.Set(ctx, "soon", make([]byte, 40), time.Second))
	require.NoError(t, s.Set(ctx, "late", make([]byte, 40), time.Hour))
	require.NoError(t, s.Set(ctx, "new", make([]byte, 40), time.Minute))
	for _, c := range []struct {
		key  string
		want bool
	}{{"soon", false}, {"late", true}, {"new", true}} {
		_, ok, err := s.Get(ctx, c.key)
		require.NoError(t, err)
		require.Equal(t, c.want, ok, c.key)
	}
}

func TestOpenRedisURLErrorHidesPassword(t *testing.T) {
	_, err := gateway.OpenRedis("http://user:hunter2-secret@host:6379", gateway.RedisOptions{})
	require.ErrorIs(t, err, gateway.ErrRedisURL)
	require.NotContains(t, err.Error(), "hunter2")
}
