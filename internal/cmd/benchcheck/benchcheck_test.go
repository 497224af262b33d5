package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// root is the repository, from this package's directory.
const root = "../../.."

// sample is real `go test -bench` output, -benchmem columns and b.ReportMetric metrics
// included (captured on 2 busy cores), under the headings make bench echoes; the module size,
// plugin and load lines are in the shape their scripts print.
const sample = `== module size: plugin/core.wasm
raw 2912345 bytes, gzip -9 1034567 bytes
== engine, natively: core/, internal/opencode/, internal/abi/
goos: linux
goarch: amd64
pkg: github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi
cpu: Oxide Virtual Turin-like Processor             
BenchmarkDecodeStart-2   	  197744	      1718 ns/op	      40 B/op	       3 allocs/op
PASS
== the MCP server: start, per-call overhead, memory, shutdown (cmd/)
BenchmarkMCPShutdown/eof-2  	       5	 124210984 ns/op	        16.00 ms-to-exit-median	   63825 B/op	     254 allocs/op
BenchmarkMCPShutdown/sigterm-2         	       5	 101034149 ns/op	        16.72 ms-to-exit-median	   55705 B/op	     240 allocs/op
BenchmarkSharedCacheHit-2              	       5	   1810528 ns/op	       472.0 µs-cross-process-hit-median	      1162 µs-miss-median	   11188 B/op	     166 allocs/op
BenchmarkBinarySize-2   	       1	328641487075 ns/op	        35.64 MB-binary	         3.965 MB-sqlite-adds	        31.67 MB-without-sqlite
--- BENCH: BenchmarkBinarySize-2
    mcp_bench_test.go:240: a log line a benchmark wrote
== the shared cache: first open, new file and existing (internal/diskcache/)
BenchmarkFirstOpen/new-2         	       4	  86778052 ns/op	    9192 B/op	     156 allocs/op
BenchmarkFirstOpen/existing-2    	     315	    768352 ns/op	    7477 B/op	     148 allocs/op
PASS
ok  	github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/diskcache	0.710s
== the plugin under Node and Bun (tests/js)

== deepseek-web-retrieval plugin benchmark — node (linux/x64)
search: added by the plugin   0.412 ms   ≤ 1 ms  ok
== deepseek-web-retrieval plugin benchmark — bun (linux/x64)
search: added by the plugin   0.298 ms   ≤ 1 ms  ok
== the MCP server under load: peak RSS and how calls ended (tests/load)
scenario     peak RSS      time  completion
messages      61 MiB      3.2s  20 answered
fetch        143 MiB      9.8s  200 answered
`

var sampleHeadings = []string{
	"module size: plugin/core.wasm",
	"engine, natively: core/, internal/opencode/, internal/abi/",
	"the MCP server: start, per-call overhead, memory, shutdown (cmd/)",
	"the shared cache: first open, new file and existing (internal/diskcache/)",
	"the plugin under Node and Bun (tests/js)",
	"the MCP server under load: peak RSS and how calls ended (tests/load)",
}

func TestParseBenchLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		want benchLine
		ok   bool
	}{
		{
			name: "benchmem",
			line: "BenchmarkFirstOpen/new-2         \t       4\t  86778052 ns/op\t    9192 B/op\t     156 allocs/op",
			want: benchLine{name: "BenchmarkFirstOpen/new-2", n: 4, metrics: map[string]float64{"ns/op": 86778052, "B/op": 9192, "allocs/op": 156}},
			ok:   true,
		},
		{
			name: "ReportMetric and benchmem",
			line: "BenchmarkSharedCacheHit-2              \t       5\t   1810528 ns/op\t       472.0 µs-cross-process-hit-median\t      1162 µs-miss-median\t   11188 B/op\t     166 allocs/op",
			want: benchLine{name: "BenchmarkSharedCacheHit-2", n: 5, metrics: map[string]float64{
				"ns/op": 1810528, "µs-cross-process-hit-median": 472, "µs-miss-median": 1162, "B/op": 11188, "allocs/op": 166,
			}},
			ok: true,
		},
		{
			name: "ReportMetric only",
			line: "BenchmarkBinarySize-2   \t       1\t328641487075 ns/op\t        35.64 MB-binary\t         3.965 MB-sqlite-adds\t        31.67 MB-without-sqlite",
			want: benchLine{name: "BenchmarkBinarySize-2", n: 1, metrics: map[string]float64{
				"ns/op": 328641487075, "MB-binary": 35.64, "MB-sqlite-adds": 3.965, "MB-without-sqlite": 31.67,
			}},
			ok: true,
		},
		{
			name: "ns/op suppressed, GOMAXPROCS 1",
			line: "BenchmarkModuleSize \t       1\t   2912345 bytes\t   1034567 gzip-bytes",
			want: benchLine{name: "BenchmarkModuleSize", n: 1, metrics: map[string]float64{"bytes": 2912345, "gzip-bytes": 1034567}},
			ok:   true,
		},
		{name: "a BENCH header", line: "--- BENCH: BenchmarkBinarySize-2"},
		{name: "a name alone (-v)", line: "BenchmarkFirstOpen"},
		{name: "a log line", line: "    mcp_bench_test.go:240: BenchmarkX 1 2 ns/op"},
		{name: "an odd column", line: "BenchmarkX-2 10 5 ns/op 7"},
		{name: "no iterations", line: "BenchmarkX-2 fast 5 ns/op"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseBenchLine(tt.line)
			require.Equal(t, tt.ok, ok)
			if tt.ok {
				require.Equal(t, tt.want, got)
			}
		})
	}
}

func TestSameBenchmark(t *testing.T) {
	tests := []struct {
		printed, want string
		same          bool
	}{
		{"BenchmarkFirstOpen/new-2", "BenchmarkFirstOpen/new", true},
		{"BenchmarkFirstOpen/new", "BenchmarkFirstOpen/new", true},
		{"BenchmarkFirstOpen/new-16", "BenchmarkFirstOpen/new", true},
		{"BenchmarkFirstOpen/newer-2", "BenchmarkFirstOpen/new", false},
		{"BenchmarkFirstOpen/new-x", "BenchmarkFirstOpen/new", false},
		{"BenchmarkMemory-2", "BenchmarkMemory", true},
		{"BenchmarkMemoryPeak-2", "BenchmarkMemory", false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.same, sameBenchmark(tt.printed, tt.want), "%s vs %s", tt.printed, tt.want)
	}
}

// table builds a record holding one Figures table with the given rows.
func table(rows ...string) string {
	return "# Rationale\n\nProse.\n\n| Figure | Written | Cited in | Heading | Printed by | Tolerance |\n|---|---|---|---|---|---|\n" +
		strings.Join(rows, "\n") + "\n\nMore prose.\n"
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name     string
		row      string
		state    state
		measured float64
		why      string
	}{
		{
			name:     "benchmark metric, converted MB to MB",
			row:      "| binary | 36 MB | `RATIONALE.md`, x | `== the MCP server: start` | `BenchmarkBinarySize` `MB-binary` | ±5% |",
			measured: 35.64,
		},
		{
			name:     "ns/op written in ms",
			row:      "| first open | 80 ms | `RATIONALE.md`, x | `== the shared cache` | `BenchmarkFirstOpen/new` `ns/op` | ×2 |",
			measured: 86.778052,
		},
		{
			name:     "µs metric written in µs",
			row:      "| hit | 450 µs | `RATIONALE.md`, x | `== the MCP server: start` | `BenchmarkSharedCacheHit` `µs-cross-process-hit-median` | ±10% |",
			measured: 472,
		},
		{
			name:     "a sub-benchmark, ms metric written in s",
			row:      "| sigterm | 0.02 s | `RATIONALE.md`, x | `== the MCP server: start` | `BenchmarkMCPShutdown/sigterm` `ms-to-exit-median` | ×2 |",
			measured: 0.01672,
		},
		{
			name:     "allocations, no unit conversion",
			row:      "| allocs | 148 allocs | `RATIONALE.md`, x | `== the shared cache` | `BenchmarkFirstOpen/existing` `allocs/op` | ±10% |",
			measured: 148,
		},
		{
			name:     "a printed line, bytes written in MB",
			row:      "| module | 2.9 MB | `wasm/RATIONALE.md`, x | `== module size` | `raw {} bytes` | ±2% |",
			measured: 2.912345,
		},
		{
			name:     "the second number of a printed line",
			row:      "| gzip | 1,034,567 bytes | `wasm/RATIONALE.md`, x | `== module size` | `gzip -9 {} bytes` | ±1% |",
			measured: 1034567,
		},
		{
			name:     "an anchored line in a table of columns",
			row:      "| fetch RSS | 150 MiB | `RATIONALE.md`, x | `== the MCP server under load` | `^fetch {} MiB` | ±20% |",
			measured: 143,
		},
		{
			name:     "the first of two runtimes",
			row:      "| added | 0.4 ms | `RATIONALE.md`, x | `== the plugin` | `search: added by the plugin {} ms` | ±10% |",
			measured: 0.412,
		},
		{
			name:     "narrowed to the second runtime",
			row:      "| added, bun | 0.3 ms | `RATIONALE.md`, x | `== the plugin › plugin benchmark — bun` | `search: added by the plugin {} ms` | ±10% |",
			measured: 0.298,
		},
		{
			name:     "drift",
			row:      "| binary | 21.3 MB | `RATIONALE.md`, x | `== the MCP server: start` | `BenchmarkBinarySize` `MB-binary` | ±10% |",
			state:    drift,
			measured: 35.64,
		},
		{
			name:  "a benchmark nothing ran",
			row:   "| gone | 3 ms | `RATIONALE.md`, x | `== the shared cache` | `BenchmarkGone` `ns/op` | ×2 |",
			state: missing,
			why:   "no line of BenchmarkGone",
		},
		{
			name:  "a unit the benchmark does not print",
			row:   "| open | 3 ms | `RATIONALE.md`, x | `== the shared cache` | `BenchmarkFirstOpen/new` `ms-median` | ×2 |",
			state: missing,
			why:   "BenchmarkFirstOpen/new prints no ms-median",
		},
		{
			name:  "a benchmark under another heading",
			row:   "| open | 3 ms | `RATIONALE.md`, x | `== engine, natively` | `BenchmarkFirstOpen/new` `ns/op` | ×2 |",
			state: missing,
			why:   "no line of BenchmarkFirstOpen/new",
		},
		{
			name:  "a line nothing printed",
			row:   "| flood | 40 MiB | `RATIONALE.md`, x | `== the MCP server under load` | `^flood {} MiB` | ±20% |",
			state: missing,
			why:   `no line matching "^flood {} MiB"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := parseTables(table(tt.row))
			require.NoError(t, err)
			require.Len(t, rows, 1)
			results, err := check(rows, sampleHeadings, sample)
			require.NoError(t, err)
			require.Len(t, results, 1)
			r := results[0]
			require.Equal(t, tt.state, r.state, r.why)
			require.Equal(t, tt.why, r.why)
			if tt.state != missing {
				require.InDelta(t, tt.measured, r.measured, 1e-9)
			}
		})
	}
}

func TestCheckMissingHeading(t *testing.T) {
	rows, err := parseTables(table("| gzip | 1 MB | `wasm/RATIONALE.md`, x | `== module size` | `gzip -9 {} bytes` | ±10% |"))
	require.NoError(t, err)
	results, err := check(rows, sampleHeadings, "== engine, natively: core/, internal/opencode/, internal/abi/\n")
	require.NoError(t, err)
	require.Equal(t, missing, results[0].state)
	require.Equal(t, "no heading == module size: plugin/core.wasm", results[0].why)
}

func TestParseTablesErrors(t *testing.T) {
	tests := []struct {
		name, text, wantErr string
	}{
		{"no table", "# Rationale\n\nNo figures.\n", "no Figures table"},
		{"no number", table("| x | many | `RATIONALE.md` | `== module size` | `raw {} bytes` | ±10% |"), `written value "many" has no number`},
		{"zero", table("| x | 0 ms | `RATIONALE.md` | `== module size` | `raw {} bytes` | ±10% |"), "is zero"},
		{"no record", table("| x | 3 MB | RATIONALE.md | `== module size` | `raw {} bytes` | ±10% |"), "name the record in backticks"},
		{"two {}", table("| x | 3 MB | `RATIONALE.md` | `== module size` | `raw {} bytes {}` | ±10% |"), "want `BenchmarkName` `unit`"},
		{"benchmark without unit", table("| x | 3 MB | `RATIONALE.md` | `== module size` | `BenchmarkX` | ±10% |"), "want `BenchmarkName` `unit`"},
		{"tolerance", table("| x | 3 MB | `RATIONALE.md` | `== module size` | `raw {} bytes` | 10% |"), `tolerance "10%"`},
		{"factor", table("| x | 3 MB | `RATIONALE.md` | `== module size` | `raw {} bytes` | ×1 |"), "N > 1"},
		{"dimensions", table("| x | 3 ms | `RATIONALE.md` | `== module size` | `raw {} bytes` | ±10% |"), "printed in bytes (size) but written in ms (time)"},
		{"unknown unit", table("| x | 3 widgets | `RATIONALE.md` | `== module size` | `raw {} bytes` | ±10% |"), `write it in the printed unit`},
		{"cells", table("| x | 3 MB | `RATIONALE.md` | `== module size` | ±10% |"), "5 cells, want 6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseTables(tt.text)
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestResolveHeading(t *testing.T) {
	headings := []string{"the MCP server: start (cmd/)", "the MCP server under load (tests/load)", "module size: plugin/core.wasm"}
	h, err := resolveHeading("module size", headings)
	require.NoError(t, err)
	require.Equal(t, "module size: plugin/core.wasm", h)
	_, err = resolveHeading("the MCP server", headings)
	require.ErrorContains(t, err, "matches 2 headings")
	_, err = resolveHeading("linear memory", headings)
	require.ErrorContains(t, err, "echoes no such heading")
}

func TestRunExitStatus(t *testing.T) {
	dir := t.TempDir()
	mk := filepath.Join(dir, "Makefile")
	require.NoError(t, os.WriteFile(mk, []byte("bench: build\n\t@echo \"== module size: plugin/core.wasm\"\n\t@echo \"raw $$(wc -c < x) bytes\"\n\nclean:\n\t@echo \"== not a bench heading\"\n"), 0o644))
	out := filepath.Join(dir, "bench.txt")
	require.NoError(t, os.WriteFile(out, []byte("== module size: plugin/core.wasm\nraw 3000000 bytes, gzip -9 1000000 bytes\n"), 0o644))
	tests := []struct {
		name, row string
		warn      bool
		want      int
	}{
		{"ok", "| raw | 3 MB | `R.md` | `== module size` | `raw {} bytes` | ±5% |", false, 0},
		{"drift", "| raw | 2 MB | `R.md` | `== module size` | `raw {} bytes` | ±5% |", false, 1},
		{"drift, -warn", "| raw | 2 MB | `R.md` | `== module size` | `raw {} bytes` | ±5% |", true, 0},
		{"missing, -warn", "| gz | 2 MB | `R.md` | `== module size` | `brotli {} bytes` | ±5% |", true, 1},
		{"not a bench heading", "| x | 2 MB | `R.md` | `== not a bench heading` | `raw {} bytes` | ±5% |", false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rat := filepath.Join(t.TempDir(), "RATIONALE.md")
			require.NoError(t, os.WriteFile(rat, []byte(table(tt.row)), 0o644))
			var stdout, stderr bytes.Buffer
			require.Equal(t, tt.want, run(rat, mk, out, tt.warn, &stdout, &stderr), "stdout:\n%s\nstderr:\n%s", &stdout, &stderr)
		})
	}
}

// The table in the repository: it parses, every heading is one make bench echoes, every
// benchmark exists, every printed line is one a bench recipe or script prints, and every
// written value is in the record the row cites.
func TestRepositoryTable(t *testing.T) {
	rows, err := readTable(filepath.Join(root, "RATIONALE.md"))
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	headings := benchHeadings(string(mk))
	require.NotEmpty(t, headings)
	benchmarks := benchmarkFuncs(t)
	printers := printerSources(t, string(mk))
	for _, r := range rows {
		t.Run(r.figure, func(t *testing.T) {
			_, err := resolveHeading(r.heading, headings)
			require.NoError(t, err)
			if r.bench != "" {
				fn, _, _ := strings.Cut(r.bench, "/")
				require.True(t, benchmarks[fn], "no func %s in a _test.go file", fn)
			} else {
				for _, part := range strings.Split(strings.TrimPrefix(r.pattern, "^"), "{}") {
					if part = strings.TrimSpace(part); part != "" {
						require.Contains(t, printers, part, "no bench recipe or script prints %q", part)
					}
				}
			}
			cited, err := os.ReadFile(filepath.Join(root, r.citedFile))
			require.NoError(t, err, "the record the row cites")
			require.True(t, strings.Contains(prose(string(cited)), r.written), "%s does not quote %q outside a table", r.citedFile, r.written)
		})
	}
}

func TestBenchHeadings(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	headings := benchHeadings(string(mk))
	require.Contains(t, headings, "module size: plugin/core.wasm")
	require.Contains(t, headings, "the MCP server under load: peak RSS and how calls ended (tests/load)")
	for _, h := range headings {
		require.NotContains(t, h, `"`)
	}
}

// prose is a record without its tables, the prose joined into one line so a value can wrap.
func prose(record string) string {
	var b strings.Builder
	for line := range strings.Lines(record) {
		if !strings.HasPrefix(strings.TrimSpace(line), "|") {
			b.WriteString(strings.TrimSpace(line) + " ")
		}
	}
	return b.String()
}

// benchmarkFuncs is the set of Benchmark functions declared in the tree's _test.go files.
func benchmarkFuncs(t *testing.T) map[string]bool {
	decl := regexp.MustCompile(`(?m)^func (Benchmark\w*)\(`)
	funcs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllSubmatch(b, -1) {
			funcs[string(m[1])] = true
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, funcs)
	return funcs
}

// printerSources is the text of what prints make bench's lines besides go test: the bench
// recipes, the JS benchmark scripts and the load programs.
func printerSources(t *testing.T, makefile string) string {
	var b strings.Builder
	for _, l := range benchRecipe(makefile) {
		b.WriteString(l + "\n")
	}
	for _, glob := range []string{"tests/js/*bench*.js", "tests/load/*.go", "tests/load/gateway/*.go"} {
		files, err := filepath.Glob(filepath.Join(root, glob))
		require.NoError(t, err)
		for _, f := range files {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			b.Write(src)
		}
	}
	return b.String()
}
