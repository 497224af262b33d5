// The Messages search backend (searchBackend: "messages") through plugin/server.js on both fake
// hosts, against a loopback server playing DeepSeek's Anthropic-compatible Messages endpoint.
import { test, before, after, beforeEach } from "node:test"
import assert from "node:assert/strict"
import http from "node:http"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { startEnv, waitFor, inFlightSettles, sleep, startStallServer } from "./lib/plugin-helpers.js"

const fixture = (name) =>
  readFileSync(fileURLToPath(new URL(`../../core/testdata/messages/${name}`, import.meta.url)), "utf8")

/**
 * A loopback Messages endpoint: answers POST /anthropic/v1/messages from a queue (default:
 * multi.json) and records every request.
 */
async function startMockMessages(apiKey) {
  const queue = []
  const requests = []
  const server = http.createServer(async (req, res) => {
    const chunks = []
    for await (const c of req) chunks.push(c)
    const body = Buffer.concat(chunks).toString("utf8")
    requests.push({ method: req.method, path: req.url, headers: req.headers, body, json: JSON.parse(body || "null") })
    const a = queue.shift() ?? { body: fixture("multi.json") }
    const ok = req.headers["x-api-key"] === apiKey && req.headers.authorization === `Bearer ${apiKey}`
    res.writeHead(ok ? (a.status ?? 200) : 401, { "content-type": "application/json" })
    res.end(ok ? a.body : JSON.stringify({ type: "error", error: { message: "bad key" } }))
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    baseURL: `http://127.0.0.1:${server.address().port}/anthropic`,
    requests,
    enqueue: (...answers) => queue.push(...answers),
    reset() {
      queue.length = 0
      requests.length = 0
    },
    close() {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

let env, ms
before(async () => {
  env = await startEnv()
  ms = await startMockMessages(env.key)
})
after(async () => {
  await ms.close()
  await env.close()
})
beforeEach(() => {
  ms.reset()
  env.ds.reset()
})

const messages = (extra = {}) => ({ searchBackend: "messages", messagesBaseURL: ms.baseURL, ...extra })

const CITED_WASI =
  "The WASI Subgroup voted to launch WASI 0.2, also known as WASI Preview 2.\nWASI 0.2 is built on the Component Model."

test("2.x provider: content is the cited passages, time.published from page_age", async () => {
  const host = await env.v2(messages({ maxResults: 3 }))
  const s = await host.search("wasi preview 2")
  assert.equal(s.ok, true, s.error?.message)
  assert.deepEqual(s.results, [
    {
      url: "https://bytecodealliance.org/articles/WASI-0.2",
      title: "WASI 0.2 Launched",
      content: CITED_WASI,
      time: { published: Date.UTC(2024, 0, 25) },
    },
    // A result nobody cited has no content at all (the 2.x schema's content is optional).
    { url: "https://github.com/WebAssembly/WASI/blob/main/preview2/README.md", title: "WASI Preview 2", time: {} },
    { url: "https://component-model.bytecodealliance.org/", title: "The WebAssembly Component Model", time: {} },
  ])
  // One request, to the Messages endpoint only, with the key in exactly its two headers.
  assert.equal(ms.requests.length, 1)
  assert.equal(env.ds.requests.length, 0, "the Search API is not asked")
  const req = ms.requests[0]
  assert.equal(req.method, "POST")
  assert.equal(req.path, "/anthropic/v1/messages")
  assert.equal(req.headers["x-api-key"], env.key)
  assert.equal(req.headers.authorization, `Bearer ${env.key}`)
  assert.equal(req.headers["anthropic-version"], "2023-06-01")
  assert.equal(req.headers["content-type"], "application/json")
  for (const [name, value] of Object.entries(req.headers)) {
    if (name !== "x-api-key" && name !== "authorization") assert.ok(!String(value).includes(env.key), name)
  }
  assert.ok(!req.body.includes(env.key))
  assert.deepEqual(req.json, {
    model: "deepseek-v4-flash",
    max_tokens: 4096,
    messages: [{ role: "user", content: "Perform a web search for the query: wasi preview 2" }],
    tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 5 }],
  })
})

test("1.x deepseek_search: SPEC §6 text with cited passages, maxResults note, tool options", async () => {
  const h = await env.v1(messages({ search: "optional", fetch: "off", maxResults: 2, messagesMaxUses: 3, blockedDomains: ["pinterest.com"] }))
  const r = await h.runTool("deepseek_search", { query: "wasi" })
  assert.equal(r.status, "completed", r.output)
  assert.equal(
    r.output,
    [
      "1. WASI 0.2 Launched",
      "https://bytecodealliance.org/articles/WASI-0.2",
      "published 2024-01-25",
      CITED_WASI,
      "",
      "2. WASI Preview 2",
      "https://github.com/WebAssembly/WASI/blob/main/preview2/README.md",
      "",
      "(2 more results not shown: maxResults is 2.)",
    ].join("\n"),
  )
  // The module puts the usage in the tool result's metadata (tests/messages_test.go); the 1.x
  // shim hands OpenCode the text only.
  assert.deepEqual(ms.requests[0].json.tools, [
    { type: "web_search_20250305", name: "web_search", max_uses: 3, blocked_domains: ["pinterest.com"] },
  ])
  assert.match(h.hooks.tool.deepseek_search.description, /DeepSeek's native web search/)
})

test("strict grounding: a response without a search fails on both hosts", async () => {
  const host = await env.v2(messages())
  ms.enqueue({ body: fixture("text-only.json") })
  env.clearLog()
  const s = await host.search("wasi")
  // 2.x shows the model only its generic sentence; the reason goes to the plugin's log file.
  assert.equal(s.ok, false)
  assert.deepEqual(s.error, { type: "unknown", message: "Unable to search the web for wasi" })
  const lines = env.logLines()
  assert.equal(lines.length, 1, lines.join("\n"))
  assert.match(lines[0], / ERROR \[deepseek-web-retrieval\] DeepSeek Messages search failed: DeepSeek did not run a web search for this query$/)

  const h = await env.v1(messages({ fetch: "off" }))
  ms.enqueue({ body: fixture("text-only.json") })
  const r = await h.runTool("deepseek_search", { query: "wasi" })
  assert.equal(r.status, "error")
  assert.equal(r.output, "DeepSeek Messages search failed: DeepSeek did not run a web search for this query")
})

test("pause_turn: the turn is continued and both responses count", async () => {
  const host = await env.v2(messages())
  ms.enqueue({ body: fixture("pause-1.json") }, { body: fixture("pause-2.json") })
  const s = await host.search("opencode websearch")
  assert.equal(s.ok, true, s.error?.message)
  assert.deepEqual(
    s.results.map((r) => r.url),
    ["https://opencode.ai/docs/plugins/", "https://github.com/anomalyco/opencode"],
  )
  assert.equal(ms.requests.length, 2)
  assert.equal(ms.requests[1].json.messages[1].role, "assistant")
  assert.deepEqual(ms.requests[1].json.messages[1].content, JSON.parse(fixture("pause-1.json")).content)
})

test("a retried overload, then an error block naming its code", async () => {
  const h = await env.v1(messages({ fetch: "off" }))
  ms.enqueue(
    { status: 529, body: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) },
    {
      body: JSON.stringify({
        type: "message",
        content: [{ type: "web_search_tool_result", tool_use_id: "s", content: { type: "web_search_tool_result_error", error_code: "unavailable" } }],
        stop_reason: "end_turn",
      }),
    },
  )
  const r = await h.runTool("deepseek_search", { query: "wasi" })
  assert.equal(r.status, "error")
  assert.equal(
    r.output,
    "DeepSeek Messages search failed: DeepSeek's web search returned an error: unavailable (DeepSeek's search is unavailable; try again later)",
  )
  assert.equal(ms.requests.length, 2)
})

test("abort while the model turn runs: cancelled at once, connection closed, nothing in flight", async () => {
  // A raw TCP server that never answers (startStallServer: Bun's node:http misses the close).
  const stall = await startStallServer()
  try {
    const host = await env.v2(messages({ messagesBaseURL: stall.baseURL }))
    const ctl = new AbortController()
    // The provider as OpenCode calls it: execute(input, { signal }) (adapter.ts `attempt`).
    const pending = host.websearch.get("deepseek").execute({ query: "slow" }, { signal: ctl.signal }).then(
      () => ({ ok: true }),
      (error) => ({ ok: false, error }),
    )
    await waitFor(() => stall.requests.length === 1, 3000, "the request")
    assert.equal(stall.requests[0].path, "/v1/messages")
    env.clearLog()
    ctl.abort()
    const s = await pending
    assert.equal(s.ok, false)
    assert.equal(s.error.message, "DeepSeek Messages search cancelled")
    assert.deepEqual(env.logLines(), [], "a cancel is not logged as a failure")
    await waitFor(() => stall.requests[0].closedAt !== null, 2000, "the connection to close")
    assert.equal(await inFlightSettles(), 0)
    await sleep(50)
    assert.equal(stall.requests.length, 1, "no retry after a cancel")
  } finally {
    await stall.close()
  }
})
