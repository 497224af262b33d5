// What our MCP server itself answers, asked directly over stdio against a fresh mock DeepSeek
// with the same scripted answers the agent runs get: the exact texts each host must hand its
// model unchanged.
import assert from "node:assert/strict"
import { startMockDeepSeek } from "../../js/lib/mock-deepseek.js"
import { startMcpClient } from "./mcp-client.js"
import { filesContaining } from "./sandbox.js"

export const SEARCH_QUERY = "effective go tips"
export const FETCH_URL = "https://go.dev/doc/effective_go"
export const PAYMENT_ERROR = { status: 402, json: { error: { message: "Insufficient Balance" } } }
/** The sentence SPEC §4 gives for a 402 on search. */
export const SEARCH_402_SENTENCE = "DeepSeek Search failed: HTTP 402: Insufficient Balance"

/**
 * Calls deepseek_search, deepseek_fetch and a search answered 402 on our server and returns
 * { tools, search, fetch, failure } where each call is { text, isError, structured }.
 */
export async function referenceTexts(binary) {
  const key = "sk-reference-" + Date.now()
  const ds = await startMockDeepSeek({ apiKey: key })
  const client = startMcpClient(binary, ["mcp", "--base-url", ds.baseURL], { env: { PATH: process.env.PATH, DEEPSEEK_API_KEY: key } })
  try {
    await client.initialize()
    const list = await client.request("tools/list", {})
    const call = async (name, args) => {
      const r = await client.request("tools/call", { name, arguments: args })
      assert.ok(Array.isArray(r.content) && r.content.length === 1 && r.content[0].type === "text", `one text block from ${name}: ${JSON.stringify(r)}`)
      return { text: r.content[0].text, isError: r.isError === true, structured: r.structuredContent }
    }
    const search = await call("deepseek_search", { query: SEARCH_QUERY })
    const fetch = await call("deepseek_fetch", { url: FETCH_URL })
    ds.enqueue("search", PAYMENT_ERROR)
    // A query of its own: the server's search cache answers a repeated one without asking
    // DeepSeek. (Each agent run starts a fresh server, so there the same query fails.)
    const failure = await call("deepseek_search", { query: SEARCH_QUERY + " 402" })
    // The same server started without the key (as a host that does not pass it starts it).
    const bare = startMcpClient(binary, ["mcp", "--base-url", ds.baseURL], { env: { PATH: process.env.PATH } })
    let missingKey
    try {
      await bare.initialize()
      const r = await bare.request("tools/call", { name: "deepseek_search", arguments: { query: SEARCH_QUERY } })
      missingKey = { text: r.content[0].text, isError: r.isError === true }
    } finally {
      await bare.close()
    }
    return { tools: list.tools.map((t) => t.name).sort(), search, fetch, failure, missingKey }
  } finally {
    await client.close()
    await ds.close()
  }
}

/**
 * Pins the reference against SPEC §6 so a host test cannot pass on a wrong server text: the
 * search text lists the mock's results in SPEC's layout, the fetch text is the page, the
 * failure is the 402 sentence, and nothing is sent as structuredContent.
 */
export function checkReference(ref) {
  assert.deepEqual(ref.tools, ["deepseek_fetch", "deepseek_search"])
  assert.equal(ref.search.isError, false)
  assert.equal(ref.search.structured, undefined)
  assert.ok(
    ref.search.text.startsWith("1. Effective Go\nhttps://go.dev/doc/effective_go\n[rerank 2.4 · authority 4 · go.dev]"),
    ref.search.text,
  )
  assert.ok(ref.search.text.includes("\n\n2. Go tips\nhttps://example.com/go-tips\n[rerank 1.1 · authority unknown]\nSome Go tips."), ref.search.text)
  assert.equal(ref.fetch.isError, false)
  assert.equal(ref.fetch.structured, undefined)
  assert.ok(ref.fetch.text.startsWith("# Example page\n\nFetched from https://go.dev/doc/effective_go."), ref.fetch.text)
  assert.equal(ref.failure.isError, true)
  assert.ok(ref.failure.text.includes(SEARCH_402_SENTENCE), ref.failure.text)
  assert.equal(ref.missingKey.isError, true)
  assert.ok(ref.missingKey.text.includes("DEEPSEEK_API_KEY"), ref.missingKey.text)
}

/**
 * Checks what reached the mock DeepSeek: every request carried the key exactly as
 * `Authorization: Bearer <key>`, and the key is nowhere else in it (URL, body, other headers).
 */
export function checkKeyOnlyAsBearer(ds, key) {
  assert.ok(ds.requests.length > 0, "the mock DeepSeek got requests")
  for (const r of ds.requests) {
    assert.equal(r.headers.authorization, `Bearer ${key}`, `${r.path}: Authorization`)
    const { authorization, ...others } = r.headers
    assert.ok(!JSON.stringify(others).includes(key), `${r.path}: key in another header`)
    assert.ok(!r.body.includes(key), `${r.path}: key in the body`)
    assert.ok(!r.url.includes(key), `${r.path}: key in the URL`)
  }
}

/**
 * The key reached the mock DeepSeek only as the Bearer header, and nothing else has it: not the
 * output of any of the agent's runs, not a request to the model, not a file under any of dirs.
 * sessionDir must hold a file with the mock search answer (the agent's session), so the file
 * check looked at what the agent kept.
 */
export function checkKeyNowhere({ agent, key, ds, llm, runs, dirs, sessionDir }) {
  checkKeyOnlyAsBearer(ds, key)
  for (const [what, r] of Object.entries(runs)) {
    assert.ok(!r.stdout.includes(key) && !r.stderr.includes(key), `key in ${agent}'s ${what}`)
  }
  assert.ok(!llm.requests.some((q) => q.body.includes(key) || JSON.stringify(q.headers).includes(key)), "key sent to the model")
  for (const d of dirs) assert.deepEqual(filesContaining(d, key), [], `key in files under ${d}`)
  assert.ok(filesContaining(sessionDir, "Effective Go gives tips").length > 0, `${agent} kept a session file (so the key check above looked at one)`)
}
