package main

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/clitest"
)

// bin is the binary TestMain builds.
var bin string

func TestMain(m *testing.M) { clitest.Main(m, "../../../cmd/deepseek-web-retrieval", &bin) }

// The benchmark with small numbers: every call answered right, the
// skewed run's DeepSeek requests at most its distinct URLs, and with a
// replica killed half-way no call hung, each client of the dead replica
// failed once at most (then moved to the survivor), and the survivor
// stopped cleanly on SIGTERM.
func TestSmoke(t *testing.T) {
	cfg := defaultConfig()
	cfg.Bin = bin
	cfg.Clients, cfg.Members = 20, 4
	cfg.LatencyCalls, cfg.SoloCalls = 2, 5
	cfg.SkewCalls, cfg.URLs = 200, 30
	cfg.Delay, cfg.Deadline, cfg.Limit = 20*time.Millisecond, 15*time.Second, time.Minute
	require.NoError(t, cfg.check())

	rep, err := run(cfg, io.Discard)
	require.NoError(t, err)
	rep.print(t.Output())
	require.Empty(t, rep.problems())

	for _, l := range rep.latency {
		require.Equal(t, l.gateway.calls, l.gateway.ok, l.name)
		require.Equal(t, l.direct.calls, l.direct.ok, l.name)
		require.Positive(t, l.gateway.calls, l.name)
	}
	require.Equal(t, cfg.SkewCalls, rep.skew.t.ok)
	require.Positive(t, rep.skew.requests)
	require.LessOrEqual(t, rep.skew.requests, rep.skew.distinct)
	require.Equal(t, int64(cfg.SkewCalls-rep.skew.requests), rep.skew.hits+rep.skew.coalesced,
		"every call that did not reach DeepSeek was a cache hit or coalesced")

	k := rep.kill
	require.Equal(t, cfg.SkewCalls, k.t.calls)
	require.Zero(t, k.t.hung)
	require.Positive(t, k.killedAfter)
	require.LessOrEqual(t, k.t.failed, cfg.Clients/2, "a client of the dead replica fails once, then calls the survivor")
	require.Equal(t, cfg.SkewCalls, k.t.ok+k.t.failed)
	require.True(t, rep.replicas[0].cmd.ProcessState.Success(), rep.replicas[0].ending())
}

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		var out []time.Duration
		for _, n := range ns {
			out = append(out, time.Duration(n)*time.Millisecond)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		ds   []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"median of four is the second", ms(4, 1, 3, 2), 50, 2 * time.Millisecond},
		{"p99 of 100 is the 99th", ms(seq(100)...), 99, 99 * time.Millisecond},
		{"p99 of 10 is the largest", ms(seq(10)...), 99, 10 * time.Millisecond},
		{"p100 is the largest", ms(5, 9, 1), 100, 9 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, percentile(tc.ds, tc.p))
		})
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func TestConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		adjust func(*config)
		err    string
	}{
		{"default", func(*config) {}, ""},
		{"one client", func(c *config) { c.Clients = 1 }, "-clients: at least 2"},
		{"more members than clients", func(c *config) { c.Members = c.Clients + 1 }, "-members: between 1 and -clients"},
		{"no skew", func(c *config) { c.ZipfS = 1 }, "-zipf-s: above 1"},
		{"max calls", func(c *config) { c.MaxCalls = 257 }, "-max-calls: 1 to 256"},
		{"deadline", func(c *config) { c.Deadline = 0 }, "-deadline and -limit positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := defaultConfig()
			tc.adjust(&c)
			err := c.check()
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}
