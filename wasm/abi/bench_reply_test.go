package abi

import "testing"

func BenchmarkDecodeCoreReply(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		v, r, err := DecodeCoreReply(benchMeta, nil)
		if err != nil || v != 1 || r.Get("content-type") == "" {
			b.Fatal(r, err)
		}
	}
}
