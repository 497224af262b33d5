package gateway_test

import (
	"context"
	"fmt"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
)

func ExampleLimiter_Admit() {
	now := func() time.Time { return time.Date(2026, 12, 2, 22, 30, 0, 0, time.UTC) }
	store := gateway.NewMemStore(gateway.MemStoreOptions{Now: now})
	l, err := gateway.NewLimiter(store, gateway.Limits{PerDay: 1}, gateway.LimiterOptions{Now: now})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for range 2 {
		release, d := l.Admit(ctx, "alice")
		if !d.OK() {
			fmt.Println(d.Text())
			continue
		}
		fmt.Println("call runs")
		release()
	}
	// Output:
	// call runs
	// quota spent: alice has made all 1 calls allowed per day; the quota resets at 2026-12-03 00:00 UTC
}

func ExampleCache_Do() {
	c := gateway.NewCache(gateway.NewMemStore(gateway.MemStoreOptions{}), gateway.CacheOptions{})
	// The identity covers the tool, the URL and every option that
	// changes the answer, and nothing secret.
	identity := []byte("fetch\x00https://go.dev/\x00format=markdown\x00v1")
	fetch := func(context.Context) ([]byte, error) { return []byte("# The Go Programming Language"), nil }
	for range 2 {
		answer, src, err := c.Do(context.Background(), identity, time.Hour, fetch)
		fmt.Println(string(answer), src, err)
	}
	// Output:
	// # The Go Programming Language computed <nil>
	// # The Go Programming Language hit <nil>
}
