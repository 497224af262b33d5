// Reading long pages in parts through plugin/server.js on both fake hosts: the
// offset input, the continue line, paging metadata, the page and search caches inside the
// module instance, and a trap dropping the cache with the instance.
import { test, before, after, beforeEach } from "node:test"
import assert from "node:assert/strict"
import { startEnv, captureLogs, codePoints, runtime } from "./lib/plugin-helpers.js"

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

// 1,000 lines of 32 code points (the astral emoji counts one) joined by newlines, after
// "# Long\n\n": 33,007 code points, the final newline trimmed.
const LINES = Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(3, "0")} ünïcödé 🙂 text to read.`)
const CONTENT = LINES.join("\n") + "\n"
const TOTAL = codePoints("# Long\n\n" + LINES.join("\n"))
let page = 0
const nextURL = () => `https://docs.example/long/${++page}`

const line = (from, to, next) =>
  `[content truncated: showing ${from.toLocaleString("en-US")}–${to.toLocaleString("en-US")} of ${TOTAL.toLocaleString("en-US")} characters; call deepseek_fetch with offset ${next} for more]`

test("2.x: a long page read in three calls costs one DeepSeek fetch", async () => {
  assert.equal(TOTAL, 33007)
  const host = await env.v2({ fetch: "optional" })
  const url = nextURL()
  env.ds.enqueue("fetch", { json: { title: "Long", content: CONTENT } })
  const parts = []
  let offset
  for (let i = 0; i < 3; i++) {
    const input = offset === undefined ? { url } : { url, offset }
    const r = await host.runTool("deepseek_fetch", input)
    assert.equal(r.status, "completed", r.text)
    assert.equal(r.metadata.error, undefined, r.text)
    parts.push(r)
    offset = r.metadata.nextOffset
  }
  assert.equal(env.ds.fetchRequests.length, 1)

  const [a, b, c] = parts
  assert.ok(a.text.startsWith("# Long\n\nline 000 ünïcödé 🙂 text to read.\n"))
  assert.ok(a.text.endsWith("\n" + line(0, 15893, 15893)), a.text.slice(-140))
  // `truncated: false` is the host's own verdict (tool-output.ts): the plugin leaves it unset.
  assert.deepEqual(a.metadata, {
    url,
    title: "Long",
    chars: codePoints(a.text),
    contentTruncated: true,
    truncated: false,
    offset: 0,
    nextOffset: 15893,
    totalChars: TOTAL,
    cached: false,
  })
  assert.ok(!b.text.startsWith("# Long"), "the title only in the first part")
  assert.ok(b.text.endsWith("\n" + line(15893, 31781, 31781)), b.text.slice(-140))
  assert.equal(b.metadata.cached, true)
  assert.equal(b.metadata.offset, 15893)
  assert.equal(c.metadata.cached, true)
  assert.equal(c.metadata.offset, 31781)
  assert.equal(c.metadata.nextOffset, undefined, "absent at the end")
  assert.equal(c.metadata.contentTruncated, false)
  assert.ok(c.text.endsWith("line 999 ünïcödé 🙂 text to read."))
  assert.ok(!c.text.includes("[content truncated"))
  for (const r of parts) {
    assert.ok(codePoints(r.text) <= 16000)
    assert.equal(r.metadata.chars, codePoints(r.text))
    assert.equal(r.text.isWellFormed?.() ?? true, true, "no lone surrogate at a cut")
    assert.equal(r.truncated, false, "the host did not cut again")
  }
  // The parts, less their continue lines, hold every line of the page in order.
  const joined = parts.map((r) => r.text.replace(/\n?\[content truncated: [^\]]*\]$/, "")).join("")
  assert.equal(joined.replace(/\s+/g, ""), ("# Long\n\n" + LINES.join("\n")).replace(/\s+/g, ""))
})

test("2.x: an offset at or past the end is a failed call naming the page's length", async () => {
  const host = await env.v2()
  const url = nextURL()
  env.ds.enqueue("fetch", { json: { title: "Long", content: CONTENT } })
  // On 2.x a failure is the call's result, our sentence with metadata.error naming its kind.
  const end = await host.runTool("deepseek_fetch", { url, offset: TOTAL })
  assert.deepEqual(end.content, [{ type: "text", text: `DeepSeek Fetch: offset ${TOTAL} is the end of the page: it has 33,007 characters and nothing follows` }])
  assert.equal(end.metadata.error, "invalid_input")
  const past = await host.runTool("deepseek_fetch", { url, offset: 10 ** 9 })
  assert.equal(past.text, "DeepSeek Fetch: offset 1000000000 is past the end of the page: it has 33,007 characters (the last offset is 33006)")
  assert.equal(past.metadata.error, "invalid_input")
  const neg = await host.runTool("deepseek_fetch", { url, offset: -3 })
  assert.match(neg.text, /^deepseek_fetch: "offset" must be a whole number of characters, 0 or more/)
  assert.equal(neg.metadata.error, "invalid_input")
  // The page was fetched once (to learn its length) and kept; the errors were not.
  assert.equal(env.ds.fetchRequests.length, 1)
  const ok = await host.runTool("deepseek_fetch", { url, offset: TOTAL - 5 })
  assert.equal(ok.metadata.error, undefined, ok.text)
  assert.equal(ok.text, "read.")
  assert.equal(env.ds.fetchRequests.length, 1)
})

test("1.x: offset is an argument, the text reads on, one fetch", async () => {
  const h = await env.v1({ search: "off", fetch: "optional" })
  const url = nextURL()
  env.ds.enqueue("fetch", { json: { title: "Long", content: CONTENT } })
  const first = await h.runTool("deepseek_fetch", { url, offset: 0 })
  assert.equal(first.status, "completed", first.output)
  assert.ok(first.output.endsWith("\n" + line(0, 15893, 15893)))
  const second = await h.runTool("deepseek_fetch", { url, offset: 15893 })
  assert.equal(second.status, "completed", second.output)
  assert.ok(second.output.endsWith("\n" + line(15893, 31781, 31781)))
  // A model that quotes the number is understood too.
  const third = await h.runTool("deepseek_fetch", { url, offset: "31781" })
  assert.equal(third.status, "completed", third.output)
  assert.ok(third.output.endsWith("line 999 ünïcödé 🙂 text to read."))
  assert.equal(env.ds.fetchRequests.length, 1)
})

test("a repeated search is answered from the cache on both hosts", async () => {
  const host = await env.v2({ search: "preferred" })
  const s1 = await host.search("wasi preview 2")
  const s2 = await host.search("  wasi preview 2 ")
  assert.equal(s1.ok && s2.ok, true)
  assert.deepEqual(s2.results, s1.results)
  assert.equal(env.ds.searchRequests.length, 1)
  const h = await env.v1({ search: "optional" })
  const t1 = await h.runTool("deepseek_search", { query: "wasi preview 2" })
  assert.equal(t1.status, "completed")
  assert.equal(env.ds.searchRequests.length, 1, "the same module instance, the same cache")
  // Other options that change the answer ask again.
  const h3 = await env.v1({ search: "optional", maxResults: 3 })
  await h3.runTool("deepseek_search", { query: "wasi preview 2" })
  assert.equal(env.ds.searchRequests.length, 2)
})

test("cacheTTL 0 turns the caches off", async () => {
  const host = await env.v2({ cacheTTL: 0 })
  const url = nextURL()
  for (let i = 0; i < 2; i++) {
    const r = await host.runTool("deepseek_fetch", { url })
    assert.equal(r.metadata.error, undefined, r.text)
    assert.equal(r.metadata.cached, false)
    assert.equal((await host.search("no cache")).ok, true)
  }
  assert.equal(env.ds.fetchRequests.length, 2)
  assert.equal(env.ds.searchRequests.length, 2)
  // An invalid value fails setup with the option's name and range.
  await assert.rejects(env.v2({ cacheMaxMB: 100 }), {
    message: 'deepseek-web-retrieval: option "cacheMaxMB": want a whole number from 0 to 64, got 100',
  })
})

test("a trap drops the cache with the instance: the next call fetches again, intact", async () => {
  const host = await env.v2()
  const rt = runtime()
  const url = nextURL()
  env.ds.enqueue("fetch", { json: { title: "Long", content: CONTENT } }, { json: { title: "Long", content: CONTENT } })
  const before = await host.runTool("deepseek_fetch", { url })
  assert.equal(before.metadata.error, undefined, before.text)
  const cached = await host.runTool("deepseek_fetch", { url, offset: 15893 })
  assert.equal(cached.metadata.cached, true)
  assert.equal(env.ds.fetchRequests.length, 1)
  const gen = rt.stats().generation
  const logs = captureLogs()
  try {
    assert.throws(() => rt.trapForTest(), (err) => /module failed .* restarted/.test(err.message))
  } finally {
    logs.restore()
  }
  assert.equal(rt.stats().generation, gen + 1)
  const again = await host.runTool("deepseek_fetch", { url, offset: 15893 })
  assert.equal(again.metadata.error, undefined, again.text)
  assert.equal(again.metadata.cached, false, "the cache died with the instance")
  assert.equal(again.text, cached.text)
  assert.equal(env.ds.fetchRequests.length, 2)
  const third = await host.runTool("deepseek_fetch", { url })
  assert.equal(third.metadata.cached, true, "and the fresh instance caches again")
  assert.equal(third.text, before.text)
  assert.equal(rt.inFlight(), 0)
})
