// Startup and per-call benchmark of the OpenCode plugin, side by side in Node and
// Bun 1.3.14, against a pure-JS plugin making the same HTTP calls (fixtures/pure-js-plugin).
// It prints figures and the targets next to them; it never fails on a missed target.
//
//   node startup-bench.js                      (npm run bench runs it after bench.js)
//   BENCH_RUNS=15 BENCH_IDLE_RUNS=7 node startup-bench.js
//
// The plugin is installed by the real CLI (`init`, built here from the checkout, so it
// embeds plugin/) into a scratch project, which gives the plugin with its stored plan; a
// copy without plan.json (as npm installs it) is the plugin that asks the module for its
// plan at setup and writes it to the plan cache: run with an empty $XDG_CACHE_HOME each
// time (a first start), and with one holding that cache (every later start). A
// loopback server in this (parent) process answers every search with 10 results and every
// fetch with a 4 KiB page; each figure comes from fresh child processes:
//
//   setup        ms from just before import(server.js) until the fake 2.x host's load()
//                resolves (the provider and tools registered)
//   first        the first search (the provider's execute, as OpenCode calls it) right
//                after setup, and after 1 s idle; warm = median of the 30 searches after that
//                (every search asks something new, so none is answered from the cache);
//                "inside the module" is the part of each spent in the module's exports
//                (module-probe.js, busyMs): the rest is the host's HTTP stack, whose first
//                connection the pure-JS plugin pays as well
//   slices       the main thread's busy stretches during that 1 s idle: a 1 ms timer chain
//                runs from the moment setup returns, every gap over 10 ms is printed
//   _initialize  the module's own _initialize, timed by hand (compile, instantiate, call)
//   steps        µs inside the module for one 10-result search and one 4 KiB fetch
//                (start + resume through the ABI, no network): median of calls 200–700,
//                and, after 3,000 more (the engine's optimized code), the mean per call of
//                the fastest and of the median of 12 batches of 500 calls, collections
//                included (other work on the machine only ever adds time, so the fastest
//                batch is the step's own cost, the median what a busy machine gives); and an
//                optimized search right after 10 ms of other work against one back to back,
//                beside pure-JS JSON work of about its size: the floor under "first after idle"
//   memory       wasm linear memory after setup and after 1,000 more calls through the plugin
import http from "node:http"
import { spawn, spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { gzipSync } from "node:zlib"

const HERE = fileURLToPath(new URL(".", import.meta.url))
const REPO = join(HERE, "..", "..")
const SELF = fileURLToPath(import.meta.url)
const BUN = join(HERE, "node_modules", ".bin", "bun")
const RUNS = Number(process.env.BENCH_RUNS ?? 9)
const IDLE_RUNS = Number(process.env.BENCH_IDLE_RUNS ?? 5)
const KEY_ENV = "DSWR_BENCH_KEY"

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length === 0 ? NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const f = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "—")

// The answers of the loopback server: 10 results, a 4 KiB page.
export function searchBody() {
  const results = []
  for (let i = 0; i < 10; i++) {
    results.push({
      url: `https://example.com/article/${i}`,
      title: `Result number ${i} about effective Go`,
      snippet: "Tips for writing clear, idiomatic Go code.",
      summary: `Result ${i}: ` + "Effective Go gives tips for writing clear, idiomatic Go code and explains the conventions of the language. ".repeat(3),
      rerank_score: 2.4 - i * 0.1,
      authority: i % 5,
      date: "2024-01-15T00:00:00Z",
      site_name: "example.com",
    })
  }
  return JSON.stringify({ results })
}
export function fetchBody() {
  const para = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. "
  let content = "# Example page\n\n"
  while (content.length < 4096 - para.length) content += para + (content.length % 500 < 100 ? "\n\n" : "")
  return JSON.stringify({ title: "Example page", content })
}

// --- children -------------------------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Watches the main thread for ms: every gap over 10 ms in a chain of 1 ms timers. */
function watch(ms) {
  return new Promise((resolve) => {
    const slices = []
    const end = performance.now() + ms
    let last = performance.now()
    const tick = () => {
      const now = performance.now()
      if (now - last > 10) slices.push(now - last)
      last = now
      if (now >= end) resolve(slices)
      else setTimeout(tick, 1)
    }
    setTimeout(tick, 1)
  })
}

async function childRun(serverURL, options, mode) {
  const { createFakeHostV2 } = await import("./lib/fake-host-v2.js")
  // busy: ms inside the module's exports during one search (module-probe.js, installed
  // before the plugin's instance exists; the pure-JS plugin has no module).
  const measured = mode !== "first" && !serverURL.includes("pure-js")
  const probe = measured ? await import("./lib/module-probe.js") : null
  const host = createFakeHostV2()
  const t0 = performance.now()
  const plugin = (await import(serverURL)).default
  const [status] = await host.load(plugin, options)
  const setup = performance.now() - t0
  if (status.status !== "loaded") throw new Error(status.error)
  const watching = mode === "idle" ? watch(1000) : null
  const provider = host.websearch.get("deepseek")
  const busyMs = () => (probe ? probe.moduleStats().busyMs : NaN)
  const search = async () => {
    const b = busyMs()
    const t = performance.now()
    const r = await provider.execute({ query: `effective go ${Math.random()}` }, { signal: new AbortController().signal })
    if (r.length !== 10) throw new Error(`search returned ${r.length} results`)
    return { ms: performance.now() - t, busy: busyMs() - b }
  }
  if (mode === "first") return { setup, first: (await search()).ms }
  const slices = await watching
  const first = await search()
  const warm = []
  for (let i = 0; i < 30; i++) warm.push(await search())
  return { setup, slices, firstIdle: first.ms, firstBusy: first.busy, warm: median(warm.map((w) => w.ms)), warmBusy: median(warm.map((w) => w.busy)) }
}

async function childProfile(dir) {
  const { createWasi } = await import(pathToFileURL(join(dir, "wasi.js")).href)
  const mod = await WebAssembly.compile(readFileSync(join(dir, "core.wasm")))
  const wasi = createWasi({ write: () => {} })
  const t0 = performance.now()
  const instance = new WebAssembly.Instance(mod, wasi.imports)
  const t1 = performance.now()
  wasi.initialize(instance)
  const t2 = performance.now()
  return { instantiate: t1 - t0, initialize: t2 - t1 }
}

async function childSteps(dir, options) {
  const base = pathToFileURL(dir + "/").href
  const { Runtime } = await import(new URL("runtime.js", base).href)
  const rt = await Runtime.create()
  const enc = new TextEncoder()
  const sBody = enc.encode(searchBody())
  const fBody = enc.encode(fetchBody())
  const reply = { kind: "response", status: 200, headers: { "content-type": "application/json" } }
  const apiKey = "sk-bench"
  // Every call asks something new, so none is answered from the module's cache.
  let n = 0
  const search = () => {
    const s = rt.start({ kind: "opencode.websearch", options, apiKey, input: { query: `effective go ${n++}` } })
    const d = rt.resume(s.handle, reply, sBody)
    if (d.result?.results?.length !== 10) throw new Error("search step failed: " + JSON.stringify(d.error))
  }
  const fetchStep = () => {
    const s = rt.start({ kind: "opencode.tool", options, apiKey, input: { tool: "deepseek_fetch", args: { url: `https://example.com/page/${n++}` } } })
    const d = rt.resume(s.handle, reply, fBody)
    if (!d.result?.content) throw new Error("fetch step failed: " + JSON.stringify(d.error))
  }
  // Figures per step: the median of calls 200–700, what a session's calls meet, and after
  // 3,000 more, once the engine has optimized the module's hot functions (Bun's JSC takes
  // about 1,600 searches to get there, V8 about 1,000), batches of 500 calls: long enough
  // that each holds a collection or two (one per 250 searches or 500 fetches).
  const time = (fn) => {
    const each = (count) => {
      const xs = []
      for (let i = 0; i < count; i++) {
        const t = performance.now()
        fn()
        xs.push((performance.now() - t) * 1000)
      }
      return median(xs)
    }
    const batches = (count, size) => {
      const xs = []
      for (let b = 0; b < count; b++) {
        const t = performance.now()
        for (let i = 0; i < size; i++) fn()
        xs.push(((performance.now() - t) * 1000) / size)
      }
      return { fastest: Math.min(...xs), median: median(xs) }
    }
    for (let i = 0; i < 200; i++) fn()
    const early = each(500)
    for (let i = 0; i < 3000; i++) fn()
    return { early, steady: batches(12, 500) }
  }
  const { early: searchUs, steady: searchSteady } = time(search)
  const { early: fetchUs, steady: fetchSteady } = time(fetchStep)

  // A call that follows 10 ms of other work, against calls back to back, both once the engine
  // has optimized the code: what a first call after idle pays that no warm-up can take away
  // (the processor's caches and branch predictors hold other work by then). The control is
  // pure-JS work of about a search step's size: JSON in and out, as JSON.parse and
  // JSON.stringify do it.
  const spin = (ms) => {
    const end = performance.now() + ms
    let x = 0
    while (performance.now() < end) x += Math.sqrt(x + 1)
    return x
  }
  const text = searchBody()
  const control = () => {
    for (let i = 0; i < 4; i++) {
      const o = JSON.parse(text)
      for (const r of o.results) r.summary = r.summary.replace(/\s+/g, " ").slice(0, 300)
      if (JSON.stringify(o).length < 100) throw new Error("control")
    }
  }
  const afterWork = (fn) => {
    const timed = () => {
      const t = performance.now()
      fn()
      return (performance.now() - t) * 1000
    }
    for (let i = 0; i < 1000; i++) fn()
    const warm = []
    for (let i = 0; i < 300; i++) warm.push(timed())
    const cold = []
    for (let i = 0; i < 30; i++) {
      spin(10)
      cold.push(timed())
    }
    return { warm: median(warm), cold: median(cold) }
  }
  const searchAfterWork = afterWork(search)
  const controlAfterWork = afterWork(control)

  // Memory through the plugin itself (its own runtime), 1,000 calls against the server.
  const { createFakeHostV2 } = await import("./lib/fake-host-v2.js")
  const { moduleStats, probeRuntime } = await import("./lib/module-probe.js")
  const probe = probeRuntime((await import(new URL("runtime.js", base).href)).Runtime)
  const host = createFakeHostV2()
  await host.load((await import(new URL("server.js", base).href)).default, options)
  const provider = host.websearch.get("deepseek")
  const tool = host.tools.get("deepseek_fetch")
  const one = async (i) => {
    if (i % 2) {
      const r = await tool.execute({ url: `https://example.com/p${i % 7}` }, { signal: new AbortController().signal })
      if (!r.content || r.metadata?.error) throw new Error("fetch failed: " + r.content)
    } else if ((await provider.execute({ query: `q${i % 7}` }, { signal: new AbortController().signal })).length !== 10) throw new Error("search failed")
  }
  await one(0)
  // The warm-up runs beside these calls; "in flight afterwards" must not count its own.
  await probe.warmed()
  const before = moduleStats(probe.last()).memoryBytes
  for (let i = 1; i <= 1000; i++) await one(i)
  const after = moduleStats(probe.last())
  return { searchUs, fetchUs, searchSteady, fetchSteady, searchAfterWork, controlAfterWork, memBefore: before, memAfter: after.memoryBytes, inFlight: after.inFlight }
}

// --- parent ---------------------------------------------------------------------------------

function runChild(exe, args, env) {
  return new Promise((resolve) => {
    const p = spawn(exe, [SELF, ...args], { cwd: HERE, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    p.stdout.on("data", (d) => (out += d))
    p.stderr.on("data", (d) => (err += d))
    const timer = setTimeout(() => p.kill(), 60000)
    p.on("close", (code) => {
      clearTimeout(timer)
      if (code !== 0) {
        console.log(`  child ${args[1]} ${args[2] ?? ""} under ${exe.endsWith("bun") ? "bun" : "node"} failed (${code}): ${(err || out).trim().split("\n").slice(-3).join(" | ")}`)
        return resolve(null)
      }
      resolve(JSON.parse(out.trim().split("\n").pop()))
    })
  })
}

// env is an object, or a function giving each run its own.
async function runs(exe, n, args, env) {
  const out = []
  for (let i = 0; i < n; i++) {
    const r = await runChild(exe, args, typeof env === "function" ? env() : env)
    if (r) out.push(r)
  }
  return out
}

async function main() {
  const sBody = searchBody()
  const fBody = fetchBody()
  const server = http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      const body = req.url === "/v1/tools/search" ? sBody : req.url === "/v1/tools/fetch" ? fBody : null
      if (!body) {
        res.writeHead(404).end()
        return
      }
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body)
    })
  })
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  const baseURL = `http://127.0.0.1:${server.address().port}`

  // Install with the real CLI: the plugin with its stored plan, and a copy without it.
  const root = mkdtempSync(join(tmpdir(), "dwr-startup-bench-"))
  try {
    const bin = join(root, "deepseek-web-retrieval")
    const b = spawnSync("go", ["build", "-o", bin, "./cmd/deepseek-web-retrieval"], { cwd: REPO, encoding: "utf8" })
    if (b.status !== 0) throw new Error(`go build: ${b.stderr}`)
    const project = join(root, "project")
    const i = spawnSync(bin, ["init", "--scope", "project", "--dir", project, "--host", "opencode", "--yes", "--base-url", baseURL, "--api-key-env", KEY_ENV], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: join(root, "home") },
    })
    if (i.status !== 0) throw new Error(`init: ${i.stdout}${i.stderr}`)
    const options = JSON.parse(readFileSync(join(project, "opencode.jsonc"), "utf8")).plugins[0].options
    const planDir = join(project, "vendor", "deepseek-web-retrieval")
    const noPlanDir = join(root, "noplan")
    cpSync(planDir, noPlanDir, { recursive: true })
    rmSync(join(noPlanDir, "plan.json"))
    const variants = {
      purejs: pathToFileURL(join(HERE, "fixtures", "pure-js-plugin", "server.js")).href,
      plan: pathToFileURL(join(planDir, "server.js")).href,
      noplan: pathToFileURL(join(noPlanDir, "server.js")).href,
      cached: pathToFileURL(join(noPlanDir, "server.js")).href,
    }
    const opts = JSON.stringify(options)
    // The plan cache: empty for every first start ("noplan"), written once by a first start
    // and then only read ("cached"), and out of the way for the others.
    const emptyCache = () => mkdtempSync(join(root, "cache-"))
    const primed = emptyCache()
    const env = { [KEY_ENV]: "sk-bench", XDG_CACHE_HOME: emptyCache(), XDG_DATA_HOME: join(root, "data") }
    if (!(await runChild(process.execPath, ["--child", "run", variants.noplan, opts, "first"], { ...env, XDG_CACHE_HOME: primed }))) throw new Error("could not write the plan cache")
    if (readdirSync(join(primed, "deepseek-web-retrieval", "plans")).length !== 1) throw new Error("no plan cache written")
    const envOf = (v) => (v === "noplan" ? () => ({ ...env, XDG_CACHE_HOME: emptyCache() }) : v === "cached" ? { ...env, XDG_CACHE_HOME: primed } : env)

    const runtimes = [["node", process.execPath, `node ${process.versions.node}`]]
    if (existsSync(BUN)) runtimes.push(["bun", BUN, `bun ${spawnSync(BUN, ["--version"], { encoding: "utf8" }).stdout.trim()}`])
    const res = {}
    for (const [name, exe] of runtimes) {
      const r = (res[name] = { first: {}, idle: {} })
      for (const [v, url] of Object.entries(variants)) {
        r.first[v] = await runs(exe, RUNS, ["--child", "run", url, opts, "first"], envOf(v))
        r.idle[v] = await runs(exe, IDLE_RUNS, ["--child", "run", url, opts, "idle"], envOf(v))
      }
      r.profile = await runs(exe, 5, ["--child", "profile", planDir], env)
      r.steps = (await runs(exe, 1, ["--child", "steps", noPlanDir, opts], envOf("noplan")))[0] ?? {}
    }

    const wasm = readFileSync(join(REPO, "plugin", "core.wasm"))
    const rows = []
    const row = (what, fn) => rows.push([what, ...runtimes.map(([n]) => fn(res[n]))])
    const setupOf = (r, v) => median([...r.first[v], ...r.idle[v]].map((x) => x.setup))
    const initOf = (r) => median(r.profile.map((p) => p.initialize))
    const maxSlice = (r, v) => Math.max(0, ...r.idle[v].flatMap((x) => x.slices))
    const ok = (b) => (b ? "ok" : "MISSED")
    row("setup import → ready, pure-JS plugin (ms)", (r) => f(setupOf(r, "purejs")))
    row("setup, with the installed plan (ms)", (r) => f(setupOf(r, "plan")))
    row("setup, without a plan: the module plans, first start (ms)", (r) => f(setupOf(r, "noplan")))
    row("setup, without a plan, later start: from the plan cache (ms)", (r) => f(setupOf(r, "cached")))
    row("  target: with plan ≤ pure-JS + 10 ms", (r) => `${f(setupOf(r, "plan") - setupOf(r, "purejs"))} ${ok(setupOf(r, "plan") <= setupOf(r, "purejs") + 10)}`)
    for (const [v, label] of [["purejs", "pure-JS"], ["plan", "with plan"], ["noplan", "without plan"], ["cached", "from the plan cache"]]) {
      row(`first search right after setup, ${label} (ms)`, (r) => f(median(r.first[v].map((x) => x.first)), 2))
    }
    for (const [v, label] of [["purejs", "pure-JS"], ["plan", "with plan"], ["noplan", "without plan"], ["cached", "from the plan cache"]]) {
      row(`first search after 1 s idle / warm search, ${label} (ms)`, (r) => `${f(median(r.idle[v].map((x) => x.firstIdle)), 2)} / ${f(median(r.idle[v].map((x) => x.warm)), 2)}`)
    }
    row("  target: first after idle ≤ 1.5 × warm (with plan)", (r) => {
      const q = median(r.idle.plan.map((x) => x.firstIdle)) / median(r.idle.plan.map((x) => x.warm))
      return `×${f(q, 2)} ${ok(q <= 1.5)}`
    })
    for (const [v, label] of [["plan", "with plan"], ["noplan", "without plan"]]) {
      row(`  of which inside the module: first after idle / warm, ${label} (ms)`, (r) => `${f(median(r.idle[v].map((x) => x.firstBusy)), 3)} / ${f(median(r.idle[v].map((x) => x.warmBusy)), 3)}`)
    }
    row("  target, module's part: first after idle ≤ 1.5 × warm (with plan)", (r) => {
      const q = median(r.idle.plan.map((x) => x.firstBusy)) / median(r.idle.plan.map((x) => x.warmBusy))
      return `×${f(q, 2)} ${ok(q <= 1.5)}`
    })
    row("  first after idle, with plan − pure-JS's first after idle (ms)", (r) =>
      f(median(r.idle.plan.map((x) => x.firstIdle)) - median(r.idle.purejs.map((x) => x.firstIdle)), 2),
    )
    row("module _initialize by hand (ms)", (r) => f(initOf(r)))
    row("largest main-thread slice after setup, with plan (ms)", (r) => f(maxSlice(r, "plan")))
    row("largest main-thread slice after setup, without plan (ms)", (r) => f(maxSlice(r, "noplan")))
    row("largest main-thread slice after setup, from the plan cache (ms)", (r) => f(maxSlice(r, "cached")))
    row("largest main-thread slice after setup, pure-JS (ms)", (r) => f(maxSlice(r, "purejs")))
    row("  target: ≤ _initialize + 10 ms (with plan)", (r) => ok(maxSlice(r, "plan") <= initOf(r) + 10))
    const steady = (x) => `${f(x?.fastest, 0)} / ${f(x?.median, 0)}`
    const stepTarget = (x, us) => `${ok(x?.fastest <= us)} / ${ok(x?.median <= us)}`
    row("module step: 10-result search, median of calls 200–700 (µs)", (r) => f(r.steps.searchUs, 0))
    row("  after 4,000: fastest / median 500-call batch, per call (µs)", (r) => steady(r.steps.searchSteady))
    row("  target: ≤ 120 µs, fastest / median batch", (r) => stepTarget(r.steps.searchSteady, 120))
    row("optimized, after 10 ms of other work / back to back: search step (µs)", (r) => `${f(r.steps.searchAfterWork?.cold, 0)} / ${f(r.steps.searchAfterWork?.warm, 0)}`)
    row("  the same for pure-JS JSON work of about a search's size (µs)", (r) => `${f(r.steps.controlAfterWork?.cold, 0)} / ${f(r.steps.controlAfterWork?.warm, 0)}`)
    row("module step: 4 KiB fetch, median of calls 200–700 (µs)", (r) => f(r.steps.fetchUs, 0))
    row("  after 4,000: fastest / median 500-call batch, per call (µs)", (r) => steady(r.steps.fetchSteady))
    row("  target: ≤ 100 µs, fastest / median batch", (r) => stepTarget(r.steps.fetchSteady, 100))
    row("wasm memory after setup → after 1,000 calls (MiB)", (r) => `${f(r.steps.memBefore / 1048576, 2)} → ${f(r.steps.memAfter / 1048576, 2)}`)
    row("operations in flight afterwards", (r) => String(r.steps.inFlight))
    row("module size raw / gzip (MB)", () => `${f(wasm.length / 1e6, 2)} / ${f(gzipSync(wasm).length / 1e6, 2)}`)

    console.log(`\n== startup benchmark: medians of ${RUNS} + ${IDLE_RUNS} fresh processes per setup figure, ${IDLE_RUNS} per idle figure (${process.platform}/${process.arch})`)
    const head = ["", ...runtimes.map(([, , label]) => label)]
    const all = [head, ...rows]
    const w = head.map((_, c) => Math.max(...all.map((x) => String(x[c]).length)))
    for (const x of all) console.log(x.map((c, j) => String(c).padEnd(w[j])).join("  ").trimEnd())
    console.log("\nmain-thread slices over 10 ms after setup returned (ms, one line per fresh process):")
    for (const [n, , label] of runtimes) {
      for (const v of ["plan", "noplan", "cached", "purejs"]) {
        for (const x of res[n].idle[v]) console.log(`  ${label.padEnd(12)} ${v.padEnd(7)} ${x.slices.length ? x.slices.map((s) => f(s)).join(", ") : "none"}`)
      }
    }
  } finally {
    server.close()
    rmSync(root, { recursive: true, force: true })
  }
}

if (process.argv[2] === "--child") {
  const [, , , mode, a, b, c] = process.argv
  try {
    let out
    if (mode === "run") out = await childRun(a, JSON.parse(b), c)
    else if (mode === "profile") out = await childProfile(a)
    else if (mode === "steps") out = await childSteps(a, JSON.parse(b))
    console.log(JSON.stringify(out))
    process.exit(0)
  } catch (err) {
    console.error(err?.stack ?? err)
    process.exit(1)
  }
} else if (typeof globalThis.Bun !== "undefined") {
  console.log("startup-bench.js: run it with node (it runs both Node and Bun children itself)")
} else {
  try {
    await main()
  } catch (err) {
    // A benchmark prints; it does not fail the caller.
    console.error(err?.stack ?? err)
  }
  process.exit(0)
}
