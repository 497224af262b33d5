package gateway_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
)

func TestMetricsExposition(t *testing.T) {
	m := gateway.NewMetrics()
	m.Calls.Inc("search", "ok")
	m.Calls.Inc("search", "ok")
	m.Calls.Inc("fetch", "quota")
	m.Calls.Inc("fetch", "ok")
	m.DeepSeekRequests.With("search").Add(3)
	m.BilledRequests.Inc("search")
	m.CacheHits.Inc("fetch")
	m.Coalesced.Inc("search")
	m.Latency.Observe(0.004, "search")
	m.Latency.Observe(0.1, "search") // on a bound: counted in le="0.1"
	m.Latency.Observe(75, "search")
	m.Latency.Observe(1.5, "fetch")
	m.Waiting.Add(2)
	m.Waiting.Add(-1)
	m.RedisFallbacks.Add(4)
	m.Connections.Add(3)
	var b strings.Builder
	n, err := m.Registry.WriteTo(&b)
	require.NoError(t, err)
	require.Equal(t, int64(b.Len()), n)
	require.Equal(t, `# HELP dwr_calls_total Tool calls by tool and outcome.
# TYPE dwr_calls_total counter
dwr_calls_total{tool="fetch",outcome="ok"} 1
dwr_calls_total{tool="fetch",outcome="quota"} 1
dwr_calls_total{tool="search",outcome="ok"} 2
# HELP dwr_deepseek_requests_total Requests sent to DeepSeek, by tool.
# TYPE dwr_deepseek_requests_total counter
dwr_deepseek_requests_total{tool="search"} 3
# HELP dwr_deepseek_billed_requests_total Requests DeepSeek bills, by tool.
# TYPE dwr_deepseek_billed_requests_total counter
dwr_deepseek_billed_requests_total{tool="search"} 1
# HELP dwr_cache_hits_total Calls answered from the cache, by tool.
# TYPE dwr_cache_hits_total counter
dwr_cache_hits_total{tool="fetch"} 1
# HELP dwr_coalesced_calls_total Calls that shared the answer of an identical call in flight, by tool.
# TYPE dwr_coalesced_calls_total counter
dwr_coalesced_calls_total{tool="search"} 1
# HELP dwr_call_duration_seconds Duration of tool calls in seconds, by tool.
# TYPE dwr_call_duration_seconds histogram
dwr_call_duration_seconds_bucket{tool="fetch",le="0.005"} 0
dwr_call_duration_seconds_bucket{tool="fetch",le="0.025"} 0
dwr_call_duration_seconds_bucket{tool="fetch",le="0.1"} 0
dwr_call_duration_seconds_bucket{tool="fetch",le="0.25"} 0
dwr_call_duration_seconds_bucket{tool="fetch",le="0.5"} 0
dwr_call_duration_seconds_bucket{tool="fetch",le="1"} 0
dwr_call_duration_seconds_bucket{tool="fetch",le="2.5"} 1
dwr_call_duration_seconds_bucket{tool="fetch",le="5"} 1
dwr_call_duration_seconds_bucket{tool="fetch",le="10"} 1
dwr_call_duration_seconds_bucket{tool="fetch",le="30"} 1
dwr_call_duration_seconds_bucket{tool="fetch",le="60"} 1
dwr_call_duration_seconds_bucket{tool="fetch",le="+Inf"} 1
dwr_call_duration_seconds_sum{tool="fetch"} 1.5
dwr_call_duration_seconds_count{tool="fetch"} 1
dwr_call_duration_seconds_bucket{tool="search",le="0.005"} 1
dwr_call_duration_seconds_bucket{tool="search",le="0.025"} 1
dwr_call_duration_seconds_bucket{tool="search",le="0.1"} 2
dwr_call_duration_seconds_bucket{tool="search",le="0.25"} 2
dwr_call_duration_seconds_bucket{tool="search",le="0.5"} 2
dwr_call_duration_seconds_bucket{tool="search",le="1"} 2
dwr_call_duration_seconds_bucket{tool="search",le="2.5"} 2
dwr_call_duration_seconds_bucket{tool="search",le="5"} 2
dwr_call_duration_seconds_bucket{tool="search",le="10"} 2
dwr_call_duration_seconds_bucket{tool="search",le="30"} 2
dwr_call_duration_seconds_bucket{tool="search",le="60"} 2
dwr_call_duration_seconds_bucket{tool="search",le="+Inf"} 3
dwr_call_duration_seconds_sum{tool="search"} 75.104
dwr_call_duration_seconds_count{tool="search"} 3
# HELP dwr_calls_waiting Calls waiting for a team rate slot.
# TYPE dwr_calls_waiting gauge
dwr_calls_waiting 1
# HELP dwr_redis_fallbacks_total Store operations served in process because Redis failed.
# TYPE dwr_redis_fallbacks_total counter
dwr_redis_fallbacks_total 4
# HELP dwr_connections_open Connections open to this replica.
# TYPE dwr_connections_open gauge
dwr_connections_open 3
`, b.String())
}
