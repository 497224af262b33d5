// Config shapes in the real hosts: for a representative subset of the shape corpus
// (internal/install/mcphosts/shapes_test.go), `init` edits a config written in that shape, the host's
// own listing (`claude mcp list`, `gemini mcp list`) shows our server connected, and
// `uninstall` gives back the original bytes. The Go corpus proves every shape against an
// independent JSON reader; this proves the hosts themselves read what init writes.
import assert from "node:assert/strict"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { before, describe, test } from "node:test"
import { assertRestored, initHost, readFiles, uninstallHost } from "./lib/install.js"
import { BIN_DIR, dwrBinary, makeSandbox, runAgent } from "./lib/sandbox.js"

const CLAUDE = join(BIN_DIR, "claude")
const GEMINI = join(BIN_DIR, "gemini")
const SERVER = "deepseek-web-retrieval"
const BOM = "\ufeff"
const crlf = (s) => s.replaceAll("\n", "\r\n")

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Shapes of a project's .mcp.json. Claude Code reads it with JSON.parse, so these are the
 * shapes of plain JSON: line endings, indentation, final newline, mcpServers absent, empty,
 * on one line, beside another server.
 */
const CLAUDE_SHAPES = [
  { name: "CRLF, another server", text: crlf('{\n  "mcpServers": {\n    "other": {"command": "true", "args": []}\n  }\n}\n') },
  { name: "tabs, mcpServers absent, no final newline", text: '{\n\t"$comment": "mine"\n}' },
  { name: "one line, empty mcpServers", text: '{"mcpServers":{}}' },
  { name: "four spaces, trailing blank lines", text: '{\n    "mcpServers": {\n    }\n}\n\n\n' },
  { name: "byte order mark", text: BOM + '{\n  "mcpServers": {}\n}\n' },
]

/**
 * Shapes of Gemini CLI's settings.json, which it reads as JSONC (comments allowed): written
 * to the user's and the project's file in one run, so one listing covers both.
 */
const GEMINI_SHAPES = [
  {
    name: "CRLF with comments (user) / tabs, no final newline (project)",
    user: crlf('{\n  // my settings\n  "mcpServers": {\n    /* none yet */\n  }\n}\n'),
    project: '{\n\t"mcpServers": {\n\t\t"other": {"command": "true"} // kept\n\t}\n}',
    tiers: [],
  },
  {
    name: "one line (user) / forced tiers into an existing tools.exclude, CRLF (project)",
    user: '{"mcpServers": {}, "ui": {"hideBanner": true}}',
    project: crlf('{\n  "tools": {\n    "exclude": [\n      "run_shell_command" // mine\n    ]\n  }\n}\n\n'),
    tiers: ["--search", "forced", "--fetch", "forced"],
  },
]

describe("config shapes in the real hosts", () => {
  let binary
  before(() => {
    binary = dwrBinary()
  })

  for (const shape of CLAUDE_SHAPES) {
    test(`Claude Code reads .mcp.json init edited: ${shape.name}`, async () => {
      const sb = makeSandbox("shape-claude")
      try {
        // Approving a project server is the user's step; the documented non-interactive way.
        write(join(sb.home, ".claude", "settings.json"), JSON.stringify({ enabledMcpjsonServers: [SERVER] }) + "\n")
        write(join(sb.project, ".mcp.json"), shape.text)
        const before = readFiles(sb.project, [".mcp.json", ".claude/settings.json"])
        await initHost(sb, "claude", "project", [])
        const env = sb.env({ ANTHROPIC_API_KEY: "mock-model-key", ANTHROPIC_BASE_URL: "http://127.0.0.1:9", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1" })
        const list = await runAgent(CLAUDE, ["mcp", "list"], { cwd: sb.project, env, timeoutMs: 60000 })
        assert.equal(list.code, 0, list.stderr)
        assert.match(list.stdout, new RegExp(`^${SERVER}: ${escape(binary)} mcp --search preferred --fetch optional - . Connected$`, "m"), list.stdout)
        if (shape.text.includes('"other"')) assert.match(list.stdout, /^other: true {2}- /m, list.stdout)
        await uninstallHost(sb, "claude", "project")
        assertRestored(sb.project, before, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
      } finally {
        sb.cleanup()
      }
    })
  }

  for (const shape of GEMINI_SHAPES) {
    test(`Gemini CLI reads settings.json init edited: ${shape.name}`, async () => {
      const sb = makeSandbox("shape-gemini")
      try {
        write(join(sb.home, ".gemini", "settings.json"), shape.user)
        write(join(sb.project, ".gemini", "settings.json"), shape.project)
        const beforeHome = readFiles(sb.home, [".gemini/settings.json"])
        const beforeProject = readFiles(sb.project, [".gemini/settings.json"])
        await initHost(sb, "gemini", "global", [])
        await initHost(sb, "gemini", "project", shape.tiers)
        const env = sb.env({ GEMINI_API_KEY: "mock-model-key", GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9", GEMINI_CLI_TRUST_WORKSPACE: "true" })
        const list = await runAgent(GEMINI, ["mcp", "list"], { cwd: sb.project, env, timeoutMs: 60000 })
        assert.equal(list.code, 0, list.stderr)
        // Gemini CLI 0.61.0 prints the listing on stderr; the project's entry overrides the user's.
        const flags = shape.tiers.length ? shape.tiers.join(" ") : "--search preferred --fetch optional"
        assert.ok(list.stderr.split("\n").includes(`✓ ${SERVER}: ${binary} mcp ${flags} (stdio) - Connected`), list.stderr)
        // (It warns that tools.exclude is deprecated; a settings file it cannot read is an error.)
        assert.doesNotMatch(list.stderr, /error|invalid/i)
        await uninstallHost(sb, "gemini", "project")
        await uninstallHost(sb, "gemini", "global")
        assertRestored(sb.project, beforeProject, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
        assertRestored(sb.home, beforeHome, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
      } finally {
        sb.cleanup()
      }
    })
  }

  // Gemini CLI 0.61.0 refuses a settings.json that starts with a byte order mark, before any
  // edit of ours: init keeps the mark (the file is the user's), warns, and uninstall restores.
  test("Gemini CLI refuses a settings.json with a BOM; init warns and keeps it", async () => {
    const sb = makeSandbox("shape-gemini-bom")
    try {
      const path = join(sb.home, ".gemini", "settings.json")
      write(path, BOM + '{\n  "mcpServers": {}\n}\n')
      const before = readFiles(sb.home, [".gemini/settings.json"])
      const env = sb.env({ GEMINI_API_KEY: "mock-model-key", GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9", GEMINI_CLI_TRUST_WORKSPACE: "true" })
      const list = await runAgent(GEMINI, ["mcp", "list"], { cwd: sb.project, env, timeoutMs: 60000 })
      assert.notEqual(list.code, 0)
      assert.ok(list.stderr.includes(`Error in ${path}: Unexpected token '\ufeff'`), list.stderr)
      const init = await initHost(sb, "gemini", "global", [])
      assert.ok(init.stdout.includes("starts with a byte order mark, which Gemini CLI refuses"), init.stdout)
      await uninstallHost(sb, "gemini", "global")
      assertRestored(sb.home, before, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
    } finally {
      sb.cleanup()
    }
  })
})
