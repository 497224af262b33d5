// Benchmarks of the OpenCode plugin (plugin/server.js + core.wasm) under the runtime running
// this script (Node or Bun). It prints figures and never fails on a missed target.
//
//   node --expose-gc bench.js        (npm run bench runs it under Node, then Bun)
//   bun bench.js
//   BENCH_RUNS=25 BENCH_CALLS=300 BENCH_MEM_CALLS=2000 node bench.js   (bigger samples)
//
// 1. setup: fresh process per run; ms from just before `import("plugin/server.js")` until
//    setup() against the fake 2.x host resolves (module read, compiled, instantiated,
//    _initialize run, plan made, provider and tool registered). Also a phase profile
//    (fresh process per run) of the same steps done by hand.
// 2. latency: a search and a fetch through the plugin (the provider's execute / the tool's
//    execute, as OpenCode calls them) vs a bare fetch() of the same request to the same
//    loopback mock DeepSeek; medians after warm-up, and the difference.
// 3. memory: JS heap (after a full GC) and wasm linear memory before and after N calls.
// 4. paging: a 16,000-character part of a cached 1 MiB page served through the
//    tool's execute (no request), and wasm linear memory once the page cache holds its
//    64 MiB (70 pages of 1 MiB fetched). Sections 2 and 3 run with cacheTTL 0, so every
//    call there still reaches the mock.
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const HERE = fileURLToPath(new URL(".", import.meta.url))
// BENCH_PLUGIN_DIR compares another copy of plugin/ (setup figures only).
const SERVER = process.env.BENCH_PLUGIN_DIR
  ? new URL("server.js", `file://${process.env.BENCH_PLUGIN_DIR.replace(/\/?$/, "/")}`).href
  : new URL("../../plugin/server.js", import.meta.url).href
const IS_BUN = typeof globalThis.Bun !== "undefined"
const RUNTIME = IS_BUN ? `bun ${Bun.version}` : `node ${process.versions.node}`
const RUNS = Number(process.env.BENCH_RUNS ?? 15)
const CALLS = Number(process.env.BENCH_CALLS ?? 200)
const MEM_CALLS = Number(process.env.BENCH_MEM_CALLS ?? 1000)
const WARM_CALLS = Number(process.env.BENCH_WARM_CALLS ?? 3000)
const TARGET_SETUP = IS_BUN ? 60 : 40

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]
const f = (n, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : String(n))
const mib = (b) => `${(b / 1048576).toFixed(2)} MiB`

// --- children (fresh processes) -------------------------------------------------------------

async function childSetup() {
  const { createFakeHostV2 } = await import("./lib/fake-host-v2.js")
  const host = createFakeHostV2()
  const options = { baseURL: "http://127.0.0.1:9" }
  const t0 = performance.now()
  const plugin = (await import(SERVER)).default
  const tImported = performance.now()
  await host.load(plugin, options)
  const t1 = performance.now()
  if (!host.websearch.list().includes("deepseek")) throw new Error("setup registered no provider")
  console.log(JSON.stringify({ total: t1 - t0, import: tImported - t0, setup: t1 - tImported }))
}

// The host works on the main thread for 50 ms between import and setup (as OpenCode does
// while it loads config and other plugins): how long does setup() itself take then?
async function childSetupGap() {
  const { createFakeHostV2 } = await import("./lib/fake-host-v2.js")
  const host = createFakeHostV2()
  const options = { baseURL: "http://127.0.0.1:9" }
  const plugin = (await import(SERVER)).default
  const t = performance.now()
  while (performance.now() - t < 50) {}
  const t0 = performance.now()
  await host.load(plugin, options)
  console.log(JSON.stringify({ setup: performance.now() - t0 }))
}

async function childProfile() {
  const t0 = performance.now()
  const { readFile } = await import("node:fs/promises")
  const { createWasi } = await import("../../plugin/wasi.js")
  const t1 = performance.now()
  const bytes = await readFile(new URL("../../plugin/core.wasm", import.meta.url))
  const t2 = performance.now()
  const mod = await WebAssembly.compile(bytes)
  const t3 = performance.now()
  const wasi = createWasi({ write: () => {} })
  const instance = new WebAssembly.Instance(mod, wasi.imports)
  const t4 = performance.now()
  wasi.initialize(instance)
  const t5 = performance.now()
  const x = instance.exports
  const call = (env) => {
    const b = new TextEncoder().encode(JSON.stringify(env))
    const p = x.alloc(b.length)
    new Uint8Array(x.memory.buffer, p, b.length).set(b)
    return x.start(p, b.length)
  }
  call({ v: 1, kind: "opencode.plan", options: {}, input: { host: "opencode2" } })
  const t6 = performance.now()
  call({ v: 1, kind: "opencode.plan", options: { search: "forced" }, input: { host: "opencode2" } })
  const t7 = performance.now()
  console.log(
    JSON.stringify({ imports: t1 - t0, read: t2 - t1, compile: t3 - t2, instantiate: t4 - t3, _initialize: t5 - t4, firstPlan: t6 - t5, secondPlan: t7 - t6, total: t6 - t0 }),
  )
}

function spawnRuns(mode, runs) {
  const out = []
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), mode], { cwd: HERE, encoding: "utf8", timeout: 30000 })
    if (r.status !== 0) {
      console.log(`  ${mode} run ${i} failed (${r.status}): ${(r.stderr || r.stdout).trim().split("\n").slice(-3).join(" | ")}`)
      continue
    }
    out.push(JSON.parse(r.stdout.trim().split("\n").pop()))
  }
  return out
}

// --- in-process benchmarks ------------------------------------------------------------------

function gcNow() {
  if (IS_BUN) Bun.gc(true)
  else if (typeof globalThis.gc === "function") {
    globalThis.gc()
    globalThis.gc()
  }
}

async function loadGC() {
  if (IS_BUN || typeof globalThis.gc === "function") return true
  try {
    const v8 = await import("node:v8")
    const vm = await import("node:vm")
    v8.setFlagsFromString("--expose-gc")
    globalThis.gc = vm.runInNewContext("gc")
    return true
  } catch {
    return false
  }
}

async function inProcess() {
  const { startMockDeepSeek } = await import("./lib/mock-deepseek.js")
  const { createFakeHostV2 } = await import("./lib/fake-host-v2.js")
  // What the module does, observed from outside plugin/ (installed before its instance exists).
  const { moduleStats, probeRuntime } = await import("./lib/module-probe.js")
  const probe = probeRuntime((await import(new URL("runtime.js", SERVER).href)).Runtime)
  const plugin = (await import(SERVER)).default
  const key = "sk-bench" + Math.random().toString(16).slice(2)
  const envName = "DSWR_BENCH_KEY"
  process.env[envName] = key
  const ds = await startMockDeepSeek({ apiKey: key })
  // The cache is off here: these figures are the cost of calls that reach DeepSeek.
  const host = createFakeHostV2()
  const options = { baseURL: ds.baseURL, apiKeyEnv: envName, cacheTTL: 0 }
  await host.load(plugin, options)
  const rt = probe.last()
  const provider = host.websearch.get("deepseek")
  const tool = host.tools.get("deepseek_fetch")
  const toolCtx = () => {
    const c = new AbortController()
    return { signal: c.signal, abort: c.signal, sessionID: "s", callID: "c" }
  }

  const headers = {
    Authorization: `Bearer ${key}`,
    "Content-Type": "application/json",
    Accept: "application/json",
    "User-Agent": "bench",
  }
  const bareSearch = async (q) => {
    const res = await fetch(`${ds.baseURL}/v1/tools/search`, {
      method: "POST",
      headers,
      body: JSON.stringify({ query: q, count: 10, need_content: false }),
      redirect: "manual",
      signal: new AbortController().signal,
    })
    const j = await res.json()
    if (!j.results) throw new Error("bare search failed")
    return j
  }
  const bareFetch = async (url) => {
    const res = await fetch(`${ds.baseURL}/v1/tools/fetch`, { method: "POST", headers, body: JSON.stringify({ url }), redirect: "manual", signal: new AbortController().signal })
    const j = await res.json()
    if (!j.content) throw new Error("bare fetch failed")
    return j
  }
  const plugSearch = async (q) => {
    const r = await provider.execute({ query: q }, { signal: new AbortController().signal })
    if (r.length !== 2) throw new Error("plugin search failed")
    return r
  }
  const plugFetch = async (url) => {
    const r = await tool.execute({ url }, toolCtx())
    if (!r.content) throw new Error("plugin fetch failed")
    return r
  }

  async function timeIt(fn, arg) {
    const t = performance.now()
    await fn(arg)
    return performance.now() - t
  }
  async function latency(plug, bare, arg) {
    for (let i = 0; i < 50; i++) {
      await plug(arg)
      await bare(arg)
    }
    ds.reset()
    const p = []
    const b = []
    for (let i = 0; i < CALLS; i++) {
      // Alternate the order so neither side always runs on a warmer connection.
      if (i % 2) {
        p.push(await timeIt(plug, arg))
        b.push(await timeIt(bare, arg))
      } else {
        b.push(await timeIt(bare, arg))
        p.push(await timeIt(plug, arg))
      }
    }
    ds.reset()
    return { plug: median(p), bare: median(b), plugP90: pct(p, 90), bareP90: pct(b, 90) }
  }

  const search = await latency(plugSearch, bareSearch, "effective go")
  const fetchL = await latency(plugFetch, bareFetch, "https://docs.example/page")

  // Module-only cost of one search: start + resume through the ABI, no network.
  const body = new TextEncoder().encode(JSON.stringify((await import("./lib/mock-deepseek.js")).defaultSearch()))
  const abi = []
  for (let i = 0; i < 50 + CALLS; i++) {
    const t = performance.now()
    const s = rt.start({ kind: "opencode.websearch", options, apiKey: key, input: { query: "effective go" } })
    const d = rt.resume(s.handle, { kind: "response", status: 200, headers: { "content-type": "application/json" } }, body)
    if (d.step !== "done" || d.error) throw new Error("abi round trip failed")
    if (i >= 50) abi.push(performance.now() - t)
  }

  // Memory.
  const gcOK = await loadGC()
  const mix = async (i) => (i % 2 ? plugFetch(`https://docs.example/p${i % 7}`) : plugSearch(`q${i % 7}`))
  // Warm-up: Go's heap (wasm linear memory) settles at its steady size after ~2,000 calls.
  for (let i = 0; i < WARM_CALLS; i++) {
    await mix(i)
    if (i % 200 === 199) ds.reset()
  }
  ds.reset()
  await new Promise((r) => setTimeout(r, 50))
  gcNow()
  const heap0 = process.memoryUsage().heapUsed
  const stats0 = moduleStats(rt)
  for (let i = 0; i < MEM_CALLS; i++) {
    await mix(i)
    if (i % 200 === 199) ds.reset()
  }
  ds.reset()
  await new Promise((r) => setTimeout(r, 50))
  gcNow()
  const heap1 = process.memoryUsage().heapUsed
  const stats1 = moduleStats(rt)

  // Paging: the same module instance, a host with the cache on (the default).
  const cachedHost = createFakeHostV2()
  await cachedHost.load(plugin, { baseURL: ds.baseURL, apiKeyEnv: envName })
  const cachedTool = cachedHost.tools.get("deepseek_fetch")
  const mibPage = (i) => ({ json: { title: `Big ${i}`, content: "0123456789abcdef ".repeat(61681) } }) // 1 MiB
  ds.enqueue("fetch", mibPage(0))
  const first = await cachedTool.execute({ url: "https://docs.example/big/0" }, toolCtx())
  if (first.metadata.cached || !first.metadata.nextOffset) throw new Error("paging: first part not fetched")
  const part = []
  for (let i = 0; i < 50 + CALLS; i++) {
    const offset = ((i * 16000) % 1000000) + 1
    const t = performance.now()
    const r = await cachedTool.execute({ url: "https://docs.example/big/0", offset }, toolCtx())
    const dt = performance.now() - t
    if (!r.metadata.cached) throw new Error("paging: a part was not served from the cache")
    if (i >= 50) part.push(dt)
  }
  if (ds.fetchRequests.length !== 1) throw new Error(`paging: ${ds.fetchRequests.length} fetches for one page`)
  for (let i = 1; i <= 70; i++) {
    ds.enqueue("fetch", mibPage(i))
    const r = await cachedTool.execute({ url: `https://docs.example/big/${i}` }, toolCtx())
    if (r.metadata.cached) throw new Error("paging: fill")
  }
  ds.reset()
  const statsFull = moduleStats(rt)

  await ds.close()
  return {
    search,
    fetch: fetchL,
    abi: median(abi),
    heap0,
    heap1,
    wasm0: stats0.memoryBytes,
    wasm1: stats1.memoryBytes,
    inFlight: stats1.inFlight,
    gcOK,
    part: median(part),
    partP90: pct(part, 90),
    wasmFull: statsFull.memoryBytes,
  }
}

// --- main -----------------------------------------------------------------------------------

async function main() {
  console.log(`\n== deepseek-web-retrieval plugin benchmark — ${RUNTIME} (${process.platform}/${process.arch})`)

  const setup = spawnRuns("--child-setup", RUNS)
  const gap = spawnRuns("--child-setup-gap", RUNS)
  const prof = spawnRuns("--child-profile", Math.max(5, Math.min(RUNS, 10)))
  const r = await inProcess()

  const rows = []
  const row = (what, value, target, ok) => rows.push([what, value, target ?? "", ok === undefined ? "" : ok ? "ok" : "MISSED"])
  const setupMed = median(setup.map((s) => s.total))
  row(`setup, import → ready (median of ${setup.length} fresh processes)`, `${f(setupMed, 1)} ms`, `≤ ${TARGET_SETUP} ms`, setupMed <= TARGET_SETUP)
  row("  of which import of server.js", `${f(median(setup.map((s) => s.import)), 1)} ms`)
  row("  of which setup() (compile, instantiate, plan, register)", `${f(median(setup.map((s) => s.setup)), 1)} ms`)
  row("  min / max", `${f(Math.min(...setup.map((s) => s.total)), 1)} / ${f(Math.max(...setup.map((s) => s.total)), 1)} ms`)
  row("setup() alone when the host was busy 50 ms after the import", `${f(median(gap.map((s) => s.setup)), 1)} ms`)
  if (prof.length) {
    for (const k of ["imports", "read", "compile", "instantiate", "_initialize", "firstPlan", "secondPlan", "total"]) {
      row(`  profile (by hand, median of ${prof.length}): ${k}`, `${f(median(prof.map((p) => p[k])), 1)} ms`)
    }
  }
  const added = (x) => x.plug - x.bare
  row(`search: plugin median (${CALLS} calls)`, `${f(r.search.plug, 3)} ms`)
  row("search: bare fetch median", `${f(r.search.bare, 3)} ms`)
  row("search: added by the plugin", `${f(added(r.search), 3)} ms`, "≤ 1 ms", added(r.search) <= 1)
  row(`fetch: plugin median (${CALLS} calls)`, `${f(r.fetch.plug, 3)} ms`)
  row("fetch: bare fetch median", `${f(r.fetch.bare, 3)} ms`)
  row("fetch: added by the plugin", `${f(added(r.fetch), 3)} ms`, "≤ 1 ms", added(r.fetch) <= 1)
  row("  p90 plugin / bare (search)", `${f(r.search.plugP90, 3)} / ${f(r.search.bareP90, 3)} ms`)
  row("  p90 plugin / bare (fetch)", `${f(r.fetch.plugP90, 3)} / ${f(r.fetch.bareP90, 3)} ms`)
  row("  module only: start+resume of one search (no network)", `${f(r.abi * 1000, 0)} µs`)
  const heapGrowth = r.heap1 - r.heap0
  row(`JS heap before → after ${MEM_CALLS} calls (${WARM_CALLS} warm-up)${r.gcOK ? " (after GC)" : " (NO GC available)"}`, `${mib(r.heap0)} → ${mib(r.heap1)} (${heapGrowth >= 0 ? "+" : ""}${f(heapGrowth / 1024, 0)} KiB)`, "no growth", heapGrowth < 1048576)
  row(`wasm linear memory before → after`, `${mib(r.wasm0)} → ${mib(r.wasm1)}`, "no growth", r.wasm1 === r.wasm0)
  row("operations in flight afterwards", String(r.inFlight), "0", r.inFlight === 0)
  row(`paging: a cached 16,000-character part, tool execute (median of ${CALLS})`, `${f(r.part, 3)} ms`, "≤ 0.5 ms", r.part <= 0.5)
  row("  p90", `${f(r.partP90, 3)} ms`)
  row("paging: wasm linear memory with the page cache full (64 MiB of pages)", mib(r.wasmFull))

  const w = [0, 1, 2].map((i) => Math.max(...rows.map((x) => String(x[i]).length)))
  for (const x of rows) console.log(`${x[0].padEnd(w[0])}  ${String(x[1]).padEnd(w[1])}  ${String(x[2]).padEnd(w[2])}  ${x[3]}`)
}

const mode = process.argv[2]
try {
  if (mode === "--child-setup") await childSetup()
  else if (mode === "--child-setup-gap") await childSetupGap()
  else if (mode === "--child-profile") await childProfile()
  else await main()
} catch (err) {
  console.error(err?.stack ?? err)
  // A benchmark prints; it does not fail the caller (children report failure by status).
  if (mode) process.exit(1)
}
process.exit(0)
