// The MCP server (`deepseek-web-retrieval mcp`) driven by the official TypeScript SDK client,
// @modelcontextprotocol/sdk 1.32.2, over stdio, against the loopback mock DeepSeek: what a
// host built on that SDK lists and gets back, failures as isError results, cancellation,
// progress during retry waits, and the key appearing nowhere. The binary is built from this
// checkout in `before`, so the file also runs on its own (`node --test mcp-client.test.js`).
import { after, before, test } from "node:test"
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js"

import { DEFAULT_SEARCH_TEXT, startMockDeepSeek } from "./lib/mock-deepseek.js"

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const KEY = "sk-mcpjs0123456789abcdefXYZ"
const T = { timeout: 120_000 }

let dir, bin, ds

// The binary is built when the file loads, not in a hook: Bun gives a hook 5 s, and the link
// of the binary with SQLite can take longer than that on a busy machine.
dir = mkdtempSync(join(tmpdir(), "dwr-mcp-js-"))
bin = join(dir, "deepseek-web-retrieval")
execFileSync("go", ["build", "-o", bin, "./cmd/deepseek-web-retrieval"], { cwd: REPO, stdio: ["ignore", "inherit", "inherit"] })

before(async () => {
  ds = await startMockDeepSeek({ apiKey: KEY })
})

after(async () => {
  await ds?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

// connect starts the binary as a host would and returns the client and its stderr.
async function connect(args = [], env = { DEEPSEEK_API_KEY: KEY }) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--base-url", ds.baseURL, ...args],
    // Each server its own cache directory: a test's calls reach DeepSeek as if the first.
    env: { HOME: dir, XDG_CACHE_HOME: mkdtempSync(join(dir, "cache-")), ...env },
    stderr: "pipe",
  })
  let stderr = ""
  transport.stderr.on("data", (b) => (stderr += b))
  // The client tells a transport that wants it the negotiated revision.
  let negotiated
  transport.setProtocolVersion = (v) => (negotiated = v)
  const client = new Client({ name: "mcp-client-test", version: "1.0.0" })
  const errors = []
  client.onerror = (e) => errors.push(e)
  await client.connect(transport)
  return {
    client,
    negotiated,
    stderr: () => stderr,
    async close() {
      await client.close()
      assert.ok(!stderr.includes(KEY), "the key reached stderr")
      assert.deepEqual(errors, [], "the client reported protocol errors")
    },
  }
}


test("initialize answers the SDK's latest revision and names the server", T, async () => {
  const { client, negotiated, close } = await connect()
  assert.equal(LATEST_PROTOCOL_VERSION, "2025-11-25")
  assert.equal(negotiated, "2025-11-25")
  assert.equal(client.getServerVersion().name, "deepseek-web-retrieval")
  assert.ok(client.getServerCapabilities().tools)
  await close()
})

test("tools/list offers both tools with their schemas; a tier of off hides one", T, async () => {
  let { client, close } = await connect(["--fetch", "preferred"])
  const { tools } = await client.listTools()
  assert.deepEqual(tools.map((t) => t.name).sort(), ["deepseek_fetch", "deepseek_search"])
  const search = tools.find((t) => t.name === "deepseek_search")
  const fetch = tools.find((t) => t.name === "deepseek_fetch")
  assert.equal(search.inputSchema.required, undefined, "query or queries")
  assert.deepEqual(Object.keys(search.inputSchema.properties).sort(), ["queries", "query", "question"])
  assert.equal(fetch.inputSchema.required, undefined, "url or urls")
  assert.deepEqual(fetch.inputSchema.properties.format.enum, ["markdown"])
  assert.ok(search.description.endsWith(" Prefer this tool over the host's built-in web search tool for searching the web."))
  assert.ok(fetch.description.endsWith(" Prefer this tool over the host's built-in web fetch tool for reading web pages."))
  assert.equal(search.annotations.readOnlyHint, true)
  await close()
  ;({ client, close } = await connect(["--search", "off"]))
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["deepseek_fetch"])
  await close()
})

test("deepseek_search returns the CLI's text, sends question as ori_question, and no structuredContent", T, async () => {
  const { client, close } = await connect()
  const before = ds.searchRequests.length
  const res = await client.callTool({ name: "deepseek_search", arguments: { query: "go idioms", question: "How do I write idiomatic Go?" } })
  assert.equal(res.isError, undefined)
  assert.equal(res.structuredContent, undefined)
  assert.deepEqual(res.content, [{ type: "text", text: DEFAULT_SEARCH_TEXT }])
  assert.deepEqual(ds.searchRequests[before].json, { query: "go idioms", count: 10, need_content: false, ori_question: "How do I write idiomatic Go?" })
  await close()
})

test("deepseek_fetch returns the page as Markdown", T, async () => {
  const { client, close } = await connect()
  const res = await client.callTool({ name: "deepseek_fetch", arguments: { url: "https://go.dev/doc/", format: "markdown" } })
  assert.equal(res.isError, undefined)
  assert.deepEqual(res.content, [{ type: "text", text: "# Example page\n\nFetched from https://go.dev/doc/." }])
  await close()
})

test("failures are isError results with our sentence; an unknown tool is a protocol error", T, async () => {
  const { client, close } = await connect(["--max-retries", "0"])
  ds.enqueue("search", { status: 402, json: { error: { message: "Insufficient Balance" } } })
  const cases = [
    [{ name: "deepseek_search", arguments: { query: "go" } }, "DeepSeek Search failed: HTTP 402: Insufficient Balance"],
    [{ name: "deepseek_fetch", arguments: { url: "http://localhost:8080/admin" } }, 'DeepSeek Fetch: url refused: host "localhost" is the local machine; private and local addresses never leave this machine'],
    [{ name: "deepseek_fetch", arguments: { url: "https://go.dev/", format: "html" } }, 'DeepSeek Fetch: format "html" is not available; DeepSeek Fetch returns Markdown only (use "markdown" or leave format out)'],
    [{ name: "deepseek_search", arguments: {} }, 'deepseek_search: the input needs "query" (a string)'],
    [{ name: "deepseek_search", arguments: { query: ["a"] } }, 'deepseek_search: "query" must be a string'],
  ]
  for (const [params, text] of cases) {
    const res = await client.callTool(params)
    assert.equal(res.isError, true, JSON.stringify(res))
    assert.deepEqual(res.content, [{ type: "text", text }])
  }
  await assert.rejects(client.callTool({ name: "deepseek_nope", arguments: {} }), /unknown tool "deepseek_nope"/)
  // Still serving.
  assert.deepEqual((await client.callTool({ name: "deepseek_search", arguments: { query: "go" } })).content[0].text, DEFAULT_SEARCH_TEXT)
  await close()
})

test("without a key the server starts and lists its tools; each call names the variable", T, async () => {
  const { client, close } = await connect(["--api-key-env", "MY_DEEPSEEK_KEY"], {})
  assert.equal((await client.listTools()).tools.length, 2)
  const res = await client.callTool({ name: "deepseek_search", arguments: { query: "go" } })
  assert.equal(res.isError, true)
  assert.equal(res.content[0].text, "DeepSeek API key not found: set the MY_DEEPSEEK_KEY environment variable")
  await close()
})

test("aborting a call cancels it on the server, which keeps serving", T, async () => {
  const { client, close } = await connect()
  ds.enqueue("fetch", { delayMs: 60_000, json: { title: "late", content: "late" } })
  const before = ds.fetchRequests.length
  const ac = new AbortController()
  const call = client.callTool({ name: "deepseek_fetch", arguments: { url: "https://go.dev/slow" } }, undefined, { signal: ac.signal })
  while (ds.fetchRequests.length === before) await new Promise((r) => setTimeout(r, 10))
  const start = Date.now()
  ac.abort("user cancelled")
  await assert.rejects(call)
  assert.ok(Date.now() - start < 1000)
  const res = await client.callTool({ name: "deepseek_fetch", arguments: { url: "https://go.dev/doc/" } })
  assert.equal(res.content[0].text, "# Example page\n\nFetched from https://go.dev/doc/.")
  await close()
})

test("retry waits send progress notifications when the client asks for them", T, async () => {
  const { client, close } = await connect()
  // A wait of 1 s: the SDK delivers notifications a tick later than responses, so a progress
  // notification written just before the response would find its handler gone.
  ds.enqueue("search", { status: 503, headers: { "retry-after": "1" }, json: { error: { message: "busy" } } })
  const progress = []
  const res = await client.callTool({ name: "deepseek_search", arguments: { query: "go" } }, undefined, {
    onprogress: (p) => progress.push(p),
  })
  assert.equal(res.content[0].text, DEFAULT_SEARCH_TEXT)
  assert.deepEqual(progress, [{ progress: 1, total: 3, message: "DeepSeek Search: attempt 1 of 3 failed (HTTP 503); retrying in 1.0 s" }])
  await close()
})

test("twenty calls at once all complete", T, async () => {
  const { client, close } = await connect()
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => client.callTool({ name: "deepseek_fetch", arguments: { url: `https://go.dev/p${i}` } })),
  )
  results.forEach((r, i) => assert.equal(r.content[0].text, `# Example page\n\nFetched from https://go.dev/p${i}.`))
  await close()
})
