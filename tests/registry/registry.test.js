// The npm packages `make dist` writes, published to a local registry (verdaccio 6.8.0 on
// 127.0.0.1, no uplinks) and installed from it on a scratch HOME with no Go on PATH:
//   - npx -y deepseek-web-retrieval@VERSION init refuses its own _npx path; install puts the
//     binary in ~/.local/bin and the real Codex lists and runs our server from there;
//   - npm i -g: the launcher passes arguments, stdio, the exit code and signals through, and
//     DEEPSEEK_WEB_RETRIEVAL_BINARY runs another binary;
//   - --omit=optional, and a node_modules installed for another OS/CPU: the clear message; a
//     copy of the platform package elsewhere (a parent node_modules, NODE_PATH, ~/.node_modules)
//     is not run;
//   - install from npm writes "plugin": [["@deepseek-web-retrieval/opencode@VERSION", {...}]]
//     (--plugin-source npm, its default there); OpenCode 1.18.33 (tests/js) installs that spec
//     itself (only our scope mapped to the local registry) and runs deepseek_search and
//     deepseek_fetch;
//   - the plugin package, npm-installed and imported under Bun, loads its core.wasm, writes
//     its plan cache on the first start and registers from it on the second.
// It also checks what `make dist` wrote for all six platforms. DIST names that directory and
// CODEX_BIN the Codex of tests/hosts (make test-registry passes both).
import assert from "node:assert/strict"
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { after, before, describe, test } from "node:test"
import { fileURLToPath } from "node:url"
import { writeCodexHarness } from "../hosts/lib/codex-harness.js"
import { startMockResponses } from "../hosts/lib/mock-responses.js"
import { FETCH_URL, SEARCH_QUERY } from "../hosts/lib/reference.js"
import { jsonLines, runAgent, startScene } from "../hosts/lib/sandbox.js"
import { startMockDeepSeek } from "../js/lib/mock-deepseek.js"
import { runOpenCode } from "../js/lib/opencode.js"

const here = dirname(fileURLToPath(import.meta.url))
const REPO = resolve(here, "..", "..")
const DIST = resolve(process.env.DIST ?? join(REPO, "dist"))
const BUN = join(REPO, "tests", "js", "node_modules", ".bin", "bun")
const CODEX = resolve(process.env.CODEX_BIN ?? join(REPO, "tests", "hosts", "node_modules", ".bin", "codex"))
const NAMES = JSON.parse(readFileSync(join(REPO, "npm", "packages.json"), "utf8"))
const LAUNCHER = NAMES.launcher
const SERVER = "deepseek-web-retrieval"
const NAMESPACE = "mcp__deepseek_web_retrieval"
// Node, npm and npx, and the system's tools; Go is not there (checked below).
const PATH = [dirname(process.execPath), "/usr/bin", "/bin"].join(":")
const PLATFORM = `${process.platform}-${process.arch}`

/** The version make dist stamped: from the launcher tarball's name. */
function distVersion() {
  const names = readdirSync(join(DIST, "npm"))
  const prefix = `${LAUNCHER}-`
  const launcher = names.filter((n) => n.startsWith(prefix) && /^\d/.test(n.slice(prefix.length)))
  assert.equal(launcher.length, 1, `one launcher tarball in ${DIST}/npm: ${names}`)
  return launcher[0].slice(prefix.length, -".tgz".length)
}
const VERSION = distVersion()
const SPEC = `${LAUNCHER}@${VERSION}`

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer()
    s.on("error", rej)
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address()
      s.close(() => res(port))
    })
  })
}

async function waitFor(url, ms) {
  const end = Date.now() + ms
  for (;;) {
    try {
      if ((await fetch(url)).ok) return
    } catch {}
    if (Date.now() > end) throw new Error(`${url} did not answer in ${ms} ms`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

let root, registry, verdaccio

before(async () => {
  root = mkdtempSync(join(tmpdir(), "dwr-registry-"))
  const port = await freePort()
  registry = `http://127.0.0.1:${port}/`
  const config = join(root, "verdaccio.yaml")
  writeFileSync(config, `storage: ${join(root, "storage")}
uplinks: {}
packages:
  '**':
    access: $all
    publish: $all
    unpublish: $all
log: { type: stdout, format: pretty, level: warn }
# A platform package is ~8 MB, sent base64 in JSON: past verdaccio's default 10 MB.
max_body_size: 64mb
`)
  verdaccio = spawn(process.execPath, [join(here, "node_modules", "verdaccio", "bin", "verdaccio"), "-c", config, "-l", `127.0.0.1:${port}`], { stdio: "ignore" })
  await waitFor(`${registry}-/ping`, 60000)
  // A throwaway user config: the registry and a dummy token, which verdaccio takes for
  // publishing with `publish: $all`.
  const npmrc = join(root, "publish.npmrc")
  writeFileSync(npmrc, `registry=${registry}\n//127.0.0.1:${port}/:_authToken=dummy-token\n`)
  // Every package, the launcher last (its optional dependencies first).
  const tarballs = readdirSync(join(DIST, "npm")).filter((n) => n.endsWith(".tgz"))
  tarballs.sort((a, b) => (a === `${LAUNCHER}-${VERSION}.tgz`) - (b === `${LAUNCHER}-${VERSION}.tgz`))
  assert.equal(tarballs.length, NAMES.platforms.length + 2, tarballs.join(", "))
  for (const t of tarballs) {
    execFileSync("npm", ["publish", join(DIST, "npm", t), "--userconfig", npmrc, "--registry", registry, "--access", "public", "--loglevel", "error"], {
      env: { ...process.env, npm_config_cache: join(root, "publish-cache") },
      stdio: ["ignore", "ignore", "inherit"],
    })
  }
})

after(() => {
  verdaccio?.kill("SIGTERM")
  if (root && process.env.KEEP_SCRATCH !== "1") rmSync(root, { recursive: true, force: true })
})

/** The environment of a user on the scratch home: only the local registry, no Go. */
function userEnv(sb, extra = {}) {
  writeFileSync(join(sb.home, ".npmrc"), `registry=${registry}\nupdate-notifier=false\nfund=false\naudit=false\n`)
  return sb.env({ PATH, ...extra })
}

function scratch(name) {
  const dir = mkdtempSync(join(root, `${name}-`))
  const home = join(dir, "home")
  mkdirSync(home, { recursive: true })
  return {
    root: dir,
    home,
    project: dir,
    env: (extra) => ({ PATH, HOME: home, TMPDIR: dir, LANG: "C.UTF-8", NO_COLOR: "1", CI: "1", NO_PROXY: "127.0.0.1,localhost", ...extra }),
  }
}

const run = (cmd, args, env, cwd, timeoutMs = 180000) => runAgent(cmd, args, { cwd, env, timeoutMs })

describe("the packages from a local registry", () => {
  test("there is no Go on the user's PATH", () => {
    const r = spawnSync("/bin/sh", ["-c", "command -v go"], { env: { PATH } })
    assert.notEqual(r.status, 0, `go found at ${r.stdout}`)
  })

  test("npx: init refuses the _npx path; install puts the binary in ~/.local/bin and the real Codex runs both tools through it", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "registry-npx", startMockResponses, {
      turns: [
        { call: { namespace: NAMESPACE, name: "deepseek_search", args: { query: SEARCH_QUERY } } },
        { call: { namespace: NAMESPACE, name: "deepseek_fetch", args: { url: FETCH_URL } } },
        { text: "Done." },
      ],
    })
    writeCodexHarness(sb, llm)
    const env = userEnv(sb, { MOCK_MODEL_KEY: "mock-model-key", DEEPSEEK_API_KEY: key })

    const refused = await run("npx", ["-y", SPEC, "init", "--host", "codex", "--yes"], env, sb.project)
    assert.equal(refused.code, 2, refused.stdout + refused.stderr)
    assert.match(refused.stderr, /\/_npx\/.*\/node_modules\/@deepseek-web-retrieval\/cli-[a-z0-9]+-[a-z0-9]+\/bin\/deepseek-web-retrieval is inside npx's cache \(_npx\), which npm empties/)
    assert.ok(refused.stderr.includes('Run "deepseek-web-retrieval install" instead (same flags)'), refused.stderr)

    const r = await run("npx", ["-y", SPEC, "install", "--host", "codex", "--search", "forced", "--fetch", "forced", "--base-url", ds.baseURL, "--yes"], env, sb.project)
    assert.equal(r.code, 0, r.stdout + r.stderr)
    const installed = join(sb.home, ".local", "bin", "deepseek-web-retrieval")
    assert.ok(r.stdout.includes(`installed ${installed}: MCP hosts start it from there`), r.stdout)
    const v = spawnSync(installed, ["--version"], { encoding: "utf8" })
    assert.match(v.stdout, new RegExp(`^deepseek-web-retrieval ${VERSION.replaceAll(".", "\\.")} \\(commit [0-9a-f]{40}, go[0-9.]+ ${process.platform === "win32" ? "windows" : process.platform}/`))

    const listed = await run(CODEX, ["mcp", "list", "--json"], env, sb.project, 30000)
    assert.equal(listed.code, 0, listed.stderr)
    const ours = JSON.parse(listed.stdout).find((s) => s.name === SERVER)
    assert.ok(ours, listed.stdout)
    assert.equal(ours.transport.command, installed)
    assert.doesNotMatch(ours.transport.command, /node_modules|_npx|[/]\.npm[/]/)
    assert.deepEqual(ours.transport.args.slice(0, 5), ["mcp", "--search", "forced", "--fetch", "forced"])

    const e = await run(CODEX, ["exec", "-c", `mcp_servers.${SERVER}.default_tools_approval_mode="approve"`, "--skip-git-repo-check", "--json", "Find tips for writing Go, then read the best page."], env, sb.project, 90000)
    assert.equal(e.code, 0, e.stderr)
    const calls = jsonLines(e.stdout).filter((x) => x.type === "item.completed" && x.item?.type === "mcp_tool_call")
    assert.deepEqual(calls.map((x) => [x.item.server, x.item.tool, x.item.status]), [
      [SERVER, "deepseek_search", "completed"],
      [SERVER, "deepseek_fetch", "completed"],
    ])
    assert.deepEqual(ds.requests.map((q) => q.path), ["/v1/tools/search", "/v1/tools/fetch"])
  })

  test("npm i -g: the launcher runs the binary, passing arguments, exit code and signals; DEEPSEEK_WEB_RETRIEVAL_BINARY runs another", async () => {
    const sb = scratch("global")
    const env = userEnv(sb)
    const prefix = join(sb.root, "prefix")
    const i = await run("npm", ["i", "-g", "--prefix", prefix, SPEC], env, sb.root)
    assert.equal(i.code, 0, i.stdout + i.stderr)
    const bin = join(prefix, "bin", "deepseek-web-retrieval")

    const v = await run(bin, ["--version"], env, sb.root, 30000)
    assert.equal(v.code, 0, v.stderr)
    assert.match(v.stdout, new RegExp(`^deepseek-web-retrieval ${VERSION.replaceAll(".", "\\.")} \\(commit [0-9a-f]{40}, go`))

    const bad = await run(bin, ["instal"], env, sb.root, 30000)
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /^deepseek-web-retrieval: unknown command "instal"/)

    // A signal to the launcher reaches the binary: the MCP server ends on SIGTERM with
    // status 0 (its documented exit), which the launcher passes on.
    const child = spawn(bin, ["mcp"], { env, stdio: ["pipe", "ignore", "ignore"] })
    let kids = []
    for (let n = 0; n < 100 && kids.length === 0; n++) {
      await new Promise((r) => setTimeout(r, 100))
      try {
        kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number)
      } catch {}
    }
    assert.equal(kids.length, 1, "the launcher started one process")
    assert.match(readFileSync(`/proc/${kids[0]}/cmdline`, "utf8"), /cli-linux-[a-z0-9]+\/bin\/deepseek-web-retrieval\0mcp\0/)
    const ended = new Promise((r) => child.on("exit", (code, signal) => r({ code, signal })))
    child.kill("SIGTERM")
    assert.deepEqual(await ended, { code: 0, signal: null })
    assert.throws(() => process.kill(kids[0], 0), { code: "ESRCH" }, "the binary is gone with the launcher")

    // DEEPSEEK_WEB_RETRIEVAL_BINARY: arguments and exit code pass through, and a binary
    // killed by a signal kills the launcher with the same signal.
    const other = join(sb.root, "other.sh")
    writeFileSync(other, '#!/bin/sh\nprintf "%s|" "$@"\n[ "$1" = sleep ] && exec sleep 30\nexit 7\n')
    chmodSync(other, 0o755)
    const o = await run(bin, ["a b", "c"], { ...env, DEEPSEEK_WEB_RETRIEVAL_BINARY: other }, sb.root, 30000)
    assert.deepEqual([o.code, o.stdout], [7, "a b|c|"])
    const sleeper = spawn(bin, ["sleep"], { env: { ...env, DEEPSEEK_WEB_RETRIEVAL_BINARY: other }, stdio: ["ignore", "pipe", "ignore"] })
    await new Promise((r) => sleeper.stdout.once("data", r))
    const slept = new Promise((r) => sleeper.on("exit", (code, signal) => r({ code, signal })))
    sleeper.kill("SIGTERM")
    assert.deepEqual(await slept, { code: null, signal: "SIGTERM" })
  })

  test("--omit=optional and a node_modules from another platform: a message that says what to do", async () => {
    const sb = scratch("omit")
    const env = userEnv(sb)
    const pkg = NAMES.platforms.find((p) => `${p.os}-${p.cpu}` === PLATFORM).package

    const omit = join(sb.root, "omit")
    const i = await run("npm", ["i", "--prefix", omit, "--omit=optional", SPEC], env, sb.root)
    assert.equal(i.code, 0, i.stdout + i.stderr)
    // Copies of the package where Node would find it (a parent node_modules, NODE_PATH,
    // ~/.node_modules) are not this install's: the launcher does not run them.
    const decoys = [join(sb.root, "node_modules"), join(sb.root, "path"), join(sb.home, ".node_modules")]
    for (const nm of decoys) {
      const d = join(nm, ...pkg.split("/"))
      mkdirSync(join(d, "bin"), { recursive: true })
      writeFileSync(join(d, "package.json"), JSON.stringify({ name: pkg, version: VERSION }))
      writeFileSync(join(d, "bin", "deepseek-web-retrieval"), "#!/bin/sh\necho decoy\n", { mode: 0o755 })
    }
    const r = await run(join(omit, "node_modules", ".bin", "deepseek-web-retrieval"), ["--version"], { ...env, NODE_PATH: decoys[1] }, sb.root, 30000)
    assert.equal(r.code, 1)
    assert.equal(r.stdout, "")
    assert.equal(r.stderr, `deepseek-web-retrieval: the package ${pkg}, which holds the binary for ${PLATFORM}, is not installed.
npm leaves it out when optional dependencies are omitted (--omit=optional, --no-optional, optional=false in .npmrc).
Reinstall with optional dependencies on this machine (npm install ${SPEC}), or set DEEPSEEK_WEB_RETRIEVAL_BINARY to a deepseek-web-retrieval binary.
`)

    // npm installs the optional dependency of the platform it is told, as on another machine.
    const foreign = process.platform === "darwin" ? { os: "linux", cpu: "x64" } : { os: "darwin", cpu: "arm64" }
    const copied = join(sb.root, "copied")
    const j = await run("npm", ["i", "--prefix", copied, `--os=${foreign.os}`, `--cpu=${foreign.cpu}`, SPEC], env, sb.root)
    assert.equal(j.code, 0, j.stdout + j.stderr)
    const c = await run(join(copied, "node_modules", ".bin", "deepseek-web-retrieval"), ["--version"], env, sb.root, 30000)
    assert.equal(c.code, 1)
    assert.ok(c.stderr.includes(`node_modules holds the binary for ${foreign.os}-${foreign.cpu} instead: it was installed on another OS or CPU and copied here.`), c.stderr)
  })
})

test("install from npm writes the exact spec; OpenCode 1.18.33 installs it from the registry and runs both tools", async (t) => {
  const key = `sk-${"0123456789abcdef".repeat(2)}`
  const ds = await startMockDeepSeek({ apiKey: key })
  t.after(() => ds.close())
  ds.enqueue("search", { json: { results: [{ url: "https://go.dev/doc/effective_go", title: "Effective Go", summary: "Tips." }] } })
  ds.enqueue("fetch", { json: { title: "Effective Go", content: "A guide." } })
  const sb = scratch("opencode")
  // Only our scope comes from the local registry; OpenCode's own @opencode-ai/plugin is
  // seeded by runOpenCode, so nothing else is installed.
  mkdirSync(join(sb.root, "home"), { recursive: true })
  writeFileSync(join(sb.root, "home", ".npmrc"), `@deepseek-web-retrieval:registry=${registry}\n`)
  const spec = `${NAMES.plugin}@${VERSION}`

  // The binary from npm: install defaults to --plugin-source npm, and the OpenCode config
  // it writes (opencode.jsonc in OpenCode's global config directory) is the one OpenCode
  // runs with below.
  const home = join(sb.root, "home")
  const env = { PATH, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), TMPDIR: sb.root, npm_config_cache: join(sb.root, "npm-cache") }
  const cli = join(sb.root, "cli")
  const i = await run("npm", ["i", "--prefix", cli, "--registry", registry, SPEC], env, sb.root)
  assert.equal(i.code, 0, i.stdout + i.stderr)
  const inst = await run(join(cli, "node_modules", ".bin", "deepseek-web-retrieval"),
    ["install", "--host", "opencode1", "--bin-dir", join(sb.root, "bin"), "--base-url", ds.baseURL, "--yes"], env, sb.root, 60000)
  assert.equal(inst.code, 0, inst.stdout + inst.stderr)
  assert.ok(inst.stdout.includes(`this binary came from npm, so OpenCode's config names the npm package ${spec} (--plugin-source npm;`), inst.stdout)
  const configDir = join(home, ".config", "opencode")
  const written = JSON.parse(readFileSync(join(configDir, "opencode.jsonc"), "utf8"))
  assert.deepEqual(written.plugin, [[spec, { search: "preferred", fetch: "optional", baseURL: ds.baseURL }]])
  assert.deepEqual(readdirSync(join(configDir, "vendor")), ["deepseek-web-retrieval.install.json"], "nothing is vendored")

  const run1 = await runOpenCode({
    root: sb.root,
    turns: [
      { toolCalls: [{ id: "c_search", name: "deepseek_search", args: { query: "go idioms" } }] },
      { toolCalls: [{ id: "c_fetch", name: "deepseek_fetch", args: { url: "https://go.dev/doc/effective_go" } }] },
      { text: "done" },
    ],
    env: { DEEPSEEK_API_KEY: key, PATH },
    timeoutMs: 180000,
  })
  t.after(() => run1.cleanup()) // the mock model
  assert.equal(run1.code, 0, run1.stderr.slice(-4000))
  const installed = join(sb.root, "home", ".cache", "opencode", "packages", NAMES.plugin + "@" + VERSION, "node_modules", NAMES.plugin)
  assert.equal(JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).version, VERSION)
  assert.deepEqual(run1.toolUses.map((u) => [u.tool, u.state?.status]), [
    ["deepseek_search", "completed"],
    ["deepseek_fetch", "completed"],
  ])
  assert.deepEqual(run1.toolResults, [
    { tool_call_id: "c_search", content: "1. Effective Go\nhttps://go.dev/doc/effective_go\nTips." },
    { tool_call_id: "c_fetch", content: "# Effective Go\n\nA guide." },
  ])
  assert.deepEqual(ds.requests.map((q) => q.path), ["/v1/tools/search", "/v1/tools/fetch"])
})

test("the plugin package under Bun reads its core.wasm, and its second start registers from the plan cache", async (t) => {
  const key = `sk-${"fedcba9876543210".repeat(2)}`
  const ds = await startMockDeepSeek({ apiKey: key })
  t.after(() => ds.close())
  const sb = scratch("bun-plugin")
  const env = userEnv(sb)
  const dir = join(sb.root, "installed")
  const spec = `${NAMES.plugin}@${VERSION}`
  const i = await run("npm", ["i", "--prefix", dir, spec], env, sb.root)
  assert.equal(i.code, 0, i.stdout + i.stderr)
  const cacheHome = join(sb.root, "cache")
  const startEnv = { ...env, XDG_CACHE_HOME: cacheHome, XDG_DATA_HOME: join(sb.root, "data"), DEEPSEEK_API_KEY: key }
  const options = JSON.stringify({ baseURL: ds.baseURL, search: "optional", fetch: "preferred" })
  const start = async () => {
    ds.enqueue("fetch", { json: { title: "Effective Go", content: "A guide." } })
    const r = await run(BUN, [join(here, "plugin-start.js"), dir, options], startEnv, sb.root, 60000)
    assert.equal(r.code, 0, r.stdout + r.stderr)
    return JSON.parse(r.stdout.trim().split("\n").at(-1))
  }
  const first = await start()
  assert.equal(first.entry, join(dir, "node_modules", ...NAMES.plugin.split("/"), "server.js"))
  assert.deepEqual(first.status, { id: "deepseek-web-retrieval", status: "loaded" })
  assert.deepEqual(first.fetch, { status: "completed", text: "# Effective Go\n\nA guide." })
  assert.equal(first.plans, 1, "the first start plans in the module")
  assert.equal(first.cache.length, 1, `one plan cache file: ${first.cache}`)
  assert.match(first.cache[0], /^opencode2-[0-9a-f]{16}-[0-9a-f]{16}\.json$/)
  const second = await start()
  assert.equal(second.plans, 0, "the second start registers from the plan cache")
  assert.deepEqual(second, { ...first, plans: 0 })
  assert.deepEqual(ds.requests.map((q) => q.path), ["/v1/tools/fetch", "/v1/tools/fetch"])
})

describe("make dist's output", () => {
  const sums = readFileSync(join(DIST, "checksums.txt"), "utf8").trimEnd().split("\n").map((l) => l.split("  "))

  test("checksums.txt lists every archive and npm tarball with its SHA-256", () => {
    const archives = NAMES.platforms.map((p) => `deepseek-web-retrieval_${VERSION}_${p.goos}_${p.goarch}.${p.goos === "windows" ? "zip" : "tar.gz"}`)
    const npm = [`${LAUNCHER}-${VERSION}.tgz`, NAMES.plugin, ...NAMES.platforms.map((p) => p.package)].map((n) => `npm/${n.startsWith("@") ? `${n.slice(1).replace("/", "-")}-${VERSION}.tgz` : n}`)
    assert.deepEqual(sums.map(([, n]) => n), [...archives, ...npm].sort())
    for (const [sum, name] of sums) assert.equal(createHash("sha256").update(readFileSync(join(DIST, name))).digest("hex"), sum, name)
  })

  test("each archive holds the binary, README.md and LICENSE under one directory", () => {
    for (const p of NAMES.platforms) {
      const dir = `deepseek-web-retrieval_${VERSION}_${p.goos}_${p.goarch}/`
      const exe = p.goos === "windows" ? "deepseek-web-retrieval.exe" : "deepseek-web-retrieval"
      const file = join(DIST, dir.slice(0, -1) + (p.goos === "windows" ? ".zip" : ".tar.gz"))
      const names = p.goos === "windows" ? zipNames(readFileSync(file)) : execFileSync("tar", ["-tzf", file], { encoding: "utf8" }).trimEnd().split("\n")
      assert.deepEqual(names, [dir, dir + exe, dir + "README.md", dir + "LICENSE"], file)
    }
  })
})

/** The entry names of a zip file, from its central directory. */
function zipNames(buf) {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  assert.ok(eocd >= 0, "no end of central directory")
  let off = buf.readUInt32LE(eocd + 16)
  const names = []
  for (let n = buf.readUInt16LE(eocd + 10); n > 0; n--) {
    assert.equal(buf.readUInt32LE(off), 0x02014b50)
    const len = buf.readUInt16LE(off + 28)
    names.push(buf.subarray(off + 46, off + 46 + len).toString("utf8"))
    off += 46 + len + buf.readUInt16LE(off + 30) + buf.readUInt16LE(off + 32)
  }
  return names
}
