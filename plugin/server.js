// plugin/server.js — the OpenCode entry point of deepseek-web-retrieval.
//
// One default export serves both hosts: OpenCode 2.x calls setup(ctx),
// OpenCode 1.x calls server(input, options). The registration plan (what to
// register for these options on this host, the tools' schemas and
// descriptions) comes from the Go core: from plan.json, which `init` wrote
// beside this file for the options it installed, or from the plan cache, which
// a start without a usable plan.json wrote (see planCacheFile), when its stamp
// matches the options given and the core.wasm shipped here; else from the
// module itself. This file registers what it is told and hands every call to
// the module.

import { createHash } from "node:crypto"
import { closeSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { ID, clientLogger, fileLogger } from "./log.js"

const PLAN_FORMAT = 2

let shared = null
let sharedLog = null

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0))

// runtime returns the one module instance serving every call, creating it when there is
// none. runtime.js (and wasi.js) load only then; with `lazy` (a stored plan) not before
// setup has returned, and the module is compiled, instantiated and warmed in small pieces.
function runtime(log, opts = {}) {
  if (log) sharedLog = log
  if (!shared) {
    shared = (async () => {
      if (opts.lazy) await nextTask()
      const { Runtime } = await import("./runtime.js")
      return Runtime.create((level, message) => sharedLog?.(level, message), opts)
    })()
    shared.catch((err) => {
      shared = null
      // Lazily, nobody waits for it: say why now; the next call tries again.
      if (opts.lazy) sharedLog?.("error", `core.wasm could not be loaded: ${err?.message ?? err}`)
    })
  }
  return shared
}

// warmUp lists the calls run after setup, none of which sends anything (see
// Runtime.warmUp), so the code of the first real search and fetch is compiled before they
// arrive. The first (a plan for no host: an error) takes the envelope decoding and the
// options; the real plan adds its own path; a search and a fetch answered with made-up
// bodies of a real answer's shape (WARM_SEARCH: ten results with every field DeepSeek sends;
// WARM_FETCH) take the decoding, ranking and rendering of real results. They run with the
// user's options, cache included, so the cache's code is warm too: what they leave there
// can never be served, because the cache is keyed by API key and theirs is a placeholder no
// real call has. Then more searches, so that the engines optimize their code (WARM_SEARCHES).
function warmUp(host, options, plan) {
  const base = { options: options ?? {}, apiKey: WARM_KEY }
  const search = (query) =>
    plan.websearch
      ? { kind: "opencode.websearch", input: { query } }
      : { kind: "opencode.tool", input: { tool: "deepseek_search", args: { query } } }
  return [
    { envelope: { ...base, kind: "opencode.plan", input: { host: "" } } },
    { envelope: { ...base, kind: "opencode.plan", input: { host } } },
    { envelope: { ...base, ...search("warm-up") }, body: WARM_SEARCH },
    { envelope: { ...base, kind: "opencode.tool", input: { tool: "deepseek_fetch", args: { url: "https://example.com/" } } }, body: WARM_FETCH },
    // Each its own query, so none is answered from the cache the first one filled.
    ...Array.from({ length: WARM_SEARCHES - 1 }, (_, i) => ({ envelope: { ...base, ...search(`warm-up ${i + 2}`) }, body: WARM_SEARCH })),
  ]
}

// WARM_SEARCHES is how many searches the warm-up runs, each in macrotasks of its own. One
// compiles the search's code, but the engines optimize it only once it has run many times;
// more than 16 made the first real search no faster (startup-bench.js measures it). They
// leave 16 of the cache's 32 search entries filled with what no real call can be answered
// from; the least recently used go first, so a real answer never makes room for them.
const WARM_SEARCHES = 16

// WARM_KEY stands in for the key: the module refuses a query that contains the key, so it
// must not be, or be part of, the warm-up's own query or URL.
const WARM_KEY = "sk-placeholder-of-the-warm-up"
const WARM_TEXT = "Warm-up text, never shown: it only takes the module through a real answer. "
const WARM_SEARCH = JSON.stringify({
  results: Array.from({ length: 10 }, (_, i) => ({
    url: `https://example.com/${i}`,
    title: `Result ${i}`,
    snippet: WARM_TEXT,
    summary: WARM_TEXT.repeat(4),
    rerank_score: 2.5 - i / 10,
    authority: i % 5,
    date: "2024-01-15T00:00:00Z",
    site_name: "example.com",
  })),
})
const WARM_FETCH = JSON.stringify({ title: "Warm-up", content: `# Warm-up\n\n${WARM_TEXT.repeat(10)}` })

// Bun's own hasher where there is one: its node:crypto is slower to start.
const hasher = () => (globalThis.Bun?.CryptoHasher ? new Bun.CryptoHasher("sha256") : createHash("sha256"))
const sha256 = (data) => hasher().update(data).digest("hex")

// fileSHA256 hashes a file in 64 KiB reads: faster than reading 4 MB into a new buffer.
function fileSHA256(url) {
  const fd = openSync(url, "r")
  try {
    const buf = Buffer.allocUnsafe(1 << 16)
    const h = hasher()
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) h.update(n === buf.length ? buf : buf.subarray(0, n))
    return h.digest("hex")
  } finally {
    closeSync(fd)
  }
}

let moduleHash = null

/**
 * The stamp a stored plan must carry to be used here: the format, the host, the hash of
 * the core.wasm shipped beside this file and of the options' JSON text exactly as the
 * module is sent it. `init` writes it into plan.json (internal/install/opencodehost StoredPlan and
 * OptionsDigest), this file into the plan cache.
 */
function stampFor(host, options) {
  try {
    moduleHash ??= fileSHA256(new URL("./core.wasm", import.meta.url))
  } catch {
    return null // no core.wasm to hash: the module's own load says why
  }
  return { format: PLAN_FORMAT, host, moduleSHA256: moduleHash, optionsSHA256: sha256(JSON.stringify(options ?? {})) }
}

/**
 * The plan stored in file (plan.json or a plan cache file) when its stamp is `stamp`; null
 * otherwise (no file, bad JSON, any difference): the next source is asked instead.
 */
function storedPlan(file, stamp) {
  if (!stamp) return null
  try {
    const stored = JSON.parse(readFileSync(file, "utf8"))
    if (!Array.isArray(stored?.plan?.tools)) return null
    for (const k of Object.keys(stamp)) if (stored[k] !== stamp[k]) return null
    return stored.plan
  } catch {
    return null
  }
}

/**
 * The plan cache file for a stamp: <cache>/deepseek-web-retrieval/plans/<host>-<module>-
 * <options>.json, <cache> being $XDG_CACHE_HOME or ~/.cache, the directory OpenCode keeps
 * its own cache in on every system (xdg-basedir; Windows included), but not inside
 * OpenCode's, which OpenCode empties when its cache version changes. One file per host,
 * options and core.wasm, so projects with other options do not take turns rewriting it.
 * (Not exported: OpenCode 1.x takes every export of a plugin module for a plugin.)
 */
function planCacheFile(stamp, env = process.env) {
  const cache = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache")
  return join(cache, ID, "plans", `${stamp.host}-${stamp.moduleSHA256.slice(0, 16)}-${stamp.optionsSHA256.slice(0, 16)}.json`)
}

/**
 * Writes the module's plan to the plan cache, stamped as plan.json is, atomically (a
 * temporary file renamed over it), so a start reading it meanwhile sees the old file or
 * the new one, then prunes the directory (prunePlanCache). A failure only costs the next
 * start its speed: logged, never thrown.
 */
function cachePlan(file, stamp, plan, log) {
  const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`
  try {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(tmp, JSON.stringify({ ...stamp, plan }, null, 2) + "\n")
    renameSync(tmp, file)
  } catch (err) {
    try {
      rmSync(tmp, { force: true })
    } catch {
      // no directory to have written it in
    }
    log?.("warn", `could not write the plan cache ${file}: ${err?.message ?? err}; the next start plans in the module again`)
    return
  }
  prunePlanCache(dirname(file))
}

// A plan cache file unused this long is removed when another is written: one per core.wasm
// and options ever used would otherwise pile up with every upgrade. A start that uses a file
// marks it used (markPlanUsed) at most once a PLAN_TOUCH_MS, so the files of installs still
// in use stay, whichever version each runs. A temporary file older than PLAN_TMP_MS was left
// by a start that died writing it.
const PLAN_UNUSED_MS = 30 * 24 * 3600e3
const PLAN_TOUCH_MS = 24 * 3600e3
const PLAN_TMP_MS = 3600e3

/** Removes the files of dir unused beyond the limits above; errors are ignored. */
function prunePlanCache(dir) {
  const now = Date.now()
  let names
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const limit = name.endsWith(".tmp") ? PLAN_TMP_MS : name.endsWith(".json") ? PLAN_UNUSED_MS : 0
    if (!limit) continue
    try {
      const f = join(dir, name)
      if (now - statSync(f).mtimeMs > limit) rmSync(f, { force: true })
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

/** Marks a plan cache file used now, unless it was marked within PLAN_TOUCH_MS. */
function markPlanUsed(file) {
  const now = Date.now()
  try {
    if (now - statSync(file).mtimeMs > PLAN_TOUCH_MS) utimesSync(file, now / 1e3, now / 1e3)
  } catch {
    // a read-only cache: it may be pruned one day, and is then written again
  }
}

// ready returns the plan for host: a stored plan (plan.json beside this file, else the
// plan cache) at once (the module loads after setup returns), else the module's plan,
// which it then writes to the plan cache for the next start.
async function ready(host, options, log) {
  const stamp = stampFor(host, options)
  const cacheFile = stamp && planCacheFile(stamp)
  const installed = storedPlan(new URL("./plan.json", import.meta.url), stamp)
  const stored = installed ?? storedPlan(cacheFile, stamp)
  if (stored && !installed) markPlanUsed(cacheFile)
  if (stored) {
    runtime(log, { lazy: true, warmUp: warmUp(host, options, stored) })
    return stored
  }
  const rt = await runtime(log)
  const plan = makePlan(rt, host, options)
  if (stamp) cachePlan(cacheFile, stamp, plan, log)
  rt.warmUp(warmUp(host, options, plan))
  return plan
}

// The key is read at call time, from the variable the plan names, and is the
// only thing of the environment the module ever sees.
function apiKey(plan) {
  return plan.keyEnv ? (process.env[plan.keyEnv] ?? "") : ""
}

function makePlan(rt, host, options) {
  const step = rt.start({ kind: "opencode.plan", options: options ?? {}, input: { host } })
  if (step.error) throw new Error(step.error.message)
  return step.result
}

// run performs one operation (waiting for the module when it is still loading); the
// "done" step carries result or error.
async function run(plan, options, kind, input, signal) {
  const rt = await runtime()
  return rt.run({ kind, options: options ?? {}, apiKey: apiKey(plan), input }, signal)
}

async function call(plan, options, kind, input, signal) {
  const step = await run(plan, options, kind, input, signal)
  if (step.error) {
    const err = new Error(step.error.message)
    err.code = step.error.code
    throw err
  }
  return step.result
}

/**
 * OpenCode 2.x (setup(ctx) of the Promise plugin API).
 *
 * OpenCode 1.x calls setup() too, beside server(), with a partial context that has no tool
 * editor (options, agent, aisdk, catalog, command, integration, plugin, reference, skill:
 * observed with 1.18.33); its tools come from server(), so setup() does nothing there.
 */
async function setup(ctx) {
  if (typeof ctx?.tool?.transform !== "function") return
  const options = ctx.options ?? {}
  const log = fileLogger()
  let plan
  try {
    plan = await ready("opencode2", options, log)
  } catch (err) {
    // Setup fails (OpenCode marks the plugin failed); the reason is also in the log file.
    log("error", err?.message ?? String(err))
    throw err
  }
  for (const w of plan.warnings ?? []) log("warn", w)

  // A 2.x without the websearch provider API registers what the plan says instead.
  const hasWebsearchAPI = typeof ctx.websearch?.transform === "function"
  const fallback = hasWebsearchAPI ? null : plan.noWebsearchAPI
  if (fallback) log("warn", fallback.warning)
  const tools = [...plan.tools, ...(fallback?.tools ?? [])]
  const p = plan.websearch
  if (p && hasWebsearchAPI) {
    await ctx.websearch.transform((editor) => {
      editor.add({
        id: p.id,
        name: p.name,
        // The model only ever sees OpenCode's "Unable to search the web for <query>" when a
        // provider fails (packages/core/src/tool/plugin/websearch.ts): the reason goes to the log.
        execute: async ({ query }, extra) => {
          const step = await settle(run(plan, options, "opencode.websearch", { query }, extra?.signal))
          if (!step.error) return step.result.results
          if (step.error.code !== "cancelled") log("error", step.error.message)
          throw new Error(step.error.message)
        },
      })
      if (p.default) editor.default.set(p.id)
    })
  }

  const remove = plan.removeTools ?? []
  if (tools.length === 0 && remove.length === 0) return
  const kept = new Set()
  await ctx.tool.transform((editor) => {
    for (const t of tools) {
      editor.add({
        name: t.name,
        description: t.description,
        input: t.input,
        options: t.options,
        execute: (input, toolCtx) => executeV2(plan, options, log, t.name, input, toolCtx?.signal),
      })
    }
    for (const name of remove) {
      editor.remove(name)
      if (editor.get(name)) kept.add(name)
    }
  })
  for (const name of kept) {
    const msg = plan.notExclusive?.[name] ?? `deepseek-web-retrieval: could not remove ${name}`
    log("error", msg)
    throw new Error(msg)
  }
}

// settle turns a thrown failure of the bridge (a trapped module) into a done step's error.
async function settle(pending) {
  try {
    return await pending
  } catch (err) {
    return { error: { code: "internal", message: String(err?.message ?? err) } }
  }
}

/**
 * One 2.x tool call. It never rejects: the Promise adapter runs execute inside Effect.promise
 * (packages/plugin/src/promise/adapter.ts, executePromiseTool), so a rejection is a defect,
 * not a Tool.Error, and the step that ran it settles every unsettled call with the first
 * defect as an "unknown" failure (packages/core/src/session/runner/step.ts). A failure is
 * therefore a result whose text is our sentence, with metadata.error naming its kind.
 */
async function executeV2(plan, options, log, tool, input, signal) {
  const step = await settle(run(plan, options, "opencode.tool", { tool, args: input ?? {} }, signal))
  if (!step.error) return { content: step.result.content, metadata: step.result.metadata }
  if (step.error.code !== "cancelled") log("warn", `${tool}: ${step.error.message}`)
  return { content: step.error.message, metadata: { error: step.error.code } }
}

/** OpenCode 1.x. */
async function server(input, options) {
  const log = clientLogger(input?.client)
  const plan = await ready("opencode1", options, log)
  for (const w of plan.warnings ?? []) log("warn", w)
  const hooks = { tool: {} }
  for (const t of plan.tools) {
    hooks.tool[t.name] = {
      description: t.description,
      args: t.args,
      async execute(args, toolCtx) {
        const result = await call(plan, options, "opencode.tool", { tool: t.name, args: args ?? {} }, toolCtx?.abort)
        // 1.18.33 keeps an object's title and metadata on the finished call (adding its own
        // `truncated`); a plain string gets title "" and metadata {truncated} only.
        return { output: result.content, title: result.title, metadata: result.metadata }
      },
    }
  }
  if (plan.configEdits?.length) {
    // Forced tiers: the plan's edits switch the built-in tools off in the loaded config.
    hooks.config = async (config) => {
      for (const edit of plan.configEdits) applyEdit(config, edit.path, edit)
    }
  }
  return hooks
}

/**
 * Applies one config edit of the plan (opencode.ConfigEdit) below obj: the value `path`
 * names becomes a copy of itself (a string s: {[edit.scalar]: s}; absent: {}, or left alone
 * with edit.existing) with each member of edit.set last; "*" in path is every member.
 */
function applyEdit(obj, path, edit) {
  if (obj === null || typeof obj !== "object") return
  const [key, ...rest] = path
  if (key === "*") {
    for (const v of Object.values(obj)) applyEdit(v, rest, edit)
    return
  }
  if (rest.length > 0) return applyEdit(obj[key], rest, edit)
  const v = obj[key]
  if (v === undefined && edit.existing) return
  const next = typeof v === "string" && edit.scalar ? { [edit.scalar]: v } : { ...(v ?? {}) }
  for (const [name, value] of Object.entries(edit.set)) {
    delete next[name]
    next[name] = value
  }
  obj[key] = next
}

export default { id: ID, setup, server }
