// Scratch homes, bounded agent runs and file checks shared by the real-host tests.
import { spawn, execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { startMockDeepSeek } from "../../js/lib/mock-deepseek.js"

const here = dirname(fileURLToPath(import.meta.url))
export const HOSTS_DIR = resolve(here, "..")
export const REPO = resolve(HOSTS_DIR, "..", "..")
export const BIN_DIR = join(HOSTS_DIR, "node_modules", ".bin")

/** True when `npm install` ran in tests/hosts (the agents are there). */
export const agentsInstalled = existsSync(join(BIN_DIR, "codex"))

let binary
/**
 * The deepseek-web-retrieval binary under test: $DWR_BIN when set (make test-hosts passes the
 * one it built), else built once into a temporary directory.
 */
export function dwrBinary() {
  if (binary) return binary
  if (process.env.DWR_BIN) return (binary = resolve(process.env.DWR_BIN))
  const out = join(mkdtempSync(join(tmpdir(), "dwr-bin-")), "deepseek-web-retrieval")
  execFileSync("go", ["build", "-trimpath", "-o", out, "./cmd/deepseek-web-retrieval"], { cwd: REPO, stdio: "inherit" })
  return (binary = out)
}

// The same helpers as the OpenCode end-to-end runs: a random key in DeepSeek's shape, every
// regular file under a directory, and the files holding a needle.
import { randomKey, walk, filesContaining } from "../../js/lib/e2e.js"
export { randomKey, walk, filesContaining }

/**
 * A scratch root under $TMPDIR with home/, project/ and tmp/. Removed by cleanup() unless
 * KEEP_SCRATCH=1. (Codex warns that it will not create its PATH helper aliases under a
 * temporary directory; harmless here.)
 */
export function makeSandbox(name) {
  const root = mkdtempSync(join(tmpdir(), `dwr-${name}-`))
  const home = join(root, "home")
  const project = join(root, "project")
  const tmp = join(root, "tmp")
  for (const d of [home, project, tmp]) mkdirSync(d, { recursive: true })
  return {
    root,
    home,
    project,
    tmp,
    /** The base environment of every agent run: nothing of the caller's but PATH. */
    env(extra = {}) {
      return {
        PATH: process.env.PATH,
        HOME: home,
        TMPDIR: tmp,
        XDG_CONFIG_HOME: join(home, ".config"),
        XDG_DATA_HOME: join(home, ".local", "share"),
        XDG_CACHE_HOME: join(home, ".cache"),
        XDG_STATE_HOME: join(home, ".local", "state"),
        LANG: "C.UTF-8",
        TERM: "dumb",
        NO_COLOR: "1",
        CI: "1",
        // Any proxy would be a way out: there is none, and loopback is never proxied.
        NO_PROXY: "127.0.0.1,localhost",
        ...extra,
      }
    },
    cleanup() {
      if (process.env.KEEP_SCRATCH !== "1") rmSync(root, { recursive: true, force: true })
    },
  }
}

/**
 * What an end-to-end test starts from: a sandbox, a fresh key, a mock DeepSeek that accepts
 * only that key, and, given startLLM, the agent's mock model API started with llmOptions. All
 * are closed when the test t ends.
 */
export async function startScene(t, name, startLLM, llmOptions) {
  const sb = makeSandbox(name)
  const key = randomKey()
  const ds = await startMockDeepSeek({ apiKey: key })
  const llm = startLLM ? await startLLM(llmOptions) : null
  t.after(async () => {
    await llm?.close()
    await ds.close()
    sb.cleanup()
  })
  return { sb, key, ds, llm }
}

/**
 * Runs an agent in its own process group, stdin closed, and kills the whole group (the agent
 * and every MCP server it started) when it ends or after timeoutMs.
 * Resolves { code, signal, stdout, stderr, timedOut, ms }.
 */
export function runAgent(command, args, { cwd, env, timeoutMs = 90000 }) {
  const started = Date.now()
  // HOSTS_STRACE_DIR=/dir: record every connect() of the agent and its children there (the
  // README's no-network check: `grep -h connect /dir/* | grep -v -e AF_UNIX -e 127.0.0.1`).
  if (process.env.HOSTS_STRACE_DIR) {
    const log = join(process.env.HOSTS_STRACE_DIR, `${command.split("/").pop()}-${started}-${Math.random().toString(36).slice(2, 8)}.log`)
    args = ["-f", "-qq", "-e", "trace=connect,sendto", "-o", log, command, ...args]
    command = "strace"
  }
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true })
    let stdout = ""
    let stderr = ""
    let timedOut = false
    child.stdout.setEncoding("utf8")
    child.stderr.setEncoding("utf8")
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const killGroup = (sig) => {
      try {
        process.kill(-child.pid, sig)
      } catch {}
    }
    const timer = setTimeout(() => {
      timedOut = true
      killGroup("SIGKILL")
    }, timeoutMs)
    child.on("error", (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      killGroup("SIGKILL") // MCP servers or helpers the agent left behind
      resolvePromise({ code, signal, stdout, stderr, timedOut, ms: Date.now() - started })
    })
  })
}

/** { relativePath: Buffer } for every file under dir: a snapshot to compare byte for byte. */
export function snapshotTree(dir) {
  const out = {}
  for (const p of walk(dir)) out[relative(dir, p)] = readFileSync(p)
  return out
}

/** Parses newline-delimited JSON output, skipping lines that are not JSON. */
export function jsonLines(text) {
  const out = []
  for (const line of text.split("\n")) {
    const t = line.trim()
    if (!t.startsWith("{")) continue
    try {
      out.push(JSON.parse(t))
    } catch {}
  }
  return out
}
