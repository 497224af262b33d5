package abi

import "testing"

// The envelopes of a search step as plugin/runtime.js writes them.
var (
	benchStart = []byte(`{"v":1,"kind":"opencode.websearch","options":{},"apiKey":"sk-bench","input":{"query":"effective go 123"}}`)
	benchMeta  = []byte(`{"v":1,"kind":"response","status":200,"headers":{"content-type":"application/json"}}`)
)

func BenchmarkDecodeStart(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := DecodeStart(benchStart)
		if err != nil || s.V != 1 {
			b.Fatal(s, err)
		}
		var in WebsearchInput
		if err := DecodeInput(s.Input, &in); err != nil || in.Query == "" {
			b.Fatal(in, err)
		}
	}
}

func BenchmarkDecodeCoreReply(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		v, r, err := DecodeCoreReply(benchMeta, nil)
		if err != nil || v != 1 || r.Get("content-type") == "" {
			b.Fatal(r, err)
		}
	}
}
