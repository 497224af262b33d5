// Package core is the retrieval engine of deepseek-web-retrieval. From Go,
// search and fetch with package httpdriver, which performs the engine's
// requests with net/http:
//
//	cfg, warnings, err := core.NewConfig(core.Options{MaxResults: 5})
//	eng := core.NewEngine(core.Env{Now: func() int64 { return time.Now().UnixMilli() }})
//	op := core.Operation{Kind: core.KindSearch, Query: "go 1.26", Config: cfg, APIKey: key}
//	step := httpdriver.Run(ctx, httpdriver.NewClient(), eng, op)
//	if step.Err != nil {
//		return step.Err
//	}
//	fmt.Println(step.Result.Search.Text())
//
// A fetch is the same Operation with Kind [KindFetch] and a URL; its page
// is in step.Result.Fetch.
//
// The package holds every decision about DeepSeek's Search and Fetch APIs
// (options and tiers, query building, result processing, the fetch URL
// policy, retries, limits, error text, what the model sees) and none of the
// I/O.
//
// # The sans-IO loop
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
// net/http; its Driver also waits while the engine is busy and shares
// identical calls in flight.
package core
