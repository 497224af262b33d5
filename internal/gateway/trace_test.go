package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/otlptest"
)

// traced starts a gateway exporting its spans over OTLP/HTTP to an
// in-process receiver, as serve does when OTEL_EXPORTER_OTLP_ENDPOINT is
// set.
func traced(t *testing.T, d *deepseektest.Server, content bool) (*replica, *otlptest.Receiver, map[string]string) {
	t.Helper()
	recv := otlptest.Start(t)
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(recv.URL+"/v1/traces"))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tokens, _, toks := newTokens(t, "alice")
	r := startReplica(t, d, tokens, nil, func(o *gateway.ServerOptions) { o.Tracing = gateway.NewTracing(tp, content) })
	return r, recv, toks
}

// tree is the spans of one trace, each line "name attr=value…" indented
// under its parent, in the order they ended.
func tree(spans []otlptest.Span, traceID string, show ...string) string {
	var b strings.Builder
	ids := map[string]bool{}
	for _, s := range spans {
		if s.TraceID == traceID {
			ids[s.SpanID] = true
		}
	}
	var walk func(s otlptest.Span, depth int)
	walk = func(s otlptest.Span, depth int) {
		b.WriteString(strings.Repeat("  ", depth) + s.Name)
		for _, k := range show {
			if v, ok := s.Attrs[k]; ok {
				fmt.Fprintf(&b, " %s=%v", k, v)
			}
		}
		b.WriteString("\n")
		for _, c := range spans {
			if c.TraceID == traceID && c.Parent == s.SpanID {
				walk(c, depth+1)
			}
		}
	}
	for _, s := range spans {
		if s.TraceID == traceID && !ids[s.Parent] {
			walk(s, 0)
		}
	}
	return b.String()
}

const (
	parentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpan  = "00f067aa0ba902b7"
)

func TestTraces(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	var fetches atomic.Int32
	release := make(chan struct{})
	d.Fetch = func(w http.ResponseWriter, r *http.Request) {
		switch n := fetches.Add(1); {
		case n == 1: // the retried call's first attempt
			deepseektest.WriteJSON(w, http.StatusServiceUnavailable, deepseektest.APIError("overloaded"))
		case n == 3: // the coalesced pair's one request waits
			<-release
			deepseektest.WriteJSON(w, 200, fetchAnswer)
		default:
			deepseektest.WriteJSON(w, 200, fetchAnswer)
		}
	}
	r, recv, toks := traced(t, d, false)
	cs := r.session(t, toks["alice"])
	show := []string{"dwr.member", "dwr.tool", "dwr.outcome", "dwr.cache.source", "dwr.attempt", "dwr.retry", "http.response.status_code", "dwr.billed"}
	call := func(url string, meta sdk.Meta) {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Meta: meta, Name: "deepseek_fetch", Arguments: map[string]any{"url": url}})
		require.NoError(t, err)
		require.False(t, res.IsError, "%+v", res.Content)
	}
	traceOf := func(name string, i int) string {
		var ids []string
		for _, s := range recv.Spans() {
			if s.Name == name {
				ids = append(ids, s.TraceID)
			}
		}
		require.Greater(t, len(ids), i, "spans named %q: %v", name, ids)
		return ids[i]
	}

	// A retried call, under the client's traceparent from _meta.
	call("https://go.dev/retried", sdk.Meta{"traceparent": "00-" + parentTrace + "-" + parentSpan + "-01"})
	t.Logf("the retried call's trace, as the receiver got it:\n%s", tree(recv.Spans(), parentTrace, show...))
	require.Equal(t, `tools/call deepseek_fetch dwr.member=alice dwr.tool=deepseek_fetch dwr.outcome=ok dwr.cache.source=computed
  cache dwr.cache.source=computed
    deepseek deepseek_fetch dwr.attempt=1 dwr.retry=false http.response.status_code=503 dwr.billed=false
    deepseek deepseek_fetch dwr.attempt=2 dwr.retry=true http.response.status_code=200 dwr.billed=true
`, tree(recv.Spans(), parentTrace, show...))
	for _, s := range recv.Spans() {
		if s.Name == "tools/call deepseek_fetch" {
			require.Equal(t, parentSpan, s.Parent, "the call's span is the child of the client's")
		}
	}

	// The same page again: from the cache, no request.
	call("https://go.dev/retried", nil)
	require.Equal(t, `tools/call deepseek_fetch dwr.outcome=ok dwr.cache.source=hit
  cache dwr.cache.source=hit
`, tree(recv.Spans(), traceOf("tools/call deepseek_fetch", 1), "dwr.outcome", "dwr.cache.source"))

	// Two identical calls at once: one request, the other call coalesced.
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); call("https://go.dev/pair", nil) }()
	}
	require.Eventually(t, func() bool { return fetches.Load() == 3 }, 10*time.Second, 10*time.Millisecond)
	time.Sleep(200 * time.Millisecond) // the second call reaches the lock
	close(release)
	wg.Wait()
	var trees []string
	for i := 2; i < 4; i++ {
		trees = append(trees, tree(recv.Spans(), traceOf("tools/call deepseek_fetch", i), "dwr.cache.source", "dwr.attempt"))
	}
	require.ElementsMatch(t, []string{
		"tools/call deepseek_fetch dwr.cache.source=coalesced\n  cache dwr.cache.source=coalesced\n",
		"tools/call deepseek_fetch dwr.cache.source=computed\n  cache dwr.cache.source=computed\n    deepseek deepseek_fetch dwr.attempt=1\n",
	}, trees)
	require.EqualValues(t, 3, fetches.Load())

	// No attribute holds the key, the member's token or, by default, a URL.
	for _, s := range recv.Spans() {
		for k, v := range s.Attrs {
			text := fmt.Sprint(v)
			for _, secret := range []string{gwKey, toks["alice"], "go.dev"} {
				require.NotContains(t, text, secret, "span %s attribute %s", s.Name, k)
			}
		}
	}
}

// With --trace-content a call's span names its query or URL; the
// traceparent of the HTTP request is used when _meta has none.
func TestTracesContent(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	d.Search = deepseektest.Answer(200, map[string]any{"results": []any{}})
	r, recv, toks := traced(t, d, true)
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	hdr := headers{"Authorization": "Bearer " + toks["alice"], "traceparent": "00-" + parentTrace + "-" + parentSpan + "-01"}
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: r.srv.URL + "/mcp", HTTPClient: &http.Client{Transport: hdr}, MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()
	_, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "deepseek_search", Arguments: map[string]any{"query": "go generics"}})
	require.NoError(t, err)
	require.Equal(t, "tools/call deepseek_search dwr.query=go generics\n  cache\n    deepseek deepseek_search\n", tree(recv.Spans(), parentTrace, "dwr.query"))
}

// headers sets its headers on every request.
type headers map[string]string

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
