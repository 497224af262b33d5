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
//   moduleStats(rt)           // {generation, inFlight, memoryBytes, busyMs, idles} of rt's module
//   trapDuring(() => rt.start({}))   // the core traps for real inside that call

const state = (globalThis[Symbol.for("dwr.moduleProbe")] ??= install())

// Each core instance belongs to the Runtime that made it or called into it first (state.active
// is the Runtime whose start, resume or cancel is running: see probeRuntime); a Runtime's
// record holds its instance, the instances it made after its first and its idle signals.
function install() {
  const s = { current: null, busyMs: 0, trap: false, active: null, owner: new WeakMap(), records: new WeakMap() }
  const Real = WebAssembly.Instance
  function Probed(module, imports) {
    const real = new Real(module, imports)
    if (typeof real.exports.in_flight !== "function") return real
    s.current = real
    if (s.active) {
      bind(s, real, s.active)
      record(s, s.active).generation++
    }
    const exports = {}
    for (const [name, value] of Object.entries(real.exports)) exports[name] = typeof value === "function" ? wrap(s, real, name, value) : value
    return { exports: Object.freeze(exports) }
  }
  Probed.prototype = Real.prototype
  WebAssembly.Instance = Probed
  return s
}

function record(s, rt) {
  let r = s.records.get(rt)
  if (!r) s.records.set(rt, (r = { instance: null, generation: 0, idles: 0, busyMs: 0 }))
  return r
}

function bind(s, real, rt) {
  s.owner.set(real, rt)
  record(s, rt).instance = real
}

// wrap times fn and counts idle calls; an armed trap (trapDuring) runs the instance's
// _initialize a second time first, which a Go reactor answers with a real trap.
function wrap(s, real, name, fn) {
  return (...args) => {
    if (s.active && !s.owner.has(real)) bind(s, real, s.active)
    const rt = s.owner.get(real)
    const t = performance.now()
    try {
      if (s.trap && name !== "_initialize") {
        s.trap = false
        real.exports._initialize()
      }
      if (name === "idle" && rt) record(s, rt).idles++
      return fn(...args)
    } finally {
      const ms = performance.now() - t
      s.busyMs += ms
      if (rt) record(s, rt).busyMs += ms
    }
  }
}

/**
 * What the module of rt (a Runtime probeRuntime follows; without one, the core instance
 * created last in this process) shows: the instances rt made after its first (generation),
 * the operations in flight, the linear memory, the milliseconds spent in the exports (of
 * every instance, without rt) and how often rt told its module it is idle.
 */
export function moduleStats(rt) {
  const r = rt ? record(state, rt) : { instance: state.current, generation: 0, idles: 0, busyMs: state.busyMs }
  const x = (r.instance ?? state.current)?.exports
  return { generation: r.generation, inFlight: x ? x.in_flight() : 0, memoryBytes: x ? x.memory.buffer.byteLength : 0, busyMs: r.busyMs, idles: r.idles }
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
  for (const name of ["start", "resume", "cancel"]) {
    const fn = Runtime.prototype[name]
    Runtime.prototype[name] = function (...args) {
      const saved = state.active
      state.active = this
      try {
        return fn.apply(this, args)
      } finally {
        state.active = saved
      }
    }
  }
  p = { last: () => last, warmed: () => warming }
  probes.set(Runtime, p)
  return p
}
