package tests

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

// Targets (make bench prints the figures; see wasm/RATIONALE.md): module
// ≤ 3.5 MB raw, a step round trip ≤ 50 µs, linear memory flat across
// batches of operations and ≤ 32 MiB after a 5 MiB response.
const (
	targetModuleBytes = 3_500_000
	targetStepNs      = 50_000
	targetMemoryBytes = 32 << 20
)

// BenchmarkModuleSize reports the size of the module as built by the
// Makefile, raw and gzipped.
func BenchmarkModuleSize(b *testing.B) {
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	w.Write(wasmBytes)
	w.Close()
	for b.Loop() {
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(len(wasmBytes)), "bytes")
	b.ReportMetric(float64(gz.Len()), "gzip-bytes")
	if len(wasmBytes) > targetModuleBytes {
		b.Logf("module is %d bytes, over the %d-byte target", len(wasmBytes), targetModuleBytes)
	}
}

// BenchmarkCompile compiles the module with wazero's compiler, from scratch
// and from a warm compilation cache.
func BenchmarkCompile(b *testing.B) {
	ctx := context.Background()
	b.Run("cache=none", func(b *testing.B) {
		for b.Loop() {
			r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler())
			_, err := r.CompileModule(ctx, wasmBytes)
			require.NoError(b, err)
			r.Close(ctx)
		}
	})
	b.Run("cache=warm", func(b *testing.B) {
		cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
		require.NoError(b, err)
		defer cache.Close(ctx)
		for b.Loop() {
			r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCompilationCache(cache))
			_, err := r.CompileModule(ctx, wasmBytes)
			require.NoError(b, err)
			r.Close(ctx)
		}
	})
}

// BenchmarkInstantiate makes an instance of the compiled module and runs
// _initialize.
func BenchmarkInstantiate(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		m, err := Instantiate(ctx, rt, compiled)
		require.NoError(b, err)
		m.Close(ctx)
	}
}

// cannedSearch is a small, typical search response.
var cannedSearch = []byte(`{"results":[` + strings.Repeat(`{"url":"https://go.dev/doc/","title":"Documentation","summary":"The Go programming language documentation, tutorials and references.","rerank_score":2.4,"authority":4,"date":"2025-01-02T03:04:05Z","site_name":"Go"},`, 9) +
	`{"url":"https://go.dev/","title":"Go","summary":"Build simple, secure, scalable systems with Go.","rerank_score":2.9,"authority":4,"site_name":"Go"}]}`)

// BenchmarkStepRoundTrip measures the ABI alone: start (→ "http" step),
// then resume with a canned 200 response (→ "done"); two steps per
// operation, each a copy in, a call and a copy out. ns/step is half an
// operation; the sub-benchmarks show how much of it is the core decoding
// DeepSeek's answer.
func BenchmarkStepRoundTrip(b *testing.B) {
	fetched := []byte(`{"title":"Page","content":"` + strings.Repeat("Some text. ", 400) + `"}`)
	for _, bc := range []struct {
		name, kind, input string
		body              []byte
	}{
		{"search-10-results", abi.KindSearch, `{"query":"golang"}`, cannedSearch},
		{"search-0-results", abi.KindSearch, `{"query":"golang"}`, []byte(`{"results":[]}`)},
		{"fetch-4KiB", abi.KindFetch, `{"url":"https://example.com/"}`, fetched},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := newModule(b)
			ctx := context.Background()
			// The cache is off: each operation must reach DeepSeek.
			start, err := json.Marshal(abi.Start{V: 1, Kind: bc.kind, Options: json.RawMessage(`{"baseURL":"http://127.0.0.1:1","cacheTTL":0}`), APIKey: testKey, Input: json.RawMessage(bc.input)})
			require.NoError(b, err)
			meta := []byte(`{"v":1,"kind":"response","status":200,"headers":{"content-type":"application/json"}}`)
			var h struct {
				Handle uint32 `json:"handle"`
				Step   string `json:"step"`
			}
			for b.Loop() {
				out, err := m.StartJSON(ctx, start)
				if err != nil {
					b.Fatal(err)
				}
				if err := json.Unmarshal(out, &h); err != nil || h.Step != "http" {
					b.Fatalf("start: %s", out)
				}
				out, err = m.ResumeJSON(ctx, h.Handle, meta, bc.body)
				if err != nil || !bytes.Contains(out, []byte(`"step":"done","result"`)) {
					b.Fatalf("resume: %v %.200s", err, out)
				}
			}
			perStep := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / 2
			b.ReportMetric(perStep, "ns/step")
			if perStep > targetStepNs {
				b.Logf("a step takes %.0f ns, over the %d ns target", perStep, targetStepNs)
			}
		})
	}
	b.Run("start-cancel", func(b *testing.B) {
		m := newModule(b)
		ctx := context.Background()
		start := mustJSON(b, abi.Start{V: 1, Kind: abi.KindSearch, Options: json.RawMessage(`{"baseURL":"http://127.0.0.1:1"}`), APIKey: testKey, Input: json.RawMessage(`{"query":"golang"}`)})
		var h struct {
			Handle uint32 `json:"handle"`
		}
		for b.Loop() {
			out, err := m.StartJSON(ctx, start)
			if err != nil || json.Unmarshal(out, &h) != nil {
				b.Fatal(err)
			}
			if _, err := m.CancelJSON(ctx, h.Handle); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/step")
	})
}

// BenchmarkEndToEnd runs a search through the module against a loopback
// mock, and the same POST with plain net/http, to show what the module
// adds. The cache is off: every search goes to the mock.
func BenchmarkEndToEnd(b *testing.B) {
	srv := newMock(b, reply(200, string(cannedSearch)))
	srv.reqs = nil
	b.Run("module", func(b *testing.B) {
		m, br := newModule(b), NewBridge()
		defer br.Close()
		s := abi.Start{V: 1, Kind: abi.KindSearch, Options: json.RawMessage(`{"baseURL":"` + srv.URL + `","cacheTTL":0}`), APIKey: testKey, Input: json.RawMessage(`{"query":"golang"}`)}
		for b.Loop() {
			steps, err := Run(context.Background(), m, br, s)
			if err != nil || steps[len(steps)-1].Error != nil {
				b.Fatalf("%v %s", err, steps[len(steps)-1].Raw)
			}
		}
	})
	b.Run("net/http", func(b *testing.B) {
		client := NewBridge().Client
		defer client.CloseIdleConnections()
		body := `{"query":"golang","count":10,"need_content":false}`
		for b.Loop() {
			req, _ := http.NewRequest("POST", srv.URL+"/v1/tools/search", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
		}
	})
	srv.mu.Lock()
	srv.reqs = nil // the mock's record is not needed here
	srv.mu.Unlock()
}

// mixedBatch runs n operations of every kind through m with canned replies
// (no network): searches, fetches, retries, API errors, malformed bodies,
// cancels, missing keys, refused URLs and malformed calls.
func mixedBatch(tb testing.TB, m *Module, n int) {
	ctx := context.Background()
	opts := json.RawMessage(`{"baseURL":"http://127.0.0.1:1"}`)
	ok := abi.Reply{Kind: "response", Status: 200}
	fetched := []byte(`{"title":"Page","content":"` + strings.Repeat("Some text. ", 400) + `"}`)
	for i := range n {
		var s abi.Start
		var replies []abi.Reply
		var bodies [][]byte
		cancelAfter := -1
		switch i % 10 {
		case 0, 1, 2:
			s = abi.Start{Kind: abi.KindSearch, Input: json.RawMessage(fmt.Sprintf(`{"query":"query %d"}`, i))}
			replies, bodies = []abi.Reply{ok}, [][]byte{cannedSearch}
		case 3, 4:
			s = abi.Start{Kind: abi.KindFetch, Input: json.RawMessage(fmt.Sprintf(`{"url":"https://example.com/%d"}`, i))}
			replies, bodies = []abi.Reply{ok}, [][]byte{fetched}
		case 5:
			s = abi.Start{Kind: abi.KindSearch, Input: json.RawMessage(`{"query":"retry"}`)}
			replies = []abi.Reply{{Kind: "response", Status: 503, Headers: map[string]string{"retry-after": "1"}}, ok}
			bodies = [][]byte{[]byte(`{"error":{"message":"busy"}}`), cannedSearch}
		case 6:
			s = abi.Start{Kind: abi.KindTool, Input: json.RawMessage(`{"tool":"deepseek_fetch","args":{"url":"https://example.com/x"}}`)}
			replies, bodies = []abi.Reply{{Kind: "response", Status: 402}}, [][]byte{[]byte(`{"error":{"message":"Insufficient Balance"}}`)}
		case 7:
			s = abi.Start{Kind: abi.KindWebsearch, Input: json.RawMessage(`{"query":"malformed"}`)}
			replies, bodies = []abi.Reply{ok}, [][]byte{[]byte(`{"results":[{"url":`)}
		case 8:
			s = abi.Start{Kind: abi.KindSearch, Input: json.RawMessage(`{"query":"cancel me"}`)}
			cancelAfter = 0
		case 9:
			switch i / 10 % 4 {
			case 0:
				s = abi.Start{Kind: abi.KindSearch, Input: json.RawMessage(`{"query":"no key"}`)}
			case 1:
				s = abi.Start{Kind: abi.KindFetch, Input: json.RawMessage(`{"url":"http://127.0.0.1/"}`)}
			case 2:
				s = abi.Start{Kind: "nonsense", Input: json.RawMessage(`{}`)}
			case 3:
				s = abi.Start{Kind: abi.KindPlan, Input: json.RawMessage(`{"host":"opencode2"}`)}
			}
		}
		s.V, s.Options = 1, opts
		if !(i%10 == 9 && i/10%4 == 0) {
			s.APIKey = testKey
		}
		r, err := m.Start(ctx, s)
		require.NoError(tb, err)
		for k := 0; r.Step.Step == abi.StepHTTP; k++ {
			if k == cancelAfter || k >= len(replies) {
				r, err = m.Cancel(ctx, r.Handle)
			} else {
				r, err = m.Resume(ctx, r.Handle, replies[k], bodies[k])
			}
			require.NoError(tb, err)
		}
		require.Equal(tb, abi.StepDone, r.Step.Step)
	}
	left, err := m.InFlight(ctx)
	require.NoError(tb, err)
	require.Zero(tb, left)
}

// BenchmarkMemory reports linear memory after 1,000 mixed operations, after
// further batches (it must not grow once warm), and after a 5 MiB response.
func BenchmarkMemory(b *testing.B) {
	for b.Loop() {
		m, err := Instantiate(context.Background(), rt, compiled)
		require.NoError(b, err)
		initial := m.MemorySize()
		mixedBatch(b, m, 1000)
		warm := m.MemorySize()
		for range 4 {
			mixedBatch(b, m, 1000)
		}
		after := m.MemorySize()
		big := fiveMiBSearch(b, m)
		b.ReportMetric(float64(initial), "mem-initial-bytes")
		b.ReportMetric(float64(warm), "mem-1000ops-bytes")
		b.ReportMetric(float64(after), "mem-5000ops-bytes")
		b.ReportMetric(float64(big), "mem-5MiB-response-bytes")
		m.Close(context.Background())
	}
}

// fiveMiBSearch hands the module a valid 5 MiB search response and returns
// the memory size afterwards.
func fiveMiBSearch(tb testing.TB, m *Module) uint32 {
	ctx := context.Background()
	body := []byte(bigSearch(5 << 20))
	// The cache is off: every call must process the 5 MiB response again.
	r, err := m.Start(ctx, abi.Start{V: 1, Kind: abi.KindSearch, Options: json.RawMessage(`{"baseURL":"http://127.0.0.1:1","cacheTTL":0}`), APIKey: testKey, Input: json.RawMessage(`{"query":"big"}`)})
	require.NoError(tb, err)
	r, err = m.Resume(ctx, r.Handle, abi.Reply{Kind: "response", Status: 200}, body)
	require.NoError(tb, err)
	require.Nil(tb, r.Error)
	return m.MemorySize()
}

// Linear memory stays flat across batches of mixed operations once warm,
// and a 5 MiB response fits in 32 MiB.
func TestMemory(t *testing.T) {
	m := newModule(t)
	mixedBatch(t, m, 500)
	warm := m.MemorySize()
	for range 4 {
		mixedBatch(t, m, 500)
	}
	// The heap may settle by a MiB or so as the GC paces itself (more often
	// since the page cache, full after the first batch, raised the live heap
	// by about half a MiB); a leak of handles or buffers (over 4 KiB an
	// operation) would grow by several MiB with the 2,000 further operations.
	require.LessOrEqual(t, m.MemorySize(), warm+2<<20, "linear memory grew across batches after warm-up")
	for range 3 {
		require.LessOrEqual(t, fiveMiBSearch(t, m), uint32(targetMemoryBytes))
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "memory: %d bytes after warm-up, %d after 5 MiB responses\n", warm, m.MemorySize())
	}
}
