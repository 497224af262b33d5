// plugin/runtime.js — loads core.wasm and runs its operations.
//
// Everything this file does is mechanical: compile the module once,
// instantiate it once (and again after a trap), copy JSON and bytes across
// the ABI documented in wasm/doc.go, and perform the HTTP requests the
// module's steps name (the fetch bridge). Every decision — options, retries,
// limits, error text, what the model sees — is made in Go.

import { readFileSync } from "node:fs"
import { createWasi } from "./wasi.js"

const ABI_VERSION = 1
const encoder = new TextEncoder()
// MODULE_ENV is the whole environment the module sees: the Go runtime's soft memory limit
// (wasm/doc.go), nothing of the host's.
const MODULE_ENV = ["GOMEMLIMIT=80MiB"]
// IDLE_MS without a call and the module collects its garbage (Runtime.#idle).
const IDLE_MS = 500
const decoder = new TextDecoder()
// DIRECT_MAX is the longest text (in UTF-16 units) #writeText encodes straight into the
// module's memory, in a buffer of three bytes per unit.
const DIRECT_MAX = 16 << 10

// envelopeJSON is the JSON text of { v: ABI_VERSION, ...fields } (fields' own "v", if
// any, wins there and here alike: the module reads the last of repeated names). It splices
// the version into the text: copying the object to add it would cost every call.
function envelopeJSON(fields) {
  const json = JSON.stringify(fields)
  if (typeof json !== "string" || json.length <= 2 || json[0] !== "{") return JSON.stringify({ v: ABI_VERSION, ...fields })
  return `{"v":${ABI_VERSION},` + json.slice(1)
}

let compiled = null

/**
 * Compiles core.wasm once per process. Nothing happens at import: with a stored plan,
 * setup returns before the module is read or compiled (see Runtime.create).
 */
export function compileCore() {
  compiled ??= (async () => WebAssembly.compile(readFileSync(new URL("./core.wasm", import.meta.url))))()
  return compiled
}

// nextTask resolves in a later macrotask, so the host's own work (and its timers) runs
// between the pieces of a lazy start.
const nextTask = typeof setImmediate === "function" ? () => new Promise((r) => setImmediate(r)) : () => new Promise((r) => setTimeout(r, 0))

/** A ModuleTrap means the instance died under a call; it has been replaced. */
export class ModuleTrap extends Error {}

/**
 * Runtime owns one module instance and serves every call through it.
 * `log(level, message)` receives module output and bridge notices.
 */
export class Runtime {
  /**
   * Compiles and instantiates the module. `warmUp` are calls run after the promise
   * resolves, one per macrotask, so the code paths of real calls are compiled before the
   * first one arrives (see warmUp).
   *
   * With `lazy`, every piece waits for a macrotask of its own: compile (off the main
   * thread), instantiation, `_initialize` (the one piece that cannot be split), then
   * the warm-up; no main-thread slice is longer than the longest of them. Without it
   * (no stored plan: setup needs the module's plan now) the module is ready when the
   * promise resolves, as fast as it can be.
   */
  static async create(log = () => {}, { lazy = false, warmUp = [] } = {}) {
    if (lazy) await nextTask()
    const module = await compileCore()
    const rt = new Runtime(module, log)
    if (lazy) {
      await nextTask()
      const instance = rt.#newInstance()
      await nextTask()
      rt.#initialize(instance)
    } else {
      rt.#instantiate()
    }
    rt.warmUp(warmUp)
    return rt
  }

  #module
  #log
  #exports = null
  #wasi = null
  #generation = 0
  // #abandon aborts the requests of the current instance's operations when
  // it traps: their handles died with it.
  #abandon = new AbortController()

  constructor(module, log) {
    this.#module = module
    this.#log = log
  }

  // #instantiate is synchronous, so a trapped instance is replaced before
  // the next call arrives.
  #instantiate() {
    this.#initialize(this.#newInstance())
  }

  #newInstance() {
    this.#wasi = createWasi({ write: (_fd, line) => this.#log("debug", line), env: MODULE_ENV })
    return new WebAssembly.Instance(this.#module, this.#wasi.imports)
  }

  #initialize(instance) {
    this.#wasi.initialize(instance)
    const version = instance.exports.abi_version()
    if (version !== ABI_VERSION) throw new Error(`deepseek-web-retrieval: core.wasm speaks ABI ${version}, this plugin ${ABI_VERSION}`)
    this.#exports = instance.exports
    this.#generation++
  }

  /**
   * Runs each warm-up in a macrotask of its own. A warm-up is a start envelope and the
   * body of the 200 its HTTP step is answered with (default `{}`), in the next macrotask;
   * nothing is sent. An operation that still wants more is cancelled. Failures are ignored
   * (a real call meets them and reports them). The promise settles when they are done.
   */
  warmUp(warmUps) {
    return this.#warm(warmUps)
  }

  async #warm(warmUps) {
    if (warmUps.length === 0) return
    await nextTask()
    warmTransport()
    await nextTask()
    startHTTPClient()
    for (const { envelope, body = "{}" } of warmUps) {
      await nextTask()
      try {
        let step = this.start(envelope)
        if (step.step !== "http") continue
        await nextTask()
        step = this.resume(step.handle, { kind: "response", status: 200, headers: { "content-type": "application/json" } }, encoder.encode(body))
        if (step.step === "http") this.cancel(step.handle)
      } catch {
        // a trap was logged and the instance replaced by #call
      }
    }
    await nextTask()
    this.#idle()
  }

  // #idle tells the module nothing is asking of it: it collects its garbage then rather
  // than inside a later call (wasm/memory.go). It runs after the warm-up and once IDLE_MS
  // have passed with no call running (#armIdle, when the last one ends); the timer never
  // keeps a process up.
  #idle() {
    try {
      if (this.#exports?.idle) this.#call(() => this.#exports.idle())
    } catch {
      // a trap was logged and the instance replaced by #call
    }
  }

  #idleTimer = null
  #running = 0
  #armIdle() {
    clearTimeout(this.#idleTimer)
    this.#idleTimer = setTimeout(() => this.#idle(), IDLE_MS)
    this.#idleTimer.unref?.()
  }

  // #call runs one export; a trap replaces the instance and throws ModuleTrap.
  #call(fn) {
    if (!this.#exports) throw new ModuleTrap("deepseek-web-retrieval: the module is being restarted; try again")
    try {
      return fn()
    } catch (err) {
      this.#exports = null
      const gen = this.#generation
      this.#abandon.abort()
      this.#abandon = new AbortController()
      this.#log("error", `core.wasm trapped (${err?.message ?? err}); starting a fresh instance`)
      try {
        this.#instantiate()
      } catch (e) {
        this.#log("error", `core.wasm restart failed: ${e?.message ?? e}`)
      }
      throw new ModuleTrap(`deepseek-web-retrieval: the module failed (instance ${gen}) and was restarted; the call was abandoned`)
    }
  }

  // #alloc asks the module for a buffer of size bytes and returns its address.
  #alloc(size) {
    const ptr = this.#exports.alloc(size)
    if (ptr === 0) throw new Error("deepseek-web-retrieval: the module refused a buffer")
    return ptr
  }

  #write(bytes) {
    const ptr = this.#alloc(bytes.length)
    new Uint8Array(this.#exports.memory.buffer, ptr, bytes.length).set(bytes)
    return ptr
  }

  // #writeText writes text as UTF-8 into a buffer of the module and returns [ptr, len].
  // A short text is encoded straight into the module's memory (encodeInto, into a buffer
  // of the largest size it can take) instead of into a new array that is then copied.
  #writeText(text) {
    if (text.length > DIRECT_MAX) {
      const bytes = encoder.encode(text)
      return [this.#write(bytes), bytes.length]
    }
    const size = text.length * 3
    const ptr = this.#alloc(size)
    return [ptr, encoder.encodeInto(text, new Uint8Array(this.#exports.memory.buffer, ptr, size)).written]
  }

  #read(packed) {
    const ptr = Number(BigInt.asUintN(64, packed) >> 32n)
    const len = Number(BigInt.asUintN(64, packed) & 0xffffffffn)
    return JSON.parse(decoder.decode(new Uint8Array(this.#exports.memory.buffer, ptr, len)))
  }

  start(envelope) {
    const text = envelopeJSON(envelope)
    return this.#call(() => {
      const [ptr, len] = this.#writeText(text)
      return this.#read(this.#exports.start(ptr, len))
    })
  }

  resume(handle, reply, body) {
    const text = envelopeJSON(reply)
    return this.#call(() => {
      const [metaPtr, metaLen] = this.#writeText(text)
      const bodyPtr = body && body.length > 0 ? this.#write(body) : 0
      return this.#read(this.#exports.resume(handle, metaPtr, metaLen, bodyPtr, body ? body.length : 0))
    })
  }

  cancel(handle) {
    return this.#call(() => this.#read(this.#exports.cancel(handle)))
  }

  /**
   * Runs one operation to its end. Returns the "done" step; never throws for
   * API failures (they are in step.error). `signal` is the host's
   * AbortSignal: aborting cancels the request in flight or the pending delay.
   */
  async run(envelope, signal) {
    this.#running++
    clearTimeout(this.#idleTimer)
    try {
      return await this.#run(envelope, signal)
    } finally {
      if (--this.#running === 0) this.#armIdle()
      for (const wake of this.#waiting.splice(0)) wake()
    }
  }

  // #waiting wakes the calls that the module refused as busy when a call ends.
  #waiting = []

  // #admit starts the operation. While the module refuses it as busy (its maxCalls or
  // maxHeldMB are reached), the call waits for another call to end and asks again, up to
  // the operation's timeoutMs; cancelling the signal stops the wait. The last refusal is
  // the result when it cannot start in time.
  async #admit(envelope, signal) {
    let step = this.start(envelope)
    const deadline = performance.now() + (envelope.options?.timeoutMs ?? 30000)
    while (step.step === "done" && step.error?.code === "busy" && this.#running > 1 && !signal?.aborted) {
      const left = deadline - performance.now()
      if (left <= 0) break
      await new Promise((wake) => {
        const timer = setTimeout(wake, left)
        const done = () => {
          clearTimeout(timer)
          signal?.removeEventListener("abort", done)
          wake()
        }
        this.#waiting.push(done)
        signal?.addEventListener("abort", done, { once: true })
      })
      if (!signal?.aborted) step = this.start(envelope)
    }
    return step
  }

  async #run(envelope, signal) {
    const step = await this.#admit(envelope, signal)
    const stop = signal ? AbortSignal.any([signal, this.#abandon.signal]) : this.#abandon.signal
    return this.#drive(step, stop, this.#generation)
  }

  // #drive performs a step's requests until it is done. A "batch" step (a call of several
  // queries or pages) lists its parts' first steps: each is driven at once, by its own
  // handle. A part that ends returns "pending", more parts, or, the last one, the call's
  // "done" step, which is what the batch's drive returns.
  async #drive(step, stop, generation) {
    while (step.step === "http") {
      const { reply, body } = await perform(step.request, stop)
      if (generation !== this.#generation) throw new ModuleTrap("deepseek-web-retrieval: the module was restarted during the call; try again")
      step = reply.kind === "cancelled" ? this.cancel(step.handle) : this.resume(step.handle, reply, body)
    }
    if (step.step !== "batch") return step
    const ends = await Promise.all(step.steps.map((part) => this.#drive(part, stop, generation)))
    return ends.find((end) => end.step === "done") ?? { step: "pending" }
  }
}

// warmTransport loads what the fetch bridge uses without sending anything (Node loads its
// fetch implementation on first use: about 25 ms on the main thread, which the first real
// search paid).
function warmTransport() {
  try {
    const c = new AbortController()
    AbortSignal.any([c.signal])
    new Headers({ "content-type": "application/json" }).forEach(() => {})
    new Response(new Uint8Array(1)).body.getReader().read().catch(() => {})
  } catch {
    // a host without one of these fails the real call with its own message
  }
}

// startHTTPClient makes a fetch that sends nothing. Bun starts its HTTP client thread at the
// first fetch, in the background, and the first real search waited 13–15 ms for it. The
// signal is aborted before the call, and the Fetch standard rejects such a fetch before any
// connection; neither runtime opens one (the address is loopback's discard port all the
// same). Under Node it costs about 2 ms once fetch is loaded, hence a task of its own.
function startHTTPClient() {
  try {
    fetch("http://127.0.0.1:9/", { method: "POST", body: "{}", signal: AbortSignal.abort() }).catch(() => {})
  } catch {
    // as in warmTransport
  }
}

/** Waits ms milliseconds; resolves false early when signal aborts. */
function delay(ms, signal) {
  if (ms <= 0) return Promise.resolve(!signal?.aborted)
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve(true)
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })
}

/**
 * The fetch bridge: performs one "http" step and describes how it ended as
 * an ABI reply — response, network, timeout, too_large or cancelled.
 */
export async function perform(req, signal) {
  if (!(await delay(req.delayMs, signal))) return { reply: { kind: "cancelled" } }
  return share(req, signal)
}

// inFlight holds the requests being sent, by their bytes: an identical request (two calls
// for the same page or query, with the same options) joins the one in flight instead of
// sending a second, so DeepSeek answers and bills once. Each caller gets the same reply;
// one caller's cancel leaves the request running for the others, and the request is
// aborted only when every caller has cancelled.
const inFlight = new Map()

function share(req, signal) {
  if (signal?.aborted) return Promise.resolve({ reply: { kind: "cancelled" } })
  const key = JSON.stringify([req.method, req.url, req.headers, req.body ?? null, req.maxBytes])
  let entry = inFlight.get(key)
  if (!entry) {
    const ctl = new AbortController()
    entry = { callers: 0, ctl, done: send(req, ctl.signal) }
    inFlight.set(key, entry)
    const own = entry
    own.done.finally(() => inFlight.get(key) === own && inFlight.delete(key))
  }
  const joined = entry
  joined.callers++
  return new Promise((resolve) => {
    const onAbort = () => {
      if (--joined.callers === 0) {
        inFlight.get(key) === joined && inFlight.delete(key)
        joined.ctl.abort()
      }
      resolve({ reply: { kind: "cancelled" } })
    }
    signal?.addEventListener("abort", onAbort, { once: true })
    joined.done.then((r) => {
      signal?.removeEventListener("abort", onAbort)
      if (!signal?.aborted) resolve(r)
    })
  })
}

// send performs one request; signal aborts it (every caller cancelled).
async function send(req, signal) {
  const ctl = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    ctl.abort()
  }, req.timeoutMs)
  const onAbort = () => ctl.abort()
  signal?.addEventListener("abort", onAbort, { once: true })
  const ended = () => (signal?.aborted ? { reply: { kind: "cancelled" } } : timedOut ? { reply: { kind: "timeout" } } : null)
  try {
    if (signal?.aborted) return { reply: { kind: "cancelled" } }
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      redirect: "manual",
      signal: ctl.signal,
    })
    const headers = {}
    res.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value
    })
    const body = await readCapped(res, req.maxBytes)
    if (body === null) {
      ctl.abort()
      return { reply: { kind: "too_large" } }
    }
    return { reply: { kind: "response", status: res.status, headers }, body }
  } catch (err) {
    return ended() ?? { reply: { kind: "network", message: networkMessage(err) } }
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener("abort", onAbort)
  }
}

// networkMessage is the runtime's own words for a failed fetch, with its error code (Node:
// err.cause.code, Bun: err.code) in front when the words lack it: the module words the
// failure from the code (core/netmsg.go).
function networkMessage(err) {
  const cause = err?.cause ?? err
  const text = String(cause?.message ?? err?.message ?? err)
  const code = typeof cause?.code === "string" ? cause.code : typeof err?.code === "string" ? err.code : ""
  return code && !text.includes(code) ? `${code}: ${text}` : text
}

// readCapped reads the body as a stream; null when it passes maxBytes.
async function readCapped(res, maxBytes) {
  const declared = Number(res.headers.get("content-length"))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {})
    return null
  }
  if (!res.body) return new Uint8Array(0)
  const reader = res.body.getReader()
  const chunks = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.length
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      return null
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0]
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.length
  }
  return out
}
