package main

// Benchmarks of the MCP server as hosts run it (make bench prints the figures):
//
//   - BenchmarkMCPStart: process start to the initialize response (target ≤ 50 ms).
//   - BenchmarkMCPCallOverhead: a tools/call over stdio minus a bare HTTP request to the same
//     loopback mock, medians (target ≤ 1 ms added).
//   - BenchmarkMCPShutdown: stdin closed (or SIGTERM) with a call in flight to the process
//     gone (target ≤ 1 s).
//   - BenchmarkMCPMemory: the server's RSS after 1,000 calls and after 1,000 more (no growth
//     after warm-up).
//   - BenchmarkSharedCacheHit: a page read by a second server process from the machine's
//     shared cache, against the first server's call to the mock.
//   - BenchmarkBinarySize: the static binary, and what the SQLite driver adds to it.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func benchEnv(b *testing.B) []string {
	return []string{"HOME=" + b.TempDir(), "DEEPSEEK_API_KEY=" + cliKey}
}

// benchDeepSeek answers every fetch with a small page.
func benchDeepSeek(b *testing.B) *httptest.Server {
	page := []byte(`{"title":"Effective Go","content":"Effective Go is a guide.\n\n## Introduction\n\nGo is a new language."}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page)
	}))
	b.Cleanup(srv.Close)
	return srv
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

func BenchmarkMCPStart(b *testing.B) {
	times := make([]time.Duration, 0, b.N)
	env := benchEnv(b)
	for b.Loop() {
		start := time.Now()
		s := startMCP(b, env)
		s.initialize("2025-06-18")
		times = append(times, time.Since(start))
		s.closeAndWait()
	}
	b.ReportMetric(float64(median(times).Microseconds())/1000, "ms-to-initialize-median")
}

// fetchCall asks for page n: a URL of its own, so the server's page cache never answers and
// every call makes its request.
func fetchCall(n int) map[string]any {
	return map[string]any{"name": "deepseek_fetch", "arguments": map[string]any{"url": fmt.Sprintf("https://go.dev/doc/effective_go?n=%d", n)}}
}

func BenchmarkMCPCallOverhead(b *testing.B) {
	ds := benchDeepSeek(b)
	s := startMCP(b, benchEnv(b), "--base-url", ds.URL)
	s.initialize("2025-06-18")
	client := &http.Client{}
	bare := func() {
		req, _ := http.NewRequest(http.MethodPost, ds.URL+"/v1/tools/fetch", bytes.NewReader([]byte(`{"url":"https://go.dev/doc/effective_go"}`)))
		req.Header.Set("Authorization", "Bearer "+cliKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		resp.Body.Close()
	}
	for i := range 200 { // warm both paths
		bare()
		s.call(-1-i, "tools/call", fetchCall(-1-i))
	}
	var bareTimes, callTimes []time.Duration
	id := 0
	for b.Loop() {
		start := time.Now()
		bare()
		bareTimes = append(bareTimes, time.Since(start))
		id++
		start = time.Now()
		text, isErr := toolText(b, s.call(id, "tools/call", fetchCall(id)))
		callTimes = append(callTimes, time.Since(start))
		if isErr || !strings.HasPrefix(text, "# Effective Go") {
			b.Fatalf("call %d: %q", id, text)
		}
	}
	mb, mc := median(bareTimes), median(callTimes)
	b.ReportMetric(float64(mb.Microseconds()), "µs-bare-http-median")
	b.ReportMetric(float64(mc.Microseconds()), "µs-tools-call-median")
	b.ReportMetric(float64((mc - mb).Microseconds()), "µs-added-median")
	s.closeAndWait()
}

// rssKB reads a process's resident set size from /proc (Linux).
func rssKB(pid int) (float64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return n, err == nil
		}
	}
	return 0, false
}

func BenchmarkMCPMemory(b *testing.B) {
	ds := benchDeepSeek(b)
	for b.Loop() {
		s := startMCP(b, benchEnv(b), "--base-url", ds.URL)
		s.initialize("2025-06-18")
		start, _ := rssKB(s.cmd.Process.Pid)
		var after []float64
		id := 0
		for range 2 {
			for range 1000 {
				id++
				if _, isErr := toolText(b, s.call(id, "tools/call", fetchCall(id))); isErr {
					b.Fatal("a call failed")
				}
			}
			kb, ok := rssKB(s.cmd.Process.Pid)
			if !ok {
				b.Skip("no /proc on this system")
			}
			after = append(after, kb)
		}
		b.ReportMetric(start/1024, "MB-rss-at-start")
		b.ReportMetric(after[0]/1024, "MB-rss-after-1000-calls")
		b.ReportMetric(after[1]/1024, "MB-rss-after-2000-calls")
		s.closeAndWait()
	}
}

func BenchmarkMCPShutdown(b *testing.B) {
	// DeepSeek holds every request until the client goes away.
	arrived := make(chan struct{}, 1)
	ds := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // net/http notices a closed connection once the body is read
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	b.Cleanup(ds.Close)
	for _, how := range []string{"eof", "sigterm"} {
		b.Run(how, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				s := startMCP(b, benchEnv(b), "--base-url", ds.URL)
				s.initialize("2025-06-18")
				s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": fetchCall(0)})
				<-arrived
				var took time.Duration
				if how == "eof" {
					_, took = s.closeAndWait()
				} else {
					start := time.Now()
					_ = s.cmd.Process.Signal(syscall.SIGTERM)
					_, took = s.wait(start)
				}
				times = append(times, took)
			}
			b.ReportMetric(float64(median(times).Microseconds())/1000, "ms-to-exit-median")
		})
	}
}

// BenchmarkSharedCacheHit: a page one server fetched, read by a second server process (its
// memory cache empty) from the machine's shared cache, against the first server's call that
// went to the loopback mock; medians.
func BenchmarkSharedCacheHit(b *testing.B) {
	ds := benchDeepSeek(b)
	env := benchEnv(b)
	first := startMCP(b, env, "--base-url", ds.URL)
	first.initialize("2025-06-18")
	second := startMCP(b, env, "--base-url", ds.URL)
	second.initialize("2025-06-18")
	for i := range 50 { // warm both processes (and open the database)
		first.call(-1-i, "tools/call", fetchCall(-1-i))
		second.call(-1-i, "tools/call", fetchCall(-1-i))
	}
	var misses, hits []time.Duration
	id := 0
	for b.Loop() {
		id++
		start := time.Now()
		first.call(id, "tools/call", fetchCall(id))
		misses = append(misses, time.Since(start))
		start = time.Now()
		text, isErr := toolText(b, second.call(id, "tools/call", fetchCall(id)))
		hits = append(hits, time.Since(start))
		if isErr || !strings.HasPrefix(text, "# Effective Go") {
			b.Fatalf("call %d: %q", id, text)
		}
	}
	b.ReportMetric(float64(median(misses).Microseconds()), "µs-miss-median")
	b.ReportMetric(float64(median(hits).Microseconds()), "µs-cross-process-hit-median")
	first.closeAndWait()
	second.closeAndWait()
}

// BenchmarkBinarySize: the release binary (static, stripped) as built, and built with
// -tags nosqlite (no SQLite driver: no shared cache, ledger or budget), to print what the
// driver adds.
func BenchmarkBinarySize(b *testing.B) {
	size := func(tags ...string) float64 {
		out := filepath.Join(b.TempDir(), "dwr")
		args := append([]string{"build", "-trimpath", "-ldflags=-s -w", "-o", out}, tags...)
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build %v: %v\n%s", tags, err, msg)
		}
		fi, err := os.Stat(out)
		if err != nil {
			b.Fatal(err)
		}
		return float64(fi.Size())
	}
	var with, without float64
	for b.Loop() {
		with, without = size(), size("-tags", "nosqlite")
	}
	b.ReportMetric(with/1e6, "MB-binary")
	b.ReportMetric(without/1e6, "MB-without-sqlite")
	b.ReportMetric((with-without)/1e6, "MB-sqlite-adds")
}
