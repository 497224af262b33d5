package gateway

import "github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/promtext"

// latencyBuckets are the bounds of dwr_call_duration_seconds: from a
// cache hit (milliseconds) to a slow fetch with retries (a minute).
var latencyBuckets = []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Metrics are the gateway's metrics, registered in one [promtext.Registry].
type Metrics struct {
	// Registry serves them all.
	Registry *promtext.Registry
	// Calls counts tool calls by tool and outcome (ok, error, quota,
	// busy, unauthorized, …).
	Calls *promtext.CounterVec
	// DeepSeekRequests counts requests sent to DeepSeek, by tool;
	// BilledRequests those DeepSeek bills.
	DeepSeekRequests, BilledRequests *promtext.CounterVec
	// CacheHits counts calls answered from the cache, by tool; Coalesced
	// counts calls that shared an identical call's answer.
	CacheHits, Coalesced *promtext.CounterVec
	// Latency is the duration of calls in seconds, by tool.
	Latency *promtext.HistogramVec
	// Waiting is the number of calls waiting for a rate slot.
	Waiting *promtext.Gauge
	// RedisFallbacks counts store operations served in process because
	// Redis failed.
	RedisFallbacks *promtext.Counter
	// Connections is the number of connections open to [Server.Serve].
	Connections *promtext.Gauge
}

// NewMetrics registers the gateway's metrics in a new registry.
func NewMetrics() *Metrics {
	r := promtext.NewRegistry()
	m := &Metrics{
		Registry:         r,
		Calls:            r.NewCounter("dwr_calls_total", "Tool calls by tool and outcome.", "tool", "outcome"),
		DeepSeekRequests: r.NewCounter("dwr_deepseek_requests_total", "Requests sent to DeepSeek, by tool.", "tool"),
		BilledRequests:   r.NewCounter("dwr_deepseek_billed_requests_total", "Requests DeepSeek bills, by tool.", "tool"),
		CacheHits:        r.NewCounter("dwr_cache_hits_total", "Calls answered from the cache, by tool.", "tool"),
		Coalesced:        r.NewCounter("dwr_coalesced_calls_total", "Calls that shared the answer of an identical call in flight, by tool.", "tool"),
		Latency:          r.NewHistogram("dwr_call_duration_seconds", "Duration of tool calls in seconds, by tool.", latencyBuckets, "tool"),
		Waiting:          r.NewGauge("dwr_calls_waiting", "Calls waiting for a team rate slot."),
	}
	m.RedisFallbacks = r.NewCounter("dwr_redis_fallbacks_total", "Store operations served in process because Redis failed.").With()
	m.Connections = r.NewGauge("dwr_connections_open", "Connections open to this replica.")
	return m
}
