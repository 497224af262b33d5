// The warm-up setup starts (plugin/server.js warmUp, Runtime.warmUp) and the idle signal
// (Runtime.#idle): the warm-up runs real answers through the module but sends nothing (its
// only fetches, which start the runtime's HTTP client, are aborted before they are made), and
// nothing it leaves in the cache is ever served, and the module hears it is idle after the warm-up and after a quiet spell.
import { test, before, after, beforeEach } from "node:test"
import assert from "node:assert/strict"
import { Runtime } from "../../plugin/runtime.js"
import { startEnv, runtime, sleep, waitFor } from "./lib/plugin-helpers.js"

let env
before(async () => {
  env = await startEnv()
})
after(async () => {
  await env.close()
})
// Every setup here plans in the module, as a first start does, and warms its runtime up.
beforeEach(() => {
  env.ds.reset()
  env.clearPlanCache()
})

test("the warm-up takes a search and a fetch through their whole path: answered, decoded, rendered", async () => {
  // Every start and resume from here until the warm-up has settled, by handle.
  const calls = new Map()
  const { start, resume } = Runtime.prototype
  Runtime.prototype.start = function (envelope) {
    const step = start.call(this, envelope)
    if (step.step === "http") calls.set(step.handle, { kind: envelope.kind, tool: envelope.input?.tool })
    return step
  }
  Runtime.prototype.resume = function (handle, reply, body) {
    const step = resume.call(this, handle, reply, body)
    if (calls.has(handle)) calls.get(handle).done = step
    return step
  }
  try {
    await env.v2()
  } finally {
    Object.assign(Runtime.prototype, { start, resume })
  }
  const answered = [...calls.values()].filter((c) => c.done?.step === "done" && !c.done.error && c.done.result)
  const searches = answered.filter((c) => c.kind === "opencode.websearch" || c.tool === "deepseek_search")
  const fetches = answered.filter((c) => c.tool === "deepseek_fetch")
  assert.ok(searches.some((c) => c.done.result.results?.length === 10), JSON.stringify([...calls.values()]).slice(0, 2000))
  // It searches many times, so the engine optimizes the search's code before a real one
  // comes; each search asks anew (none is answered from the cache the first filled).
  assert.ok(searches.length >= 16, `${searches.length} warm-up searches reached their answer`)
  assert.ok(searches.every((c) => c.done.result.results?.length === 10 || c.done.result.content), JSON.stringify(searches[0]).slice(0, 500))
  assert.ok(fetches.length >= 1, JSON.stringify([...calls.values()]).slice(0, 2000))
})

test("the warm-up sends nothing, and what it caches is never served: its own search and fetch then reach DeepSeek", async () => {
  const host = await env.v2()
  assert.equal(env.ds.searchRequests.length + env.ds.fetchRequests.length, 0, "the warm-up sent a request")

  // The warm-up searched "warm-up" and fetched https://example.com/ with the same options,
  // cache on, answered with made-up bodies: a real call for either (another API key) must
  // not be served from the cache.
  env.ds.enqueue("search", { json: { results: [{ url: "https://real.example/a", title: "Real result", snippet: "from DeepSeek" }] } })
  const s = await host.search("warm-up")
  assert.equal(s.ok, true, s.error?.message)
  assert.equal(env.ds.searchRequests.length, 1)
  assert.match(s.modelText, /Real result/)
  assert.doesNotMatch(s.modelText, /Warm-up text/)

  env.ds.enqueue("fetch", { json: { title: "Real page", content: "The page DeepSeek read." } })
  const f = await host.runTool("deepseek_fetch", { url: "https://example.com/" })
  assert.equal(f.ok, true, f.error?.message)
  assert.equal(env.ds.fetchRequests.length, 1)
  assert.match(f.text, /The page DeepSeek read\./)
  assert.doesNotMatch(f.text, /Warm-up text/)
})

test("the warm-up starts the runtime's HTTP client with fetches whose signal is already aborted, so they send nothing", async () => {
  const made = []
  const real = globalThis.fetch
  globalThis.fetch = function (url, init) {
    made.push({ url: String(url), aborted: init?.signal?.aborted === true })
    return real.call(this, url, init)
  }
  try {
    await env.v2()
  } finally {
    globalThis.fetch = real
  }
  assert.ok(made.length >= 1, "the warm-up made no fetch: starting the HTTP client is left to the first real search")
  assert.deepEqual(made.filter((f) => !f.aborted), [], "a warm-up fetch could send")
  assert.equal(env.ds.searchRequests.length + env.ds.fetchRequests.length, 0, "the warm-up sent a request")
})

test("the module hears it is idle after the warm-up, and once no call has come for 500 ms", async () => {
  const host = await env.v2()
  const rt = runtime()
  assert.ok(rt.stats().idles >= 1, "no idle signal after the warm-up")

  const before = rt.stats().idles
  env.ds.enqueue("search", { json: { results: [] } }, { json: { results: [] } })
  await host.search("first")
  await sleep(200)
  await host.search("second")
  // Calls 200 ms apart keep the module busy: no signal yet.
  await sleep(300)
  assert.equal(rt.stats().idles, before)
  await waitFor(() => rt.stats().idles === before + 1, 2000, "the idle signal")
  await sleep(700)
  assert.equal(rt.stats().idles, before + 1, "one signal per quiet spell")

  // Not while a call is running, however long it waits for DeepSeek.
  const idles = rt.stats().idles
  env.ds.enqueue("search", { json: { results: [] } }, { delayMs: 1200, json: { results: [] } })
  await host.search("short")
  const long = host.search("long")
  await sleep(900)
  assert.equal(rt.stats().idles, idles, "idle signalled during a call")
  await long
  await waitFor(() => rt.stats().idles === idles + 1, 2000, "the idle signal after the long call")
})
