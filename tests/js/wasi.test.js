// Tests for plugin/wasi.js against a real Go wasip1 reactor (tests/js/fixtures/reactor),
// built here with the local Go toolchain. Runs under `node --test` and `bun test`.
import { test, before, after } from "node:test"
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, dirname } from "node:path"
import { fileURLToPath } from "node:url"

import { createWasi, WasiExit, missingImports, PREVIEW1_FUNCTIONS, ERRNO } from "../../plugin/wasi.js"

const here = dirname(fileURLToPath(import.meta.url))
const fixtureDir = join(here, "fixtures", "reactor")

let tmp
let module

function buildReactor() {
  tmp = mkdtempSync(join(tmpdir(), "wasi-test-"))
  const out = join(tmp, "reactor.wasm")
  execFileSync("go", ["build", "-buildmode=c-shared", "-o", out, "."], {
    cwd: fixtureDir,
    env: { ...process.env, GOOS: "wasip1", GOARCH: "wasm", GOWORK: "off", CGO_ENABLED: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 180_000,
  })
  return new WebAssembly.Module(readFileSync(out))
}

function instantiate(options = {}) {
  const lines = []
  const wasi = createWasi({ write: (fd, line) => lines.push({ fd, line }), ...options })
  const instance = new WebAssembly.Instance(module, wasi.imports)
  wasi.initialize(instance)
  return { wasi, instance, exports: instance.exports, lines }
}

before(() => {
  module = buildReactor()
})

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

test("provides every import the Go reactor declares", () => {
  assert.deepEqual(missingImports(module), [])
  const names = new Set(WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`))
  for (const n of names) assert.ok(n.startsWith("wasi_snapshot_preview1."), n)
  const { wasiImport } = createWasi()
  for (const name of PREVIEW1_FUNCTIONS) assert.equal(typeof wasiImport[name], "function", name)
})

test("instantiates, runs _initialize and calls a plain export", () => {
  const { exports } = instantiate()
  assert.equal(exports.add(2, 40), 42)
})

test("random_get feeds crypto/rand (large reads are chunked)", () => {
  const { exports } = instantiate()
  // 200 KiB > one 64 KiB getRandomValues chunk; all byte values should show up.
  assert.equal(exports.random(200 * 1024), 256)
  assert.ok(exports.random(16) > 8)
})

test("clocks: realtime matches Date.now, monotonic advances", () => {
  const { exports } = instantiate()
  const before = Date.now()
  const ms = Number(exports.now_millis())
  const after = Date.now()
  assert.ok(ms >= before - 1 && ms <= after + 1, `${before} <= ${ms} <= ${after}`)
  const ns = Number(exports.elapsed_nanos())
  assert.ok(ns >= 0 && ns < 5e9, `elapsed ${ns}`)
})

test("poll_oneoff: time.Sleep returns (clock events fire at once, bounded by the deadline)", () => {
  const { exports } = instantiate()
  const t0 = performance.now()
  const ms = Number(exports.sleep_ms(5))
  const wall = performance.now() - t0
  assert.ok(ms >= 5, `slept ${ms}ms`)
  assert.ok(wall < 2000, `took ${wall}ms`)
})

test("fd_write: fmt to stdout/stderr arrives line by line, UTF-8 intact", () => {
  const { exports, lines, wasi } = instantiate()
  exports.hello(7)
  assert.deepEqual(lines, [
    { fd: 2, line: "stderr: héllo wörld 7" },
    { fd: 1, line: "stdout: part one, part two" },
    { fd: 1, line: "second line" },
  ])
  wasi.flush()
  assert.deepEqual(lines.at(-1), { fd: 2, line: "no newline yet" })
})

test("fd_write: very long lines are split at 64 KiB", () => {
  const { exports, lines } = instantiate()
  exports.big(150_000)
  const total = lines.reduce((n, l) => n + l.line.length, 0)
  assert.equal(total, 150_000)
  assert.ok(lines.every((l) => l.fd === 2 && l.line.length <= 64 * 1024))
})

test("environment and args are empty unless given, and never the host's", () => {
  const { exports } = instantiate()
  assert.ok(Object.keys(process.env).length > 0)
  assert.equal(exports.env_count(), 0)
  assert.equal(exports.args_count(), 0)
  const withArgs = instantiate({ args: ["core.wasm", "x"] })
  assert.equal(withArgs.exports.args_count(), 2)
  assert.equal(withArgs.exports.env_count(), 0)
  const withEnv = instantiate({ env: ["GOMEMLIMIT=80MiB"] })
  assert.equal(withEnv.exports.env_count(), 1)
  assert.equal(withEnv.exports.gomemlimit_80mib(), 1)
  assert.equal(withEnv.exports.args_count(), 0)
})

test("no file system: opening a file fails", () => {
  const { exports } = instantiate()
  assert.equal(exports.open_file(), 0)
})

test("an unrecovered Go panic traps (RuntimeError) after printing the panic to stderr", () => {
  const { exports, lines, wasi } = instantiate()
  assert.throws(() => exports.do_panic(), WebAssembly.RuntimeError)
  wasi.flush()
  assert.ok(lines.some((l) => l.fd === 2 && l.line === "panic: boom from go"), JSON.stringify(lines))
})

test("os.Exit surfaces as WasiExit with the code", () => {
  const { exports } = instantiate()
  assert.throws(
    () => exports.do_exit(3),
    (err) => err instanceof WasiExit && err.code === 3,
  )
})

test("unknown fds are EBADF, a throwing sink never traps", () => {
  const wasi = createWasi({
    write() {
      throw new Error("sink broke")
    },
  })
  const memory = new WebAssembly.Memory({ initial: 1 })
  wasi.setMemory(memory)
  const dv = new DataView(memory.buffer)
  // one iovec at 0 → bytes at 64..69 ("hello\n"), nwritten at 16
  new Uint8Array(memory.buffer).set(new TextEncoder().encode("hello\n"), 64)
  dv.setUint32(0, 64, true)
  dv.setUint32(4, 6, true)
  assert.equal(wasi.wasiImport.fd_write(5, 0, 1, 16), ERRNO.BADF)
  assert.equal(wasi.wasiImport.fd_write(2, 0, 1, 16), ERRNO.SUCCESS)
  assert.equal(dv.getUint32(16, true), 6)
  assert.equal(wasi.wasiImport.fd_prestat_get(3, 32), ERRNO.BADF)
  assert.equal(wasi.wasiImport.path_open(3, 0, 0, 0, 0, 0n, 0n, 0, 32), ERRNO.BADF)
  assert.equal(wasi.wasiImport.clock_time_get(99, 0n, 32), ERRNO.INVAL)
  assert.equal(wasi.wasiImport.clock_res_get(1, 32), ERRNO.SUCCESS)
  assert.equal(dv.getBigUint64(32, true), 1000n)
})

test("poll_oneoff reports clock subscriptions fired and fd subscriptions as EBADF", () => {
  const wasi = createWasi()
  const memory = new WebAssembly.Memory({ initial: 1 })
  wasi.setMemory(memory)
  const dv = new DataView(memory.buffer)
  // sub 0: clock, userdata 11, monotonic, 10 s timeout
  dv.setBigUint64(0, 11n, true)
  dv.setUint8(8, 0)
  dv.setUint32(16, 1, true)
  dv.setBigUint64(24, 10_000_000_000n, true)
  // sub 1: fd_read on fd 0, userdata 22
  dv.setBigUint64(48, 22n, true)
  dv.setUint8(56, 1)
  dv.setUint32(64, 0, true)
  const t0 = performance.now()
  assert.equal(wasi.wasiImport.poll_oneoff(0, 200, 2, 400), ERRNO.SUCCESS)
  assert.ok(performance.now() - t0 < 100)
  assert.equal(dv.getUint32(400, true), 2)
  assert.equal(dv.getBigUint64(200, true), 11n)
  assert.equal(dv.getUint16(208, true), 0)
  assert.equal(dv.getUint8(210), 0)
  assert.equal(dv.getBigUint64(232, true), 22n)
  assert.equal(dv.getUint16(240, true), ERRNO.BADF)
  assert.equal(dv.getUint8(242), 1)
  assert.equal(wasi.wasiImport.poll_oneoff(0, 200, 0, 400), ERRNO.INVAL)
})
