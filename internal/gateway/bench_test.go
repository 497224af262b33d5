package gateway_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway/redistest"
)

// benchStores returns a MemStore and a RedisStore on a fresh redis-server.
func benchStores(b *testing.B) []struct {
	name  string
	store gateway.Store
} {
	srv := redistest.Start(b)
	return []struct {
		name  string
		store gateway.Store
	}{
		{"mem", gateway.NewMemStore(gateway.MemStoreOptions{})},
		{"redis", openRedis(b, srv)},
	}
}

// BenchmarkLimiterAdmit: a call's admission and release (Redis: three
// round trips: slot, quota, release).
func BenchmarkLimiterAdmit(b *testing.B) {
	for _, s := range benchStores(b) {
		b.Run(s.name, func(b *testing.B) {
			l, err := gateway.NewLimiter(s.store, gateway.Limits{PerDay: 1 << 30}, gateway.LimiterOptions{})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for b.Loop() {
				release, d := l.Admit(ctx, "alice")
				if !d.OK() {
					b.Fatal(d.Text())
				}
				release()
			}
		})
	}
}

// BenchmarkLimiterRate: one team rate decision (Redis: one script).
func BenchmarkLimiterRate(b *testing.B) {
	for _, s := range benchStores(b) {
		l, err := gateway.NewLimiter(s.store, gateway.Limits{SearchPerSecond: 1 << 30}, gateway.LimiterOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				if !l.Rate(ctx, gateway.Search).OK() {
					b.Fatal("refused")
				}
			}
		})
		b.Run(s.name+"-parallel", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if !l.Rate(ctx, gateway.Search).OK() {
						b.Error("refused")
						return
					}
				}
			})
		})
	}
}

// BenchmarkCacheHit: Do for a cached 4 KiB answer (Redis: one GET).
func BenchmarkCacheHit(b *testing.B) {
	answer := make([]byte, 4096)
	for _, s := range benchStores(b) {
		b.Run(s.name, func(b *testing.B) {
			c := gateway.NewCache(s.store, gateway.CacheOptions{})
			ctx := context.Background()
			id := []byte("fetch\x00https://go.dev/")
			c.Set(ctx, id, answer, time.Hour)
			for b.Loop() {
				if _, src, err := c.Do(ctx, id, time.Hour, nil); err != nil || src != gateway.CacheHit {
					b.Fatal(src, err)
				}
			}
		})
	}
}

// BenchmarkCacheMiss: Do for a new identity with instant work (Redis:
// GET, SET NX, GET, SET, and the lock's release).
func BenchmarkCacheMiss(b *testing.B) {
	answer := make([]byte, 4096)
	work := func(context.Context) ([]byte, error) { return answer, nil }
	for _, s := range benchStores(b) {
		b.Run(s.name, func(b *testing.B) {
			c := gateway.NewCache(s.store, gateway.CacheOptions{})
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				if _, src, err := c.Do(ctx, []byte(strconv.Itoa(i)), time.Minute, work); err != nil || src != gateway.Computed {
					b.Fatal(src, err)
				}
			}
		})
	}
}

// BenchmarkAuthenticate: one Authorization header against 100 members
// (a stat of the file and 100 constant-time comparisons).
func BenchmarkAuthenticate(b *testing.B) {
	path := filepath.Join(b.TempDir(), "tokens.json")
	var last string
	for i := range 100 {
		var err error
		if last, err = gateway.AddToken(path, fmt.Sprint("m", i), time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	tok, err := gateway.OpenTokens(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	header := "Bearer " + last
	for b.Loop() {
		if _, err := tok.Authenticate(header); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuditLog: one audit line with a masking func.
func BenchmarkAuditLog(b *testing.B) {
	a := gateway.NewAudit(io.Discard, func(s string) string { return s })
	r := gateway.AuditRecord{Time: time.Now(), Member: "alice", Tool: "fetch", URL: "https://go.dev/doc/", Outcome: "ok", Status: 200, Bytes: 4096, Billed: true, Duration: time.Second}
	for b.Loop() {
		if err := a.Log(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCoalesceAcrossReplicas: 20 identical calls over two replicas
// on one Redis, the work taking 200 ms (a DeepSeek request). Reports
// the DeepSeek requests per round (must be 1) and how much later than
// the computing call the last call on the other replica got the answer
// (the cost of polling for it).
func BenchmarkCoalesceAcrossReplicas(b *testing.B) {
	srv := redistest.Start(b)
	var cs [2]*gateway.Cache
	for i := range cs {
		cs[i] = gateway.NewCache(openRedis(b, srv), gateway.CacheOptions{})
	}
	ds := &deepseek{delay: 200 * time.Millisecond}
	var extra time.Duration
	round := 0
	for b.Loop() {
		round++
		id := []byte(strconv.Itoa(round))
		var wg sync.WaitGroup
		var mu sync.Mutex
		var computedAt, lastAt time.Time
		for i := range 20 {
			wg.Go(func() {
				_, src, err := cs[i%2].Do(context.Background(), id, time.Minute, ds.work("x"))
				now := time.Now()
				if err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if src == gateway.Computed {
					computedAt = now
				}
				if now.After(lastAt) {
					lastAt = now
				}
			})
		}
		wg.Wait()
		extra += lastAt.Sub(computedAt)
	}
	b.ReportMetric(float64(ds.calls.Load())/float64(round), "deepseek-requests/op")
	b.ReportMetric(float64(extra.Milliseconds())/float64(round), "extra-ms/op")
}
