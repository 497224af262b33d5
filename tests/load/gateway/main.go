// Command gateway is the load benchmark of the team gateway (make
// bench-gateway): two `deepseek-web-retrieval serve` replicas, child
// processes of the built binary, share one real redis-server and answer
// MCP clients (the Go SDK's streamable HTTP client, one member token each
// by default) against a mock DeepSeek in this process that answers after
// a fixed delay. It prints:
//
//   - the latency a tool call adds when it goes through the gateway: p50
//     and p99 of uncached fetches (of one client alone, then of all at
//     once), uncached searches and fetches another replica cached,
//     against the same request bodies sent straight to the mock with the
//     same concurrency;
//   - the DeepSeek requests of a skewed workload (Zipf over a few URLs)
//     spread over both replicas, and the hit rate that follows;
//   - the same workload with the second replica killed (SIGKILL) half-way:
//     how many calls failed, how fast they failed, and whether any hung
//     (a call that does not return within -deadline); a client whose
//     replica died moves to the survivor for its next call;
//   - each replica's peak RSS (getrusage's ru_maxrss after it exits).
//
// The team rate limits and the members' calls in flight are raised
// (-search-rps, -fetch-rps, -in-flight), and so is the engine's
// admission (-max-calls, -max-held-mb), so neither is the bottleneck unless a run sets
// them to measure it. Timings are printed,
// never judged: it exits 1 only on a real failure (a call hung, failed
// or got a wrong answer without a replica killed, DeepSeek requests
// beyond the distinct URLs of the skewed run, a replica that crashed or
// did not stop cleanly on SIGTERM), 2 on bad flags.
//
//	go run ./tests/load/gateway -bin bin/deepseek-web-retrieval [-clients 200] [-delay 50ms]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	cfg := defaultConfig()
	flag.StringVar(&cfg.Bin, "bin", "bin/deepseek-web-retrieval", "the binary under test")
	flag.IntVar(&cfg.Clients, "clients", cfg.Clients, "concurrent MCP clients, spread over the two replicas")
	flag.IntVar(&cfg.Members, "members", cfg.Members, "members (tokens) the clients use in turn")
	flag.IntVar(&cfg.LatencyCalls, "latency-calls", cfg.LatencyCalls, "calls per client in each latency row")
	flag.IntVar(&cfg.SoloCalls, "solo-calls", cfg.SoloCalls, "calls of one client alone, for the latency without queueing")
	flag.IntVar(&cfg.SkewCalls, "skew-calls", cfg.SkewCalls, "calls of the skewed run and of the run with a replica killed")
	flag.IntVar(&cfg.URLs, "urls", cfg.URLs, "distinct URLs the skewed runs draw from")
	flag.Float64Var(&cfg.ZipfS, "zipf-s", cfg.ZipfS, "the skew: Zipf's s (> 1)")
	flag.DurationVar(&cfg.Delay, "delay", cfg.Delay, "how long the mock DeepSeek takes to answer")
	flag.DurationVar(&cfg.Deadline, "deadline", cfg.Deadline, "a call that has not returned by then has hung")
	flag.IntVar(&cfg.SearchRPS, "search-rps", cfg.SearchRPS, "the replicas' --search-rps")
	flag.IntVar(&cfg.FetchRPS, "fetch-rps", cfg.FetchRPS, "the replicas' --fetch-rps")
	flag.IntVar(&cfg.InFlight, "in-flight", cfg.InFlight, "the replicas' --in-flight (per member)")
	flag.IntVar(&cfg.MaxCalls, "max-calls", cfg.MaxCalls, "the replicas' --max-calls (operations one engine runs at once)")
	flag.IntVar(&cfg.MaxHeldMB, "max-held-mb", cfg.MaxHeldMB, "the replicas' --max-held-mb (each fetch reserves about 10 MiB)")
	flag.Int64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the skewed draws")
	flag.DurationVar(&cfg.Limit, "limit", cfg.Limit, "the whole run's bound: past it the benchmark stops and fails")
	flag.Parse()
	if err := cfg.check(); err != nil {
		fmt.Fprintln(os.Stderr, "gateway load:", err)
		os.Exit(2)
	}
	t0 := time.Now()
	rep, err := run(cfg, os.Stderr)
	if rep != nil {
		rep.print(os.Stdout)
		fmt.Printf("run took %.1fs\n", time.Since(t0).Seconds())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gateway load:", err)
		os.Exit(1)
	}
	if probs := rep.problems(); len(probs) > 0 {
		for _, p := range probs {
			fmt.Fprintln(os.Stderr, "gateway load: FAILED:", p)
		}
		os.Exit(1)
	}
}
