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

// BenchmarkDecodeReply is the resume metadata through DecodeReply and
// Core, as the module decoded it before DecodeCoreReply.
func BenchmarkDecodeReply(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		r, err := DecodeReply(benchMeta)
		if err != nil || r.V != 1 {
			b.Fatal(r, err)
		}
		if c := r.Core(nil); c.Get("content-type") == "" {
			b.Fatal(c)
		}
	}
}
