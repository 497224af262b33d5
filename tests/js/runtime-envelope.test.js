// plugin/runtime.js writes envelopes as { v: 1, ...fields } in JSON, UTF-8 encoded
// straight into the module's memory: what the module reads must not depend on how.
import { test, before, after } from "node:test"
import assert from "node:assert/strict"
import { startEnv, runtime, warmed } from "./lib/plugin-helpers.js"

// The plugin's own Runtime: a Runtime.create here would become the Runtime other test
// files read when Bun runs them all in one process.
let env, rt
before(async () => {
  env = await startEnv()
  await env.v2()
  await warmed()
  rt = runtime()
})
after(async () => {
  await env.close()
})

test("an envelope's own v wins, as in { v: 1, ...fields }", () => {
  const step = rt.start({ v: 2, kind: "search", input: { query: "q" } })
  assert.equal(step.error.code, "abi")
  assert.equal(step.error.message, "deepseek-web-retrieval ABI: start: unsupported ABI version 2 (this module speaks 1)")
})

test("an empty envelope still carries v", () => {
  const step = rt.start({})
  assert.equal(step.error.message, 'deepseek-web-retrieval ABI: start: unknown kind ""')
})

test("text of every width reaches the module intact", () => {
  // The last one is longer than runtime.js encodes in place (an unknown member pads it).
  for (const [query, pad] of [["é中😀 \u2028 \"q\" \\", ""], ["\ud800 lone", ""], ["long é", "中".repeat(20000)]]) {
    const step = rt.start({ kind: "search", options: {}, apiKey: "sk-test", input: { query, pad } })
    assert.equal(step.step, "http", JSON.stringify(step).slice(0, 300))
    assert.equal(JSON.parse(step.request.body).query, query.replace("\ud800", "\ufffd"))
    const done = rt.cancel(step.handle)
    assert.equal(done.error.code, "cancelled")
  }
})

test("reply metadata of every width reaches the module intact", () => {
  const step = rt.start({ kind: "search", options: {}, apiKey: "sk-test", input: { query: "q" } })
  const body = new TextEncoder().encode(JSON.stringify({ results: [{ url: "https://example.com/a", title: "T", summary: "S" }] }))
  const done = rt.resume(step.handle, { kind: "response", status: 200, headers: { "content-type": "application/json", "x-é": "中😀" } }, body)
  assert.equal(done.step, "done", JSON.stringify(done))
  assert.equal(done.result.results[0].url, "https://example.com/a")
  const failed = rt.start({ kind: "search", options: {}, apiKey: "sk-test", input: { query: "not cached" } })
  assert.equal(failed.step, "http")
  const net = rt.resume(failed.handle, { kind: "network", message: "socket hang up é中😀" })
  assert.deepEqual(net.error, { code: "network", message: "DeepSeek Search failed: network error: socket hang up é中😀" })
  assert.equal(rt.inFlight(), 0)
})
