// Helpers for the plugin-*.test.js files: the real plugin/server.js driven through the fake
// OpenCode hosts, with the mock DeepSeek on loopback and a key that lives in a test-only
// environment variable.
//
//   const env = await startEnv()        // mock DeepSeek + random key in a fresh env var
//   env.options({ fetch: "forced" })    // plugin options: baseURL + apiKeyEnv + yours
//   const host = await env.v2({ search: "optional" }, { config: { websearch: false } })
//                                       // rejects with the setup error when the plugin fails
//   env.logLines()                      // the plugin's 2.x log file (XDG_DATA_HOME is a temp dir)
//   env.cacheHome                       // XDG_CACHE_HOME, a temp dir: the plugin's plan cache
//   env.clearPlanCache()                // the next setup plans in the module (and caches it)
//   const h1 = await env.v1({ fetch: "preferred" })
//   const logs = captureLogs()          // console.error/warn/log lines until logs.restore()
//   runtime()                           // the plugin's Runtime, with what module-probe.js sees
//   await env.close()
import net from "node:net"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { logFile } from "../../../plugin/log.js"
import plugin from "../../../plugin/server.js"
import { Runtime } from "../../../plugin/runtime.js"
import { moduleStats, probeRuntime, trapDuring } from "./module-probe.js"
import { createFakeHostV2 } from "./fake-host-v2.js"
import { loadPluginV1 } from "./fake-host-v1.js"
import { startMockDeepSeek } from "./mock-deepseek.js"

export { plugin }

const probe = probeRuntime(Runtime)

/**
 * The Runtime serving the plugin (the last one plugin/runtime.js created), null before
 * the first: its operations (start, resume, cancel, run), with what module-probe.js sees of
 * the module (stats, inFlight) and trapForTest, which makes the module trap for real
 * inside a call (a reactor's _initialize may run only once).
 */
export function runtime() {
  const rt = probe.last()
  if (!rt) return null
  return {
    start: (envelope) => rt.start(envelope),
    resume: (handle, reply, body) => rt.resume(handle, reply, body),
    cancel: (handle) => rt.cancel(handle),
    run: (envelope, signal) => rt.run(envelope, signal),
    stats: () => moduleStats(rt),
    inFlight: () => moduleStats(rt).inFlight,
    trapForTest: () => trapDuring(() => rt.start({})),
  }
}

/**
 * Waits for the warm-up each setup starts (Runtime.warmUp: calls of its own, answered a
 * macrotask later), so tests that count the operations in flight count only their own.
 */
export async function warmed() {
  await probe.warmed()
}

export const newKey = () => "sk-" + randomBytes(16).toString("hex")

let seq = 0
/** A fresh environment variable name (unset). */
export const freshEnvName = () => `DSWR_TEST_${process.pid}_${++seq}_${randomBytes(3).toString("hex")}`.toUpperCase()

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Polls cond() every 5 ms until it is truthy or ms pass. */
export async function waitFor(cond, ms = 3000, what = "condition") {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(5)
  }
}

/** The plugin's 2.x log lines (its file under XDG_DATA_HOME), [] when there is none. */
export function logLines() {
  try {
    return readFileSync(logFile(), "utf8").split("\n").filter(Boolean)
  } catch {
    return []
  }
}

/** Empties the plugin's 2.x log file. */
export function clearLog() {
  remove(logFile())
}

// remove deletes a path. Bun 1.3.14's rmSync now and then fails with EFAULT ("bad address
// in system call argument") on a path that is there (seen in CI, in clearLog); the failure
// then spills into every later test file of the run. Trying again serves, and a log file
// that still cannot be removed is emptied, which is all its readers need.
function remove(path, opts = {}) {
  for (let i = 0; ; i++) {
    try {
      rmSync(path, { force: true, ...opts })
      return
    } catch (err) {
      if (err?.code !== "EFAULT") throw err
      if (i === 2) {
        if (opts.recursive) throw err
        writeFileSync(path, "")
        return
      }
    }
  }
}

export async function startEnv({ mock = {} } = {}) {
  const key = newKey()
  const keyEnv = freshEnvName()
  process.env[keyEnv] = key
  // The 2.x plugin logs to $XDG_DATA_HOME/opencode/log/: keep it in a scratch directory.
  const dataHome = mkdtempSync(join(tmpdir(), "dwr-data-"))
  const savedDataHome = process.env.XDG_DATA_HOME
  process.env.XDG_DATA_HOME = dataHome
  // The plan cache goes to $XDG_CACHE_HOME/deepseek-web-retrieval/plans/: the same.
  const cacheHome = mkdtempSync(join(tmpdir(), "dwr-cache-"))
  const savedCacheHome = process.env.XDG_CACHE_HOME
  process.env.XDG_CACHE_HOME = cacheHome
  const ds = await startMockDeepSeek({ apiKey: key, ...mock })
  const options = (extra = {}) => ({ baseURL: ds.baseURL, apiKeyEnv: keyEnv, ...extra })
  return {
    key,
    keyEnv,
    ds,
    cacheHome,
    options,
    logLines,
    clearLog,
    clearPlanCache() {
      remove(join(cacheHome, "deepseek-web-retrieval"), { recursive: true })
    },
    async v2(extra = {}, hostConfig = {}) {
      const host = createFakeHostV2(hostConfig)
      const [status] = await host.load(plugin, options(extra))
      if (status.status !== "loaded") throw new Error(status.error)
      await warmed()
      return host
    },
    async v1(extra = {}, input) {
      const h = await loadPluginV1(plugin, { options: options(extra), input })
      await warmed()
      return h
    },
    async close() {
      delete process.env[keyEnv]
      if (savedDataHome === undefined) delete process.env.XDG_DATA_HOME
      else process.env.XDG_DATA_HOME = savedDataHome
      if (savedCacheHome === undefined) delete process.env.XDG_CACHE_HOME
      else process.env.XDG_CACHE_HOME = savedCacheHome
      rmSync(dataHome, { recursive: true, force: true })
      rmSync(cacheHome, { recursive: true, force: true })
      await ds.close()
    },
  }
}

/** Collects console.error/warn/log/info lines (as single strings) until restore(). */
export function captureLogs({ passthrough = false } = {}) {
  const lines = []
  const saved = {}
  for (const name of ["error", "warn", "log", "info", "debug"]) {
    saved[name] = console[name]
    console[name] = (...args) => {
      lines.push(args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : typeof a === "string" ? a : safeJSON(a))).join(" "))
      if (passthrough) saved[name](...args)
    }
  }
  return {
    lines,
    text: () => lines.join("\n"),
    restore() {
      Object.assign(console, saved)
    },
  }
}

export function safeJSON(v) {
  try {
    return JSON.stringify(v)
  } catch {
    return String(v)
  }
}

/** Asserts the runtime has no operation left in flight (waits briefly for stragglers). */
export async function inFlightSettles(ms = 1000) {
  const rt = runtime()
  const end = Date.now() + ms
  let n = rt.inFlight()
  while (n !== 0 && Date.now() < end) {
    await sleep(10)
    n = rt.inFlight()
  }
  return n
}

/**
 * A loopback server that never answers: it records each request and when its connection
 * closed, to prove that a cancelled call hangs up. Raw TCP (node:net), because Bun 1.3's
 * node:http server never emits "close" when a client aborts a POST (oven-sh/bun#28976,
 * #32578), although Bun's fetch does close the connection (checked against a Node server).
 */
export async function startStallServer() {
  const requests = []
  const sockets = new Set()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    let rec = null
    socket.on("data", (chunk) => {
      if (!rec) {
        const line = chunk.toString("latin1").split("\r\n")[0]
        rec = { path: line.split(" ")[1] ?? "", line, time: Date.now(), closedAt: null }
        requests.push(rec)
      }
    })
    socket.on("error", () => {})
    socket.on("close", () => {
      sockets.delete(socket)
      if (rec) rec.closedAt = Date.now()
    })
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    baseURL: `http://127.0.0.1:${server.address().port}`,
    requests,
    close() {
      for (const s of sockets) s.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

/** Code points of s. */
export const codePoints = (s) => [...s].length
