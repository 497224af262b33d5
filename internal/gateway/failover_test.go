package gateway_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
)

// flakyStore is a MemStore that fails every call while down is set, and
// counts the calls that reach it.
type flakyStore struct {
	*gateway.MemStore
	down  atomic.Bool
	calls atomic.Int32
	err   error
}

func (f *flakyStore) fail() error {
	f.calls.Add(1)
	if f.down.Load() {
		return f.err
	}
	return nil
}

func (f *flakyStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := f.fail(); err != nil {
		return nil, false, err
	}
	return f.MemStore.Get(ctx, key)
}

func (f *flakyStore) Set(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.MemStore.Set(ctx, key, v, ttl)
}

func TestFailoverStore(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}
	primary := &flakyStore{MemStore: gateway.NewMemStore(gateway.MemStoreOptions{}), err: errors.New("redis get: connection refused")}
	local := gateway.NewMemStore(gateway.MemStoreOptions{})
	m := gateway.NewMetrics()
	var logs logBuf
	f := gateway.NewFailoverStore(primary, local, gateway.FailoverOptions{Logf: logs.Logf, Metrics: m, Now: c.Now, RetryAfter: time.Second})

	require.NoError(t, f.Set(ctx, "k", []byte("shared"), time.Hour))
	v, ok, err := f.Get(ctx, "k")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "shared", string(v))

	primary.down.Store(true)
	steps := []struct {
		name         string
		advance      time.Duration
		wantValue    string // "" means absent
		wantPrimary  int32  // calls reaching the primary in this step
		wantDegraded bool
	}{
		{"first failure falls back", 0, "", 1, true},
		{"primary left alone within RetryAfter", 500 * time.Millisecond, "", 0, true},
		{"primary tried again after RetryAfter", 600 * time.Millisecond, "", 1, true},
	}
	for _, s := range steps {
		c.Add(s.advance)
		before := primary.calls.Load()
		v, ok, err := f.Get(ctx, "k")
		require.NoError(t, err, s.name)
		require.Equal(t, s.wantValue != "", ok, s.name)
		require.Equal(t, s.wantValue, string(v), s.name)
		require.Equal(t, s.wantPrimary, primary.calls.Load()-before, s.name)
		require.Equal(t, s.wantDegraded, f.Degraded(), s.name)
	}
	require.Equal(t, uint64(3), m.RedisFallbacks.Value())
	require.Equal(t, "gateway: redis failed (redis get: connection refused); using in-process state until it answers again", logs.String())

	primary.down.Store(false)
	c.Add(2 * time.Second)
	v, _, err = f.Get(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, "shared", string(v))
	require.False(t, f.Degraded())
	require.Contains(t, logs.String(), "\ngateway: redis answers again; shared state is back in use")

	// The caller's own cancellation is not an outage.
	primary.err = context.Canceled
	primary.down.Store(true)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = f.Get(cctx, "k")
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, f.Degraded())
	require.Equal(t, uint64(3), m.RedisFallbacks.Value())
}

// TestFallbackReleasesBoth: a lock or slot taken in the local store during
// an outage is released there even when Redis answers again.
func TestFallbackReleasesBoth(t *testing.T) {
	ctx := context.Background()
	primary := gateway.NewMemStore(gateway.MemStoreOptions{})
	local := gateway.NewMemStore(gateway.MemStoreOptions{})
	f := gateway.NewFailoverStore(primary, local, gateway.FailoverOptions{Logf: t.Logf})
	ok, err := local.SetNX(ctx, "lock", []byte("me"), time.Hour)
	require.NoError(t, err)
	require.True(t, ok)
	_, ok, err = local.AcquireSlot(ctx, "slots", "id", 1, time.Hour)
	require.NoError(t, err)
	require.True(t, ok)

	ok, err = f.DelIf(ctx, "lock", []byte("me"))
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, f.ReleaseSlot(ctx, "slots", "id"))
	_, held, _ := local.Get(ctx, "lock")
	require.False(t, held, "local lock not released")
	_, ok, _ = local.AcquireSlot(ctx, "slots", "other", 1, time.Hour)
	require.True(t, ok, "local slot not released")
}

func (f *flakyStore) TakeRate(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	if err := f.fail(); err != nil {
		return false, 0, err
	}
	return f.MemStore.TakeRate(ctx, key, limit, window)
}
