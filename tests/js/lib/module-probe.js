// module-probe.js — what the tests and benchmarks observe of plugin/runtime.js, from outside
// it: the shipped file has no hooks for them.
//
// Importing this module wraps WebAssembly.Instance for this process: an instance of the core
// (a module that exports `in_flight`) gets exports that count and time their calls; any
// other module's instance is the real one. probeRuntime(Runtime) follows a copy of
// runtime.js: the Runtime it created last and the warm-ups it started.
//
//   import { probeRuntime, moduleStats, trapDuring } from "./module-probe.js"
//   const probe = probeRuntime((await import(".../runtime.js")).Runtime)
//   probe.last()              // the Runtime created last by that copy (null before)
//   await probe.warmed()      // every warm-up started so far has finished
//   moduleStats()             // {generation, inFlight, memoryBytes, busyMs, idles}
//   trapDuring(() => rt.start({}))   // the core traps for real inside that call

const state = (globalThis[Symbol.for("dwr.moduleProbe")] ??= install())

function install() {
  const s = { generation: 0, current: null, busyMs: 0, idles: 0, trap: false }
  const Real = WebAssembly.Instance
  function Probed(module, imports) {
    const real = new Real(module, imports)
    if (typeof real.exports.in_flight !== "function") return real
    s.generation++
    s.current = real
    const exports = {}
    for (const [name, value] of Object.entries(real.exports)) exports[name] = typeof value === "function" ? wrap(s, real, name, value) : value
    return { exports: Object.freeze(exports) }
  }
  Probed.prototype = Real.prototype
  WebAssembly.Instance = Probed
  return s
}

// wrap times fn and counts idle calls; an armed trap (trapDuring) runs the instance's
// _initialize a second time first, which a Go reactor answers with a real trap.
function wrap(s, real, name, fn) {
  return (...args) => {
    const t = performance.now()
    try {
      if (s.trap && name !== "_initialize") {
        s.trap = false
        real.exports._initialize()
      }
      if (name === "idle") s.idles++
      return fn(...args)
    } finally {
      s.busyMs += performance.now() - t
    }
  }
}

/**
 * The core instance created last in this process: instances created so far (generation),
 * its operations in flight, its linear memory, the milliseconds spent in every instance's
 * exports, and how often the runtime told an instance it is idle.
 */
export function moduleStats() {
  const x = state.current?.exports
  return { generation: state.generation, inFlight: x ? x.in_flight() : 0, memoryBytes: x ? x.memory.buffer.byteLength : 0, busyMs: state.busyMs, idles: state.idles }
}

/** Runs fn with a trap armed: the first call into the core during it traps for real. */
export function trapDuring(fn) {
  state.trap = true
  try {
    return fn()
  } finally {
    state.trap = false
  }
}

const probes = new WeakMap()

/** Follows the Runtime class of one copy of runtime.js (once per class). */
export function probeRuntime(Runtime) {
  let p = probes.get(Runtime)
  if (p) return p
  let last = null
  let warming = Promise.resolve()
  const create = Runtime.create
  Runtime.create = async function (...args) {
    const rt = await create.apply(this, args)
    last = rt
    return rt
  }
  const warmUp = Runtime.prototype.warmUp
  Runtime.prototype.warmUp = function (...args) {
    const done = warmUp.apply(this, args)
    warming = Promise.all([warming, done]).then(() => {})
    return done
  }
  p = { last: () => last, warmed: () => warming }
  probes.set(Runtime, p)
  return p
}
