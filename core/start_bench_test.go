package core_test

import (
	"strconv"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// BenchmarkStartSearch and BenchmarkStartFetch time the start half of a
// step as a host runs it: a new query or URL each time, the cache on, the
// operation cancelled once started.
func BenchmarkStartSearch(b *testing.B) {
	benchStart(b, func(i int) core.Operation {
		return core.Operation{Kind: core.KindSearch, Query: "effective go " + strconv.Itoa(i), APIKey: "sk-bench"}
	})
}

func BenchmarkStartFetch(b *testing.B) {
	benchStart(b, func(i int) core.Operation {
		return core.Operation{Kind: core.KindFetch, URL: "https://example.com/page/" + strconv.Itoa(i), APIKey: "sk-bench"}
	})
}

func benchStart(b *testing.B, op func(i int) core.Operation) {
	var now int64 = 1_700_000_000_000
	e := core.NewEngine(core.Env{Now: func() int64 { now++; return now }})
	ops := make([]core.Operation, 1024)
	for i := range ops {
		ops[i] = op(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s := e.Start(ops[i%len(ops)])
		if s.Done {
			b.Fatal(s.Err)
		}
		e.Cancel(s.Handle)
	}
}
