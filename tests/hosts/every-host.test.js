// Every host at once, for real: one scratch HOME holding the user's own configs for the real
// Codex, Claude Code, Gemini CLI, Pi (with pi-mcp-adapter), Copilot CLI, Continue CLI, Cline CLI,
// Kilo CLI, Qwen Code and OpenCode 1.18.33, all on PATH, and Crush's config directory;
// one `make install` (HOST=auto) installs into every one of them on its first run; each host's
// own listing shows our server; one `make uninstall` puts every file back byte for byte.
//
// Needs tests/hosts/node_modules (make hosts-deps) and tests/js/node_modules (make js-deps, for
// OpenCode 1.18.33): make test-hosts installs both. ~70-110 s on 2 busy cores, most of it the
// agents starting (Gemini CLI ~13 s, Pi ~10 s with a warm jiti cache, OpenCode ~15 s).
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, statSync, writeFileSync } from "node:fs"
import { basename, delimiter, dirname, join, relative } from "node:path"
import { test } from "node:test"
import { installableFiles } from "../js/lib/e2e.js"
import { startMockDeepSeek } from "../js/lib/mock-deepseek.js"
import { OPENCODE_BIN, runOpenCode, sandboxEnv, seedConfigDir } from "../js/lib/opencode.js"
import { startMockMessages } from "./lib/mock-messages.js"
import { BIN_DIR, HOSTS_DIR, REPO, filesContaining, makeSandbox, randomKey, runAgent } from "./lib/sandbox.js"

const NAME = "deepseek-web-retrieval"
const ADAPTER_DIR = join(HOSTS_DIR, "node_modules", "pi-mcp-adapter")
// The same jiti cache as pi.test.js (outside HOME: Pi compiles the adapter there once).
const PI_TMP = join(HOSTS_DIR, "node_modules", ".cache", "pi-tmp")

/**
 * The user's configs before anything is installed, relative to HOME: a few settings of their
 * own, another MCP server or plugin beside ours, comments where the format has them, and the
 * switches that keep each host off the network (README.md, "No network").
 */
function userConfigs({ llm }) {
  return {
    ".codex/config.toml": `# My Codex settings; keep this comment.
model = "gpt-5-codex"
approval_policy = "on-request"
check_for_update_on_startup = false

# A server I already use.
[mcp_servers.other]
command = "true"
args = ["--quiet"]

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"
trace_exporter = "none"
metrics_exporter = "none"

[features]
plugins = false
apps = false
`,
    // Claude Code's own file, with another user-scope server; Claude Code adds its own keys on
    // its first run, which the test does before the snapshot (as claude.test.js does).
    ".claude.json": JSON.stringify({ numStartups: 12, hasCompletedOnboarding: true, theme: "dark", mcpServers: { other: { type: "stdio", command: "true", args: [] } } }, null, 2) + "\n",
    ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Bash(go test:*)"] }, includeCoAuthoredBy: false }, null, 2) + "\n",
    // Gemini CLI reads settings.json with comments.
    ".gemini/settings.json": `{
  // My Gemini settings; keep this comment.
  "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false, "vimMode": true },
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false },
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "mcpServers": {
    "other": { "command": "true", "args": [] }
  }
}
`,
    // Pi: the adapter listed as a package (a local path, as pi.test.js does, so init sees it
    // installed and Pi loads it), and a model provider "mock" at the loopback Messages mock.
    ".pi/agent/settings.json": JSON.stringify({ packages: [ADAPTER_DIR], defaultThinkingLevel: "off" }, null, 2) + "\n",
    ".pi/agent/models.json":
      JSON.stringify(
        {
          providers: {
            mock: {
              baseUrl: llm.baseURL,
              api: "anthropic-messages",
              apiKey: "mock-model-key",
              models: [{ id: "m", name: "Mock", reasoning: false, input: ["text"], contextWindow: 100000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
            },
          },
        },
        null,
        2,
      ) + "\n",
    // Copilot CLI: the file as `copilot mcp add` leaves it, with another server.
    ".copilot/mcp-config.json": JSON.stringify({ mcpServers: { other: { tools: ["*"], type: "local", command: "true", args: [] } } }, null, 2) + "\n",
    // Continue: its YAML config with a comment and another server.
    ".continue/config.yaml": `name: Local Config
version: 1.0.0
schema: v1
# My Continue settings; keep this comment.
mcpServers:
  - name: other
    command: "true"
`,
    // Qwen Code: its settings.json with a comment and another server, and the "$version" it
    // adds itself to a file it loads.
    ".qwen/settings.json": `{
  // My Qwen settings; keep this comment.
  "mcpServers": {
    "other": { "command": "true", "args": [] }
  },
  "$version": 4
}
`,
    // Kilo: its kilo.jsonc with a comment and another (disabled) server; Kilo is run once before
    // the snapshot (its first start adds "permission" and a .gitignore, as for any user).
    ".config/kilo/kilo.jsonc": `{
  "$schema": "https://app.kilo.ai/config.json",
  // My Kilo settings; keep this comment.
  "mcp": {
    "other": { "type": "local", "command": ["true"], "enabled": false },
  },
}
`,
    // Cline CLI: the file as \`cline mcp add other --yes -- true\` leaves it.
    ".cline/data/settings/cline_mcp_settings.json": JSON.stringify({ mcpServers: { other: { transport: { type: "stdio", command: "true", args: [] } } } }, null, 2),
    // Crush (not installable here: its npm package downloads the binary): the config directory
    // alone makes --host auto find it.
    ".config/crush/crush.json": JSON.stringify({ $schema: "https://charm.land/crush.json", options: { tui: { compact_mode: true } } }, null, 2) + "\n",
    // OpenCode 1.x: comments, a trailing comma, another plugin (a local one, vendored beside
    // ours by the test: a package name would make OpenCode download it).
    ".config/opencode/opencode.jsonc": `{
  "$schema": "https://opencode.ai/config.json",
  // My OpenCode settings; keep this comment.
  "plugin": [
    ["./vendor/echo-plugin", { "x": 1 }], // a plugin I already use
  ],
  "autoupdate": false,
}
`,
  }
}

// What each host's plan is called in init's and uninstall's output ("  host        <label>").
const LABELS = {
  opencode1: 'OpenCode 1.x ("plugin" key)',
  codex: "Codex ([mcp_servers] in config.toml)",
  claude: "Claude Code (mcpServers)",
  gemini: "Gemini CLI (mcpServers in settings.json)",
  pi: "Pi (pi-mcp-adapter mcp.json)",
  cursor: "Cursor (mcp.json)",
  cline: "Cline (cline_mcp_settings.json)",
  continue: "Continue (mcpServers in config.yaml)",
  copilot: "GitHub Copilot CLI (mcpServers)",
  crush: "Crush (mcp in crush.json)",
  kilo: "Kilo Code (mcp in kilo.jsonc)",
  qwen: "Qwen Code (mcpServers in settings.json)",
}

// The config files init edits in place (each existed before, each must come back byte for
// byte); Pi's mcp.json (and Cursor's, when detected) is created, so it is among our paths.
const EDITED = [
  ".claude.json",
  ".cline/data/settings/cline_mcp_settings.json",
  ".codex/config.toml",
  ".config/crush/crush.json",
  ".config/kilo/kilo.jsonc",
  ".config/opencode/opencode.jsonc",
  ".continue/config.yaml",
  ".copilot/mcp-config.json",
  ".gemini/settings.json",
  ".qwen/settings.json",
]

const STATE = `.local/state/${NAME}`
const TEMP_MARKER = `.${NAME}.tmp` // install.TempMarker (".deepseek-web-retrieval.tmp-") and the Makefile's ".deepseek-web-retrieval.tmp"

/** Our paths under HOME: what init and make install may create, and uninstall must remove. */
const ours = (p) =>
  p === `.local/bin/${NAME}` ||
  p === STATE ||
  p.startsWith(`${STATE}/`) ||
  p.startsWith(`.config/opencode/vendor/${NAME}`) ||
  p === ".pi/agent/mcp.json" ||
  p === ".cursor" ||
  p === ".cursor/mcp.json" ||
  basename(p).includes(TEMP_MARKER)

/**
 * What else appears under HOME, none of it a config and none of it ours, so uninstall leaves it
 * (measured with the pinned versions; a path here that our installer wrote would still fail the
 * `ours` checks):
 *   - the hosts' own logs, caches, sessions and bookkeeping, written while they list our server
 *     or (OpenCode) while init asks `opencode --version`: Claude Code's MCP logs
 *     (.cache/claude-cli-nodejs/<project>/mcp-logs-<server>/), Codex's arg0 helper dir
 *     (.codex/tmp/), Gemini CLI's per-project history/tmp dirs and projects.json (and its
 *     projects.json.lock, which a gemini process leaves when it exits holding it), Pi's auth.json
 *     and session, pi-mcp-adapter's tool cache (mcp-cache.json), OpenCode's .gitignore in its
 *     config dir, its cache, data (log, database) and state dirs; Copilot CLI's unpacked
 *     JavaScript (.cache/copilot/pkg/, on its first run in a HOME); Kilo's database, logs,
 *     caches and the marker and .gitignore of its first start (.local/share/kilo/ and the like);
 *     Qwen Code's own files beside its settings (.qwen/: settings.json is checked by name, as
 *     every config in EDITED is, whatever this list says);
 *   - Go's telemetry counters (.config/go/telemetry/): the go command that make install's and
 *     make uninstall's build step (the `cli` target) runs writes them under $XDG_CONFIG_HOME;
 *     no setting but a file there turns that off.
 */
const HOST_OWN = [
  ".cache/claude-cli-nodejs/",
  ".codex/tmp/",
  ".gemini/history/",
  ".gemini/tmp/",
  ".gemini/projects.json",
  ".gemini/projects.json.lock",
  ".pi/agent/auth.json",
  ".pi/agent/mcp-cache.json",
  ".pi/agent/sessions/",
  ".config/opencode/.gitignore",
  ".cache/opencode/",
  ".local/share/opencode/",
  ".local/state/opencode/",
  ".config/go/telemetry/",
  ".cache/copilot/",
  ".local/share/kilo/",
  ".local/state/kilo/",
  ".cache/kilo/",
  ".config/kilo/.gitignore",
  ".config/kilo/.bash-permission-migrated",
  ".qwen/",
]
const hostOwn = (p) => HOST_OWN.some((o) => p === o.replace(/\/$/, "") || (o.endsWith("/") && p.startsWith(o)))
/** A directory that holds (or is) a host's own path: .local, .local/share, .cache, … */
const hostOwnDir = (d) => hostOwn(d) || HOST_OWN.some((o) => o.startsWith(`${d}/`))

/**
 * Everything under dir: { files: {rel: Buffer}, dirs: Set(rel) }. A symbolic link is recorded
 * as a file holding "-> target".
 */
function snapshot(dir) {
  const s = { files: {}, dirs: new Set() }
  const visit = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      const rel = relative(dir, p)
      if (e.isSymbolicLink()) s.files[rel] = Buffer.from(`-> ${readlinkSync(p)}`)
      else if (e.isDirectory()) {
        s.dirs.add(rel)
        visit(p)
      } else s.files[rel] = readFileSync(p)
    }
  }
  visit(dir)
  return s
}

/** What changed from snapshot a to b. */
function diff(a, b) {
  const same = (p) => Buffer.compare(a.files[p], b.files[p]) === 0
  return {
    created: Object.keys(b.files).filter((p) => !(p in a.files)).sort(),
    changed: Object.keys(b.files).filter((p) => p in a.files && !same(p)).sort(),
    removed: Object.keys(a.files).filter((p) => !(p in b.files)).sort(),
    dirsCreated: [...b.dirs].filter((d) => !a.dirs.has(d)).sort(),
    dirsRemoved: [...a.dirs].filter((d) => !b.dirs.has(d)).sort(),
  }
}

/** The labels of the plans a make run printed as applied, in order; asserts nothing failed. */
function appliedHosts(target, cmd, r) {
  const out = r.stdout + r.stderr
  assert.equal(r.code, 0, `make ${target} failed:\n${out}`)
  assert.doesNotMatch(out, /failed|nothing was applied|interrupted|changed since the plan/, out)
  const blocks = out.split(`deepseek-web-retrieval ${cmd}: applied.\n`).slice(1)
  return blocks.map((b) => b.match(/^ {2}host {8}(.+)$/m)?.[1])
}

/** True when a program of this name is on PATH (init --host auto would detect its host). */
function onPath(PATH, names) {
  return PATH.split(delimiter).some((d) =>
    names.some((n) => {
      try {
        return statSync(join(d, n)).isFile()
      } catch {
        return false
      }
    }),
  )
}

test("every host at once: make install succeeds on its first run, each host lists our server, make uninstall restores every file", { timeout: 300_000 }, async (t) => {
  for (const [what, p] of [
    ["the agents (make hosts-deps)", join(BIN_DIR, "codex")],
    ["pi-mcp-adapter (make hosts-deps)", ADAPTER_DIR],
    ["OpenCode 1.18.33 (make js-deps)", OPENCODE_BIN],
  ]) {
    assert.ok(existsSync(p), `${what} not installed: ${p}`)
  }
  const sb = makeSandbox("every-host")
  const key = randomKey()
  const ds = await startMockDeepSeek({ apiKey: key })
  // Pi's model: it calls the adapter's own listing (its `mcp` proxy tool) twice, as pi.test.js.
  const llm = await startMockMessages({ turns: [{ call: { name: "mcp", args: {} } }, { call: { name: "mcp", args: { server: NAME } } }, { text: "Listed." }] })
  t.after(async () => {
    await llm.close()
    await ds.close()
    sb.cleanup()
  })
  mkdirSync(PI_TMP, { recursive: true })

  const bindir = join(sb.home, ".local", "bin")
  const installed = join(bindir, NAME)
  // Every host on PATH, as for a user who has them all: the four agents, OpenCode 1.18.33 (init
  // asks it for its version and picks the 1.x "plugin" key), and ~/.local/bin.
  const PATH = [BIN_DIR, dirname(OPENCODE_BIN), bindir, process.env.PATH].join(delimiter)
  // Cline, Continue (cn), Copilot CLI, Kilo and Qwen Code are on PATH too; Crush is found by its
  // config directory. --host auto plans in the registry's order.
  const hosts = ["opencode1", "codex", "claude", "gemini", "pi", ...(onPath(PATH, ["cursor", "cursor-agent"]) ? ["cursor"] : []), "cline", "continue", "copilot", "crush", "kilo", "qwen"]
  // The environment of every run: the scratch HOME, PATH, OpenCode's no-network switches
  // (tests/js/lib/opencode.js) and the key, which each host passes on to our server (init never
  // writes it). Each agent adds its own switches (README.md, "No network").
  const ocSwitches = Object.fromEntries(Object.entries(sandboxEnv(sb.root)).filter(([k]) => k.startsWith("OPENCODE_")))
  const env = sb.env({ PATH, ...ocSwitches, DEEPSEEK_API_KEY: key })
  const run = (cmd, args, extra = {}, timeoutMs = 90_000) => runAgent(cmd, args, { cwd: sb.project, env: { ...env, ...extra }, timeoutMs })
  const claudeEnv = {
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    ANTHROPIC_API_KEY: "mock-model-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
  }
  const geminiEnv = { GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9", GEMINI_API_KEY: "mock-model-key", GEMINI_CLI_TRUST_WORKSPACE: "true" }
  const piEnv = { PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", TMPDIR: PI_TMP }

  // The user's HOME: their configs, the plugin their OpenCode config names, and what OpenCode
  // 1.18.33 writes into its config dir on a first run (its plugin SDK's package.json, lock and
  // node_modules/: seeded as tests/js/lib/opencode.js does, so it installs nothing).
  for (const [rel, text] of Object.entries(userConfigs({ llm }))) {
    mkdirSync(dirname(join(sb.home, rel)), { recursive: true })
    writeFileSync(join(sb.home, rel), text)
  }
  const ocDir = join(sb.home, ".config", "opencode")
  cpSync(join(REPO, "tests", "js", "fixtures", "echo-plugin"), join(ocDir, "vendor", "echo-plugin"), { recursive: true })
  seedConfigDir(ocDir)
  // Claude Code adds its own keys to ~/.claude.json on its first run; a user who installs has
  // run it before (as in claude.test.js).
  const first = await run(join(BIN_DIR, "claude"), ["mcp", "list"], claudeEnv)
  assert.equal(first.code, 0, first.stderr)
  // So has Kilo (its first start's one-time changes to its config happen here).
  const kiloEnv = { KILO_DISABLE_AUTOUPDATE: "1", KILO_DISABLE_MODELS_FETCH: "1" }
  const kiloFirst = await run(join(BIN_DIR, "kilo"), ["mcp", "list"], kiloEnv)
  assert.equal(kiloFirst.code, 0, kiloFirst.stderr)

  const s0 = snapshot(sb.home)

  // make install, once, from the repository, as a user runs it (HOST=auto), with the CLI and
  // the module built into the scratch root (the checkout is never rewritten) and the caller's
  // Go caches (a scratch HOME would otherwise mean a cold build). --base-url keeps every server
  // on the loopback mock DeepSeek.
  const goEnv = JSON.parse(execFileSync("go", ["env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN"], { encoding: "utf8" }))
  if (!goEnv.GOFLAGS.split(/\s+/).includes("-trimpath")) goEnv.GOFLAGS = `${goEnv.GOFLAGS} -trimpath`.trim()
  const make = (target) =>
    run(
      "make",
      ["-C", REPO, "--no-print-directory", target, `WASM=${join(sb.root, "build", "core.wasm")}`, `CLI=${join(sb.root, "build", NAME)}`, `BINDIR=${bindir}`, "HOST=auto", `INSTALL_FLAGS=--base-url ${ds.baseURL}`],
      Object.fromEntries(Object.entries(goEnv).filter(([, v]) => v !== "")),
      240_000,
    )

  const inst = await make("install")
  assert.deepEqual(appliedHosts("install", "init", inst), hosts.map((h) => LABELS[h]), inst.stdout + inst.stderr)
  assert.match(inst.stderr, new RegExp(`--host auto: ${OPENCODE_BIN.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is OpenCode 1\\.18\\.33; using --host opencode1`))
  const s1 = snapshot(sb.home)
  const installDiff = diff(s0, s1)
  // init edited exactly the user's configs, and every file it created is one of ours.
  assert.deepEqual(installDiff.changed, EDITED)
  assert.deepEqual(installDiff.removed, [])
  const vendor = `.config/opencode/vendor/${NAME}`
  const mcpHosts = hosts.filter((h) => h !== "opencode1")
  assert.deepEqual(
    installDiff.created.filter((p) => !hostOwn(p)).map((p) => p.replace(/^(.*\/installs\/[a-z0-9]+-global-)[0-9a-f]{16}\.json$/, "$1<hash>.json")),
    [
      ...(hosts.includes("cursor") ? [".cursor/mcp.json"] : []),
      ...[...installableFiles(), "plan.json"].sort().map((f) => `${vendor}/${f}`),
      `${vendor}.install.json`,
      `.local/bin/${NAME}`,
      ...mcpHosts.sort().map((h) => `${STATE}/installs/${h}-global-<hash>.json`),
      ".pi/agent/mcp.json",
    ].sort(),
  )
  // The run ended: no journal, no temporary file; and the key is in no file.
  assert.ok(!(`${STATE}/journal.json` in s1.files), "journal left after a successful install")
  assert.deepEqual(Object.keys(s1.files).filter((p) => basename(p).includes(TEMP_MARKER)), [])
  assert.deepEqual(filesContaining(sb.home, key), [], "the key was written under HOME")

  // Each host's own listing shows our server, started from the installed binary.
  const ARGS = ["mcp", "--search", "preferred", "--fetch", "optional", "--base-url", ds.baseURL]

  // Codex lists its config (it does not connect): ours beside the user's server.
  const codex = await run(join(BIN_DIR, "codex"), ["mcp", "list", "--json"])
  assert.equal(codex.code, 0, codex.stderr)
  const codexServers = JSON.parse(codex.stdout)
  assert.deepEqual(codexServers.map((s) => s.name).sort(), [NAME, "other"])
  const codexOurs = codexServers.find((s) => s.name === NAME)
  assert.equal(codexOurs.enabled, true)
  assert.deepEqual({ command: codexOurs.transport.command, args: codexOurs.transport.args, env_vars: codexOurs.transport.env_vars }, { command: installed, args: ARGS, env_vars: ["DEEPSEEK_API_KEY"] })

  // Claude Code connects to each server (the user's "other", `true`, fails to; ours connects).
  const claude = await run(join(BIN_DIR, "claude"), ["mcp", "list"], claudeEnv)
  assert.equal(claude.code, 0, claude.stderr)
  assert.ok(claude.stdout.split("\n").includes(`${NAME}: ${installed} ${ARGS.join(" ")} - ✔ Connected`), claude.stdout)

  // Gemini CLI connects too, and prints the listing on stderr.
  const gemini = await run(join(BIN_DIR, "gemini"), ["mcp", "list"], geminiEnv)
  assert.equal(gemini.code, 0, gemini.stderr)
  assert.ok(gemini.stderr.split("\n").includes(`✓ ${NAME}: ${installed} ${ARGS.join(" ")} (stdio) - Connected`), gemini.stderr)

  // Pi: pi-mcp-adapter's own listing names the server, not its command; the one it connected
  // to is the entry init wrote.
  assert.deepEqual(JSON.parse(s1.files[".pi/agent/mcp.json"]).mcpServers[NAME], { command: installed, args: ARGS, directTools: true })
  // Pi: pi-mcp-adapter's own listing, through its `mcp` tool, called by the mock model.
  const pi = await run(join(BIN_DIR, "pi"), ["--offline", "--provider", "mock", "--model", "m", "--mode", "json", "-p", "List the MCP servers."], piEnv)
  assert.equal(pi.code, 0, pi.stderr)
  const piResults = llm.toolResults()
  assert.equal(piResults.length, 2, pi.stdout.slice(-2000))
  assert.match(piResults[0].content, new RegExp(`^MCP: 1/1 servers, 2 tools\n\n✓ ${NAME} \\(2 tools`))
  assert.match(piResults[1].content, new RegExp(`^${NAME} \\(2 tools\\):\n\n- ${NAME}_deepseek_fetch - Fetch one public web page.*\n- ${NAME}_deepseek_search - Search the web with DeepSeek`))

  // Copilot CLI lists its user file (it does not connect): ours beside the user's server.
  const copilotEnv = { COPILOT_PROVIDER_BASE_URL: "http://127.0.0.1:9", COPILOT_PROVIDER_TYPE: "anthropic", COPILOT_PROVIDER_API_KEY: "mock-model-key", COPILOT_MODEL: "claude-sonnet-4.5", COPILOT_AUTO_UPDATE: "false", COPILOT_OFFLINE: "true" }
  const copilot = await run(join(BIN_DIR, "copilot"), ["mcp", "list", "--json"], copilotEnv)
  assert.equal(copilot.code, 0, copilot.stderr)
  const copilotServers = JSON.parse(copilot.stdout).mcpServers
  assert.deepEqual(Object.keys(copilotServers).sort(), [NAME, "other"])
  assert.deepEqual({ command: copilotServers[NAME].command, args: copilotServers[NAME].args, env: copilotServers[NAME].env }, { command: installed, args: ARGS, env: { DEEPSEEK_API_KEY: "${DEEPSEEK_API_KEY}" } })

  // Continue CLI has no listing command: its config holds our item after the user's.
  const cont = s1.files[".continue/config.yaml"].toString()
  assert.ok(cont.startsWith(userConfigs({ llm })[".continue/config.yaml"]), cont)
  assert.match(cont, new RegExp(`- name: ${NAME}\n +command: ${installed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\n`))

  // Qwen Code and Kilo connect to each server they list.
  const qwen = await run(join(BIN_DIR, "qwen"), ["mcp", "list"])
  assert.equal(qwen.code, 0, qwen.stderr)
  assert.ok(qwen.stdout.includes(`${NAME}: ${installed} ${ARGS.join(" ")} (stdio) - Connected`), qwen.stdout)
  const kilo = await run(join(BIN_DIR, "kilo"), ["mcp", "list"], kiloEnv)
  assert.equal(kilo.code, 0, kilo.stderr)
  assert.match(kilo.stdout, new RegExp(`✓ ${NAME} .*connected`))
  assert.ok(kilo.stdout.includes(`${installed} ${ARGS.join(" ")}`), kilo.stdout)

  // Cline has no listing command, and Crush cannot run here: their files hold our entries.
  assert.deepEqual(JSON.parse(s1.files[".cline/data/settings/cline_mcp_settings.json"]).mcpServers[NAME], { transport: { type: "stdio", command: installed, args: ARGS } })
  assert.deepEqual(JSON.parse(s1.files[".config/crush/crush.json"]).mcp[NAME], { type: "stdio", command: installed, args: ARGS, env: { DEEPSEEK_API_KEY: "$DEEPSEEK_API_KEY" } })

  // OpenCode 1.18.33: a run against its mock model; the first request offers our tools beside
  // the user's plugin's.
  const oc = await runOpenCode({ root: sb.root, globalConfig: null, turns: [{ text: "ok" }], env: { DEEPSEEK_API_KEY: key } })
  try {
    assert.equal(oc.code, 0, oc.stderr.slice(-4000))
    const tools = oc.turnRequests[0].tools.map((x) => x.function.name)
    for (const name of ["deepseek_search", "deepseek_fetch", "echo_test"]) assert.ok(tools.includes(name), `${name} not offered by OpenCode: ${tools.join(",")}`)
  } finally {
    await oc.cleanup()
  }
  const s2 = snapshot(sb.home)
  // Listing changed no file the hosts or we had (the hosts only add their own logs and caches).
  const listDiff = diff(s1, s2)
  assert.deepEqual({ changed: listDiff.changed.filter((p) => !hostOwn(p) || EDITED.includes(p)), removed: listDiff.removed }, { changed: [], removed: [] })
  assert.deepEqual(listDiff.created.filter((p) => !hostOwn(p)), [])

  const un = await make("uninstall")
  assert.deepEqual(appliedHosts("uninstall", "uninstall", un), hosts.map((h) => LABELS[h]), un.stdout + un.stderr)
  const s3 = snapshot(sb.home)
  const all = diff(s0, s3)
  // Every file the user had is byte-identical (but the hosts' own databases and logs, which
  // their listings wrote), none is missing.
  for (const p of all.changed.filter((p) => !hostOwn(p) || EDITED.includes(p))) assert.fail(`${p} differs after uninstall:\n--- before\n${s0.files[p]}\n--- after\n${s3.files[p]}`)
  assert.deepEqual(all.removed, [])
  // Every file created since is the hosts' own (see HOST_OWN), none of ours: no binary, install
  // record, journal, vendored plugin, Pi mcp.json or temporary file is left.
  assert.deepEqual(all.created.filter((p) => !hostOwn(p) || ours(p)), [])
  assert.deepEqual(installDiff.created.filter((p) => p in s3.files && !hostOwn(p)), [])
  // Directories: ours are gone (the state dir, the vendored plugin's), and the others created
  // since hold (or are) the hosts' own paths, except BINDIR: make install's `mkdir -p` creates
  // ~/.local/bin, and make uninstall removes only the binary from it.
  assert.ok(!existsSync(join(sb.home, STATE)), `${STATE} left after uninstall`)
  assert.deepEqual(all.dirsCreated.filter((d) => ours(d) || d.startsWith(`${vendor}`) || !(hostOwnDir(d) || d === ".local/bin")), [])
  assert.deepEqual(all.dirsRemoved, [])
  assert.deepEqual(existsSync(bindir) ? readdirSync(bindir) : [], [])
})
