package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

// Targets for the worst 5 MiB bodies, printed by
// BenchmarkWorstBodies, never asserted as timings.
const (
	targetWorstPeakBytes = 32 << 20
	targetWorstCall      = 100 * time.Millisecond
)

// messagesOptions put a search on the Messages backend.
const messagesOptions = `{"searchBackend":"messages","messagesBaseURL":"http://127.0.0.1:1","maxRetries":0}`

// worstBody is a 5 MiB body built to cost as much as a body can.
type worstBody struct {
	name, kind, input string
	body              []byte
	// code is the error code the call ends with, "" for a result.
	code string
	// options are the call's options; "" means the Search API's.
	options string
}

// fill repeats unit between head and tail up to n bytes.
func fill(head, unit, sep, tail string, n int) []byte {
	var b strings.Builder
	b.Grow(n)
	b.WriteString(head)
	for first := true; b.Len()+len(sep)+len(unit)+len(tail) <= n; first = false {
		if !first {
			b.WriteString(sep)
		}
		b.WriteString(unit)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

func worstBodies() []worstBody {
	const n = 5 << 20
	search, fetch := `{"query":"worst"}`, `{"url":"https://example.com/"}`
	bigSummaries := func() []byte {
		// 50 results (DeepSeek's most) with summaries just under the
		// per-field limit: everything is decoded and masked.
		each := (n - 200) / 50
		item := `{"url":"https://example.com/%d","summary":"` + strings.Repeat("word ", (each-60)/5) + `"}`
		parts := make([]string, 50)
		for i := range parts {
			parts[i] = fmt.Sprintf(item, i)
		}
		return []byte(`{"results":[` + strings.Join(parts, ",") + `]}`)
	}
	return []worstBody{
		{"search many empty results", abi.KindSearch, search, fill(`{"results":[`, `{}`, ",", `]}`, n), "malformed", ""},
		{"search many tiny non-objects", abi.KindSearch, search, fill(`{"results":[`, `0`, ",", `]}`, n), "malformed", ""},
		{"search 200 results then padding", abi.KindSearch, search, []byte(`{"results":[` + strings.Repeat(`{"url":"https://a.example/"},`, 199) + `{"url":"https://a.example/"}],"pad":"` + strings.Repeat("x", n-6000) + `"}`), "", ""},
		{"search one huge summary", abi.KindSearch, search, fill(`{"results":[{"url":"https://example.com/","summary":"`, `x`, "", `"}]}`, n), "", ""},
		{"search escaped huge summary", abi.KindSearch, search, fill(`{"results":[{"url":"https://example.com/","summary":"`, `\u00e9`, "", `"}]}`, n), "", ""},
		{"search 50 summaries at the field limit", abi.KindSearch, search, bigSummaries(), "", ""},
		{"search deep nesting", abi.KindSearch, search, fill(`{"results":[`, `[`, "", ``, n), "malformed", ""},
		{"search deep objects", abi.KindSearch, search, fill(`{"results":[{"x":`, `{"x":`, "", ``, n), "malformed", ""},
		{"search many top-level members", abi.KindSearch, search, fill(`{`, `"a":{}`, ",", `,"results":[]}`, n), "", ""},
		{"fetch one huge content", abi.KindFetch, fetch, fill(`{"title":"T","content":"`, `x`, "", `"}`, n), "", ""},
		{"fetch huge escaped content", abi.KindFetch, fetch, fill(`{"title":"T","content":"`, `\u00e9`, "", `"}`, n), "", ""},
		{"fetch huge title", abi.KindFetch, fetch, fill(`{"content":"c","title":"`, `x`, "", `"}`, n), "", ""},
		{"fetch inner whitespace", abi.KindFetch, fetch, fill(`{"title":"T","content":"x`, `\n`, "", `x"}`, n), "", ""},
		{"fetch lines of whitespace", abi.KindFetch, fetch, fill(`{"title":"T","content":"`, `\n`, "", `x"}`, n), "", ""},
		{"error body of nested objects", abi.KindSearch, search, fill(`{"error":{"message":`, `{"a":`, "", ``, n), "api", ""},
		// The Messages backend decodes its own bodies (core/internal/anthropic).
		{"messages many empty blocks", abi.KindSearch, search, fill(`{"content":[`, `{}`, ",", `]}`, n), "malformed", messagesOptions},
		{"messages many tiny results", abi.KindSearch, search, fill(`{"content":[{"type":"web_search_tool_result","content":[`, `{"type":"web_search_result","url":"https://a.example/"}`, ",", `]}]}`, n), "malformed", messagesOptions},
		{"messages many citations", abi.KindSearch, search, fill(`{"content":[{"type":"web_search_tool_result","content":[{"type":"web_search_result","url":"https://a.example/"}]},{"type":"text","text":"t","citations":[`, `{"type":"web_search_result_location","url":"https://a.example/","cited_text":"c"}`, ",", `]}]}`, n), "malformed", messagesOptions},
		{"messages many result blocks", abi.KindSearch, search, fill(`{"content":[`, `{"type":"web_search_tool_result","content":[]}`, ",", `]}`, n), "malformed", messagesOptions},
		{"messages many tiny non-blocks", abi.KindSearch, search, fill(`{"content":[`, `0`, ",", `]}`, n), "malformed", messagesOptions},
		{"messages many top-level members", abi.KindSearch, search, fill(`{`, `"a":0`, ",", `,"content":[]}`, n), "not_grounded", messagesOptions},
		{"messages many members of one block", abi.KindSearch, search, fill(`{"content":[{"type":"text","text":"t",`, `"a":0`, ",", `}]}`, n), "not_grounded", messagesOptions},
		{"messages many members in a block", abi.KindSearch, search, fill(`{"stop_reason":"end_turn","content":[{"type":"web_search_tool_result","content":[{"type":"web_search_result","url":"https://a.example/","title":"A"}]},{"type":"text","text":"t","x":{`, `"a":0`, ",", `}}]}`, n), "", messagesOptions},
	}
}

// runWorst runs one worst body through a fresh module and returns the
// call's duration, the memory before and after, and the final envelope.
func runWorst(tb testing.TB, w worstBody) (time.Duration, uint32, uint32, Reply) {
	ctx := context.Background()
	m, err := Instantiate(ctx, rt, compiled)
	require.NoError(tb, err)
	defer m.Close(ctx)
	mixedBatch(tb, m, 20) // warm, as a plugin is after its first calls
	before := m.MemorySize()
	status := 200
	if w.code == "api" {
		status = 400
	}
	options := w.options
	if options == "" {
		options = `{"baseURL":"http://127.0.0.1:1","maxRetries":0}`
	}
	r, err := m.Start(ctx, abi.Start{V: 1, Kind: w.kind, Options: json.RawMessage(options), APIKey: testKey, Input: json.RawMessage(w.input)})
	require.NoError(tb, err)
	require.Equal(tb, abi.StepHTTP, r.Step.Step, "%s", r.Raw)
	t0 := time.Now()
	r, err = m.Resume(ctx, r.Handle, abi.Reply{Kind: "response", Status: status}, w.body)
	took := time.Since(t0)
	require.NoError(tb, err)
	return took, before, m.MemorySize(), r
}

// Linear memory stays bounded by the limits, not by the body, for every
// worst 5 MiB body (a 5 MiB body of empty results once grew it to
// 605 MiB); and each ends the way it should. A correctness bound, not a
// timing.
func TestWorstBodiesMemoryBounded(t *testing.T) {
	for _, w := range worstBodies() {
		t.Run(w.name, func(t *testing.T) {
			require.LessOrEqual(t, len(w.body), 5<<20)
			_, before, after, r := runWorst(t, w)
			if w.code == "" {
				require.Nil(t, r.Error, "%.300s", r.Raw)
			} else {
				require.NotNil(t, r.Error)
				require.Equal(t, w.code, r.Error.Code, r.Error.Message)
			}
			require.LessOrEqual(t, after, uint32(targetWorstPeakBytes), "linear memory grew from %d to %d bytes", before, after)
			if testing.Verbose() {
				fmt.Fprintf(os.Stderr, "%-40s memory %5.1f → %5.1f MiB\n", w.name, float64(before)/(1<<20), float64(after)/(1<<20))
			}
		})
	}
	t.Run("many empty results fail clearly", func(t *testing.T) {
		_, _, _, r := runWorst(t, worstBodies()[0])
		require.Equal(t, "DeepSeek Search failed: DeepSeek returned more than 200 results (it sends at most 50), so the response was not used", r.Error.Message)
	})
	t.Run("a Messages response past its limits fails clearly", func(t *testing.T) {
		for name, want := range map[string]string{
			"messages many empty blocks": "DeepSeek Messages search failed: DeepSeek returned more than 2000 content blocks (a real turn holds far fewer), so the response was not used",
			"messages many tiny results": "DeepSeek Messages search failed: DeepSeek returned more than 200 results in one web_search_tool_result (a real turn holds far fewer), so the response was not used",
			"messages many citations":    "DeepSeek Messages search failed: DeepSeek returned more than 200 citations in one text block (a real turn holds far fewer), so the response was not used",
		} {
			for _, w := range worstBodies() {
				if w.name == name {
					_, _, _, r := runWorst(t, w)
					require.Equal(t, want, r.Error.Message)
				}
			}
		}
	})
}

// BenchmarkWorstBodies prints, per worst 5 MiB body, the module's peak
// linear memory (wasm memory never shrinks, so its size after the call is
// the peak) and the time of the call that decodes the body. Targets: peak
// ≤ 32 MiB, call ≤ 100 ms.
func BenchmarkWorstBodies(b *testing.B) {
	for _, w := range worstBodies() {
		b.Run(strings.ReplaceAll(w.name, " ", "-"), func(b *testing.B) {
			var total time.Duration
			var peak uint32
			for b.Loop() {
				took, _, after, _ := runWorst(b, w)
				total += took
				peak = max(peak, after)
			}
			call := total / time.Duration(b.N)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(float64(call.Microseconds())/1000, "ms/call")
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			if peak > targetWorstPeakBytes || call > targetWorstCall {
				b.Logf("over target: peak %.1f MiB (target 32), call %v (target 100 ms)", float64(peak)/(1<<20), call)
			}
		})
	}
}
