package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway/redistest"
)

// clock is a settable clock for MemStore and Limiter.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func fakeLimiter(t *testing.T, lim gateway.Limits, at string) (*gateway.Limiter, *clock) {
	t.Helper()
	start, err := time.Parse(time.RFC3339, at)
	require.NoError(t, err)
	c := &clock{t: start}
	store := gateway.NewMemStore(gateway.MemStoreOptions{Now: c.Now})
	l, err := gateway.NewLimiter(store, lim, gateway.LimiterOptions{Now: c.Now, Logf: t.Logf})
	require.NoError(t, err)
	return l, c
}

func TestLimiterQuota(t *testing.T) {
	tests := []struct {
		name      string
		resetAt   time.Duration
		at        string
		wantReset string
		untilNext time.Duration
	}{
		{"midnight", 0, "2026-12-02T22:30:00Z", "2026-12-03 00:00 UTC", 90 * time.Minute},
		{"six in the evening, before", 18 * time.Hour, "2026-12-02T17:59:00Z", "2026-12-02 18:00 UTC", time.Minute},
		{"six in the evening, after", 18 * time.Hour, "2026-12-02T18:00:00Z", "2026-12-03 18:00 UTC", 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, c := fakeLimiter(t, gateway.Limits{PerDay: 3, ResetAt: tt.resetAt}, tt.at)
			ctx := context.Background()
			for i := range 3 {
				release, d := l.Admit(ctx, "alice")
				require.True(t, d.OK(), "call %d: %s", i, d.Text())
				require.Equal(t, gateway.OutcomeOK, d.Outcome())
				require.Empty(t, d.Text())
				require.NoError(t, d.Err())
				release()
			}
			_, d := l.Admit(ctx, "alice")
			require.False(t, d.OK())
			require.Equal(t, gateway.QuotaSpent, d.Reason)
			require.Equal(t, gateway.OutcomeQuota, d.Outcome())
			require.Equal(t, "quota spent: alice has made all 3 calls allowed per day; the quota resets at "+tt.wantReset, d.Text())
			var le *gateway.LimitError
			require.ErrorAs(t, d.Err(), &le)
			require.Equal(t, d.Text(), le.Error())
			used, err := l.QuotaUsed(ctx, "alice")
			require.NoError(t, err)
			require.Equal(t, int64(3), used, "a refused call used quota")

			_, d = l.Admit(ctx, "bob")
			require.True(t, d.OK(), "bob pays for alice's quota")

			c.Add(tt.untilNext - time.Second)
			_, d = l.Admit(ctx, "alice")
			require.False(t, d.OK(), "quota reset a second early")
			c.Add(time.Second)
			_, d = l.Admit(ctx, "alice")
			require.True(t, d.OK(), "quota did not reset at %s", tt.wantReset)
		})
	}
}

func TestLimiterInFlight(t *testing.T) {
	l, _ := fakeLimiter(t, gateway.Limits{InFlight: 2, PerDay: 10}, "2026-12-02T10:00:00Z")
	ctx := context.Background()
	r1, d := l.Admit(ctx, "alice")
	require.True(t, d.OK())
	r2, d := l.Admit(ctx, "alice")
	require.True(t, d.OK())
	_, d = l.Admit(ctx, "alice")
	require.Equal(t, gateway.MemberBusy, d.Reason)
	require.Equal(t, gateway.OutcomeBusy, d.Outcome())
	require.Equal(t, "busy: alice already has 2 calls in flight, the most allowed; retry when one of them finishes", d.Text())
	_, d = l.Admit(ctx, "bob")
	require.True(t, d.OK(), "alice's calls count against bob")
	used, err := l.QuotaUsed(ctx, "alice")
	require.NoError(t, err)
	require.Equal(t, int64(2), used, "a call refused as busy used quota")
	r1()
	r1() // a second release frees nothing more
	r3, d := l.Admit(ctx, "alice")
	require.True(t, d.OK(), "released slot not free")
	_, d = l.Admit(ctx, "alice")
	require.False(t, d.OK(), "double release freed two slots")
	r2()
	r3()
}

func TestLimiterTeamRate(t *testing.T) {
	l, c := fakeLimiter(t, gateway.Limits{SearchPerSecond: 2, FetchPerSecond: 1}, "2026-12-02T10:00:00Z")
	ctx := context.Background()
	require.True(t, l.Rate(ctx, gateway.Search).OK())
	c.Add(300 * time.Millisecond)
	require.True(t, l.Rate(ctx, gateway.Search).OK())
	require.True(t, l.Rate(ctx, gateway.Fetch).OK(), "Search requests count against Fetch")
	tests := []struct {
		kind gateway.Endpoint
		want string
	}{
		{gateway.Search, "busy: the team is at its limit of 2 Search requests per second; retry in 700ms"},
		{gateway.Fetch, "busy: the team is at its limit of 1 Fetch requests per second; retry in 1s"},
	}
	for _, tt := range tests {
		d := l.Rate(ctx, tt.kind)
		require.Equal(t, gateway.TeamBusy, d.Reason)
		require.Equal(t, gateway.OutcomeBusy, d.Outcome())
		require.Equal(t, tt.want, d.Text())
	}
	c.Add(700 * time.Millisecond)
	require.True(t, l.Rate(ctx, gateway.Search).OK(), "no Search slot after retry-in")
}

func TestNewLimiter(t *testing.T) {
	l, err := gateway.NewLimiter(gateway.NewMemStore(gateway.MemStoreOptions{}), gateway.Limits{}, gateway.LimiterOptions{})
	require.NoError(t, err)
	require.Equal(t, gateway.Limits{InFlight: 8, InFlightTTL: 5 * time.Minute, SearchPerSecond: 80, FetchPerSecond: 20, Replicas: 1, MaxWait: 2 * time.Second}, l.Limits())
	bad := []struct {
		lim  gateway.Limits
		want string
	}{
		{gateway.Limits{PerDay: -1}, "limits: per-day quota is -1; want 0 (the default) or more"},
		{gateway.Limits{InFlight: -2}, "limits: calls in flight is -2; want 0 (the default) or more"},
		{gateway.Limits{SearchPerSecond: -1}, "limits: Search requests per second is -1; want 0 (the default) or more"},
		{gateway.Limits{FetchPerSecond: -1}, "limits: Fetch requests per second is -1; want 0 (the default) or more"},
		{gateway.Limits{ResetAt: 24 * time.Hour}, "limits: quota reset time 24h0m0s is not within a day (0 to 23:59 after midnight UTC)"},
	}
	for _, b := range bad {
		_, err := gateway.NewLimiter(gateway.NewMemStore(gateway.MemStoreOptions{}), b.lim, gateway.LimiterOptions{})
		require.EqualError(t, err, b.want)
	}
}

func TestLimiterWaitRate(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		maxWait  time.Duration
		wantOK   bool
		wantWait bool
	}{
		{"waits for the slot", 0, true, true},
		{"never waits", -1, false, false},
		{"slot too far away", 100 * time.Millisecond, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := gateway.NewMetrics()
			l, err := gateway.NewLimiter(gateway.NewMemStore(gateway.MemStoreOptions{}),
				gateway.Limits{SearchPerSecond: 1, MaxWait: tt.maxWait}, gateway.LimiterOptions{Metrics: m})
			require.NoError(t, err)
			d, err := l.WaitRate(ctx, gateway.Search)
			require.NoError(t, err)
			require.True(t, d.OK())
			sawWaiting := make(chan int64, 1)
			go func() {
				time.Sleep(300 * time.Millisecond)
				sawWaiting <- m.Waiting.Value()
			}()
			start := time.Now()
			d, err = l.WaitRate(ctx, gateway.Search)
			require.NoError(t, err)
			require.Equal(t, tt.wantOK, d.OK(), d.Text())
			if tt.wantWait {
				require.InDelta(t, time.Second, time.Since(start), float64(150*time.Millisecond))
				require.Equal(t, int64(1), <-sawWaiting)
			} else {
				require.Less(t, time.Since(start), 50*time.Millisecond)
				require.Contains(t, d.Text(), "busy: the team is at its limit of 1 Search requests per second; retry in ")
			}
			require.Equal(t, int64(0), m.Waiting.Value())
		})
	}
	t.Run("context ends", func(t *testing.T) {
		l, err := gateway.NewLimiter(gateway.NewMemStore(gateway.MemStoreOptions{}), gateway.Limits{FetchPerSecond: 1}, gateway.LimiterOptions{})
		require.NoError(t, err)
		require.True(t, l.Rate(ctx, gateway.Fetch).OK())
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err = l.WaitRate(cctx, gateway.Fetch)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
}

// replicaLimiters returns two Limiters, each with its own Redis client on
// srv behind a FailoverStore: two gateway replicas.
func replicaLimiters(t *testing.T, srv *redistest.Server, lim gateway.Limits) [2]*gateway.Limiter {
	var out [2]*gateway.Limiter
	for i := range out {
		st := gateway.NewFailoverStore(openRedis(t, srv), gateway.NewMemStore(gateway.MemStoreOptions{}), gateway.FailoverOptions{Logf: t.Logf})
		l, err := gateway.NewLimiter(st, lim, gateway.LimiterOptions{Logf: t.Logf})
		require.NoError(t, err)
		out[i] = l
	}
	return out
}

func TestLimiterTwoReplicas(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	t.Run("quota", func(t *testing.T) {
		r := replicaLimiters(t, srv, gateway.Limits{PerDay: 5})
		allowed := 0
		for i := range 8 {
			release, d := r[i%2].Admit(ctx, "alice")
			if d.OK() {
				allowed++
				release()
			} else {
				require.Equal(t, gateway.QuotaSpent, d.Reason)
			}
		}
		require.Equal(t, 5, allowed)
		for _, l := range r {
			used, err := l.QuotaUsed(ctx, "alice")
			require.NoError(t, err)
			require.Equal(t, int64(5), used, "replicas disagree on the quota")
		}
	})
	t.Run("in flight", func(t *testing.T) {
		r := replicaLimiters(t, srv, gateway.Limits{InFlight: 3})
		var releases []func()
		for i := range 3 {
			release, d := r[i%2].Admit(ctx, "carol")
			require.True(t, d.OK())
			releases = append(releases, release)
		}
		for _, l := range r {
			_, d := l.Admit(ctx, "carol")
			require.Equal(t, gateway.MemberBusy, d.Reason)
		}
		releases[0]() // taken on replica 0
		_, d := r[1].Admit(ctx, "carol")
		require.True(t, d.OK(), "a slot released on one replica is not free on the other")
	})
	t.Run("team rate", func(t *testing.T) {
		r := replicaLimiters(t, srv, gateway.Limits{SearchPerSecond: 10})
		var mu sync.Mutex
		allowed := 0
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				if r[i%2].Rate(ctx, gateway.Search).OK() {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		require.Equal(t, 10, allowed, "the team rate does not hold across replicas")
	})
}

// logBuf collects log lines from several goroutines.
type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (b *logBuf) Logf(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, fmt.Sprintf(format, args...))
}

func (b *logBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

// TestLimiterRedisOutage: Redis stops mid-run; calls still get decisions
// (from the local store), quickly, with one log line and a counter; when
// Redis is back, the replica uses it again.
func TestLimiterRedisOutage(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	m := gateway.NewMetrics()
	var logs logBuf
	st := gateway.NewFailoverStore(openRedis(t, srv), gateway.NewMemStore(gateway.MemStoreOptions{}),
		gateway.FailoverOptions{Logf: logs.Logf, Metrics: m, RetryAfter: 50 * time.Millisecond})
	l, err := gateway.NewLimiter(st, gateway.Limits{PerDay: 100, InFlight: 4}, gateway.LimiterOptions{Logf: logs.Logf})
	require.NoError(t, err)
	for range 3 {
		release, d := l.Admit(ctx, "alice")
		require.True(t, d.OK())
		release()
	}
	require.Equal(t, uint64(0), m.RedisFallbacks.Value())

	srv.Stop()
	for i := range 20 {
		start := time.Now()
		release, d := l.Admit(ctx, "alice")
		require.True(t, d.OK(), "call %d during the outage: %s", i, d.Text())
		require.True(t, l.Rate(ctx, gateway.Search).OK())
		release()
		require.Less(t, time.Since(start), time.Second, "call %d waited on the dead Redis", i)
	}
	require.True(t, st.Degraded())
	require.Greater(t, m.RedisFallbacks.Value(), uint64(20))
	require.Equal(t, 1, strings.Count(logs.String(), "redis failed"), logs.String())

	require.NoError(t, srv.Restart())
	time.Sleep(60 * time.Millisecond)
	_, d := l.Admit(ctx, "alice")
	require.True(t, d.OK())
	require.False(t, st.Degraded(), "Redis answers again but the replica still falls back")
	require.Contains(t, logs.String(), "redis answers again")
	used, err := l.QuotaUsed(ctx, "alice")
	require.NoError(t, err)
	require.Equal(t, int64(1), used, "after the restart the (empty) Redis counts again")
}

// TestLimiterDegradedShare: while Redis is down, each of three replicas
// allows a third of the team rate (rounded up), so the team stays under
// it; when Redis is back the whole rate is shared again.
func TestLimiterDegradedShare(t *testing.T) {
	ctx := context.Background()
	primary := &flakyStore{MemStore: gateway.NewMemStore(gateway.MemStoreOptions{}), err: errors.New("redis: connection refused")}
	f := gateway.NewFailoverStore(primary, gateway.NewMemStore(gateway.MemStoreOptions{}), gateway.FailoverOptions{Logf: t.Logf, RetryAfter: time.Nanosecond})
	l, err := gateway.NewLimiter(f, gateway.Limits{SearchPerSecond: 10, Replicas: 3}, gateway.LimiterOptions{Logf: t.Logf})
	require.NoError(t, err)
	count := func(kind gateway.Endpoint, n int) int {
		allowed := 0
		for range n {
			if l.Rate(ctx, kind).OK() {
				allowed++
			}
		}
		return allowed
	}
	require.Equal(t, 10, count(gateway.Search, 15))
	primary.down.Store(true)
	_, _, _ = f.Get(ctx, "probe") // the outage begins
	require.True(t, f.Degraded())
	require.Equal(t, 4, count(gateway.Search, 15), "a replica alone allows more than its share")
	d := l.Rate(ctx, gateway.Search)
	require.Contains(t, d.Text(), "busy: the team is at its limit of 4 Search requests per second; retry in ")
}
