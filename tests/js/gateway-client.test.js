// The team gateway (`deepseek-web-retrieval serve`) driven by the official TypeScript SDK's
// streamable HTTP client, @modelcontextprotocol/sdk 1.32.2, against the loopback mock DeepSeek:
// every protocol revision both sides speak, the same tools and texts as over stdio
// (mcp-client.test.js), members' bearer tokens (401 with an empty body for no, a wrong and a
// revoked token), 403 for a foreign Origin, one audit line per call naming the member, and the
// key in no response body or header, no stderr line and no audit line. The binary is built
// from this checkout in `before`, so the file also runs on its own
// (`node --test gateway-client.test.js`).
import { after, before, test } from "node:test"
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js"

import { addToken, revokeToken, startGateway } from "./lib/gateway.js"
import { DEFAULT_SEARCH_TEXT, startMockDeepSeek } from "./lib/mock-deepseek.js"

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const KEY = "sk-gwjs0123456789abcdefXYZ"
const T = { timeout: 120_000 }
const ALLOWED_ORIGIN = "https://app.example.test"

// The revisions our server negotiates (protocolRevisions in cmd/deepseek-web-retrieval's
// mcp_test.go); the ones tested are those the SDK client supports too.
const SERVER_REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
const REVISIONS = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => SERVER_REVISIONS.includes(v)).sort()


let dir, bin, ds, gw, env, tokensFile
const tokens = {}
// Every HTTP exchange with the gateway: { url, status, requestHeaders, headers, body }.
const exchanges = []

// The binary is built when the file loads, not in a hook: Bun gives a hook 5 s, and the link
// of the binary with SQLite can take longer than that on a busy machine.
dir = mkdtempSync(join(tmpdir(), "dwr-gw-js-"))
bin = join(dir, "deepseek-web-retrieval")
execFileSync("go", ["build", "-o", bin, "./cmd/deepseek-web-retrieval"], { cwd: REPO, stdio: ["ignore", "inherit", "inherit"] })

before(async () => {
  ds = await startMockDeepSeek({ apiKey: KEY })
  tokensFile = join(dir, "tokens.json")
  env = { PATH: process.env.PATH, HOME: dir, DEEPSEEK_API_KEY: KEY }
  for (const name of ["alice", "bob", "carol"]) tokens[name] = addToken(bin, tokensFile, name, env)
  gw = await startGateway({ bin, args: ["--tokens", tokensFile, "--allow-origin", ALLOWED_ORIGIN, "--base-url", ds.baseURL], env })
})

after(async () => {
  await gw?.stop()
  await ds?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/**
 * fetch that records every exchange with the gateway: the body as the client reads it, copied
 * on its way through (Bun 1.3.14's Response.clone() starves the original's event stream).
 */
async function recordingFetch(url, init) {
  const res = await fetch(url, init)
  const ex = { url: String(url), method: init?.method ?? "GET", requestHeaders: new Headers(init?.headers), status: res.status, headers: [...res.headers], body: "" }
  exchanges.push(ex)
  if (!res.body || [204, 205, 304].includes(res.status)) return res
  const decoder = new TextDecoder()
  const tap = new TransformStream({
    transform(chunk, controller) {
      ex.body += decoder.decode(chunk, { stream: true })
      controller.enqueue(chunk)
    },
  })
  return new Response(res.body.pipeThrough(tap), { status: res.status, statusText: res.statusText, headers: res.headers })
}

/**
 * Connects the SDK client to the gateway as member `name`, speaking `revision`: the SDK's
 * client always offers its latest revision in initialize, so the offer is set to `revision`
 * on its way out, as an older client would send it; the rest (the Mcp-Protocol-Version header
 * on every later request included) is the SDK's own.
 */
async function connect(name, revision) {
  const transport = new StreamableHTTPClientTransport(new URL(gw.url), {
    requestInit: { headers: { Authorization: `Bearer ${tokens[name]}` } },
    fetch: recordingFetch,
  })
  const send = transport.send.bind(transport)
  transport.send = (msg, opts) => {
    if (revision && msg.method === "initialize") msg = { ...msg, params: { ...msg.params, protocolVersion: revision } }
    return send(msg, opts)
  }
  let negotiated
  const setProtocolVersion = transport.setProtocolVersion.bind(transport)
  transport.setProtocolVersion = (v) => {
    negotiated = v
    setProtocolVersion(v)
  }
  const client = new Client({ name: "gateway-client-test", version: "1.0.0" })
  const errors = []
  client.onerror = (e) => errors.push(e)
  const from = exchanges.length
  await client.connect(transport)
  return {
    client,
    negotiated,
    exchanges: () => exchanges.slice(from),
    async close() {
      await client.close()
      assert.deepEqual(errors, [], "the client reported protocol errors")
    },
  }
}

/** A raw JSON-RPC POST to /mcp, as a client sends initialize. */
function rawPost(headers) {
  return fetch(gw.url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
  }).then(async (res) => {
    const body = await res.text()
    exchanges.push({ url: gw.url, method: "POST", requestHeaders: new Headers(headers), status: res.status, headers: [...res.headers], body })
    return { status: res.status, headers: res.headers, body }
  })
}


test("the SDK client and the server share four revisions", () => {
  assert.deepEqual(REVISIONS, SERVER_REVISIONS)
})

for (const revision of REVISIONS) {
  test(`revision ${revision}: initialize, tools/list and both tools through the gateway, audited as the member`, T, async () => {
    const { client, negotiated, exchanges: mine, close } = await connect("alice", revision)
    assert.equal(negotiated, revision)
    assert.equal(client.getServerVersion().name, "deepseek-web-retrieval")
    assert.ok(client.getServerCapabilities().tools)

    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((t) => t.name).sort(), ["deepseek_fetch", "deepseek_search"])
    const search = tools.find((t) => t.name === "deepseek_search")
    const fetchTool = tools.find((t) => t.name === "deepseek_fetch")
    assert.equal(search.inputSchema.required, undefined, "query or queries")
    assert.deepEqual(Object.keys(search.inputSchema.properties).sort(), ["queries", "query", "question"])
    assert.equal(fetchTool.inputSchema.required, undefined, "url or urls")
    assert.equal(search.annotations.readOnlyHint, true)

    // A query and a URL of this revision's own: the gateway's cache answers a repeated one.
    const query = `go idioms ${revision}`
    const url = `https://go.dev/doc/${revision}`
    const searches = ds.searchRequests.length
    const res = await client.callTool({ name: "deepseek_search", arguments: { query, question: "How do I write idiomatic Go?" } })
    assert.equal(res.isError, undefined)
    assert.equal(res.structuredContent, undefined)
    assert.deepEqual(res.content, [{ type: "text", text: DEFAULT_SEARCH_TEXT }])
    assert.equal(ds.searchRequests.length, searches + 1)
    assert.deepEqual(ds.searchRequests.at(-1).json, { query, count: 10, need_content: false, ori_question: "How do I write idiomatic Go?" })
    assert.equal(ds.searchRequests.at(-1).headers.authorization, `Bearer ${KEY}`)

    const page = await client.callTool({ name: "deepseek_fetch", arguments: { url, format: "markdown" } })
    assert.equal(page.isError, undefined)
    assert.deepEqual(page.content, [{ type: "text", text: `# Example page\n\nFetched from ${url}.` }])
    assert.equal(ds.fetchRequests.at(-1).json.url, url)

    // The SDK sent the negotiated revision on every request after initialize.
    const posts = mine().filter((e) => e.method === "POST")
    assert.ok(posts.length >= 4, JSON.stringify(posts.map((e) => e.status)))
    for (const e of posts.slice(1)) assert.equal(e.requestHeaders.get("mcp-protocol-version"), revision)
    await close()

    const lines = await gw.waitAudit((l) => l.query === query || l.url === url, 2)
    assert.deepEqual(
      lines.map((l) => [l.member, l.tool, l.outcome, l.deepseek_status, l.billed, l.cache_hit]),
      [
        ["alice", "deepseek_search", "ok", 200, true, false],
        ["alice", "deepseek_fetch", "ok", 200, true, false],
      ],
    )
    assert.equal(lines[0].bytes, Buffer.byteLength(DEFAULT_SEARCH_TEXT))
  })
}

test("a revision the server does not speak (2024-10-07) is answered with its latest", T, async () => {
  assert.ok(SUPPORTED_PROTOCOL_VERSIONS.includes("2024-10-07"))
  const { client, negotiated, close } = await connect("alice", "2024-10-07")
  // The server answers its latest, which the SDK accepts.
  assert.equal(negotiated, "2025-11-25")
  assert.equal((await client.listTools()).tools.length, 2)
  await close()
})

test("each member is audited under their own name; a repeated call is a cache hit", T, async () => {
  const { client, close } = await connect("bob")
  const fetches = ds.fetchRequests.length
  for (let i = 0; i < 2; i++) {
    const res = await client.callTool({ name: "deepseek_fetch", arguments: { url: "https://go.dev/doc/bob" } })
    assert.deepEqual(res.content, [{ type: "text", text: "# Example page\n\nFetched from https://go.dev/doc/bob." }])
  }
  assert.equal(ds.fetchRequests.length, fetches + 1)
  await close()
  assert.deepEqual(
    (await gw.waitAudit((l) => l.url === "https://go.dev/doc/bob", 2)).map((l) => [l.member, l.tool, l.outcome, l.cache_hit]),
    [
      ["bob", "deepseek_fetch", "ok", false],
      ["bob", "deepseek_fetch", "ok", true],
    ],
  )
})

test("no token, a wrong one, another scheme and a revoked one: 401 with an empty body", T, async () => {
  const ok = await rawPost({ Authorization: `Bearer ${tokens.carol}` })
  assert.equal(ok.status, 200, ok.body)

  const cases = {
    "no token": {},
    "a wrong token": { Authorization: `Bearer ${tokens.carol.slice(0, -4)}abcd` },
    "an empty bearer": { Authorization: "Bearer " },
    "the token as Basic": { Authorization: `Basic ${tokens.carol}` },
    "the API key as token": { Authorization: `Bearer ${KEY}` },
  }
  for (const [what, headers] of Object.entries(cases)) {
    const r = await rawPost(headers)
    assert.equal(r.status, 401, what)
    assert.equal(r.body, "", what)
  }

  revokeToken(bin, tokensFile, "carol", env)
  const revoked = await rawPost({ Authorization: `Bearer ${tokens.carol}` })
  assert.equal(revoked.status, 401)
  assert.equal(revoked.body, "")
  // The other members are not affected.
  assert.equal((await rawPost({ Authorization: `Bearer ${tokens.alice}` })).status, 200)

  // The SDK client with the revoked token fails to connect: its error carries the status and
  // the (empty) body.
  await assert.rejects(connect("carol"), (e) => e.code === 401 && e.message === "Streamable HTTP error: Error POSTing to endpoint: ")
  // Nothing was audited for carol, and the refusals name no token in stderr.
  assert.deepEqual(gw.audit().filter((l) => l.member === "carol"), [])
  for (const t of Object.values(tokens)) assert.ok(!gw.stderr().includes(t), "a token reached stderr")
})

test("a foreign Origin gets 403, even with a valid token; the allowed one passes", T, async () => {
  const auth = { Authorization: `Bearer ${tokens.alice}` }
  for (const origin of ["http://evil.example", "http://127.0.0.1:1", "null", "https://app.example.test:8443"]) {
    const r = await rawPost({ ...auth, Origin: origin })
    assert.equal(r.status, 403, origin)
    assert.equal(r.body.trim(), "", `no detail for ${origin}`)
  }
  assert.equal((await rawPost({ Origin: "http://evil.example" })).status, 403, "the Origin is checked before the token")
  const allowed = await rawPost({ ...auth, Origin: ALLOWED_ORIGIN })
  assert.equal(allowed.status, 200, allowed.body)
})

test("a DeepSeek error echoing the key reaches the member masked", T, async () => {
  const { client, close } = await connect("alice")
  ds.enqueue("search", { status: 400, json: { error: { message: `invalid request for key ${KEY}` } } })
  const res = await client.callTool({ name: "deepseek_search", arguments: { query: "echo the key" } })
  assert.equal(res.isError, true)
  assert.equal(res.content.length, 1)
  assert.equal(res.content[0].text, "DeepSeek Search failed: HTTP 400: invalid request for key [redacted]")
  await close()
  const [line] = await gw.waitAudit((l) => l.query === "echo the key", 1)
  assert.equal(line.outcome, "error")
  assert.equal(line.deepseek_status, 400)
  assert.equal(line.error, res.content[0].text)
})

test("on SIGTERM the gateway exits 0; the key is in no response, header, stderr line or audit line", T, async () => {
  const { code, signal } = await gw.stop()
  assert.deepEqual({ code, signal }, { code: 0, signal: null })

  const forms = [KEY, Buffer.from(KEY).toString("base64"), encodeURIComponent(KEY)]
  const has = (s) => forms.some((f) => s.includes(f))
  assert.ok(exchanges.length > 40, `${exchanges.length} exchanges recorded`)
  assert.ok(exchanges.some((e) => e.body.includes("Effective Go")), "the bodies were recorded")
  for (const e of exchanges) {
    assert.ok(!has(e.body), `key in the body of a ${e.status} from ${e.url}`)
    assert.ok(!has(JSON.stringify(e.headers)), `key in a header of a ${e.status} from ${e.url}`)
  }
  assert.ok(gw.stderr().includes("serving"), gw.stderr())
  for (const line of gw.stderr().split("\n")) assert.ok(!has(line), `key in stderr: ${line}`)
  const audit = gw.stdout().split("\n").filter((l) => l)
  assert.ok(audit.length >= 2 * REVISIONS.length + 3, `${audit.length} audit lines`)
  for (const line of audit) assert.ok(!has(line), `key in an audit line: ${line}`)
  // Every call reached DeepSeek with the key as the Bearer header only.
  for (const r of ds.requests) {
    assert.equal(r.headers.authorization, `Bearer ${KEY}`)
    assert.ok(!r.body.includes(KEY))
  }
})
