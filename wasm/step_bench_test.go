//go:build wasip1

package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

// The step benchmarks drive the module's exports as the JavaScript shim
// does (alloc, start, alloc, resume), for a 10-result search and a 4 KiB
// fetch, the steps tests/js/startup-bench.js times under Node and Bun. Here
// they run under wazero (`make bench`); their allocations per step are
// exactly the module's, their time is wazero's, not V8's or JSC's.

// handleOf reads the handle of an "http" step, failing on any other.
func handleOf(b *testing.B, step []byte) uint32 {
	at := bytes.Index(step, []byte(`"handle":`))
	if !bytes.Contains(step, []byte(`"step":"http"`)) || at < 0 {
		b.Fatalf("not an http step: %.300s", step)
	}
	h := uint32(0)
	for _, c := range step[at+len(`"handle":`):] {
		if c < '0' || c > '9' {
			break
		}
		h = h*10 + uint32(c-'0')
	}
	return h
}

// benchmarkStep runs one operation per iteration: its start envelope is
// prefix, the iteration's number (a new query or URL each time, so nothing
// is answered from the cache) and suffix; its one "http" step is answered
// with a 200 and body, and the answer must contain want. Nothing on the
// benchmark's side allocates.
func benchmarkStep(b *testing.B, prefix, suffix string, body []byte, want string) {
	meta := []byte(`{"v":1,"kind":"response","status":200,"headers":{"content-type":"application/json"}}`)
	env := make([]byte, 0, 512)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		env = append(strconv.AppendInt(append(env[:0], prefix...), int64(i), 10), suffix...)
		h := handleOf(b, replyBytes(start(hostBuffer(b, env), uint32(len(env)))))
		done := replyBytes(resume(h, hostBuffer(b, meta), uint32(len(meta)), hostBuffer(b, body), uint32(len(body))))
		if !bytes.Contains(done, []byte(want)) {
			b.Fatalf("the step did not end as expected: %.300s", done)
		}
	}
}

func BenchmarkSearchStep(b *testing.B) {
	benchmarkStep(b, `{"v":1,"kind":"opencode.websearch","options":{},"apiKey":"sk-bench","input":{"query":"effective go `, `"}}`,
		deepseektest.StepSearchBody(), `"url":"https://example.com/article/9"`)
}

func BenchmarkFetchStep(b *testing.B) {
	para := "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. "
	body := []byte(`{"title":"Example page","content":"# Example page\n\n` + strings.Repeat(para, 40) + `"}`)
	benchmarkStep(b, `{"v":1,"kind":"opencode.tool","options":{},"apiKey":"sk-bench","input":{"tool":"deepseek_fetch","args":{"url":"https://example.com/page/`, `"}}}`,
		body, `Lorem ipsum`)
}
