// The stored registration plan (plan.json, written by `init` beside the vendored plugin):
// with a matching stamp the plugin registers from it without asking the module, and what it
// registers is exactly what the module's plan gives (every tier, both hosts); a stale plan
// (other options, another core.wasm, another host, a corrupted file) is never used.
//
// The plugin is installed by the real CLI (built once here; it embeds plugin/), into scratch
// project directories, and loaded from there as OpenCode loads it, with the options the
// config entry holds. The reference is plugin/server.js of the checkout, which has no
// plan.json and so asks the module, or its plan cache (tests at the end).
import { test, before, after } from "node:test"
import assert from "node:assert/strict"
import { spawnSync } from "node:child_process"
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { createHash } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { startEnv, plugin as reference, clearLog } from "./lib/plugin-helpers.js"
import { createFakeHostV2 } from "./lib/fake-host-v2.js"
import { loadPluginV1 } from "./lib/fake-host-v1.js"

const REPO = fileURLToPath(new URL("../..", import.meta.url))
// Each test runs the real CLI's init (up to six times): more than bun test's 5 s default on a busy
// 2-core machine.
const T = { timeout: 120_000 }
const TIERS = ["off", "optional", "preferred", "forced"]
// Every tier for search and for fetch, each with another tier of the other.
const COMBOS = TIERS.map((t, i) => [t, TIERS[(i + 1) % 4]]).concat([["forced", "forced"], ["preferred", "preferred"]])

let env, root, bin
before(async () => {
  env = await startEnv()
  root = mkdtempSync(join(tmpdir(), "dwr-plan-"))
  bin = join(root, "deepseek-web-retrieval")
  const r = spawnSync("go", ["build", "-o", bin, "./cmd/deepseek-web-retrieval"], { cwd: REPO, encoding: "utf8" })
  assert.equal(r.status, 0, r.stderr)
}, T)
after(async () => {
  await env.close()
  rmSync(root, { recursive: true, force: true })
})

/** Runs init into dir for host and returns the options its entry holds. */
function init(dir, host, args) {
  const r = spawnSync(bin, ["init", "--scope", "project", "--dir", dir, "--host", host, "--yes", "--base-url", env.ds.baseURL, "--api-key-env", env.keyEnv, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: join(root, "home") },
  })
  assert.equal(r.status, 0, r.stdout + r.stderr)
  const config = JSON.parse(readFileSync(join(dir, "opencode.jsonc"), "utf8"))
  return host === "opencode1" ? config.plugin[0][1] : config.plugins[0].options
}

/** The vendored plugin in dir, and a counter of the plans it asked the module for. */
async function vendored(dir) {
  const base = pathToFileURL(join(dir, "vendor", "deepseek-web-retrieval") + "/").href
  const mod = (await import(new URL("server.js", base).href)).default
  const { Runtime } = await import(new URL("runtime.js", base).href)
  const counter = { plans: 0 }
  if (!Runtime.prototype.start.counted) {
    const start = Runtime.prototype.start
    Runtime.prototype.start = function (envelope) {
      // The warm-up's plan carries a placeholder key; setup's own plan carries none.
      if (envelope.kind === "opencode.plan" && envelope.apiKey === undefined) Runtime.prototype.start.plans++
      return start.call(this, envelope)
    }
    Runtime.prototype.start.counted = true
    Runtime.prototype.start.plans = 0
  }
  counter.read = () => Runtime.prototype.start.plans
  return { plugin: mod, counter, file: join(dir, "vendor", "deepseek-web-retrieval", "plan.json") }
}

/** Everything a 2.x host knows after loading the plugin. */
async function registrationsV2(plugin, options) {
  clearLog()
  const host = createFakeHostV2()
  const statuses = await host.load(plugin, options)
  const provider = host.websearch.get("deepseek")
  return {
    statuses: statuses.map((s) => ({ status: s.status, error: s.error })),
    providers: host.websearch.list(),
    default: host.websearch.default(),
    provider: provider && { id: provider.id, name: provider.name },
    native: host.nativeTools(),
    codeMode: host.codeModeTools(),
    definitions: host.definitions(),
    options: Object.fromEntries(host.tools.list().map((n) => [n, host.tools.get(n).options])),
    errors: host.registrationErrors(),
    log: env.logLines().map((l) => l.replace(/^\S+ /, "")),
  }
}

/** Everything a 1.x host knows after loading the plugin. */
async function registrationsV1(plugin, options) {
  const host = await loadPluginV1(plugin, { options })
  const config = { permission: { bash: "ask" }, agent: { build: { permission: { edit: "allow" } } } }
  await host.hooks.config?.(config)
  return { tools: host.tools, hooks: Object.keys(host.hooks).sort(), config, setup: host.setup }
}

const registrations = (host, plugin, options) => (host === "opencode1" ? registrationsV1(plugin, options) : registrationsV2(plugin, options))

for (const host of ["opencode", "opencode1"]) {
  test(`${host}: the stored plan registers exactly what the module's plan does, for every tier, without asking the module`, T, async () => {
    const dir = join(root, `same-${host}`)
    mkdirSync(dir, { recursive: true })
    let v
    for (const [search, fetch] of COMBOS) {
      const options = init(dir, host, ["--search", search, "--fetch", fetch])
      v ??= await vendored(dir)
      const stored = JSON.parse(readFileSync(v.file, "utf8"))
      assert.equal(stored.host, host === "opencode1" ? "opencode1" : "opencode2")
      const plans = v.counter.read()
      const got = await registrations(host, v.plugin, options)
      assert.equal(v.counter.read(), plans, `search ${search}, fetch ${fetch}: the stored plan was not used`)
      const want = await registrations(host, reference, options)
      assert.deepEqual(got, want, `search ${search}, fetch ${fetch}`)
    }
  })
}

test("a call through a stored-plan setup waits for the module and gets the same answer", T, async () => {
  const dir = join(root, "call")
  mkdirSync(dir)
  const options = init(dir, "opencode", ["--search", "forced", "--fetch", "optional"])
  const v = await vendored(dir)
  const host = createFakeHostV2()
  await host.load(v.plugin, options)
  // Called at once: the module is still loading.
  const [a, b] = await Promise.all([host.runTool("deepseek_search", { query: "effective go" }), host.runTool("deepseek_fetch", { url: "https://go.dev/doc/" })])
  const ref = createFakeHostV2()
  await ref.load(reference, options)
  const [c, d] = await Promise.all([ref.runTool("deepseek_search", { query: "effective go" }), ref.runTool("deepseek_fetch", { url: "https://go.dev/doc/" })])
  assert.equal(a.status, "completed")
  assert.equal(b.status, "completed")
  assert.equal(a.text, c.text)
  assert.equal(b.text, d.text)
})

test("1.x: a call through a stored-plan setup waits for the module", T, async () => {
  const dir = join(root, "call1")
  mkdirSync(dir)
  const options = init(dir, "opencode1", ["--search", "preferred", "--fetch", "preferred"])
  const v = await vendored(dir)
  const plans = v.counter.read()
  const host = await loadPluginV1(v.plugin, { options })
  assert.equal(v.counter.read(), plans)
  const r = await host.runTool("deepseek_fetch", { url: "https://go.dev/doc/" })
  assert.equal(r.status, "completed")
  assert.match(r.output, /^# /)
})

const sha256 = (b) => createHash("sha256").update(b).digest("hex")

for (const [name, spoil, wantExtra] of [
  ["options edited after init", null, { maxResults: 9 }],
  ["a different module hash in the stamp", (p) => ({ ...p, moduleSHA256: sha256("another module") })],
  ["a different options hash in the stamp", (p) => ({ ...p, optionsSHA256: sha256("{}") })],
  ["another host in the stamp", (p) => ({ ...p, host: p.host === "opencode2" ? "opencode1" : "opencode2" })],
  ["another format", (p) => ({ ...p, format: p.format + 1 })],
  ["no plan in the file", (p) => ({ ...p, plan: undefined })],
  ["bad JSON", () => '{"format": 1, "host": '],
  ["an empty file", () => ""],
  ["a JSON array", () => "[]"],
]) {
  for (const host of ["opencode", "opencode1"]) {
    test(`${host}: a stale plan is never used: ${name}`, T, async () => {
      const dir = join(root, `stale-${host}-${name.replace(/\W+/g, "-")}`)
      mkdirSync(dir)
      let options = init(dir, host, ["--search", "forced", "--fetch", "preferred"])
      const v = await vendored(dir)
      // Make the stored plan recognisable, so using it would show.
      const stored = JSON.parse(readFileSync(v.file, "utf8"))
      for (const t of stored.plan.tools) t.description = "FROM THE STORED PLAN"
      if (spoil) {
        const out = spoil(stored)
        writeFileSync(v.file, typeof out === "string" ? out : JSON.stringify(out))
      } else {
        writeFileSync(v.file, JSON.stringify(stored))
        options = { ...options, ...wantExtra }
      }
      env.clearPlanCache()
      const plans = v.counter.read()
      const got = await registrations(host, v.plugin, options)
      assert.equal(v.counter.read(), plans + 1, "the module made the plan")
      assert.doesNotMatch(JSON.stringify(got), /FROM THE STORED PLAN/)
      assert.deepEqual(got, await registrations(host, reference, options))
      if (wantExtra) assert.match(JSON.stringify(got), /Returns up to 9 results/)
    })
  }
}

test("the marker check above can fail: an untouched stamp with an edited plan is used as it is", T, async () => {
  const dir = join(root, "marker")
  mkdirSync(dir)
  const options = init(dir, "opencode1", ["--search", "preferred", "--fetch", "optional"])
  const v = await vendored(dir)
  const stored = JSON.parse(readFileSync(v.file, "utf8"))
  for (const t of stored.plan.tools) t.description = "FROM THE STORED PLAN"
  writeFileSync(v.file, JSON.stringify(stored))
  const got = await registrationsV1(v.plugin, options)
  assert.deepEqual(
    got.tools.map((t) => t.description),
    ["FROM THE STORED PLAN", "FROM THE STORED PLAN"],
  )
})

test("a different core.wasm beside the plan (same plan file): the module makes the plan", T, async () => {
  const dir = join(root, "module")
  mkdirSync(dir)
  const options = init(dir, "opencode", ["--search", "optional", "--fetch", "forced"])
  // A copy of the vendored plugin whose core.wasm gained a custom section: still a valid
  // module, another hash. A fresh directory, so a fresh module instance of the plugin.
  const copy = join(root, "module-copy")
  cpSync(join(dir, "vendor"), join(copy, "vendor"), { recursive: true })
  appendFileSync(join(copy, "vendor", "deepseek-web-retrieval", "core.wasm"), Buffer.from([0, 3, 2, 0x68, 0x69]))
  const v = await vendored(copy)
  const stored = JSON.parse(readFileSync(v.file, "utf8"))
  for (const t of stored.plan.tools) t.description = "FROM THE STORED PLAN"
  writeFileSync(v.file, JSON.stringify(stored))
  const plans = v.counter.read()
  const got = await registrationsV2(v.plugin, options)
  assert.equal(v.counter.read(), plans + 1)
  assert.deepEqual(got, await registrationsV2(reference, options))
  const host = createFakeHostV2()
  await host.load(v.plugin, options)
  assert.equal((await host.runTool("deepseek_fetch", { url: "https://go.dev/doc/" })).status, "completed")
})

test("the options digest: the SHA-256 of the options' JSON text as the module is sent it (same vectors as internal/install/opencodehost's Go test)", T, async () => {
  // The plugin hashes JSON.stringify(options), the text its envelopes carry; init hashes the
  // options as it wrote them into the config entry, compacted. Neither sorts anything.
  const dir = join(root, "digest")
  mkdirSync(dir)
  const options = init(dir, "opencode", ["--search", "optional", "--fetch", "optional", "--include-domains", "go.dev,example.com", "--min-rerank", "0.5"])
  const v = await vendored(dir)
  const stored = JSON.parse(readFileSync(v.file, "utf8"))
  assert.equal(stored.optionsSHA256, sha256(JSON.stringify(options)))
  const plans = v.counter.read()
  await registrationsV2(v.plugin, options)
  assert.equal(v.counter.read(), plans, "the options as init wrote them")
  // The same options in another order are other text: the module plans, and registers the same.
  const reversed = Object.fromEntries(Object.entries(options).reverse())
  env.clearPlanCache()
  const got = await registrationsV2(v.plugin, reversed)
  assert.equal(v.counter.read(), plans + 1, "another order asks the module")
  assert.deepEqual(got, await registrationsV2(reference, options))
  for (const [input, text] of [
    [{}, "{}"],
    [{ search: "preferred", fetch: "optional" }, '{"search":"preferred","fetch":"optional"}'],
    [{ b: [3, 1.5, true, null], a: { y: "<&>", x: "é\n" } }, '{"b":[3,1.5,true,null],"a":{"y":"<&>","x":"é\\n"}}'],
  ]) {
    stored.optionsSHA256 = sha256(text)
    writeFileSync(v.file, JSON.stringify(stored))
    const before = v.counter.read()
    await registrationsV2(v.plugin, input)
    assert.equal(v.counter.read(), before, JSON.stringify(input))
  }
})

test("a module that cannot load after a stored-plan setup: setup succeeds, the reason is logged, calls fail with it", T, async () => {
  const dir = join(root, "broken")
  mkdirSync(dir)
  const options = init(dir, "opencode", ["--search", "optional", "--fetch", "optional"])
  const copy = join(root, "broken-copy")
  cpSync(join(dir, "vendor"), join(copy, "vendor"), { recursive: true })
  const wasm = Buffer.from("\0asm\x01\0\0\0\x01\xff")
  writeFileSync(join(copy, "vendor", "deepseek-web-retrieval", "core.wasm"), wasm)
  const v = await vendored(copy)
  const stored = JSON.parse(readFileSync(v.file, "utf8"))
  writeFileSync(v.file, JSON.stringify({ ...stored, moduleSHA256: sha256(wasm) }))
  clearLog()
  const host = createFakeHostV2()
  const [status] = await host.load(v.plugin, options)
  assert.equal(status.status, "loaded")
  assert.deepEqual(host.nativeTools(), ["deepseek_fetch", "webfetch", "websearch", "execute"])
  const r = await host.runTool("deepseek_fetch", { url: "https://go.dev/doc/" })
  assert.equal(r.status, "completed")
  assert.equal(r.raw.metadata.error, "internal")
  assert.match(r.text, /WebAssembly|wasm|compile/i)
  assert.ok(env.logLines().some((l) => / ERROR \[deepseek-web-retrieval\] core\.wasm could not be loaded: /.test(l)), env.logLines().join("\n"))
})

// The plan cache: a plugin without a usable plan.json (an npm install) writes the module's
// plan, stamped as plan.json is, to $XDG_CACHE_HOME/deepseek-web-retrieval/plans/, and
// later starts register from it. The reference (the checkout's server.js, no plan.json)
// is imported afresh for every start, as a new OpenCode process loads it.

let starts = 0
/** How many plans the checkout's plugin asked its module for (setup's own, not the warm-up's). */
let checkoutPlans = 0
{
  const { Runtime } = await import("../../plugin/runtime.js")
  const start = Runtime.prototype.start
  Runtime.prototype.start = function (envelope) {
    if (envelope.kind === "opencode.plan" && envelope.apiKey === undefined) checkoutPlans++
    return start.call(this, envelope)
  }
}
const counter = { read: () => checkoutPlans }
/** A fresh instance of the checkout's plugin: a new start. */
const freshStart = async () => (await import(new URL(`../../plugin/server.js?start=${++starts}`, import.meta.url).href)).default
const plansDir = () => join(env.cacheHome, "deepseek-web-retrieval", "plans")
const cacheFiles = () => {
  try {
    return readdirSync(plansDir()).map((f) => join(plansDir(), f))
  } catch {
    return []
  }
}

for (const host of ["opencode", "opencode1"]) {
  test(`${host}: a first start without plan.json writes the plan cache, stamped as init stamps plan.json; the next registers from it, exactly as planning does`, T, async () => {
    const dir = join(root, `cache-${host}`)
    mkdirSync(dir, { recursive: true })
    let v
    for (const [search, fetch] of COMBOS) {
      const options = init(dir, host, ["--search", search, "--fetch", fetch])
      v ??= await vendored(dir)
      const what = `search ${search}, fetch ${fetch}`
      env.clearPlanCache()

      const plans = counter.read()
      const first = await registrations(host, await freshStart(), options)
      assert.equal(counter.read(), plans + 1, `${what}: the first start asks the module`)
      const files = cacheFiles()
      assert.equal(files.length, 1, `${what}: ${files}`)
      // The same stamp and plan as the plan.json init wrote for these options (Go).
      assert.deepEqual(JSON.parse(readFileSync(files[0], "utf8")), JSON.parse(readFileSync(v.file, "utf8")), what)

      const second = await registrations(host, await freshStart(), options)
      assert.equal(counter.read(), plans + 1, `${what}: the second start asked the module`)
      assert.deepEqual(second, first, what)
    }
  })
}

for (const [name, spoil] of [
  ["another module hash", (p) => JSON.stringify({ ...p, moduleSHA256: sha256("another module") })],
  ["another options hash", (p) => JSON.stringify({ ...p, optionsSHA256: sha256("{}") })],
  ["another host", (p) => JSON.stringify({ ...p, host: p.host === "opencode2" ? "opencode1" : "opencode2" })],
  ["another format", (p) => JSON.stringify({ ...p, format: p.format + 1 })],
  ["corrupt JSON", (p) => JSON.stringify(p).slice(0, 100)],
  ["an empty file", () => ""],
]) {
  test(`a plan cache with ${name} is ignored and rewritten`, T, async () => {
    const dir = join(root, `cache-stale-${name.replace(/\W+/g, "-")}`)
    mkdirSync(dir)
    const options = init(dir, "opencode", ["--search", "preferred", "--fetch", "forced"])
    const v = await vendored(dir)
    env.clearPlanCache()
    await registrationsV2(await freshStart(), options)
    const [file] = cacheFiles()
    const good = JSON.parse(readFileSync(file, "utf8"))
    for (const t of good.plan.tools) t.description = "FROM THE PLAN CACHE"
    writeFileSync(file, spoil(good))

    const plans = counter.read()
    const got = await registrationsV2(await freshStart(), options)
    assert.equal(counter.read(), plans + 1, "the module made the plan")
    assert.doesNotMatch(JSON.stringify(got), /FROM THE PLAN CACHE/)
    assert.deepEqual(cacheFiles(), [file])
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), JSON.parse(readFileSync(v.file, "utf8")), "rewritten")
    await registrationsV2(await freshStart(), options)
    assert.equal(counter.read(), plans + 1, "the rewritten cache is used")
  })
}

test("the marker check above can fail: a plan cache with its stamp intact is used as it is", T, async () => {
  const dir = join(root, "cache-marker")
  mkdirSync(dir)
  const options = init(dir, "opencode1", ["--search", "optional", "--fetch", "preferred"])
  env.clearPlanCache()
  await registrationsV1(await freshStart(), options)
  const [file] = cacheFiles()
  const good = JSON.parse(readFileSync(file, "utf8"))
  for (const t of good.plan.tools) t.description = "FROM THE PLAN CACHE"
  writeFileSync(file, JSON.stringify(good))
  const got = await registrationsV1(await freshStart(), options)
  assert.deepEqual(
    got.tools.map((t) => t.description),
    ["FROM THE PLAN CACHE", "FROM THE PLAN CACHE"],
  )
})

test("a plan cache that cannot be written: the start succeeds from the module's plan, the reason is logged", T, async () => {
  const dir = join(root, "cache-unwritable")
  mkdirSync(dir)
  const options = init(dir, "opencode", ["--search", "forced", "--fetch", "optional"])
  const saved = process.env.XDG_CACHE_HOME
  const blocker = join(root, "cache-is-a-file")
  writeFileSync(blocker, "not a directory")
  process.env.XDG_CACHE_HOME = blocker
  try {
    const got = await registrationsV2(await freshStart(), options)
    assert.deepEqual(got.statuses, [{ status: "loaded", error: undefined }])
    assert.ok(
      got.log.some((l) => l.startsWith(`WARN [deepseek-web-retrieval] could not write the plan cache ${join(blocker, "deepseek-web-retrieval", "plans")}`)),
      got.log.join("\n"),
    )
    process.env.XDG_CACHE_HOME = saved
    env.clearPlanCache()
    const want = await registrationsV2(await freshStart(), options)
    assert.deepEqual({ ...got, log: [] }, { ...want, log: [] })
  } finally {
    process.env.XDG_CACHE_HOME = saved
  }
})

test("a literal API key in the options never reaches the plan cache", T, async () => {
  const literal = "sk-literal-" + "5".repeat(24)
  env.clearPlanCache()
  const options = { baseURL: env.ds.baseURL, apiKey: literal, search: "optional", fetch: "optional" }
  await registrationsV2(await freshStart(), options)
  const files = cacheFiles()
  assert.equal(files.length, 1)
  assert.ok(!readFileSync(files[0], "utf8").includes(literal))
})

test("writing a plan cache file prunes files unused for 30 days and stale temporary files; a start keeps the file it uses", T, async () => {
  const dir = join(root, "cache-prune")
  mkdirSync(dir)
  env.clearPlanCache()
  const day = 24 * 3600
  const now = Date.now() / 1e3
  const options = init(dir, "opencode", ["--search", "preferred", "--fetch", "preferred"])
  await registrationsV2(await freshStart(), options)
  const [used] = cacheFiles()
  // In use, last marked 40 days ago: this start uses it, and marks it.
  utimesSync(used, now - 40 * day, now - 40 * day)
  await registrationsV2(await freshStart(), options)
  assert.ok(now - statSync(used).mtimeMs / 1e3 < day, "a start that uses a file marks it")

  const aged = (name, days) => {
    const f = join(plansDir(), name)
    writeFileSync(f, "{}")
    utimesSync(f, now - days * day, now - days * day)
    return f
  }
  const old = aged("opencode2-0123456789abcdef-0123456789abcdef.json", 31)
  const recent = aged("opencode2-fedcba9876543210-0123456789abcdef.json", 29)
  const deadTmp = aged("opencode2-x.json.123.abc.tmp", 1)
  const otherFile = aged("README", 400)
  // Another project's options: a miss, whose write prunes.
  mkdirSync(join(dir, "other"))
  const other = init(join(dir, "other"), "opencode", ["--search", "optional", "--fetch", "optional"])
  await registrationsV2(await freshStart(), other)
  const left = cacheFiles()
  for (const f of [used, recent, otherFile]) assert.ok(left.includes(f), `${f} kept: ${left}`)
  for (const f of [old, deadTmp]) assert.ok(!left.includes(f), `${f} pruned: ${left}`)
  assert.equal(left.length, 4, left.join("\n"))
})
