// plugin/wasi.js — a small WASI preview 1 layer for Go `GOOS=wasip1` reactor modules.
//
// Plain ES module, no dependencies. Runs under Node >= 20 and Bun >= 1.3 (Bun's own
// `node:wasi` breaks Go modules: its `random_get` is broken, so the plugin ships this).
//
// API
//
//   import { createWasi, WasiExit, ERRNO } from "./wasi.js"
//
//   const wasi = createWasi({
//     write(fd, line) { ... },   // optional; called with fd 1 or 2 and ONE line of text,
//                                // without its trailing "\n". Default: console.error(line)
//                                // for both fds (stdout is left alone: hosts such as
//                                // `opencode run --format json` own it).
//     args: [],                  // optional; argv seen by the module. Default: none.
//     env: [],                   // optional; "NAME=value" strings the module sees. Default: none.
//   })
//   const { instance } = await WebAssembly.instantiate(bytes, wasi.imports)
//   wasi.initialize(instance)    // = wasi.setMemory(instance.exports.memory);
//                                //   instance.exports._initialize()
//   ... call exports ...
//   wasi.flush()                 // emit a trailing partial line, if any
//
//   wasi.imports        { wasi_snapshot_preview1: {...} } — the import object
//   wasi.wasiImport     the same functions, flat
//   wasi.setMemory(m)   WebAssembly.Memory the functions read/write (set before any call)
//   wasi.initialize(i)  setMemory + run `_initialize` once (a reactor's main never runs)
//   wasi.flush()        emit buffered partial lines of fd 1 and 2
//   missingImports(module) → names of wasi_snapshot_preview1 imports of a compiled
//                       WebAssembly.Module that this layer does not provide (always [] for
//                       preview 1: every preview 1 function is defined, most as stubs).
//
// Behaviour
//
//   - clocks: realtime = Date.now() (ms resolution) in ns; monotonic (and the two CPU-time
//     clocks) = performance.now() in ns, clamped to never go backwards. u64 via BigInt.
//   - random_get: crypto.getRandomValues in chunks of at most 65536 bytes, copied into memory.
//   - fd_write: fd 1 and 2 are decoded as UTF-8 (split sequences handled) and line-buffered;
//     every complete line goes to write(fd, line). A line longer than 64 KiB is emitted in
//     pieces. Any other fd: EBADF.
//   - fd 0 reads EOF. fds 0–2 are character devices; no other fd exists: there are NO
//     preopened directories (fd_prestat_get → EBADF), so the module has no file system.
//   - environment: exactly the `env` strings given ("NAME=value"), none by default. Nothing
//     of the host environment is handed to the module; the host passes what the module needs
//     (API keys, options) through the module's ABI. (runtime.js gives only the Go runtime's
//     own settings: wasm/doc.go.)
//   - args: empty unless `args` is given.
//   - proc_exit(code): flushes output and throws `WasiExit` (err.code); Go's os.Exit gets
//     here. An unrecovered Go panic or fatal error in a reactor does NOT call proc_exit: the
//     runtime prints the panic to fd 2 and traps (`WebAssembly.RuntimeError: unreachable`).
//     Either way the instance is unusable afterwards — call flush() and make a new one.
//   - poll_oneoff: never blocks. Clock subscriptions are reported as fired at once; fd
//     subscriptions are reported with EBADF (fd 1/2 writes as ready). Go's runtime only
//     polls to sleep or idle; the reactor's exports are sans-IO and never need to sleep, so a
//     Go `time.Sleep` inside an export degrades to a busy wait until its deadline (don't).
//   - sched_yield: no-op. Everything else (path_*, sock_*, fd_seek on stdio, ...):
//     EBADF for fds that do not exist, ESPIPE/ENOTSUP/ENOSYS otherwise.

export const ERRNO = Object.freeze({
  SUCCESS: 0,
  ACCES: 2,
  AGAIN: 6,
  BADF: 8,
  FAULT: 21,
  INVAL: 28,
  IO: 29,
  NOENT: 44,
  NOSYS: 52,
  NOTDIR: 54,
  NOTSUP: 58,
  PERM: 63,
  SPIPE: 70,
  NOTCAPABLE: 76,
})

/** Thrown by proc_exit. `code` is the exit status the module asked for. */
export class WasiExit extends Error {
  constructor(code) {
    super(`wasm module exited with code ${code}`)
    this.name = "WasiExit"
    this.code = code
  }
}

const CLOCK_REALTIME = 0
const CLOCK_MONOTONIC = 1
const CLOCK_PROCESS_CPUTIME = 2
const CLOCK_THREAD_CPUTIME = 3

const FILETYPE_CHARACTER_DEVICE = 2
const RIGHTS_ALL = 0x1fffffffn

const EVENTTYPE_CLOCK = 0
const EVENTTYPE_FD_READ = 1
const EVENTTYPE_FD_WRITE = 2

const SUBSCRIPTION_SIZE = 48
const EVENT_SIZE = 32

const RANDOM_CHUNK = 65536
const MAX_LINE = 64 * 1024

const PREVIEW1 = [
  "args_get", "args_sizes_get", "environ_get", "environ_sizes_get", "clock_res_get",
  "clock_time_get", "fd_advise", "fd_allocate", "fd_close", "fd_datasync", "fd_fdstat_get",
  "fd_fdstat_set_flags", "fd_fdstat_set_rights", "fd_filestat_get", "fd_filestat_set_size",
  "fd_filestat_set_times", "fd_pread", "fd_prestat_get", "fd_prestat_dir_name", "fd_pwrite",
  "fd_read", "fd_readdir", "fd_renumber", "fd_seek", "fd_sync", "fd_tell", "fd_write",
  "path_create_directory", "path_filestat_get", "path_filestat_set_times", "path_link",
  "path_open", "path_readlink", "path_remove_directory", "path_rename", "path_symlink",
  "path_unlink_file", "poll_oneoff", "proc_exit", "proc_raise", "sched_yield", "random_get",
  "sock_accept", "sock_recv", "sock_send", "sock_shutdown",
]

function defaultWrite(_fd, line) {
  console.error(line)
}

/**
 * @param {{ write?: (fd: number, line: string) => void, args?: string[] }} [options]
 */
export function createWasi(options = {}) {
  const write = typeof options.write === "function" ? options.write : defaultWrite
  const args = (options.args ?? []).map(String)
  const encoder = new TextEncoder()
  const argBytes = args.map((a) => encoder.encode(a + "\0"))
  const envBytes = (options.env ?? []).map((e) => encoder.encode(String(e) + "\0"))

  /** @type {WebAssembly.Memory | null} */
  let memory = null
  let lastMonotonic = 0n
  const randomScratch = new Uint8Array(RANDOM_CHUNK)

  // Per-fd output state: a streaming decoder and the pending partial line.
  const outputs = new Map([
    [1, { decoder: new TextDecoder("utf-8"), pending: "" }],
    [2, { decoder: new TextDecoder("utf-8"), pending: "" }],
  ])

  function view() {
    if (!memory) throw new Error("wasi: setMemory() was not called before the module ran")
    return new DataView(memory.buffer)
  }
  function bytes() {
    if (!memory) throw new Error("wasi: setMemory() was not called before the module ran")
    return new Uint8Array(memory.buffer)
  }
  const isStdio = (fd) => fd === 0 || fd === 1 || fd === 2

  function emit(fd, line) {
    try {
      write(fd, line)
    } catch {
      // A failing sink must never trap the module.
    }
  }

  function pushText(fd, chunk, final) {
    const out = outputs.get(fd)
    let text = out.pending + out.decoder.decode(chunk, { stream: !final })
    let nl
    while ((nl = text.indexOf("\n")) !== -1) {
      emitLine(fd, text.slice(0, nl))
      text = text.slice(nl + 1)
    }
    while (text.length > MAX_LINE) {
      emit(fd, text.slice(0, MAX_LINE))
      text = text.slice(MAX_LINE)
    }
    if (final && text.length > 0) {
      emit(fd, text)
      text = ""
    }
    out.pending = text
  }

  function emitLine(fd, line) {
    while (line.length > MAX_LINE) {
      emit(fd, line.slice(0, MAX_LINE))
      line = line.slice(MAX_LINE)
    }
    emit(fd, line)
  }

  function flush() {
    for (const fd of outputs.keys()) pushText(fd, new Uint8Array(0), true)
  }

  function monotonicNs() {
    let t = BigInt(Math.floor(performance.now() * 1e6))
    if (t < lastMonotonic) t = lastMonotonic
    lastMonotonic = t
    return t
  }
  function clockNs(id) {
    switch (id) {
      case CLOCK_REALTIME:
        return BigInt(Date.now()) * 1000000n
      case CLOCK_MONOTONIC:
      case CLOCK_PROCESS_CPUTIME:
      case CLOCK_THREAD_CPUTIME:
        return monotonicNs()
      default:
        return null
    }
  }

  // Sum of iovec lengths / gather of iovec bytes.
  function gatherIovs(iovs, iovsLen) {
    const dv = view()
    const mem = bytes()
    const parts = []
    let total = 0
    for (let i = 0; i < iovsLen; i++) {
      const ptr = dv.getUint32(iovs + i * 8, true)
      const len = dv.getUint32(iovs + i * 8 + 4, true)
      if (len === 0) continue
      parts.push(mem.subarray(ptr, ptr + len))
      total += len
    }
    const all = new Uint8Array(total)
    let off = 0
    for (const p of parts) {
      all.set(p, off)
      off += p.length
    }
    return all
  }

  const badfOrNotsup = (fd) => (isStdio(fd) ? ERRNO.NOTSUP : ERRNO.BADF)
  const badfOrSpipe = (fd) => (isStdio(fd) ? ERRNO.SPIPE : ERRNO.BADF)

  // sizes and strings answer the args_* and environ_* calls for a list of NUL-ended strings.
  const sizes = (list, countPtr, bufSizePtr) => {
    const dv = view()
    dv.setUint32(countPtr, list.length, true)
    dv.setUint32(bufSizePtr, list.reduce((n, b) => n + b.length, 0), true)
    return ERRNO.SUCCESS
  }
  const strings = (list, listPtr, bufPtr) => {
    const dv = view()
    const mem = bytes()
    let p = bufPtr
    list.forEach((b, i) => {
      dv.setUint32(listPtr + i * 4, p, true)
      mem.set(b, p)
      p += b.length
    })
    return ERRNO.SUCCESS
  }

  const wasiImport = {
    args_sizes_get(countPtr, bufSizePtr) {
      return sizes(argBytes, countPtr, bufSizePtr)
    },
    args_get(listPtr, bufPtr) {
      return strings(argBytes, listPtr, bufPtr)
    },
    environ_sizes_get(countPtr, bufSizePtr) {
      return sizes(envBytes, countPtr, bufSizePtr)
    },
    environ_get(listPtr, bufPtr) {
      return strings(envBytes, listPtr, bufPtr)
    },

    clock_res_get(id, resPtr) {
      let res
      if (id === CLOCK_REALTIME) res = 1000000n
      else if (id === CLOCK_MONOTONIC || id === CLOCK_PROCESS_CPUTIME || id === CLOCK_THREAD_CPUTIME) res = 1000n
      else return ERRNO.INVAL
      view().setBigUint64(resPtr, res, true)
      return ERRNO.SUCCESS
    },
    clock_time_get(id, _precision, timePtr) {
      const t = clockNs(id)
      if (t === null) return ERRNO.INVAL
      view().setBigUint64(timePtr, t, true)
      return ERRNO.SUCCESS
    },

    random_get(bufPtr, bufLen) {
      const mem = bytes()
      for (let off = 0; off < bufLen; off += RANDOM_CHUNK) {
        const n = Math.min(RANDOM_CHUNK, bufLen - off)
        const chunk = n === RANDOM_CHUNK ? randomScratch : randomScratch.subarray(0, n)
        globalThis.crypto.getRandomValues(chunk)
        mem.set(chunk, bufPtr + off)
      }
      return ERRNO.SUCCESS
    },

    fd_write(fd, iovs, iovsLen, nwrittenPtr) {
      if (fd !== 1 && fd !== 2) return ERRNO.BADF
      const data = gatherIovs(iovs, iovsLen)
      pushText(fd, data, false)
      view().setUint32(nwrittenPtr, data.length, true)
      return ERRNO.SUCCESS
    },
    fd_read(fd, _iovs, _iovsLen, nreadPtr) {
      if (fd !== 0) return ERRNO.BADF
      view().setUint32(nreadPtr, 0, true) // EOF
      return ERRNO.SUCCESS
    },
    fd_pread: (fd) => badfOrSpipe(fd),
    fd_pwrite: (fd) => badfOrSpipe(fd),
    fd_close(fd) {
      if (!isStdio(fd)) return ERRNO.BADF
      if (fd !== 0) pushText(fd, new Uint8Array(0), true)
      return ERRNO.SUCCESS
    },
    fd_fdstat_get(fd, statPtr) {
      if (!isStdio(fd)) return ERRNO.BADF
      const dv = view()
      dv.setUint8(statPtr, FILETYPE_CHARACTER_DEVICE)
      dv.setUint8(statPtr + 1, 0)
      dv.setUint16(statPtr + 2, 0, true) // fs_flags
      dv.setUint32(statPtr + 4, 0, true)
      dv.setBigUint64(statPtr + 8, RIGHTS_ALL, true) // fs_rights_base
      dv.setBigUint64(statPtr + 16, 0n, true) // fs_rights_inheriting
      return ERRNO.SUCCESS
    },
    fd_fdstat_set_flags(fd, _flags) {
      return isStdio(fd) ? ERRNO.SUCCESS : ERRNO.BADF
    },
    fd_fdstat_set_rights(fd) {
      return isStdio(fd) ? ERRNO.SUCCESS : ERRNO.BADF
    },
    fd_filestat_get(fd, bufPtr) {
      if (!isStdio(fd)) return ERRNO.BADF
      const mem = bytes()
      mem.fill(0, bufPtr, bufPtr + 64)
      const dv = view()
      dv.setUint8(bufPtr + 16, FILETYPE_CHARACTER_DEVICE)
      dv.setBigUint64(bufPtr + 24, 1n, true) // nlink
      return ERRNO.SUCCESS
    },
    fd_filestat_set_size: (fd) => badfOrNotsup(fd),
    fd_filestat_set_times: (fd) => badfOrNotsup(fd),
    fd_prestat_get: () => ERRNO.BADF, // no preopened directories
    fd_prestat_dir_name: () => ERRNO.BADF,
    fd_seek: (fd) => badfOrSpipe(fd),
    fd_tell: (fd) => badfOrSpipe(fd),
    fd_sync: (fd) => (isStdio(fd) ? ERRNO.SUCCESS : ERRNO.BADF),
    fd_datasync: (fd) => (isStdio(fd) ? ERRNO.SUCCESS : ERRNO.BADF),
    fd_advise: (fd) => badfOrSpipe(fd),
    fd_allocate: (fd) => badfOrNotsup(fd),
    fd_readdir: (fd) => (isStdio(fd) ? ERRNO.NOTDIR : ERRNO.BADF),
    fd_renumber: (fd, to) => (isStdio(fd) && isStdio(to) ? ERRNO.NOTSUP : ERRNO.BADF),

    // There are no directory fds, so every path_* call names a bad fd.
    path_create_directory: () => ERRNO.BADF,
    path_filestat_get: () => ERRNO.BADF,
    path_filestat_set_times: () => ERRNO.BADF,
    path_link: () => ERRNO.BADF,
    path_open: () => ERRNO.BADF,
    path_readlink: () => ERRNO.BADF,
    path_remove_directory: () => ERRNO.BADF,
    path_rename: () => ERRNO.BADF,
    path_symlink: () => ERRNO.BADF,
    path_unlink_file: () => ERRNO.BADF,

    poll_oneoff(inPtr, outPtr, nsubscriptions, neventsPtr) {
      if (nsubscriptions === 0) return ERRNO.INVAL
      const dv = view()
      let n = 0
      for (let i = 0; i < nsubscriptions; i++) {
        const sub = inPtr + i * SUBSCRIPTION_SIZE
        const userdata = dv.getBigUint64(sub, true)
        const tag = dv.getUint8(sub + 8)
        const ev = outPtr + n * EVENT_SIZE
        let error = ERRNO.SUCCESS
        if (tag === EVENTTYPE_CLOCK) {
          const clockId = dv.getUint32(sub + 16, true)
          if (clockNs(clockId) === null) error = ERRNO.INVAL
        } else if (tag === EVENTTYPE_FD_READ || tag === EVENTTYPE_FD_WRITE) {
          const fd = dv.getUint32(sub + 16, true)
          if (!(tag === EVENTTYPE_FD_WRITE && (fd === 1 || fd === 2))) error = ERRNO.BADF
        } else {
          error = ERRNO.INVAL
        }
        dv.setBigUint64(ev, userdata, true)
        dv.setUint16(ev + 8, error, true)
        dv.setUint8(ev + 10, tag)
        for (let k = 11; k < EVENT_SIZE; k++) dv.setUint8(ev + k, 0)
        n++
      }
      dv.setUint32(neventsPtr, n, true)
      return ERRNO.SUCCESS
    },

    proc_exit(code) {
      flush()
      throw new WasiExit(code)
    },
    proc_raise: () => ERRNO.NOSYS,
    sched_yield: () => ERRNO.SUCCESS,

    sock_accept: (fd) => badfOrNotsup(fd),
    sock_recv: (fd) => badfOrNotsup(fd),
    sock_send: (fd) => badfOrNotsup(fd),
    sock_shutdown: (fd) => badfOrNotsup(fd),
  }

  return {
    imports: { wasi_snapshot_preview1: wasiImport },
    wasiImport,
    setMemory(m) {
      memory = m
    },
    initialize(instance) {
      memory = instance.exports.memory
      if (typeof instance.exports._initialize === "function") instance.exports._initialize()
    },
    flush,
  }
}

/** wasi_snapshot_preview1 imports of `module` that createWasi() does not provide. */
export function missingImports(module) {
  const have = new Set(PREVIEW1)
  return WebAssembly.Module.imports(module)
    .filter((i) => i.module === "wasi_snapshot_preview1" && !have.has(i.name))
    .map((i) => i.name)
}

export const PREVIEW1_FUNCTIONS = Object.freeze([...PREVIEW1])
