// What the model and the user see through plugin/server.js on both fake hosts: search and fetch
// output, error sentences, logs, missing key, URL policy, option validation.
import { test, before, after, beforeEach } from "node:test"
import assert from "node:assert/strict"
import { startEnv, captureLogs, freshEnvName, codePoints, inFlightSettles, runtime, plugin } from "./lib/plugin-helpers.js"
import { createFakeHostV2 } from "./lib/fake-host-v2.js"

let env
before(async () => {
  env = await startEnv()
})
after(async () => {
  await env.close()
})
beforeEach(() => {
  env.ds.reset()
})

/**
 * A DeepSeek failure on the 2.x host: the call completes and its text is our sentence alone
 * (a Promise plugin cannot raise OpenCode's Tool.Error; a rejection would be a defect, shown as
 * an "unknown" failure carrying whichever defect of the step came first — see server.js).
 */
function assertFailed2(r, sentence, code) {
  assert.equal(r.defect, undefined, "not a defect")
  assert.equal(r.status, "completed")
  assert.deepEqual(r.content, [{ type: "text", text: sentence }])
  assert.equal(r.metadata.error, code)
}

const SEARCH = {
  results: [
    {
      url: "https://site.example/guide",
      title: "The Guide",
      snippet: "short snippet",
      summary: "A   long\n summary of the guide.",
      content: "FULL PAGE CONTENT MUST NOT APPEAR",
      rerank_score: 2.13,
      authority: 3,
      date: "2025-03-04T05:06:07Z",
      site_name: "Site Name",
      site_icon: "https://site.example/favicon.ico",
    },
    { url: "not a url", title: "dropped" },
    {
      url: "https://other.example/page",
      title: "Other",
      snippet: "Only a snippet.",
      summary: null,
      rerank_score: 0.5,
      authority: -1,
      date: null,
      site_name: null,
    },
    { url: "https://bare.example/", title: null, summary: "Bare." },
  ],
}

// --- search output --------------------------------------------------------------------------

test("2.x provider: results are exactly {url, title, content, time:{published}}", async () => {
  const host = await env.v2({ search: "preferred" })
  env.ds.enqueue("search", { json: SEARCH })
  const s = await host.search("the guide")
  assert.equal(s.ok, true, s.error?.message)
  assert.deepEqual(s.results, [
    {
      url: "https://site.example/guide",
      title: "The Guide",
      content: "[rerank 2.1 · authority 3 · Site Name]\nA long summary of the guide.",
      time: { published: Date.UTC(2025, 2, 4, 5, 6, 7) },
    },
    {
      url: "https://other.example/page",
      title: "Other",
      content: "[rerank 0.5 · authority unknown]\nOnly a snippet.",
      time: {},
    },
    { url: "https://bare.example/", content: "Bare.", time: {} },
  ])
  // What the model reads: OpenCode's websearch tool renders the decoded results.
  assert.equal(
    s.modelText,
    [
      "## [The Guide](https://site.example/guide)",
      "Published: 2025-03-04T05:06:07.000Z",
      "",
      "[rerank 2.1 · authority 3 · Site Name]",
      "A long summary of the guide.",
      "",
      "## [Other](https://other.example/page)",
      "",
      "[rerank 0.5 · authority unknown]",
      "Only a snippet.",
      "",
      "## [https://bare.example/](https://bare.example/)",
      "",
      "Bare.",
    ].join("\n"),
  )
  // The raw objects the provider returned have no other keys (and no `undefined` noise).
  const raw = await host.websearch.get("deepseek").execute({ query: "the guide" }, {})
  for (const r of raw) {
    for (const k of Object.keys(r)) assert.ok(["url", "title", "content", "time"].includes(k), k)
  }
  // The wire request: count = maxResults, need_content false, no ori_question on this path.
  const req = env.ds.searchRequests[0]
  assert.deepEqual(req.json, { query: "the guide", count: 10, need_content: false })
  assert.equal(req.headers.authorization, `Bearer ${env.key}`)
  assert.equal(req.headers["content-type"], "application/json")
  assert.match(req.headers["user-agent"], /deepseek-web-retrieval/)
})

test("2.x provider: an empty result set is an empty array, not an error", async () => {
  const host = await env.v2()
  env.ds.enqueue("search", { json: { results: [] } })
  const s = await host.search("nothing")
  assert.equal(s.ok, true)
  assert.deepEqual(s.results, [])
  assert.equal(s.modelText, "No search results found. Please try a different query.")
})

test("2.x provider: results pointing inside the network are withheld, and the model reads why after the last result", async () => {
  const host = await env.v2({ search: "preferred" })
  env.ds.enqueue("search", {
    json: {
      results: [
        { url: "http://169.254.169.254/latest/meta-data/", title: "Metadata", summary: "instance secrets" },
        { url: "https://public.example/", title: "Public", summary: "Public text." },
        { url: "https://admin:hunter2@public.example/", title: "Credentials", summary: "with a password" },
      ],
    },
  })
  const s = await host.search("inside the network")
  assert.equal(s.ok, true, s.error?.message)
  assert.deepEqual(s.results.map((r) => r.url), ["https://public.example/"])
  assert.equal(
    s.modelText,
    [
      "## [Public](https://public.example/)",
      "",
      "Public text.",
      "",
      "(2 results withheld: their URLs point at private or local addresses or carry a user name or password.)",
    ].join("\n"),
  )
  for (const secret of ["169.254", "instance secrets", "hunter2"]) assert.ok(!s.modelText.includes(secret), secret)
})

test("1.x deepseek_search: exact numbered text", async () => {
  const h = await env.v1({ search: "optional", fetch: "off" })
  env.ds.enqueue("search", { json: SEARCH })
  // Not "the guide" again: the 2.x test above would answer it from the search cache.
  const r = await h.runTool("deepseek_search", { query: "  the 1.x guide  " })
  assert.equal(r.status, "completed", r.output)
  assert.equal(
    r.output,
    [
      "1. The Guide",
      "https://site.example/guide",
      "[rerank 2.1 · authority 3 · Site Name] · published 2025-03-04",
      "A long summary of the guide.",
      "",
      "2. Other",
      "https://other.example/page",
      "[rerank 0.5 · authority unknown]",
      "Only a snippet.",
      "",
      "3. https://bare.example/",
      "https://bare.example/",
      "Bare.",
    ].join("\n"),
  )
  assert.equal(env.ds.searchRequests[0].json.query, "the 1.x guide")
})

test("search options reach the wire: maxResults, domains, language", async () => {
  const h = await env.v1({ maxResults: 3, includeDomains: ["go.dev"], blockedDomains: ["spam.example"], language: "zh,en" })
  const r = await h.runTool("deepseek_search", { query: "generics" })
  assert.equal(r.status, "completed", r.output)
  assert.deepEqual(env.ds.searchRequests[0].json, {
    query: "generics site:go.dev -site:spam.example lang:zh,en",
    count: 3,
    need_content: false,
  })
  // includeDomains filters results too: only go.dev survives the default answer.
  assert.match(r.output, /^1\. Effective Go\n/)
  assert.doesNotMatch(r.output, /example\.com/)
})

// --- fetch output ---------------------------------------------------------------------------

test("2.x deepseek_fetch: exact content and metadata", async () => {
  const host = await env.v2({ fetch: "optional" })
  env.ds.enqueue("fetch", { json: { title: "Page Title", content: "First paragraph.\n\n## Section\n\nMore." } })
  const r = await host.runTool("deepseek_fetch", { url: "https://docs.example/page" })
  assert.equal(r.status, "completed", r.text)
  const text = "# Page Title\n\nFirst paragraph.\n\n## Section\n\nMore."
  assert.deepEqual(r.content, [{ type: "text", text }])
  // docs/model.md's metadata; `truncated: false` is the host's own verdict (tool-output.ts).
  assert.deepEqual(r.metadata, {
    url: "https://docs.example/page",
    title: "Page Title",
    chars: codePoints(text),
    contentTruncated: false,
    offset: 0,
    totalChars: codePoints(text),
    cached: false,
    truncated: false,
  })
  assert.deepEqual(Object.keys(r.raw).sort(), ["content", "metadata"], "never `output`")
  assert.deepEqual(env.ds.fetchRequests[0].json, { url: "https://docs.example/page" })
})

test("deepseek_fetch: no duplicate heading when the content starts with it; format markdown accepted", async () => {
  const host = await env.v2()
  env.ds.enqueue("fetch", { json: { title: "Same", content: "\n# same\n\nBody." } })
  const r = await host.runTool("deepseek_fetch", { url: "https://docs.example/same", format: "markdown" })
  assert.equal(r.status, "completed", r.text)
  assert.equal(r.text.startsWith("# Same\n\n# same"), false)
  assert.match(r.text, /^\s*# same\n\nBody\.$/)
})

test("deepseek_fetch: a small fetchMaxChars cuts with the [content truncated: …] line inside the limit", async () => {
  const host = await env.v2({ fetchMaxChars: 200 })
  const body = Array.from({ length: 60 }, (_, i) => `line ${i} with ünïcödé 🙂`).join("\n")
  env.ds.enqueue("fetch", { json: { title: "Long", content: body } })
  const r = await host.runTool("deepseek_fetch", { url: "https://docs.example/long" })
  assert.equal(r.status, "completed", r.text)
  assert.ok(r.text.startsWith("# Long\n\nline 0 with ünïcödé 🙂\n"))
  assert.ok(
    r.text.endsWith("\n[content truncated: showing 0–99 of 1,377 characters; call deepseek_fetch with offset 99 for more]"),
    JSON.stringify(r.text.slice(-120)),
  )
  assert.ok(codePoints(r.text) <= 200)
  assert.equal(r.text.isWellFormed?.() ?? true, true)
  assert.equal(r.metadata.contentTruncated, true)
  assert.equal(r.metadata.chars, codePoints(r.text))
  assert.equal(r.metadata.url, "https://docs.example/long")
  assert.equal(r.metadata.title, "Long")
  assert.equal(r.metadata.truncated, false, "the plugin leaves `truncated` to the host, which did not cut")
})

test("2.x deepseek_fetch: a page over the host's 50 KiB bound is cut by the host, with its marker", async () => {
  const host = await env.v2({ fetchMaxChars: 100000 })
  const body = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\n")
  env.ds.enqueue("fetch", { json: { title: "Huge", content: body } })
  const r = await host.runTool("deepseek_fetch", { url: "https://docs.example/huge" })
  assert.equal(r.status, "completed")
  assert.equal(r.truncated, true)
  assert.equal(r.content.at(-1).text, `... 1002 lines truncated; full content saved to ${r.metadata.outputPath} ...`)
  assert.equal(r.metadata.contentTruncated, false)
})

test("1.x deepseek_fetch: the text is the content", async () => {
  const h = await env.v1()
  env.ds.enqueue("fetch", { json: { title: "T", content: "Body." } })
  const r = await h.runTool("deepseek_fetch", { url: "https://docs.example/t" })
  assert.equal(r.status, "completed", r.output)
  assert.equal(r.output, "# T\n\nBody.")
  // The title and metadata docs/model.md promises, as 1.18.33 keeps them.
  assert.equal(r.title, "deepseek_fetch docs.example/t")
  const chars = codePoints("# T\n\nBody.")
  assert.deepEqual(r.metadata, { url: "https://docs.example/t", title: "T", chars, contentTruncated: false, offset: 0, totalChars: chars, cached: false, truncated: false })
  env.ds.enqueue("search", { json: SEARCH })
  // A query no other test here asks: a repeated one comes from the module's search cache.
  const s = await h.runTool("deepseek_search", { query: "the README guide" })
  assert.equal(s.title, "deepseek_search the README guide")
  assert.deepEqual(s.metadata, { query: "the README guide", results: 3, cached: false, truncated: false })
})

// --- errors ---------------------------------------------------------------------------------

const BALANCE = { status: 402, json: { error: { message: "Insufficient Balance" } } }

test("2.x provider error: the model sees the generic sentence, the user sees the reason", async () => {
  const host = await env.v2()
  env.ds.enqueue("search", BALANCE)
  env.clearLog()
  const logs = captureLogs()
  let s
  try {
    s = await host.search("rust async")
  } finally {
    logs.restore()
  }
  assert.equal(s.ok, false)
  assert.equal(s.modelText, "Unable to search the web for rust async")
  assert.deepEqual(s.error, { type: "unknown", message: "Unable to search the web for rust async" })
  // The reason is in the plugin's log file, not on stderr (which a TUI draws over).
  const lines = env.logLines()
  assert.equal(lines.length, 1, lines.join("\n"))
  assert.match(lines[0], / ERROR \[deepseek-web-retrieval\] DeepSeek Search failed: HTTP 402: Insufficient Balance$/)
  assert.deepEqual(logs.lines, [])
  assert.equal(env.ds.searchRequests.length, 1, "402 is not retried")
})

test("2.x: the plugin's setup ignores a client even if one were there (2.x passes none)", async () => {
  // The real 2.x context has no client (adapter.ts); the fake refuses to invent one.
  const host = createFakeHostV2()
  let keys
  await host.load({ id: "probe", setup: (ctx) => void (keys = Object.keys(ctx)) })
  assert.ok(!keys.includes("client") && !keys.includes("log"))
})

test("tool errors reach the model as the exact sentence (2.x and 1.x)", async () => {
  const host = await env.v2({ search: "forced" })
  env.ds.enqueue("fetch", BALANCE)
  env.clearLog()
  const r = await host.runTool("deepseek_fetch", { url: "https://docs.example/x" })
  assertFailed2(r, "DeepSeek Fetch failed: HTTP 402: Insufficient Balance", "api")
  env.ds.enqueue("search", BALANCE)
  assertFailed2(await host.runTool("deepseek_search", { query: "x" }), "DeepSeek Search failed: HTTP 402: Insufficient Balance", "api")
  env.ds.enqueue("fetch", { status: 404, body: "" })
  assertFailed2(await host.runTool("deepseek_fetch", { url: "https://docs.example/gone" }), "DeepSeek Fetch failed: HTTP 404: DeepSeek could not retrieve the page", "api")
  assert.deepEqual(
    env.logLines().map((l) => l.replace(/^\S+ /, "")),
    [
      "WARN [deepseek-web-retrieval] deepseek_fetch: DeepSeek Fetch failed: HTTP 402: Insufficient Balance",
      "WARN [deepseek-web-retrieval] deepseek_search: DeepSeek Search failed: HTTP 402: Insufficient Balance",
      "WARN [deepseek-web-retrieval] deepseek_fetch: DeepSeek Fetch failed: HTTP 404: DeepSeek could not retrieve the page",
    ],
  )

  const h = await env.v1()
  env.ds.enqueue("fetch", BALANCE)
  const r1 = await h.runTool("deepseek_fetch", { url: "https://docs.example/x" })
  assert.equal(r1.status, "error")
  assert.equal(r1.output, "DeepSeek Fetch failed: HTTP 402: Insufficient Balance")
  env.ds.enqueue("search", BALANCE)
  const r2 = await h.runTool("deepseek_search", { query: "x" })
  assert.equal(r2.output, "DeepSeek Search failed: HTTP 402: Insufficient Balance")

  env.ds.enqueue("fetch", { status: 404, body: "" })
  const r3 = await h.runTool("deepseek_fetch", { url: "https://docs.example/gone" })
  assert.equal(r3.output, "DeepSeek Fetch failed: HTTP 404: DeepSeek could not retrieve the page")
  env.ds.enqueue("fetch", { json: { title: "Empty", content: "  " } })
  const r4 = await h.runTool("deepseek_fetch", { url: "https://docs.example/empty" })
  assert.equal(r4.status, "error")
  assert.match(r4.output, /no readable content/)
})

test("2.x: a DeepSeek failure reaches the model as our sentence, never as a defect or an unknown error", async () => {
  // Two failing calls at once: had the plugin thrown, step.ts would settle both with the first
  // defect's message as an "unknown" failure. As results, each carries its own sentence.
  const host = await env.v2({ search: "forced" })
  env.ds.enqueue("fetch", { delayMs: 50, ...BALANCE })
  env.ds.enqueue("search", { status: 401, json: { error: { message: "Authentication Fails" } } })
  const [f, q] = await Promise.all([host.runTool("deepseek_fetch", { url: "https://docs.example/a" }), host.runTool("deepseek_search", { query: "b" })])
  assertFailed2(f, "DeepSeek Fetch failed: HTTP 402: Insufficient Balance", "api")
  assert.equal(q.status, "completed")
  assert.match(q.text, /^DeepSeek Search failed: HTTP 401: Authentication Fails/)
  assert.equal(q.metadata.error, "api")
  for (const r of [f, q]) {
    assert.notEqual(r.error?.type, "unknown")
    assert.equal(r.content.length, 1, "the sentence alone, no host marker")
  }
})

test("missing key: setup succeeds, each call fails naming the variable, nothing is sent", async () => {
  const saved = process.env.DEEPSEEK_API_KEY
  delete process.env.DEEPSEEK_API_KEY
  try {
    const host = createFakeHostV2()
    const [status] = await host.load(plugin, { baseURL: env.ds.baseURL })
    assert.equal(status.status, "loaded")
    env.clearLog()
    const s = await host.search("anything")
    assert.equal(s.ok, false)
    assert.equal(s.modelText, "Unable to search the web for anything")
    assert.match(env.logLines()[0], / ERROR \[deepseek-web-retrieval\] DeepSeek API key not found: set the DEEPSEEK_API_KEY environment variable$/)
    const t = await host.runTool("deepseek_fetch", { url: "https://docs.example/" })
    assertFailed2(t, "DeepSeek API key not found: set the DEEPSEEK_API_KEY environment variable", "missing_key")

    // A custom variable name, unset: the message names it. Set it later: the next call works.
    const name = freshEnvName()
    const h = await env.v1({ apiKeyEnv: name })
    const r = await h.runTool("deepseek_search", { query: "x" })
    assert.equal(r.output, `DeepSeek API key not found: set the ${name} environment variable`)
    assert.equal(env.ds.requests.length, 0)
    process.env[name] = env.key
    try {
      const ok = await h.runTool("deepseek_search", { query: "x" })
      assert.equal(ok.status, "completed", ok.output)
    } finally {
      delete process.env[name]
    }
  } finally {
    if (saved !== undefined) process.env.DEEPSEEK_API_KEY = saved
  }
})

test("private URLs are refused locally: no request reaches the mock", async () => {
  const host = await env.v2()
  for (const url of [
    "http://127.0.0.1/",
    "http://127.1:8080/admin",
    "http://169.254.169.254/latest/meta-data/",
    "http://localhost/",
    "http://[::ffff:127.0.0.1]/",
    "http://10.0.0.1/",
    "http://printer.local/",
    "http://intranet/",
    env.ds.baseURL + "/v1/tools/fetch",
  ]) {
    const r = await host.runTool("deepseek_fetch", { url })
    assert.equal(r.metadata.error, "url_refused", `${url}: ${r.text}`)
    assert.match(r.text, /^DeepSeek Fetch/)
  }
  for (const url of ["ftp://example.com/", "https://user:pw@example.com/", "example.com/page"]) {
    const r = await host.runTool("deepseek_fetch", { url })
    assert.ok(r.metadata.error, url)
  }
  assert.equal(env.ds.requests.length, 0)
})

test("tool input is validated by the plugin (the host does not)", async () => {
  const host = await env.v2()
  for (const input of [{}, { url: 42 }, { url: null }]) {
    const r = await host.runTool("deepseek_fetch", input)
    assert.equal(r.metadata.error, "invalid_input", JSON.stringify(input))
    assert.match(r.text, /deepseek_fetch: .*"url"/)
  }
  const h = await env.v1()
  const r = await h.runTool("deepseek_search", {})
  assert.equal(r.status, "error")
  assert.match(r.output, /deepseek_search: .*"query"/)
  const e = await h.runTool("deepseek_search", { query: "   " })
  assert.equal(e.status, "error")
  assert.equal(env.ds.requests.length, 0)
})

test("format text/html → an error saying Markdown only; nothing sent", async () => {
  const host = await env.v2()
  for (const format of ["text", "html"]) {
    const r = await host.runTool("deepseek_fetch", { url: "https://docs.example/", format })
    assert.ok(r.metadata.error)
    assert.match(r.text, /Markdown only/)
    assert.match(r.text, new RegExp(`"${format}"`))
  }
  assert.equal(env.ds.requests.length, 0)
})

test("invalid options → setup fails naming the option (2.x and 1.x)", async () => {
  for (const [name, value] of [
    ["maxResults", "ten"],
    ["maxResults", 51],
    ["timeoutMs", 10],
    ["maxRetries", 9],
    ["baseURL", "http://api.deepseek.example"],
    ["fetchMaxChars", -1],
  ]) {
    env.clearLog()
    await assert.rejects(env.v2({ [name]: value }), (err) => {
      assert.match(err.message, new RegExp(`"${name}"`), `${name}=${JSON.stringify(value)}: ${err.message}`)
      assert.equal(env.logLines().length, 1)
      assert.ok(env.logLines()[0].endsWith(` ERROR [deepseek-web-retrieval] ${err.message}`), env.logLines()[0])
      return true
    })
    await assert.rejects(env.v1({ [name]: value }), new RegExp(`"${name}"`))
  }
})

// core/options.go treats an explicit 0 as "unset" (int zero value) for maxResults,
// maxSummaryChars, fetchMaxChars and timeoutMs, so `maxResults: 0` silently means 10.
test("an explicit 0 is invalid for options whose range starts above 0", async () => {
  for (const name of ["maxResults", "maxSummaryChars", "fetchMaxChars", "timeoutMs"]) {
    await assert.rejects(env.v2({ [name]: 0 }), new RegExp(`"${name}"`), name)
  }
})

test("unknown option → a warning naming it is logged, setup succeeds", async () => {
  env.clearLog()
  const host = await env.v2({ maxResult: 5 })
  assert.ok(host.websearch.list().includes("deepseek"))
  const warn = env.logLines().filter((l) => / WARN \[deepseek-web-retrieval\] .*maxResult/.test(l))
  assert.equal(warn.length, 1, env.logLines().join("\n"))
  // 1.x with an app.log sink: the warning goes to the sink (not stderr).
  const sink = []
  const logs1 = captureLogs()
  try {
    await env.v1({ colour: "red" }, { client: { app: { log: async (e) => sink.push(e.body) } } })
  } finally {
    logs1.restore()
  }
  assert.equal(sink.length, 1, JSON.stringify(sink))
  assert.equal(sink[0].level, "warn")
  assert.match(sink[0].message, /colour/)
})

test("no operation is left in flight after all of the above", async () => {
  assert.equal(await inFlightSettles(), 0)
  assert.equal(runtime().stats().inFlight, 0)
})
