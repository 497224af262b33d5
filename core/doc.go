// Package core is the retrieval engine of deepseek-web-retrieval: every
// decision about DeepSeek's Search and Fetch APIs (options and tiers, query
// building, result processing, the fetch URL policy, retries, limits, error
// text, what the model sees) and none of the I/O.
//
// The engine is sans-IO. [Engine.Start] returns a [Step]; when the step
// carries a [Request], the host performs it (after Request.DelayMs) and
// hands the outcome back with [Engine.Resume], until a step is Done:
//
//	now := func() int64 { return time.Now().UnixMilli() }
//	eng := core.NewEngine(core.Env{Now: now, Random: rand.Float64})
//	cfg, warnings, err := core.NewConfig(opts)
//	step := eng.Start(core.Operation{Kind: core.KindSearch, Query: "go 1.26", Config: cfg, APIKey: key})
//	for !step.Done {
//		reply := perform(step.Request) // the host's HTTP, honouring timeout, byte cap, no redirects
//		step = eng.Resume(step.Handle, reply)
//	}
//	// step.Result or step.Err
//
// The package reads no clock, randomness or environment by itself (see
// [Env]) and imports no networking, so it compiles to a small WebAssembly
// module for GOOS=wasip1. The package httpdriver runs the same loop with
// net/http.
package core
