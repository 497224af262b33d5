// Checks the loopback mocks themselves (lib/mock-deepseek.js, lib/mock-llm.js).
import { test } from "node:test"
import assert from "node:assert/strict"

import { startMockDeepSeek } from "./lib/mock-deepseek.js"
import { startMockLLM } from "./lib/mock-llm.js"

const post = (url, body, headers = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  })

test("mock DeepSeek: auth, queue, defaults, recording", async () => {
  const ds = await startMockDeepSeek({ apiKey: "k1" })
  try {
    const unauth = await post(`${ds.baseURL}/v1/tools/search`, { query: "q" })
    assert.equal(unauth.status, 401)
    assert.match((await unauth.json()).error.message, /API key/)

    ds.enqueue("search", { status: 429, headers: { "retry-after": "2" }, json: { error: { message: "rate" } } })
    ds.enqueue("search", (req) => ({ json: { results: [{ url: `https://x/${req.json.query}` }] } }))
    const auth = { authorization: "Bearer k1" }
    const r1 = await post(`${ds.baseURL}/v1/tools/search`, { query: "q" }, auth)
    assert.equal(r1.status, 429)
    assert.equal(r1.headers.get("retry-after"), "2")
    await r1.arrayBuffer()
    const r2 = await post(`${ds.baseURL}/v1/tools/search`, { query: "zz" }, auth)
    assert.deepEqual(await r2.json(), { results: [{ url: "https://x/zz" }] })
    const r3 = await post(`${ds.baseURL}/v1/tools/fetch`, { url: "https://e.example/" }, auth)
    assert.match((await r3.json()).content, /e\.example/)
    const r4 = await post(`${ds.baseURL}/v1/tools/nope`, {}, auth)
    assert.equal(r4.status, 404)
    await r4.arrayBuffer()

    assert.equal(ds.searchRequests.length, 3)
    assert.equal(ds.fetchRequests.length, 1)
    assert.deepEqual(ds.fetchRequests[0].json, { url: "https://e.example/" })
    assert.equal(ds.requests[1].headers.authorization, "Bearer k1")
    assert.equal(ds.requests[1].method, "POST")
  } finally {
    await ds.close()
  }
})

test("mock DeepSeek: delay, slow body, huge body, dropped connection", async () => {
  const ds = await startMockDeepSeek({ apiKey: null })
  try {
    ds.enqueue("fetch", { delayMs: 300, json: { title: "t", content: "c" } })
    let t0 = performance.now()
    const r1 = await post(`${ds.baseURL}/v1/tools/fetch`, { url: "u" })
    assert.ok(performance.now() - t0 >= 250)
    assert.equal((await r1.json()).title, "t")

    ds.enqueue("fetch", { slowBody: { chunks: 4, intervalMs: 100 }, json: { title: "slow", content: "x".repeat(100) } })
    t0 = performance.now()
    const r2 = await post(`${ds.baseURL}/v1/tools/fetch`, { url: "u" })
    assert.equal((await r2.json()).title, "slow")
    assert.ok(performance.now() - t0 >= 250)

    ds.enqueue("fetch", { hugeBytes: 3 * 1024 * 1024 })
    const r3 = await post(`${ds.baseURL}/v1/tools/fetch`, { url: "u" })
    assert.equal(r3.headers.get("content-length"), String(3 * 1024 * 1024))
    const reader = r3.body.getReader()
    let got = 0
    while (got < 200_000) {
      const { value, done } = await reader.read()
      if (done) break
      got += value.length
    }
    await reader.cancel()
    assert.ok(got >= 200_000)

    ds.enqueue("search", { destroy: true })
    await assert.rejects(post(`${ds.baseURL}/v1/tools/search`, { query: "q" }))

    ds.enqueue("search", { delayMs: 60_000, json: {} })
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 100)
    await assert.rejects(
      fetch(`${ds.baseURL}/v1/tools/search`, { method: "POST", body: "{}", signal: ac.signal }),
      (e) => e.name === "AbortError",
    )
  } finally {
    await ds.close()
  }
})

test("mock DeepSeek: a long slow body and a huge body leave no listeners behind (no MaxListenersExceededWarning)", async () => {
  const warnings = []
  const onWarning = (w) => warnings.push(`${w.name}: ${w.message}`)
  process.on("warning", onWarning)
  const ds = await startMockDeepSeek({ apiKey: null })
  try {
    // 30 sleeps on one response, and 8 MiB in 64 KiB blocks to a client that reads slowly, so
    // the server waits for "drain" many times on one response.
    ds.enqueue("fetch", { slowBody: { chunks: 30, intervalMs: 1 }, json: { title: "t", content: "x".repeat(300) } })
    ds.enqueue("fetch", { hugeBytes: 8 * 1024 * 1024 })
    assert.equal(JSON.parse(await (await post(`${ds.baseURL}/v1/tools/fetch`, { url: "https://a.example/" })).text()).title, "t")
    const res = await post(`${ds.baseURL}/v1/tools/fetch`, { url: "https://b.example/" })
    let n = 0
    for await (const chunk of res.body) {
      n += chunk.length
      await new Promise((r) => setTimeout(r, 1))
    }
    assert.equal(n, 8 * 1024 * 1024)
    await new Promise((r) => setTimeout(r, 50)) // warnings are emitted on a later tick
    assert.deepEqual(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning")), [])
  } finally {
    process.off("warning", onWarning)
    await ds.close()
  }
})

test("mock LLM: scripted tool calls over SSE, aux requests, recorded tool results", async () => {
  const llm = await startMockLLM({
    turns: [{ tool: "echo_test", args: { text: "hi" } }, { text: "bye" }],
  })
  try {
    const aux = await post(`${llm.baseURL}/chat/completions`, { model: "m", stream: true, messages: [] })
    assert.match(await aux.text(), /Mock title/)
    const tools = [{ type: "function", function: { name: "echo_test", parameters: {} } }]
    const r1 = await post(`${llm.baseURL}/chat/completions`, { model: "m", stream: true, tools, messages: [] })
    const sse = await r1.text()
    assert.match(sse, /"name":"echo_test"/)
    assert.match(sse, /"finish_reason":"tool_calls"/)
    assert.match(sse, /data: \[DONE\]/)
    const r2 = await post(`${llm.baseURL}/chat/completions`, {
      model: "m",
      stream: true,
      tools,
      messages: [{ role: "tool", tool_call_id: "call_1", content: "echo:hi" }],
    })
    assert.match(await r2.text(), /"content":"bye"/)
    assert.deepEqual(llm.toolResults(), [{ tool_call_id: "call_1", content: "echo:hi" }])
    assert.equal(llm.turnRequests.length, 2)
    assert.equal(llm.requests.length, 3)
  } finally {
    await llm.close()
  }
})
