// `make install` / `make uninstall` and the CLI installer end to end, against a scratch HOME
// whose global opencode.jsonc already has comments and another plugin, then the REAL OpenCode
// 1.18.33 started on the result.
//
// What 1.18.33 does with the two config shapes (pinned here):
//   - `make install HOST=opencode` writes the OpenCode 2.x `plugins` key. 1.18.33 reads only
//     `plugin`: it logs "configuration compatibility diagnostic ... path=["plugins"] ...
//     Omitted native setting that cannot be represented in V1" and runs WITHOUT the plugin.
//   - `make install` (HOST=auto) asks the opencode on PATH for its version and, for 1.x,
//     writes the 1.x `plugin` key, which 1.18.33 loads.
// Slow (two builds and two OpenCode runs, ~30-60 s): skipped without node_modules or go.
import { after, before, test } from "node:test"
import assert from "node:assert/strict"
import { execFileSync, spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

import { PLUGIN_DIR, REPO, filesContaining, installableFiles, parseJSONC, randomKey, walk } from "./lib/e2e.js"
import { startMockDeepSeek } from "./lib/mock-deepseek.js"
import { OPENCODE_BIN, openCodeAvailable, runOpenCode, sandboxEnv, seedConfigDir } from "./lib/opencode.js"

const here = dirname(fileURLToPath(import.meta.url))
const NAME = "deepseek-web-retrieval"
const hasGo = spawnSync("go", ["version"]).status === 0
const skip = !openCodeAvailable() ? "opencode-ai not installed (cd tests/js && npm install)" : !hasGo ? "go not on PATH" : false
const T = { skip, timeout: 600_000 }

// The user's config before anything is installed: comments of both kinds, trailing commas,
// another 1.x plugin (vendored beside ours) and another 2.x plugin entry.
const ORIGINAL = `{
  "$schema": "https://opencode.ai/config.json",
  // My own settings: keep this comment.
  "plugin": [
    ["./vendor/echo-plugin", { "x": 1 }], // a plugin I already use
  ],
  /* a 2.x plugin entry, for when I upgrade */
  "plugins": ["opencode-example-plugin"],
  "autoupdate": false,
}
`

let root, env, configDir, cfgFile, bin, key, goEnv

before(() => {
  if (skip) return
  root = mkdtempSync(join(tmpdir(), "dwr-install-"))
  env = sandboxEnv(root)
  configDir = join(env.XDG_CONFIG_HOME, "opencode")
  cfgFile = join(configDir, "opencode.jsonc")
  for (const d of [configDir, env.XDG_DATA_HOME, env.XDG_CACHE_HOME, env.XDG_STATE_HOME, env.TMPDIR]) mkdirSync(d, { recursive: true })
  cpSync(join(here, "fixtures", "echo-plugin"), join(configDir, "vendor", "echo-plugin"), { recursive: true })
  writeFileSync(cfgFile, ORIGINAL)
  bin = join(root, "bin", NAME)
  key = randomKey()
  // The Go caches of the caller, so the scratch HOME does not mean a cold build.
  goEnv = JSON.parse(execFileSync("go", ["env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN"], { encoding: "utf8" }))
})

after(() => {
  if (root) rmSync(root, { recursive: true, force: true })
})

/** The installer's environment: the scratch HOME and XDG_CONFIG_HOME, the caller's Go setup. */
function installEnv() {
  const e = { ...env, ...Object.fromEntries(Object.entries(goEnv).filter(([, v]) => v !== "")), DEEPSEEK_API_KEY: key }
  // The pinned OpenCode first on PATH, as for a user who has it installed: HOST=auto asks it.
  e.PATH = `${dirname(OPENCODE_BIN)}:${e.PATH}`
  return e
}

/**
 * make <target> in the repository, with the built files going to the scratch root (WASM and
 * CLI overridden) so the test never rewrites the checkout; the CLI still embeds plugin/.
 */
function make(target, ...vars) {
  const r = spawnSync("make", ["-C", REPO, "--no-print-directory", target, `WASM=${join(root, "core.wasm")}`, `CLI=${bin}`, ...vars], {
    env: installEnv(),
    encoding: "utf8",
    timeout: 300_000,
  })
  assert.equal(r.status, 0, `make ${target} failed:\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

function cli(...args) {
  const r = spawnSync(bin, args, { env: installEnv(), encoding: "utf8", timeout: 60_000 })
  assert.equal(r.status, 0, `${NAME} ${args.join(" ")} failed:\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

function assertVendored() {
  const dir = join(configDir, "vendor", NAME)
  assert.deepEqual(readdirSync(dir).sort(), installableFiles())
  for (const f of installableFiles()) {
    assert.ok(readFileSync(join(dir, f)).equals(readFileSync(join(PLUGIN_DIR, f))), `${f} differs from plugin/${f}`)
  }
}

function assertUninstalled() {
  assert.equal(readFileSync(cfgFile, "utf8"), ORIGINAL, "config not byte-identical after uninstall")
  assert.ok(!existsSync(join(configDir, "vendor", NAME)), "vendored plugin left behind")
  assert.deepEqual(readdirSync(join(configDir, "vendor")), ["echo-plugin"])
}

function openCodeLog(run) {
  return walk(join(run.dirs.home, ".local", "share", "opencode", "log"))
    .map((f) => readFileSync(f, "utf8"))
    .join("\n")
}

test("make install HOST=opencode writes the 2.x `plugins` entry beside the user's; 1.18.33 omits that key; make uninstall restores the file", T, async () => {
  const out = make("install", "HOST=opencode")
  assert.match(out, /applied/)
  // The binary goes to a stable place MCP hosts can start it from, and make says where.
  const installed = join(env.HOME, ".local", "bin", NAME)
  assert.ok(out.includes(`installed ${installed}`), out)
  assert.ok(existsSync(installed), "binary not installed to ~/.local/bin")
  // OpenCode 1.18.33 is on PATH: the explicit 2.x shape is written, and the plan says it does not match.
  assert.match(out, /the opencode on PATH is 1\.18\.33 \(1\.x\), which reads only the "plugin" key/)
  const text = readFileSync(cfgFile, "utf8")
  for (const c of ["// My own settings: keep this comment.", "// a plugin I already use", "/* a 2.x plugin entry, for when I upgrade */"]) {
    assert.ok(text.includes(c), `comment lost: ${c}\n${text}`)
  }
  assert.ok(!text.includes(key), "the key was written to the config")
  const cfg = parseJSONC(text)
  assert.deepEqual(cfg.plugin, [["./vendor/echo-plugin", { x: 1 }]])
  assert.equal(cfg.autoupdate, false)
  assert.deepEqual(cfg.plugins, [
    "opencode-example-plugin",
    { package: `./vendor/${NAME}`, options: { search: "preferred", fetch: "optional" } },
  ])
  assertVendored()
  assert.ok(existsSync(join(configDir, "vendor", `${NAME}.install.json`)), "no install record")

  // The real OpenCode 1.18.33 on that config: it keeps the user's `plugin` entry working and
  // drops `plugins` with a warning in its log, so our tools are not there.
  const run = await runOpenCode({
    root,
    globalConfig: null,
    turns: [{ tool: "echo_test", args: { text: "hi" } }, { text: "done" }],
    env: { DEEPSEEK_API_KEY: key },
  })
  try {
    assert.equal(run.code, 0, run.stderr.slice(-4000))
    const tools = run.turnRequests[0].tools.map((t) => t.function.name)
    assert.ok(tools.includes("echo_test"), tools.join(","))
    assert.ok(!tools.includes("deepseek_search") && !tools.includes("deepseek_fetch"), tools.join(","))
    assert.match(openCodeLog(run), /configuration compatibility diagnostic".*path="\[\\"plugins\\"\]" kind=unsupported/)
  } finally {
    await run.cleanup()
  }
  // OpenCode itself did not touch the file.
  assert.equal(readFileSync(cfgFile, "utf8"), text)

  make("uninstall")
  assertUninstalled()
  assert.ok(!existsSync(join(env.HOME, ".local", "bin", NAME)), "make uninstall leaves the binary")
})

test("make install (HOST=auto finds OpenCode 1.18.33, writes the 1.x `plugin` key) → the real OpenCode loads the plugin from the installed location; uninstall restores the file", T, async () => {
  assert.ok(existsSync(bin), "the first test builds the CLI")
  const ds = await startMockDeepSeek({ apiKey: key })
  try {
    const out = make("install", `INSTALL_FLAGS=--base-url ${ds.baseURL} --fetch preferred`)
    assert.match(out, /applied/)
    const text = readFileSync(cfgFile, "utf8")
    assert.ok(text.includes("// a plugin I already use"), text)
    assert.ok(!text.includes(key), "the key was written to the config")
    const cfg = parseJSONC(text)
    assert.deepEqual(cfg.plugin, [
      ["./vendor/echo-plugin", { x: 1 }],
      [`./vendor/${NAME}`, { search: "preferred", fetch: "preferred", baseURL: ds.baseURL }],
    ])
    assert.deepEqual(cfg.plugins, ["opencode-example-plugin"])
    assertVendored()

    ds.enqueue("fetch", { json: { title: "Installed", content: "It works." } })
    const run = await runOpenCode({
      root,
      globalConfig: null,
      turns: [
        {
          toolCalls: [
            { id: "c_search", name: "deepseek_search", args: { query: "opencode plugins" } },
            { id: "c_fetch", name: "deepseek_fetch", args: { url: "https://opencode.ai/docs/plugins/" } },
            { id: "c_echo", name: "echo_test", args: { text: "still here" } },
          ],
        },
        { text: "done" },
      ],
      env: { DEEPSEEK_API_KEY: key },
    })
    try {
      assert.equal(run.code, 0, run.stderr.slice(-4000))
      const seen = Object.fromEntries(run.toolResults.map((r) => [r.tool_call_id, r.content]))
      assert.match(seen.c_search, /^1\. Effective Go\nhttps:\/\/go\.dev\/doc\/effective_go\n\[rerank 2\.4 · authority 4 · go\.dev\] · published 2024-01-15\n/)
      assert.equal(seen.c_fetch, "# Installed\n\nIt works.")
      assert.equal(seen.c_echo, 'echo:still here:{"x":1}')
      assert.equal(ds.searchRequests.length, 1)
      assert.equal(ds.fetchRequests.length, 1)
      // Nothing else in the sandbox could have served these tools: the only copy is the one
      // init vendored beside the config.
      assert.deepEqual(
        walk(root).filter((p) => p.endsWith("/server.js") && p.includes(NAME)),
        [join(configDir, "vendor", NAME, "server.js")],
      )
      assert.deepEqual(filesContaining(root, key), [], "key in a file under the sandbox")
      assert.ok(!run.stdout.includes(key) && !JSON.stringify(run.requests).includes(key))
    } finally {
      await run.cleanup()
    }

    cli("uninstall", "--scope", "global", "--yes")
    assertUninstalled()
  } finally {
    await ds.close()
  }
})

test("init --scope project in a Go module installs under .opencode/ (a root vendor/ would break go build); the real OpenCode loads it; uninstall removes what init wrote", T, async () => {
  assert.ok(existsSync(bin), "the first test builds the CLI")
  const ds = await startMockDeepSeek({ apiKey: key })
  const runRoot = mkdtempSync(join(tmpdir(), "dwr-goproj-"))
  const project = join(runRoot, "project")
  const dot = join(project, ".opencode")
  try {
    mkdirSync(project, { recursive: true })
    writeFileSync(join(project, "go.mod"), "module example.com/p\n\ngo 1.26\n")
    const out = cli("init", "--scope", "project", "--dir", project, "--yes", "--host", "opencode1", "--base-url", ds.baseURL)
    assert.match(out, /config dir +.*\.opencode/)
    assert.ok(!existsSync(join(project, "vendor")), "a vendor/ at the root of a Go module")
    assert.deepEqual(readdirSync(join(dot, "vendor", NAME)).sort(), installableFiles())
    assert.deepEqual(parseJSONC(readFileSync(join(dot, "opencode.jsonc"), "utf8")).plugin, [
      [`./vendor/${NAME}`, { search: "preferred", fetch: "optional", baseURL: ds.baseURL }],
    ])

    seedConfigDir(dot) // OpenCode would otherwise npm-install its plugin SDK into .opencode/
    const run = await runOpenCode({
      root: runRoot,
      globalConfig: null,
      turns: [{ tool: "deepseek_fetch", args: { url: "https://go.dev/doc/" } }, { text: "done" }],
      env: { DEEPSEEK_API_KEY: key },
    })
    try {
      assert.equal(run.code, 0, run.stderr.slice(-4000))
      const [result] = run.toolResults
      assert.equal(result.content, "# Example page\n\nFetched from https://go.dev/doc/.")
      assert.equal(ds.fetchRequests.length, 1)
    } finally {
      await run.cleanup()
    }

    for (const f of ["node_modules", "package.json", "package-lock.json"]) rmSync(join(dot, f), { recursive: true, force: true })
    // OpenCode itself writes into .opencode/: a .gitignore, and "$schema" into the config.
    // Uninstall removes exactly what init wrote and leaves those.
    cli("uninstall", "--scope", "project", "--dir", project, "--yes")
    assert.deepEqual(readdirSync(dot).sort(), [".gitignore", "opencode.jsonc"])
    assert.deepEqual(parseJSONC(readFileSync(join(dot, "opencode.jsonc"), "utf8")), { $schema: "https://opencode.ai/config.json" })
    assert.deepEqual(readdirSync(project).sort(), [".opencode", "go.mod", "opencode.json"])
  } finally {
    await ds.close()
    rmSync(runRoot, { recursive: true, force: true })
  }
})
