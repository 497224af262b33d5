// Package gateway holds the building blocks of the team gateway
// (deepseek-web-retrieval serve): the MCP tools over HTTP for
// many members behind one DeepSeek key. Each block stands alone and is
// tested against a real redis-server; the serve command wires them.
//
//   - Tokens: member tokens. [AddToken] issues one ("dwr_" and 32 random
//     bytes) and stores only its SHA-256 in a JSON file written
//     atomically with mode 0600; [RevokeToken] removes it; [Tokens]
//     follows the file and turns "Authorization: Bearer …" into a member
//     name, failing closed while the file is broken.
//   - Limits: [Limiter.Admit] checks a member's calls in flight and daily
//     quota; [Limiter.Rate] and [Limiter.WaitRate] hold the team to its
//     Search and Fetch requests per second. A refusal is a [Decision]
//     whose Text the member reads ("quota spent: … resets at …",
//     "busy: … retry in …").
//   - Shared state: a [Store], in process ([MemStore]) or in Redis or
//     Valkey ([RedisStore]) so replicas share everything; [FailoverStore] puts
//     a MemStore behind Redis, so an outage costs shared state, not
//     calls.
//   - Cache: [Cache.Do] answers from the cache, from an identical call in
//     flight on any replica (a SET NX PX lock, others poll for the
//     answer), or by doing the work once. Callers name answers by an
//     opaque identity that must cover every option that changes the
//     answer and hold no key or token; the store sees only its SHA-256.
//   - Audit: [Audit] writes one JSON line per call, every field masked.
//   - Metrics: [Metrics] in a small [Registry] that writes the
//     Prometheus text format.
//   - Serving: [Server.Serve] answers on a listener with deadlines on
//     reading requests and a cap on open connections, so a client
//     without a token holds nothing for long.
//
// # Wiring, in order, for one tool call
//
//	member, err := tokens.Authenticate(r.Header.Get("Authorization")) // 401 on error, no detail
//	release, d := limiter.Admit(ctx, member)                           // d.Text() as the tool's error result
//	defer release()
//	answer, src, err := cache.Do(ctx, identity, ttl, func(ctx context.Context) ([]byte, error) {
//		if d, err := limiter.WaitRate(ctx, gateway.Search); err != nil || !d.OK() { … }
//		… the DeepSeek request …
//	})
//	audit.Log(gateway.AuditRecord{…}); metrics.Calls.Inc(tool, outcome)
package gateway
