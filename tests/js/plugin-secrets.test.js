// The API key never reaches the host (results, tool output and metadata, thrown errors, log
// lines, registrations), even when DeepSeek echoes it back; and the host's environment is never
// handed to the module.
import { test, before, after } from "node:test"
import assert from "node:assert/strict"
import { randomBytes } from "node:crypto"
import { readFile } from "node:fs/promises"
import { createFakeHostV2 } from "./lib/fake-host-v2.js"
import { loadPluginV1 } from "./lib/fake-host-v1.js"
import { startEnv, plugin, captureLogs, safeJSON, runtime } from "./lib/plugin-helpers.js"
import { createWasi } from "../../plugin/wasi.js"

let env
before(async () => {
  env = await startEnv()
})
after(async () => {
  await env.close()
})

/** Everything of a value that a host could show: JSON plus error messages and stacks. */
function visible(v) {
  if (v instanceof Error) return `${v.message}\n${v.stack}\n${safeJSON({ ...v })}`
  if (typeof v === "function") return v.toString()
  return safeJSON(v, (_k, x) => (x instanceof Error ? `${x.message}\n${x.stack}` : x))
}

test("an echoed key is masked everywhere the host looks (2.x and 1.x)", async () => {
  const key = env.key
  const ds = env.ds
  const echo = (what) => `${what} ${key} ${what}`
  const seen = []
  const sink = []
  const logs = captureLogs()
  try {
    // 2.x: registrations (a forced-search host too, for deepseek_search).
    const host = createFakeHostV2()
    await host.load(plugin, env.options({ search: "preferred", fetch: "forced" }))
    const forced = createFakeHostV2()
    await forced.load(plugin, env.options({ search: "forced" }))
    seen.push(forced.definitions(), host.definitions(), host.log, host.websearch.list().map((id) => host.websearch.get(id)), host.tools.list().map((n) => host.tools.get(n)))

    // Search results echoing the key in every field.
    ds.enqueue("search", {
      json: {
        results: [
          {
            url: `https://echo.example/?key=${key}`,
            title: echo("title"),
            summary: echo("summary"),
            snippet: echo("snippet"),
            site_name: echo("site"),
            date: key,
            rerank_score: 2,
            authority: 3,
          },
        ],
      },
    })
    const s = await host.search("echo")
    assert.equal(s.ok, true, s.error?.message)
    assert.match(s.results[0].content, /\[redacted\]/)
    seen.push(s)

    // Fetch content and title echoing the key; a small limit so the text is cut, too.
    ds.enqueue("fetch", { json: { title: echo("T"), content: `${echo("para")}\n\n${"filler ".repeat(10)}${key}` } })
    const f = await host.runTool("deepseek_fetch", { url: "https://echo.example/page" })
    assert.equal(f.ok, true, f.error?.message)
    assert.match(f.text, /\[redacted\]/)
    seen.push(f)
    ds.enqueue("search", { json: { results: [{ url: "https://echo.example/2", title: echo("t"), summary: echo("s"), site_name: key }] } })
    // Another query: "echo" again would come from the search cache (one module instance).
    const fs = await forced.runTool("deepseek_search", { query: "echo again" })
    assert.match(fs.text, /\[redacted\]/)
    seen.push(fs)

    // Errors echoing the key: JSON message, raw body, on both endpoints.
    ds.enqueue("search", { status: 402, json: { error: { message: `Insufficient Balance for ${key}` } } })
    env.clearLog()
    const e1 = await host.search("balance")
    assert.equal(e1.ok, false)
    assert.match(env.logLines()[0], /ERROR \[deepseek-web-retrieval\] DeepSeek Search failed: HTTP 402: Insufficient Balance for \[redacted\]$/)
    seen.push(e1.error, e1.modelText)
    ds.enqueue("fetch", { status: 400, body: `bad request from key=${key}` })
    const e2 = await host.runTool("deepseek_fetch", { url: "https://echo.example/bad" })
    assert.equal(e2.metadata.error, "api")
    assert.match(e2.text, /^DeepSeek Fetch failed: HTTP 400: bad request from key=\[redacted\]$/)
    seen.push(e2)
    // The key typed into the input by the model (a URL, a query) is masked in error text too.
    // Refused for carrying the key before the URL policy could quote it.
    const e3 = await host.runTool("deepseek_fetch", { url: `http://127.0.0.1/?k=${key}` })
    assert.equal(e3.metadata.error, "invalid_input")
    assert.equal(e3.text, "DeepSeek Fetch: the URL contains the API key; it was not sent")
    seen.push(e3)
    const e4 = await host.runTool("deepseek_fetch", { url: "https://echo.example/", format: key })
    assert.ok(e4.metadata.error)
    seen.push(e4)

    // 1.x: registrations, output and errors.
    const h = await loadPluginV1(plugin, { options: env.options({ search: "forced" }), input: { client: { app: { log: async (e) => sink.push(e) } } } })
    seen.push(h.tools, h.hooks)
    const config = {}
    await h.hooks.config(config)
    seen.push(config)
    ds.enqueue("search", { json: { results: [{ url: "https://echo.example/1", title: echo("t"), summary: echo("s"), site_name: key }] } })
    // Queries differ from the ones above: a repeated one is answered from the search cache.
    const r1 = await h.runTool("deepseek_search", { query: "echo 1.x" })
    assert.equal(r1.status, "completed", r1.output)
    seen.push(r1)
    ds.enqueue("search", { status: 401, json: { error: { message: `Authentication Fails, key ${key} is invalid` } } })
    const r2 = await h.runTool("deepseek_search", { query: "echo 401" })
    assert.equal(r2.status, "error")
    seen.push(r2)
    ds.enqueue("fetch", { status: 503, headers: { "retry-after": "0" }, body: key }, { status: 503, headers: { "retry-after": "0" }, body: key }, { status: 503, body: key })
    const r3 = await h.runTool("deepseek_fetch", { url: "https://echo.example/busy" })
    assert.equal(r3.status, "error")
    seen.push(r3)
  } finally {
    logs.restore()
  }
  seen.push(logs.lines, sink, env.logLines())

  // The key did travel where it belongs: to the mock, as the bearer token.
  assert.ok(ds.requests.length >= 8)
  for (const r of ds.requests) assert.equal(r.headers.authorization, `Bearer ${key}`)
  // ...and nowhere else.
  const all = seen.map(visible).join("\n")
  assert.ok(all.length > 1000, "collected what the hosts saw")
  assert.ok(!all.includes(key), `the key leaked: …${all.slice(Math.max(0, all.indexOf(key) - 200), all.indexOf(key) + 80)}…`)
  // Not even the secret part on its own.
  assert.ok(!all.includes(key.slice(3)), "the key's hex leaked")
})

// core masks the key AFTER cutting text to its limit (fetchMaxChars, maxSummaryChars, the
// 300-character error message), so a key straddling the cut leaves its prefix visible.
test("text cut at a limit never shows a piece of an echoed key", async () => {
  const key = env.key
  const piece = key.slice(0, 12)
  const host = await env.v2({ fetchMaxChars: 200 })
  env.ds.enqueue("fetch", { json: { title: "", content: "x".repeat(150) + key + "y".repeat(400) } })
  const f = await host.runTool("deepseek_fetch", { url: "https://echo.example/cut" })
  const h = await env.v1({ maxSummaryChars: 100 })
  env.ds.enqueue("search", { json: { results: [{ url: "https://a.example/", title: "t", summary: "x".repeat(80) + key + "y".repeat(100) }] } })
  const s = await h.runTool("deepseek_search", { query: "q" })
  env.ds.enqueue("fetch", { status: 400, json: { error: { message: "m".repeat(280) + key + "z".repeat(50) } } })
  const e = await h.runTool("deepseek_fetch", { url: "https://a.example/" })
  assert.ok(!f.text.includes(piece), `fetch: …${f.text.slice(-60)}`)
  assert.ok(!s.output.includes(piece), `search summary: …${s.output.slice(-60)}`)
  assert.ok(!e.output.includes(piece), `error message: …${e.output.slice(-60)}`)
})

test("plan and registrations carry no key even with a literal apiKey option", async () => {
  const literal = "sk-" + randomBytes(16).toString("hex")
  const logs = captureLogs()
  let host, h
  env.clearLog()
  try {
    host = createFakeHostV2()
    await host.load(plugin, { baseURL: env.ds.baseURL, apiKey: literal })
    h = await loadPluginV1(plugin, { options: { baseURL: env.ds.baseURL, apiKey: literal } })
  } finally {
    logs.restore()
  }
  const plan = runtime().start({ kind: "opencode.plan", options: { apiKey: literal }, input: { host: "opencode2" } })
  const all = [plan, host.log, host.tools.list().map((n) => host.tools.get(n)), host.websearch.list().map((id) => host.websearch.get(id)), h.tools, logs.lines, env.logLines()]
    .map(visible)
    .join("\n")
  assert.ok(!all.includes(literal))
  assert.ok(env.logLines().some((l) => l.includes('"apiKey"') && l.includes("literal")), "the literal key is warned about (2.x log file)")
  assert.ok(logs.lines.some((l) => l.includes('"apiKey"') && l.includes("literal")), "the literal key is warned about (1.x stderr without a client)")
})

test("the module never sees the host environment", async () => {
  const canaryName = "DSWR_CANARY_" + randomBytes(4).toString("hex").toUpperCase()
  const canary = "canary-" + randomBytes(8).toString("hex")
  process.env[canaryName] = canary
  try {
    // 1. The WASI layer reports an empty environment to the real module.
    const mod = await WebAssembly.compile(await readFile(new URL("../../plugin/core.wasm", import.meta.url)))
    const lines = []
    const wasi = createWasi({ write: (_fd, line) => lines.push(line) })
    const calls = []
    const imports = { wasi_snapshot_preview1: { ...wasi.wasiImport } }
    for (const name of ["environ_sizes_get", "environ_get"]) {
      const fn = wasi.wasiImport[name]
      imports.wasi_snapshot_preview1[name] = (...a) => {
        const rc = fn(...a)
        calls.push(name)
        if (name === "environ_sizes_get") {
          const dv = new DataView(instance.exports.memory.buffer)
          calls.push(dv.getUint32(a[0], true), dv.getUint32(a[1], true))
        }
        return rc
      }
    }
    const instance = new WebAssembly.Instance(mod, imports)
    wasi.initialize(instance)
    assert.deepEqual(calls.slice(0, 3), ["environ_sizes_get", 0, 0], "count 0, size 0")

    // 2. Through the plugin, the only variable read from process.env is the one the plan names.
    const reads = new Set()
    const realEnv = process.env
    let swapped = false
    try {
      process.env = new Proxy(realEnv, {
        get(t, p) {
          if (typeof p === "string") reads.add(p)
          return Reflect.get(t, p)
        },
        ownKeys(t) {
          reads.add("*enumerated*")
          return Reflect.ownKeys(t)
        },
      })
      swapped = process.env !== realEnv
    } catch {
      swapped = false
    }
    const logs = captureLogs()
    try {
      const host = createFakeHostV2()
      await host.load(plugin, env.options())
      const s = await host.search("env")
      assert.equal(s.ok, true)
      const t = await host.runTool("deepseek_fetch", { url: "https://docs.example/env" })
      assert.equal(t.ok, true)
      assert.ok(!visible([s, t]).includes(canary))
    } finally {
      logs.restore()
      if (swapped) process.env = realEnv
    }
    assert.ok(!logs.text().includes(canary))
    if (swapped) {
      // XDG_CACHE_HOME (HOME when unset) says where the plan cache is; the module never sees it.
      const plugins = [...reads].filter((n) => n !== "NODE_DEBUG" && !n.startsWith("NODE_") && !n.startsWith("BUN_") && n !== "XDG_CACHE_HOME")
      assert.deepEqual(plugins, [env.keyEnv], `process.env reads: ${[...reads].join(", ")}`)
    }
    // 3. Nothing the requests carried holds the canary.
    assert.ok(!env.ds.requests.some((r) => JSON.stringify(r).includes(canary)))
  } finally {
    delete process.env[canaryName]
  }
})
