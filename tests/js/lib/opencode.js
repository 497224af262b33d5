// Run the REAL OpenCode 1.18.33 (tests/js/node_modules/.bin/opencode) against the mock LLM,
// fully sandboxed: HOME and every XDG dir point into a scratch directory, nothing phones home.
//
//   const run = await runOpenCode({
//     turns: [{ tool: "echo_test", args: { text: "hi" } }, { text: "done" }],
//     globalConfig: { plugin: [["./vendor/echo-plugin", { x: 1 }]] },   // or null
//     projectConfig: { plugin: [...] },                                  // merged over the provider block
//     vendor: [{ from: fixtureDir, to: "global:vendor/echo-plugin" }],  // or "project:..."
//     env: { DEEPSEEK_API_KEY: "k" },
//   })
//   run.code, run.events (parsed --format json lines), run.toolUses (completed tool parts),
//   run.requests (mock LLM request bodies), run.toolResults ({tool_call_id, content} sent back
//   to the model), run.stdout, run.stderr, run.durationMs, run.dirs, await run.cleanup()
//
// What the recipe needs (measured; see tests/js/README.md):
//   - A provider "mock" using "@ai-sdk/openai-compatible" (bundled in the binary: nothing is
//     downloaded for it) with options.baseURL at the mock LLM and a model "m".
//   - OPENCODE_DISABLE_MODELS_FETCH=1 (no models.dev fetch), OPENCODE_DISABLE_AUTOUPDATE=1,
//     OPENCODE_DISABLE_LSP_DOWNLOAD=1, OPENCODE_DISABLE_SHARE=1, OPENCODE_DISABLE_CLAUDE_CODE=1,
//     OPENCODE_DISABLE_EXTERNAL_SKILLS=1.
//   - When external plugins are configured, OpenCode first waits for a dependency install
//     (`@opencode-ai/plugin`, via an embedded npm Arborist) in every config dir (the global
//     one and each `.opencode/`). It is skipped when the dir has `node_modules/` and a
//     package-lock.json whose root already lists every package.json dependency; we seed
//     exactly that (seedConfigDir), so runs never touch the network. `seedDeps: false` lets
//     OpenCode do the real install (needs the npm registry, ~15 s).
import { spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

import { startMockLLM } from "./mock-llm.js"

const here = dirname(fileURLToPath(import.meta.url))
export const OPENCODE_BIN = resolve(here, "..", "node_modules", ".bin", "opencode")
export const OPENCODE_VERSION = "1.18.33"

export function openCodeAvailable() {
  return existsSync(OPENCODE_BIN)
}

/** Environment that keeps OpenCode off the network and out of the user's home. */
export function sandboxEnv(root) {
  const home = join(root, "home")
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    TMPDIR: join(root, "tmp"),
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
    OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
  }
}

/**
 * Make OpenCode's per-config-dir dependency check ("Npm.install": node_modules exists and
 * package-lock.json's root lists every dependency) pass without installing anything.
 */
export function seedConfigDir(dir) {
  mkdirSync(join(dir, "node_modules"), { recursive: true })
  const deps = { "@opencode-ai/plugin": OPENCODE_VERSION }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ dependencies: deps }, null, 2) + "\n")
  writeFileSync(
    join(dir, "package-lock.json"),
    JSON.stringify({ name: "opencode-config", lockfileVersion: 3, requires: true, packages: { "": { dependencies: deps } } }, null, 2) + "\n",
  )
}

export function mockProviderConfig(baseURL) {
  return {
    mock: {
      npm: "@ai-sdk/openai-compatible",
      name: "Mock",
      options: { baseURL, apiKey: "mock-key" },
      models: { m: { name: "m", tool_call: true } },
    },
  }
}

function parseEvents(stdout) {
  const events = []
  for (const line of stdout.split("\n")) {
    const t = line.trim()
    if (!t.startsWith("{")) continue
    try {
      events.push(JSON.parse(t))
    } catch {
      // not an event line
    }
  }
  return events
}

/**
 * @param {object} o
 * @param {Array} o.turns                mock LLM script (see mock-llm.js)
 * @param {string} [o.prompt]
 * @param {object|null} [o.globalConfig]  written to $XDG_CONFIG_HOME/opencode/<globalConfigName>
 * @param {string} [o.globalConfigName]   "opencode.json" (default) or "opencode.jsonc"
 * @param {object} [o.projectConfig]      merged over { model, provider } in <project>/opencode.json
 * @param {"project"|"global"} [o.providerIn]  where the mock provider is declared (default project)
 * @param {{from: string, to: string}[]} [o.vendor]  copy directories; `to` is "global:<rel>" or "project:<rel>"
 * @param {Record<string,string>} [o.env] extra environment
 * @param {boolean} [o.seedDeps]          seed config dirs so no npm install happens (default true)
 * @param {boolean} [o.gitInit]           make the project a git repo (default false)
 * @param {number} [o.timeoutMs]
 * @param {string[]} [o.extraArgs]
 * @param {string} [o.cwd]               run from this directory relative to the project (default ".")
 * @param {string} [o.root]              use this existing sandbox root (sandboxEnv(root) layout, e.g.
 *                                       prepared by an installer) instead of a fresh one; it is
 *                                       left in place by cleanup()
 */
export async function runOpenCode(o = {}) {
  const root = o.root ?? mkdtempSync(join(tmpdir(), "oc-run-"))
  const env = { ...sandboxEnv(root), ...(o.env ?? {}) }
  const configDir = join(env.XDG_CONFIG_HOME, "opencode")
  const project = join(root, "project")
  for (const d of [env.HOME, configDir, env.XDG_DATA_HOME, env.XDG_CACHE_HOME, env.XDG_STATE_HOME, env.TMPDIR, project]) {
    mkdirSync(d, { recursive: true })
  }
  const llm = await startMockLLM({ turns: o.turns ?? [{ text: "ok" }] })

  const cleanup = async () => {
    await llm.close()
    if (!o.keep && !o.root) rmSync(root, { recursive: true, force: true })
  }

  try {
    if (o.seedDeps !== false) seedConfigDir(configDir)
    for (const v of o.vendor ?? []) {
      const [scope, rel] = v.to.split(":")
      const base = scope === "global" ? configDir : project
      cpSync(v.from, join(base, rel), { recursive: true })
    }
    const provider = mockProviderConfig(llm.baseURL)
    const providerIn = o.providerIn ?? "project"
    if (o.globalConfig !== null && (o.globalConfig || providerIn === "global")) {
      const g = { $schema: "https://opencode.ai/config.json", ...(o.globalConfig ?? {}) }
      if (providerIn === "global") Object.assign(g, { model: "mock/m", provider })
      writeFileSync(join(configDir, o.globalConfigName ?? "opencode.json"), JSON.stringify(g, null, 2) + "\n")
    }
    const p = { $schema: "https://opencode.ai/config.json", ...(o.projectConfig ?? {}) }
    if (providerIn === "project") Object.assign(p, { model: "mock/m", provider })
    writeFileSync(join(project, "opencode.json"), JSON.stringify(p, null, 2) + "\n")
    if (o.gitInit) {
      await runProcess("git", ["init", "-q", "."], { cwd: project, env, timeoutMs: 20_000 })
    }

    const args = ["run", "--model", "mock/m", "--format", "json", ...(o.extraArgs ?? []), o.prompt ?? "Use the tools."]
    const t0 = performance.now()
    const cwd = join(project, o.cwd ?? ".")
    mkdirSync(cwd, { recursive: true })
    const r = await runProcess(OPENCODE_BIN, args, { cwd, env, timeoutMs: o.timeoutMs ?? 120_000 })
    const durationMs = Math.round(performance.now() - t0)
    const events = parseEvents(r.stdout)
    const toolUses = events.filter((e) => e.type === "tool_use").map((e) => e.part)
    return {
      code: r.code,
      signal: r.signal,
      timedOut: r.timedOut,
      stdout: r.stdout,
      stderr: r.stderr,
      durationMs,
      events,
      toolUses,
      text: events.filter((e) => e.type === "text").map((e) => e.part.text).join(""),
      requests: llm.requests,
      turnRequests: llm.turnRequests,
      toolResults: llm.toolResults(),
      dirs: { root, home: env.HOME, configDir, project },
      cleanup,
    }
  } catch (err) {
    await cleanup()
    throw err
  }
}

function runProcess(cmd, args, { cwd, env, timeoutMs }) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true })
    let stdout = ""
    let stderr = ""
    let timedOut = false
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c))
    child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c))
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(-child.pid, "SIGKILL") // the whole group this call started
      } catch {
        child.kill("SIGKILL")
      }
    }, timeoutMs)
    child.on("error", (err) => {
      clearTimeout(timer)
      reject(err)
    })
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      resolvePromise({ code, signal, stdout, stderr, timedOut })
    })
  })
}
