// The fetch bridge in plugin/runtime.js, driven through the plugin on the fake hosts:
// cancellation from the host's signal, retries and Retry-After, timeouts, the 5 MiB cap,
// redirects, concurrency through one instance, and recovery after the module traps.
import { test, before, after, beforeEach } from "node:test"
import assert from "node:assert/strict"
import { createFakeHostV2 } from "./lib/fake-host-v2.js"
import { startEnv, startStallServer, plugin, runtime, captureLogs, waitFor, sleep, inFlightSettles, warmed } from "./lib/plugin-helpers.js"

let env
let stall
before(async () => {
  env = await startEnv()
  stall = await startStallServer()
})
after(async () => {
  await stall.close()
  await env.close()
})
beforeEach(() => {
  env.ds.reset()
  stall.requests.length = 0
})

/**
 * A 2.x host whose plugin talks to the stall server (never answers), once its warm-up is
 * over: the tests count the operations in flight, and a warm-up search is one while it runs.
 */
async function stalledHost(extra = {}) {
  const host = createFakeHostV2()
  await host.load(plugin, { ...env.options(extra), baseURL: stall.baseURL })
  await warmed()
  return host
}

// --- cancellation ---------------------------------------------------------------------------

test("abort while DeepSeek stalls: provider call ends at once, reports cancelled, connection closed", async () => {
  const host = await stalledHost()
  const ctl = new AbortController()
  const logs = captureLogs()
  env.clearLog()
  let s, abortedAt
  try {
    // The provider as OpenCode calls it: execute(input, { signal }) (adapter.ts `attempt`).
    const pending = host.websearch.get("deepseek").execute({ query: "stalled query" }, { signal: ctl.signal }).then(
      () => ({ ok: true }),
      (error) => ({ ok: false, error }),
    )
    await waitFor(() => stall.requests.length === 1, 3000, "the request")
    assert.equal(runtime().inFlight(), 1)
    abortedAt = performance.now()
    ctl.abort()
    s = await pending
  } finally {
    logs.restore()
  }
  const took = performance.now() - abortedAt
  assert.ok(took < 1000, `ended ${took.toFixed(0)} ms after the abort`)
  assert.equal(s.ok, false)
  assert.equal(s.error.message, "DeepSeek Search cancelled")
  assert.deepEqual(logs.lines, [])
  assert.deepEqual(env.logLines(), [], "a cancel is not logged as a failure")
  await waitFor(() => stall.requests[0].closedAt !== null, 1000, "the connection to close")
  assert.equal(await inFlightSettles(), 0)
  await sleep(50)
  assert.equal(stall.requests.length, 1, "no retry after a cancel")
})

test("abort a tool call (2.x signal and 1.x abort): rejects promptly with cancelled", async () => {
  const host = await stalledHost()
  const ctl = new AbortController()
  const pending = host.runTool("deepseek_fetch", { url: "https://docs.example/slow" }, { signal: ctl.signal })
  await waitFor(() => stall.requests.length === 1, 3000, "the request")
  const t0 = performance.now()
  ctl.abort()
  const r = await pending
  assert.ok(performance.now() - t0 < 1000)
  assert.deepEqual(r.error, { type: "aborted", message: "Tool execution interrupted" }, "OpenCode settles an aborted call itself")
  assert.deepEqual(r.settled.result, { content: [{ type: "text", text: "DeepSeek Fetch cancelled" }], metadata: { error: "cancelled" } })

  // The whole websearch tool, aborted: interrupted too, and nothing logged.
  env.clearLog()
  const ctlS = new AbortController()
  const ps = host.search("stalled", { signal: ctlS.signal })
  await waitFor(() => stall.requests.length === 2, 3000, "the search request")
  ctlS.abort()
  const s = await ps
  assert.equal(s.interrupted, true)
  assert.deepEqual(env.logLines(), [])

  const { loadPluginV1 } = await import("./lib/fake-host-v1.js")
  const h = await loadPluginV1(plugin, { options: { ...env.options(), baseURL: stall.baseURL } })
  const ctl1 = new AbortController()
  const p1 = h.runTool("deepseek_search", { query: "slow" }, { signal: ctl1.signal })
  await waitFor(() => stall.requests.length === 3, 3000, "the third request")
  const t1 = performance.now()
  ctl1.abort()
  const r1 = await p1
  assert.ok(performance.now() - t1 < 1000)
  assert.equal(r1.status, "error")
  assert.equal(r1.output, "DeepSeek Search cancelled")
  await waitFor(() => stall.requests.every((q) => q.closedAt !== null), 1000, "connections to close")
  assert.equal(await inFlightSettles(), 0)
})

test("a signal aborted before the call: nothing is sent", async () => {
  const host = await env.v2()
  const r = await host.runTool("deepseek_fetch", { url: "https://docs.example/" }, { signal: AbortSignal.abort() })
  assert.equal(r.interrupted, true)
  assert.equal(r.settled.result.metadata.error, "cancelled")
  assert.equal(env.ds.requests.length, 0)
  assert.equal(await inFlightSettles(), 0)
})

test("abort while the body trickles in: cancelled, not a network error", async () => {
  const host = await env.v2()
  env.ds.enqueue("fetch", { slowBody: { chunks: 20, intervalMs: 100 }, json: { title: "T", content: "x".repeat(2000) } })
  const ctl = new AbortController()
  const pending = host.runTool("deepseek_fetch", { url: "https://docs.example/trickle" }, { signal: ctl.signal })
  await waitFor(() => env.ds.fetchRequests.length === 1)
  await sleep(250)
  const t0 = performance.now()
  ctl.abort()
  const r = await pending
  assert.ok(performance.now() - t0 < 1000)
  assert.equal(r.settled.result.metadata.error, "cancelled", JSON.stringify(r.settled.result.content))
  assert.equal(await inFlightSettles(), 0)
})

test("abort during a Retry-After wait: ends at once, no second request", async () => {
  const host = await env.v2()
  env.ds.enqueue("search", { status: 503, headers: { "retry-after": "5" }, json: { error: { message: "busy" } } })
  const ctl = new AbortController()
  const logs = captureLogs()
  let s, took
  try {
    const pending = host.websearch.get("deepseek").execute({ query: "busy" }, { signal: ctl.signal }).then(
      () => ({ ok: true }),
      (error) => ({ ok: false, error }),
    )
    await waitFor(() => env.ds.searchRequests.length === 1)
    await sleep(150) // now inside the 5 s wait
    assert.equal(runtime().inFlight(), 1)
    const t0 = performance.now()
    ctl.abort()
    s = await pending
    took = performance.now() - t0
  } finally {
    logs.restore()
  }
  assert.ok(took < 1000, `${took} ms`)
  assert.equal(s.ok, false)
  assert.equal(s.error.message, "DeepSeek Search cancelled")
  assert.equal(await inFlightSettles(), 0)
  await sleep(300)
  assert.equal(env.ds.searchRequests.length, 1)
})

// --- retries, timeouts, limits --------------------------------------------------------------

test("429 with Retry-After: 1, then 200 → success, two requests about 1 s apart", async () => {
  const h = await env.v1()
  env.ds.enqueue("search", { status: 429, headers: { "retry-after": "1" }, json: { error: { message: "Rate limited" } } })
  const r = await h.runTool("deepseek_search", { query: "retry me" })
  assert.equal(r.status, "completed", r.output)
  assert.match(r.output, /^1\. Effective Go/)
  const [a, b] = env.ds.searchRequests
  assert.equal(env.ds.searchRequests.length, 2)
  const gap = b.time - a.time
  assert.ok(gap >= 900 && gap < 2500, `gap ${gap} ms`)
  assert.equal(a.body, b.body, "the retry sends the same request")
})

test("retries give up after maxRetries with the last status", async () => {
  const h = await env.v1({ maxRetries: 1 })
  const busy = { status: 500, headers: { "retry-after": "0" }, json: { error: { message: "Server down" } } }
  env.ds.enqueue("fetch", busy, busy, busy)
  const r = await h.runTool("deepseek_fetch", { url: "https://docs.example/" })
  assert.equal(r.status, "error")
  assert.equal(r.output, "DeepSeek Fetch failed: HTTP 500: Server down (gave up after 2 attempts)")
  assert.equal(env.ds.fetchRequests.length, 2)
})

test("timeoutMs 1000 with a stalled body → timed out after 1000 ms, not retried", async () => {
  const h = await env.v1({ timeoutMs: 1000 })
  env.ds.enqueue("search", { slowBody: { chunks: 10, intervalMs: 400 }, json: { results: [] } })
  const t0 = performance.now()
  const r = await h.runTool("deepseek_search", { query: "slow body" })
  const took = performance.now() - t0
  assert.equal(r.status, "error")
  assert.equal(r.output, "DeepSeek Search failed: timed out after 1000 ms")
  assert.ok(took >= 950 && took < 2000, `${took} ms`)
  assert.equal(env.ds.searchRequests.length, 1)
  assert.equal(await inFlightSettles(), 0)
})

test("timeout while waiting for headers", async () => {
  const host = await stalledHost({ timeoutMs: 1000 })
  const r = await host.runTool("deepseek_fetch", { url: "https://docs.example/" })
  assert.equal(r.text, "DeepSeek Fetch failed: timed out after 1000 ms")
  assert.equal(r.metadata.error, "timeout")
})

test("a body of 5 MiB + 1 is refused as too large (with and without Content-Length)", async () => {
  const h = await env.v1()
  const want = "DeepSeek Fetch failed: the response is larger than 5 MiB (5242880 bytes) and was not read"
  env.ds.enqueue("fetch", { hugeBytes: 5 * 1024 * 1024 + 1 })
  const a = await h.runTool("deepseek_fetch", { url: "https://docs.example/huge" })
  assert.equal(a.output, want)
  env.ds.enqueue("fetch", { hugeBytes: 5 * 1024 * 1024 + 1, contentLength: false })
  const b = await h.runTool("deepseek_fetch", { url: "https://docs.example/huge" })
  assert.equal(b.output, want)
  assert.equal(env.ds.fetchRequests.length, 2, "not retried")
  // Exactly 5 MiB is read (and then fails as malformed JSON, not as too large).
  env.ds.enqueue("fetch", { hugeBytes: 5 * 1024 * 1024 })
  const c = await h.runTool("deepseek_fetch", { url: "https://docs.example/huge" })
  assert.equal(c.status, "error")
  assert.doesNotMatch(c.output, /larger than 5 MiB/)
  assert.equal(await inFlightSettles(), 0)
})

test("302 is not followed: an error, and nothing requested at the Location", async () => {
  const h = await env.v1()
  env.ds.enqueue("search", { status: 302, headers: { location: env.ds.baseURL + "/elsewhere" }, body: "" })
  const r = await h.runTool("deepseek_search", { query: "redirect" })
  assert.equal(r.status, "error")
  assert.equal(r.output, "DeepSeek Search failed: HTTP 302: DeepSeek answered with a redirect, which is never followed")
  assert.deepEqual(
    env.ds.requests.map((q) => q.path),
    ["/v1/tools/search"],
  )
})

test("a dropped connection is a network error, not retried", async () => {
  const h = await env.v1()
  env.ds.enqueue("fetch", { destroy: true })
  const r = await h.runTool("deepseek_fetch", { url: "https://docs.example/" })
  assert.equal(r.status, "error")
  assert.match(r.output, /^DeepSeek Fetch failed: network error/)
  assert.equal(env.ds.fetchRequests.length, 1)
})

test("a refused connection names the host and the kind, not the address it resolved to", async () => {
  // A port nothing listens on, reached by name: Node and Bun report the resolved address
  // (127.0.0.1 or ::1), which must not reach the model.
  const probe = await import("node:net").then((net) => new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const port = srv.address().port
      srv.close(() => resolve(port))
    })
  }))
  const host = createFakeHostV2()
  await host.load(plugin, { ...env.options({ fetch: "preferred" }), baseURL: `http://localhost:${probe}`, maxRetries: 0 })
  const r = await host.runTool("deepseek_fetch", { url: "https://docs.example/refused" })
  assert.deepEqual(r.content, [{ type: "text", text: `DeepSeek Fetch failed: network error: cannot connect to localhost:${probe} (connection refused)` }])
  assert.equal(r.metadata.error, "network")
})

// --- concurrency ----------------------------------------------------------------------------

test("20 concurrent calls (search and fetch) through one instance each get their own result", async () => {
  // Twenty at once: over the module's default admission limits (maxCalls 16, maxHeldMB 64).
  const host = await env.v2({ search: "preferred", fetch: "preferred", maxCalls: 20, maxHeldMB: 256 })
  const jitter = () => Math.floor(Math.random() * 60)
  for (let i = 0; i < 10; i++) {
    env.ds.enqueue("search", (req) => ({
      delayMs: jitter(),
      json: { results: [{ url: `https://r.example/${encodeURIComponent(req.json.query)}`, title: `T:${req.json.query}`, summary: `S:${req.json.query}`, rerank_score: 2, authority: 2 }] },
    }))
    env.ds.enqueue("fetch", (req) => ({ delayMs: jitter(), json: { title: `P:${req.json.url}`, content: `Body of ${req.json.url}` } }))
  }
  const calls = []
  for (let i = 0; i < 20; i++) {
    if (i % 2 === 0) {
      const q = `query-${i}`
      calls.push(
        host.search(q).then((s) => {
          assert.equal(s.ok, true, s.error?.message)
          assert.deepEqual(s.results, [{ url: `https://r.example/${q}`, title: `T:${q}`, content: `[rerank 2.0 · authority 2]\nS:${q}`, time: {} }])
        }),
      )
    } else {
      const url = `https://docs.example/page-${i}`
      calls.push(
        host.runTool("deepseek_fetch", { url }).then((r) => {
          assert.equal(r.ok, true, r.error?.message)
          assert.equal(r.text, `# P:${url}\n\nBody of ${url}`)
          assert.equal(r.metadata.url, url)
        }),
      )
    }
  }
  await waitFor(() => env.ds.requests.length >= 1)
  assert.ok(runtime().inFlight() > 0)
  await Promise.all(calls)
  assert.equal(env.ds.requests.length, 20)
  assert.equal(runtime().inFlight(), 0)
})

test("past the module's limits a call waits for another to end, then runs", async () => {
  const host = await env.v2({ fetch: "preferred", maxCalls: 2 })
  env.ds.enqueue("fetch", { delayMs: 300, json: { title: "A", content: "a" } })
  env.ds.enqueue("fetch", { delayMs: 300, json: { title: "B", content: "b" } })
  env.ds.enqueue("fetch", { json: { title: "C", content: "c" } })
  const first = [host.runTool("deepseek_fetch", { url: "https://docs.example/a" }), host.runTool("deepseek_fetch", { url: "https://docs.example/b" })]
  await waitFor(() => env.ds.fetchRequests.length === 2)
  const third = host.runTool("deepseek_fetch", { url: "https://docs.example/c" })
  await new Promise((r) => setTimeout(r, 100))
  assert.equal(env.ds.fetchRequests.length, 2, "the third call waits while two are in flight")
  const r = await third
  assert.equal(r.ok, true, r.error?.message)
  assert.equal(r.text, "# C\n\nc")
  await Promise.all(first)
  assert.equal(env.ds.fetchRequests.length, 3)
})

test("a call waiting for admission gives up after its timeoutMs with the module's refusal", async () => {
  // Two plugin instances share the module: the first holds a slow call; the second
  // allows one call in flight and waits at most 1 s for room.
  const slow = await env.v2({ fetch: "preferred" })
  env.ds.enqueue("fetch", { delayMs: 2500, json: { title: "A", content: "a" } })
  const first = slow.runTool("deepseek_fetch", { url: "https://docs.example/admission-slow" })
  await waitFor(() => runtime().inFlight() === 1)
  const host = await env.v2({ fetch: "preferred", maxCalls: 1, timeoutMs: 1000 })
  const started = performance.now()
  const r = await host.runTool("deepseek_fetch", { url: "https://docs.example/admission-refused" })
  const waited = performance.now() - started
  // On 2.x a failure is the call's result text, with metadata.error naming the kind.
  assert.equal(r.status, "completed")
  assert.deepEqual(r.content, [{ type: "text", text: "DeepSeek Fetch could not start: 1 call is already in flight in this process (maxCalls 1)" }])
  assert.equal(r.metadata.error, "busy")
  assert.ok(waited >= 900, `waited ${waited} ms`)
  await first
  assert.equal(env.ds.fetchRequests.length, 1, "nothing was sent for the refused call")
})

test("cancelling a call that waits for admission ends the wait at once", async () => {
  const host = await env.v2({ fetch: "preferred", maxCalls: 1 })
  env.ds.enqueue("fetch", { delayMs: 1500, json: { title: "A", content: "a" } })
  const first = host.runTool("deepseek_fetch", { url: "https://docs.example/admission-first" })
  await waitFor(() => runtime().inFlight() === 1)
  const ctl = new AbortController()
  const started = performance.now()
  const waiting = host.runTool("deepseek_fetch", { url: "https://docs.example/admission-cancelled" }, { signal: ctl.signal })
  setTimeout(() => ctl.abort(), 100)
  await waiting.catch(() => {})
  assert.ok(performance.now() - started < 1000, "the wait ended with the signal")
  await first
  assert.equal(env.ds.fetchRequests.length, 1)
})

test("identical calls in flight share one request; one caller's cancel leaves it running", async () => {
  const host = await env.v2({ search: "preferred", fetch: "preferred" })
  env.ds.enqueue("fetch", { delayMs: 300, json: { title: "Shared", content: "one answer" } })
  const url = "https://docs.example/shared-page"
  const ctl = new AbortController()
  const calls = [0, 1, 2].map(() => host.runTool("deepseek_fetch", { url }))
  const cancelled = host.runTool("deepseek_fetch", { url }, { signal: ctl.signal })
  setTimeout(() => ctl.abort(), 50)
  await cancelled.catch(() => {})
  for (const r of await Promise.all(calls)) {
    assert.equal(r.ok, true, r.error?.message)
    assert.equal(r.text, "# Shared\n\none answer")
  }
  assert.equal(env.ds.fetchRequests.length, 1, "one request, one bill")
  env.ds.enqueue("search", { delayMs: 200, json: { results: [{ url: "https://r.example/q", title: "T", summary: "S", rerank_score: 2, authority: 2 }] } })
  const searches = await Promise.all([host.search("shared query"), host.search("shared query")])
  for (const s of searches) assert.equal(s.ok, true, s.error?.message)
  assert.equal(env.ds.searchRequests.length, 1)
})

test("a shared request is aborted when its last caller cancels", async () => {
  const host = await stalledHost({ fetch: "preferred" })
  const ctl = new AbortController()
  const calls = [0, 1].map(() => host.runTool("deepseek_fetch", { url: "https://docs.example/stalled-shared" }, { signal: ctl.signal }))
  await waitFor(() => stall.requests.length >= 1)
  await sleep(50)
  ctl.abort()
  await Promise.allSettled(calls)
  await waitFor(() => stall.requests.every((r) => r.closedAt !== null))
  assert.equal(stall.requests.length, 1, "the two calls shared one request")
})

// --- recovery after a trap ------------------------------------------------------------------

test("a trap fails the call in progress clearly; the next call runs on a fresh instance", async () => {
  const host = await env.v2()
  const rt = runtime()
  const before = rt.stats()
  env.ds.enqueue("fetch", { delayMs: 3000, json: { title: "Late", content: "late" } })
  const logs = captureLogs()
  env.clearLog()
  let r, elapsed
  try {
    const pending = host.runTool("deepseek_fetch", { url: "https://docs.example/late" })
    await waitFor(() => env.ds.fetchRequests.length === 1)
    // A real trap: a reactor's _initialize may run only once (Go: "fatal error: randinit twice").
    const t0 = performance.now()
    assert.throws(() => rt.trapForTest(), (err) => /module failed .* restarted/.test(err.message))
    r = await pending
    elapsed = performance.now() - t0
  } finally {
    logs.restore()
  }
  // The request of the dead instance is aborted, not waited for.
  assert.ok(elapsed < 1000, `the call ended ${elapsed} ms after the trap`)
  assert.equal(r.text, "deepseek-web-retrieval: the module was restarted during the call; try again")
  assert.equal(r.metadata.error, "internal")
  assert.ok(env.logLines().some((l) => / ERROR \[deepseek-web-retrieval\] core\.wasm trapped/.test(l)), env.logLines().join("\n"))
  const after = rt.stats()
  assert.equal(after.generation, before.generation + 1)
  assert.equal(after.inFlight, 0)
  // The very next calls succeed, at once.
  const s = await host.search("after the trap")
  assert.equal(s.ok, true, s.error?.message)
  const t = await host.runTool("deepseek_fetch", { url: "https://docs.example/again" })
  assert.equal(t.ok, true, t.error?.message)
  assert.equal(t.text, "# Example page\n\nFetched from https://docs.example/again.")
  assert.equal(rt.inFlight(), 0)
})

test("a trap with many calls in flight fails them all, and a call started right after succeeds", async () => {
  const host = await env.v2()
  const rt = runtime()
  for (let i = 0; i < 5; i++) env.ds.enqueue("search", { delayMs: 200, json: { results: [] } })
  const logs = captureLogs()
  env.clearLog()
  let results
  try {
    const pending = Array.from({ length: 5 }, (_, i) => host.search(`q${i}`))
    await waitFor(() => env.ds.searchRequests.length === 5)
    assert.throws(() => rt.trapForTest())
    const next = host.runTool("deepseek_fetch", { url: "https://docs.example/next" })
    results = await Promise.all(pending)
    const n = await next
    assert.equal(n.ok, true, n.error?.message)
    assert.equal(n.metadata.error, undefined, n.text)
  } finally {
    logs.restore()
  }
  results.forEach((s, i) => {
    assert.equal(s.ok, false)
    assert.equal(s.modelText, `Unable to search the web for q${i}`)
  })
  const restarted = env.logLines().filter((l) => / ERROR \[deepseek-web-retrieval\] deepseek-web-retrieval: the module was restarted during the call; try again$/.test(l))
  assert.equal(restarted.length, 5, env.logLines().join("\n"))
  // A warm-up still running from setup (Runtime.warmUp: a start, then its reply a macrotask
  // later) may have an operation open on the fresh instance: wait for it to settle.
  assert.equal(await inFlightSettles(), 0)
})
