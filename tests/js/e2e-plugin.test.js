// The plugin in the REAL OpenCode 1.18.33, in both install layouts of docs/install.md, against the
// mock model and the mock DeepSeek: what the model is offered (the `tools` of each chat
// request), what OpenCode hands back to it after deepseek_search / deepseek_fetch (SPEC §6),
// a DeepSeek error as a tool failure, the forced tier removing the built-in tools, and the
// key appearing nowhere it should not. Slow (seconds per run): skipped without node_modules.
import { after, before, test } from "node:test"
import assert from "node:assert/strict"
import { readFileSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"

import { filesContaining, randomKey, stagePlugin, walk } from "./lib/e2e.js"
import { startMockDeepSeek } from "./lib/mock-deepseek.js"
import { openCodeAvailable, runOpenCode } from "./lib/opencode.js"

const skip = openCodeAvailable() ? false : "opencode-ai not installed (cd tests/js && npm install)"
const T = { skip, timeout: 240_000 }
const NAME = "deepseek-web-retrieval"

// What DeepSeek answers, with the traps SPEC §2 describes: a duplicate URL (case of the host
// and a fragment differ), a result without a URL, a non-http URL, nulls everywhere, runs of
// whitespace in a summary.
const SEARCH = {
  results: [
    {
      url: "https://go.dev/doc/effective_go",
      title: "Effective Go",
      snippet: "not used: the summary wins",
      summary: "Effective Go gives   tips\nfor writing clear, idiomatic Go code.",
      content: "full page text never reaches the model",
      rerank_score: 2.44,
      authority: 4,
      date: "2024-01-15T08:00:00Z",
      site_name: "Go Documentation",
      site_icon: "",
    },
    { url: "https://GO.dev/doc/effective_go#top", title: "Duplicate", summary: "dropped", rerank_score: 3 },
    { title: "No URL", summary: "dropped" },
    { url: "ftp://example.com/file", title: "Not http", summary: "dropped" },
    { url: "https://example.com/go-tips", title: null, snippet: "Some Go tips.", summary: null, rerank_score: null, authority: -1, date: null, site_name: null },
  ],
}
const SEARCH_TEXT = [
  "1. Effective Go",
  "https://go.dev/doc/effective_go",
  "[rerank 2.4 · authority 4 · Go Documentation] · published 2024-01-15",
  "Effective Go gives tips for writing clear, idiomatic Go code.",
  "",
  "2. https://example.com/go-tips",
  "https://example.com/go-tips",
  "[authority unknown]",
  "Some Go tips.",
].join("\n")

const FETCH = { title: "Effective Go", content: "Effective Go is a guide.\n\n## Introduction\n\nGo is a new language." }
const FETCH_TEXT = "# Effective Go\n\nEffective Go is a guide.\n\n## Introduction\n\nGo is a new language."

const QUERY = "go idioms"
const URL_ = "https://go.dev/doc/effective_go"

let staged
before(() => {
  if (!skip) staged = stagePlugin()
})
after(() => {
  if (staged) rmSync(dirname(staged), { recursive: true, force: true })
})

function assertRun(run) {
  assert.equal(run.code, 0, `opencode exited ${run.code} ${run.signal ?? ""}\n${run.stderr.slice(-4000)}`)
}

function offered(request) {
  return request.tools.map((t) => t.function.name).sort()
}

/** The tool result the model received for a call id. */
function resultOf(run, id) {
  const r = run.toolResults.find((x) => x.tool_call_id === id)
  assert.ok(r, `no tool result for ${id}: ${JSON.stringify(run.toolResults)}`)
  return r.content
}

function assertDeepSeekRequests(ds, key, { searches, fetches }) {
  assert.equal(ds.searchRequests.length, searches)
  assert.equal(ds.fetchRequests.length, fetches)
  for (const r of ds.requests) {
    assert.equal(r.headers.authorization, `Bearer ${key}`)
    assert.equal(r.headers["content-type"], "application/json")
    assert.match(r.headers["user-agent"], /deepseek-web-retrieval/)
  }
  assert.deepEqual(ds.searchRequests[0].json, { query: QUERY, count: 10, need_content: false })
  assert.deepEqual(ds.fetchRequests[0].json, { url: URL_ })
}

/** The key appears in no event, no model request, no file OpenCode wrote, no output. */
function assertKeyNowhere(run, key) {
  assert.ok(!run.stdout.includes(key), "key in the JSON events on stdout")
  assert.ok(!run.stderr.includes(key), "key on stderr")
  assert.ok(!JSON.stringify(run.requests).includes(key), "key in a request to the model")
  const logDir = join(run.dirs.home, ".local", "share", "opencode", "log")
  assert.ok(walk(logDir).length > 0, `no OpenCode log under ${logDir}`)
  assert.deepEqual(filesContaining(run.dirs.root, key), [], "key in files under the sandbox")
}

test("global layout (opencode.jsonc + vendor/), search and fetch forced: exact outputs, built-ins gone, key nowhere", T, async () => {
  const key = randomKey()
  const ds = await startMockDeepSeek({ apiKey: key })
  ds.enqueue("search", { json: SEARCH })
  ds.enqueue("fetch", { json: FETCH })
  const run = await runOpenCode({
    turns: [
      { toolCalls: [{ id: "c_search", name: "deepseek_search", args: { query: QUERY } }] },
      { toolCalls: [{ id: "c_fetch", name: "deepseek_fetch", args: { url: URL_ } }] },
      // A model that calls the switched-off built-in anyway gets OpenCode's refusal.
      { toolCalls: [{ id: "c_webfetch", name: "webfetch", args: { url: URL_, format: "markdown" } }] },
      { text: "done" },
    ],
    globalConfigName: "opencode.jsonc",
    globalConfig: {
      plugin: [[`./vendor/${NAME}`, { baseURL: ds.baseURL, search: "forced", fetch: "forced" }]],
      // The user's own settings that would keep the built-ins: forced wins over them.
      tools: { websearch: true },
      permission: { webfetch: "allow", websearch: "allow" },
      agent: { build: { permission: { webfetch: "allow" } } },
    },
    vendor: [{ from: staged, to: `global:vendor/${NAME}` }],
    // Exa's websearch is offered only to the "opencode" provider unless this is set: set it so
    // there is a built-in websearch for the forced tier to remove.
    env: { DEEPSEEK_API_KEY: key, OPENCODE_ENABLE_EXA: "1" },
  })
  try {
    assertRun(run)
    assert.equal(resultOf(run, "c_search"), SEARCH_TEXT)
    assert.equal(resultOf(run, "c_fetch"), FETCH_TEXT)
    assertDeepSeekRequests(ds, key, { searches: 1, fetches: 1 })
    for (const req of run.turnRequests) {
      const tools = offered(req)
      assert.ok(tools.includes("deepseek_search") && tools.includes("deepseek_fetch"), tools.join(","))
      assert.ok(!tools.includes("webfetch"), `webfetch still offered: ${tools}`)
      assert.ok(!tools.includes("websearch"), `websearch still offered: ${tools}`)
    }
    const desc = Object.fromEntries(run.turnRequests[0].tools.map((t) => [t.function.name, t.function.description]))
    assert.match(desc.deepseek_search, /Prefer this tool over websearch/)
    assert.match(desc.deepseek_fetch, /Prefer this tool over webfetch/)
    assert.match(resultOf(run, "c_webfetch"), /unavailable tool 'webfetch'/)
    assert.equal(run.toolUses.filter((u) => u.tool === "webfetch").length, 0)
    assert.equal(run.text, "done")
    assertKeyNowhere(run, key)
  } finally {
    await run.cleanup()
    await ds.close()
  }
})

test("project layout (opencode.json + vendor/ in the project), preferred: exact outputs, 402 as a tool error, echoed key masked", T, async () => {
  const key = randomKey()
  const ds = await startMockDeepSeek({ apiKey: key })
  ds.enqueue("search", { json: SEARCH }, { status: 402, json: { error: { message: "Insufficient Balance" } } })
  ds.enqueue("fetch", { json: FETCH }, { status: 401, json: { error: { message: `Authentication Fails: ${key} is not valid` } } })
  const run = await runOpenCode({
    cwd: "src",
    turns: [
      { toolCalls: [{ id: "c_search", name: "deepseek_search", args: { query: QUERY } }] },
      { toolCalls: [{ id: "c_fetch", name: "deepseek_fetch", args: { url: URL_ } }] },
      { toolCalls: [{ id: "c_402", name: "deepseek_search", args: { query: "more" } }] },
      { toolCalls: [{ id: "c_401", name: "deepseek_fetch", args: { url: "https://go.dev/" } }] },
      { text: "done" },
    ],
    // `colour` is not an option: its warning must land in OpenCode's log, where docs/troubleshooting.md says.
    projectConfig: { plugin: [[`./vendor/${NAME}`, { baseURL: ds.baseURL, search: "preferred", fetch: "preferred", apiKeyEnv: "DEEPSEEK_API_KEY", colour: "blue" }]] },
    vendor: [{ from: staged, to: `project:vendor/${NAME}` }],
    env: { DEEPSEEK_API_KEY: key, OPENCODE_ENABLE_EXA: "1" },
  })
  try {
    assertRun(run)
    assert.equal(resultOf(run, "c_search"), SEARCH_TEXT)
    assert.equal(resultOf(run, "c_fetch"), FETCH_TEXT)
    assertDeepSeekRequests(ds, key, { searches: 2, fetches: 2 })
    // Preferred keeps the built-ins beside ours (the control for the forced test above).
    assert.deepEqual(
      offered(run.turnRequests[0]).filter((n) => /^(deepseek_|web)/.test(n)),
      ["deepseek_fetch", "deepseek_search", "webfetch", "websearch"],
    )
    // A DeepSeek error reaches the model as the sentence alone, and the part is an error.
    assert.equal(resultOf(run, "c_402"), "DeepSeek Search failed: HTTP 402: Insufficient Balance")
    const failed = run.toolUses.find((u) => u.callID === "c_402")
    assert.equal(failed.state.status, "error")
    assert.equal(failed.state.error, "DeepSeek Search failed: HTTP 402: Insufficient Balance")
    // A server message that echoes the key is masked before anyone sees it.
    assert.match(resultOf(run, "c_401"), /^DeepSeek Fetch failed: HTTP 401: Authentication Fails: \[redacted\] is not valid/)
    assert.equal(run.toolUses.find((u) => u.callID === "c_401").state.status, "error")
    // The title and metadata docs/model.md promises, as the host keeps them.
    const fetched = run.toolUses.find((u) => u.callID === "c_fetch").state
    assert.equal(fetched.title, "deepseek_fetch go.dev/doc/effective_go")
    const chars = [...FETCH_TEXT].length
    assert.deepEqual(fetched.metadata, { url: URL_, title: "Effective Go", chars, contentTruncated: false, offset: 0, totalChars: chars, cached: false, truncated: false })
    const searched = run.toolUses.find((u) => u.callID === "c_search").state
    assert.equal(searched.title, `deepseek_search ${QUERY}`)
    assert.deepEqual(searched.metadata, { query: QUERY, results: 2, cached: false, truncated: false })
    // OpenCode 1.x calls setup() too: no false "no websearch provider API" warning anywhere,
    // and the plugin's messages are in OpenCode's log, prefixed with its name.
    const logText = walk(join(run.dirs.home, ".local", "share", "opencode", "log")).map((f) => readFileSync(f, "utf8")).join("\n")
    assert.ok(!`${run.stderr}\n${logText}`.includes("websearch provider API"), "the false 1.x warning is back")
    assert.match(logText, /level=WARN .*message="\[deepseek-web-retrieval\] unknown option \\"colour\\" ignored"/)
    assert.equal(run.text, "done")
    assertKeyNowhere(run, key)
  } finally {
    await run.cleanup()
    await ds.close()
  }
})

test("several at once: two queries in one deepseek_search call, and a task that needs three pages in one deepseek_fetch call", T, async () => {
  const key = randomKey()
  const ds = await startMockDeepSeek({ apiKey: key })
  const queries = ["goroutines effective go", "goroutines go spec"]
  const urls = ["https://go.dev/doc/effective_go", "https://go.dev/doc/faq", "https://go.dev/ref/spec"]
  // 1.x marks every argument required, so the model gives each, the unused form empty.
  const run = await runOpenCode({
    turns: [
      { toolCalls: [{ id: "c_search", name: "deepseek_search", args: { query: "", queries } }] },
      { toolCalls: [{ id: "c_fetch", name: "deepseek_fetch", args: { url: "", urls, offset: 0 } }] },
      { text: "Done: read the three pages." },
    ],
    projectConfig: { plugin: [[`./vendor/${NAME}`, { baseURL: ds.baseURL, maxCalls: 2 }]] },
    vendor: [{ from: staged, to: `project:vendor/${NAME}` }],
    env: { DEEPSEEK_API_KEY: key },
  })
  try {
    assertRun(run)
    // The lists were offered as arguments, and each task took one call.
    const params = Object.fromEntries(run.turnRequests[0].tools.map((t) => [t.function.name, t.function.parameters]))
    assert.equal(params.deepseek_search.properties.queries.type, "array")
    assert.equal(params.deepseek_fetch.properties.urls.type, "array")
    assert.deepEqual(run.toolUses.map((u) => [u.tool, u.state.status]), [["deepseek_search", "completed"], ["deepseek_fetch", "completed"]])
    // Both queries went out under the one call; the mock answers both with the same results,
    // so each is listed once, found by the first query.
    assert.deepEqual(ds.searchRequests.map((q) => q.json.query).sort(), [...queries].sort())
    const found = resultOf(run, "c_search")
    assert.equal((found.match(/^found by "goroutines effective go"$/gm) ?? []).length, 2, found)
    assert.ok(!found.includes('found by "goroutines go spec"'), found)
    // Three pages under one call, with maxCalls 2: the third waited for a place, then ran.
    assert.deepEqual(ds.fetchRequests.map((q) => q.json.url).sort(), [...urls].sort())
    const page = (u) => `# Example page\n\nFetched from ${u}.`
    assert.equal(resultOf(run, "c_fetch"), urls.map((u, i) => `=== Page ${i + 1} of 3: ${u} ===\n\n${page(u)}`).join("\n\n"))
    const fetched = run.toolUses.find((u) => u.callID === "c_fetch").state
    assert.equal(fetched.title, "deepseek_fetch go.dev/doc/effective_go, go.dev/doc/faq, go.dev/ref/spec")
    assert.deepEqual(fetched.metadata, { urls, failed: 0, cached: false, truncated: false })
    assertKeyNowhere(run, key)
  } finally {
    await run.cleanup()
    await ds.close()
  }
})
