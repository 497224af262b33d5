// Every shape of mcp_servers in a Codex config.toml, loaded by the real Codex 0.169.0: for
// each, `deepseek-web-retrieval init --host codex --yes` into a scratch CODEX_HOME, then
// `codex mcp list --json` must list our server with the right command (and the user's own
// servers as before), then `uninstall --yes` must give back the original bytes. The shapes the
// installer refuses are refused with the file, the line and the shape, and left untouched.
// The same shapes, in more file styles, run in-process in internal/install/mcphosts/codex_shapes_test.go.
import assert from "node:assert/strict"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { BIN_DIR, dwrBinary, makeSandbox, runAgent, walk } from "./lib/sandbox.js"

const CODEX = join(BIN_DIR, "codex")
const SERVER = "deepseek-web-retrieval"
const BOM = "\uFEFF"

// [name, config.toml (LF, final newline), the user's servers Codex must still list]
const SHAPES = [
  ["empty file", "", {}],
  ["no mcp_servers", '# Codex\nmodel = "gpt-5"\n', {}],
  ["comments and blank lines everywhere", '# head\n\n# before model\nmodel = "gpt-5" # trailing\n\n  # indented\n[features] # header comment\n\n# in a table\nplugins = false # x\n\n# tail\n', {}],
  ["multi-line strings holding headers", 'developer_instructions = """\n[mcp_servers.deepseek-web-retrieval]\nmcp_servers = {}\n"""\n', {}],
  ["inline table, empty", 'model = "gpt-5"\nmcp_servers = {}\n\n[features]\nplugins = false\n', {}],
  ["inline table with a server", 'mcp_servers = { gh = { command = "gh-mcp", args = ["--stdio"] } } # mine\n', { gh: "gh-mcp" }],
  ["inline table over lines (TOML 1.1)", 'mcp_servers = {\n  gh = { command = "gh-mcp" }, # GitHub\n  docs = { command = "docs-mcp", args = [\n    "--ro",\n  ] },\n}\n', { gh: "gh-mcp", docs: "docs-mcp" }],
  ["dotted keys at the top", 'model = "gpt-5"\nmcp_servers.gh.command = "gh-mcp"\nmcp_servers.gh.args = ["--stdio"]\n', { gh: "gh-mcp" }],
  ["[mcp_servers.x] subtables", '[mcp_servers.gh]\ncommand = "gh-mcp"\n\n[mcp_servers.gh.env]\nGH_HOST = "github.com"\n', { gh: "gh-mcp" }],
  ["[mcp_servers] with dotted keys", '[mcp_servers]\ngh.command = "gh-mcp"\ngh.args = ["--stdio"]\n\n[profiles.fast]\nmodel = "gpt-5-mini"\n', { gh: "gh-mcp" }],
  ["quoted keys", "[\"mcp_servers\".'gh']\ncommand = \"gh-mcp\"\n[mcp_servers.\"docs\"]\ncommand = 'docs-mcp'\n", { gh: "gh-mcp", docs: "docs-mcp" }],
  ["web_search at the top", 'web_search = "live" # on\nmodel = "gpt-5"\n\n[profiles.a]\nmodel = "gpt-5-mini"\n', {}],
]

/** The file styles each shape runs in, with the tiers init runs (two: a re-run over our entry). */
const STYLES = [
  { name: "LF", crlf: false, final: true, bom: false, tiers: ["optional"] },
  { name: "CRLF, BOM", crlf: true, final: true, bom: true, tiers: ["forced"] },
  { name: "no final newline, two trailing blank lines", crlf: false, final: false, blanks: true, bom: false, tiers: ["forced"] },
  { name: "CRLF, no final newline, our entry re-run", crlf: true, final: false, bom: false, tiers: ["optional", "forced"] },
]

function styled(text, s) {
  let t = text.replace(/\n$/, "")
  if (s.blanks) t += "\n\n"
  if (s.final && t !== "") t += "\n"
  if (s.crlf) t = t.replaceAll("\n", "\r\n")
  return (s.bom ? BOM : "") + t
}

function sandbox(name) {
  const sb = makeSandbox(`codex-shapes-${name.replace(/[^a-z0-9]+/gi, "-").slice(0, 30)}`)
  const codexHome = join(sb.home, "codex-home")
  mkdirSync(codexHome)
  const env = sb.env({ CODEX_HOME: codexHome, PATH: `${BIN_DIR}:${process.env.PATH}` })
  return { sb, env, file: join(codexHome, "config.toml") }
}

const dwr = (c, args) => runAgent(dwrBinary(), args, { cwd: c.sb.project, env: c.env, timeoutMs: 30000 })

async function roundTrip(binary, [name, text, theirs], style) {
  const c = sandbox(name)
  try {
    const original = Buffer.from(styled(text, style), "utf8")
    writeFileSync(c.file, original)
    for (const tier of style.tiers) {
      const r = await dwr(c, ["init", "--host", "codex", "--scope", "global", "--search", tier, "--yes"])
      assert.equal(r.code, 0, `init: ${r.stdout}\n${r.stderr}`)
    }
    const written = readFileSync(c.file, "utf8")
    assert.equal(written.startsWith(BOM), style.bom, "the BOM is kept")
    if (original.includes("\r\n")) assert.doesNotMatch(written, /(^|[^\r])\n/, `every line ends in CRLF:\n${JSON.stringify(written)}`)
    else assert.doesNotMatch(written, /\r/)
    if (style.tiers.at(-1) === "forced") assert.ok(written.replace(BOM, "").split(/\r?\n/).includes('web_search = "disabled"'), "forced turns Codex's built-in search off")

    const listed = await runAgent(CODEX, ["mcp", "list", "--json"], { cwd: c.sb.project, env: c.env, timeoutMs: 30000 })
    assert.equal(listed.code, 0, `codex refused the file:\n${listed.stderr}\n${written}`)
    const servers = JSON.parse(listed.stdout)
    const ours = servers.find((s) => s.name === SERVER)
    assert.ok(ours, `our server is listed: ${listed.stdout}`)
    assert.equal(ours.enabled, true)
    assert.deepEqual(
      { command: ours.transport.command, args: ours.transport.args.slice(0, 5), env_vars: ours.transport.env_vars },
      { command: binary, args: ["mcp", "--search", style.tiers.at(-1), "--fetch", "optional"], env_vars: ["DEEPSEEK_API_KEY"] },
    )
    for (const [n, command] of Object.entries(theirs)) {
      assert.equal(servers.find((s) => s.name === n)?.transport.command, command, `the user's ${n} is listed as before`)
    }
    assert.equal(servers.length, 1 + Object.keys(theirs).length)

    const u = await dwr(c, ["uninstall", "--host", "codex", "--scope", "global", "--yes"])
    assert.equal(u.code, 0, `uninstall: ${u.stdout}\n${u.stderr}`)
    const back = readFileSync(c.file)
    assert.ok(back.equals(original), `uninstall gives back the original bytes:\n${JSON.stringify(original.toString())}\n${JSON.stringify(back.toString())}`)
    assert.deepEqual(walk(join(c.sb.home, ".local", "state", SERVER, "installs")), [], "no install record left")
  } finally {
    c.sb.cleanup()
  }
}

/** Runs fn over items, n at a time. */
async function pool(items, n, fn) {
  const queue = [...items]
  await Promise.all(Array.from({ length: n }, async () => {
    while (queue.length) await fn(queue.shift())
  }))
}

describe("Codex 0.169.0 loads every mcp_servers shape init writes", () => {
  let binary
  before(() => {
    binary = dwrBinary()
  })

  for (const style of STYLES) {
    test(`${style.name}: ${SHAPES.length} shapes, init → codex mcp list → uninstall`, async () => {
      await pool(SHAPES, 2, (shape) => roundTrip(binary, shape, style).catch((e) => {
        e.message = `${shape[0]} (${style.name}): ${e.message}`
        throw e
      }))
    })
  }

  test("the shapes init refuses: the file, the line and the shape, and the file untouched", async () => {
    const refused = [
      ["model = \"gpt-5\"\r\n\r\n[[mcp_servers]]\r\ncommand = \"x\"\r\n", [], "line 3: [[mcp_servers]] makes mcp_servers an array of tables; Codex reads mcp_servers as a table of named servers ([mcp_servers.<name>])"],
      ["# servers\nmcp_servers = \"none\"", [], 'line 2: mcp_servers is set to a value that is not a table ("none")'],
      ["[web_search]\nmode = \"live\"\n", ["--search", "forced"], "line 1: web_search is a table here; Codex reads the top-level web_search as a string"],
      ["[mcp_servers.'deepseek-web-retrieval']\ncommand = \"other\"\n", [], "line 1: mcp_servers.deepseek-web-retrieval is already defined as a [mcp_servers.deepseek-web-retrieval] table, and this installer did not write it"],
    ]
    for (const [text, flags, want] of refused) {
      const c = sandbox("refused")
      try {
        writeFileSync(c.file, text)
        const r = await dwr(c, ["init", "--host", "codex", "--scope", "global", ...flags, "--yes"])
        assert.notEqual(r.code, 0)
        assert.ok((r.stdout + r.stderr).includes(`${c.file} ${want}`), `${want}\n${r.stdout}\n${r.stderr}`)
        assert.equal(readFileSync(c.file, "utf8"), text)
        assert.equal(existsSync(join(c.sb.home, ".local", "state", SERVER, "installs")), false)
      } finally {
        c.sb.cleanup()
      }
    }
  })
})
