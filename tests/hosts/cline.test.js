// Cline CLI 3.0.65 (cline from npm) running our MCP server from ~/.cline/data/settings/
// cline_mcp_settings.json, with its model played by a loopback mock of OpenAI's Chat
// Completions API (`cline auth -p openai-compatible -b URL`) and DeepSeek by
// tests/js/lib/mock-deepseek.js. Cline has no command that lists MCP servers (`cline mcp` only
// adds and removes them), so the test reads the file instead. Cline passes env values as written
// (no variable syntax), so the entry has none: the key reaches the server through inheritance.
// A run normally goes through Cline's hub daemon, whose environment the servers inherit;
// CLINE_SESSION_BACKEND_MODE=local runs in the test's own process, so no daemon outlives it.
import assert from "node:assert/strict"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { chatTurns, checkChatRun, startMockChat, toolText } from "./lib/mock-chat.js"
import { checkKeyNowhere, checkReference, referenceTexts } from "./lib/reference.js"
import { assertRestored, initHost, readFiles, uninstallHost } from "./lib/install.js"
import { BIN_DIR, dwrBinary, runAgent, startScene } from "./lib/sandbox.js"

const CLINE = join(BIN_DIR, "cline")
const SERVER = "deepseek-web-retrieval"
// Cline 3.0.65 names MCP tools "<server>__<tool>".
const SEARCH_TOOL = `${SERVER}__deepseek_search`
const FETCH_TOOL = `${SERVER}__deepseek_fetch`
const STATE = (sb) => join(sb.home, ".local", "state", SERVER)
const SETTINGS = ".cline/data/settings/cline_mcp_settings.json"

const env = (sb, key) => sb.env({ CLINE_SESSION_BACKEND_MODE: "local", DEEPSEEK_API_KEY: key })
const cline = (sb, key, args) => runAgent(CLINE, args, { cwd: sb.project, env: env(sb, key), timeoutMs: 120000 })

/** Cline hands the model a tool's MCP result as JSON text; the text of its content. */
function resultText(message) {
  const inner = JSON.parse(toolText(message))
  return inner.content.map((c) => {
    assert.equal(c.type, "text")
    return c.text
  }).join("")
}

describe("Cline CLI 3.0.65", () => {
  let binary, ref
  before(async () => {
    binary = dwrBinary()
    ref = await referenceTexts(binary)
    checkReference(ref)
  })

  test("init writes cline_mcp_settings.json with no env, the model gets our search and fetch texts with the inherited key, uninstall restores the file", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "cline", startMockChat, { turns: chatTurns(SEARCH_TOOL, FETCH_TOOL) })
    const version = await cline(sb, key, ["--version"])
    assert.equal(version.code, 0, version.stderr)
    assert.equal(version.stdout.trim(), "3.0.65")
    const auth = await cline(sb, key, ["auth", "-p", "openai-compatible", "-b", llm.baseURL, "-k", "mock-model-key", "-m", "mock-model"])
    assert.equal(auth.code, 0, auth.stderr)

    // The file as `cline mcp add other --yes -- true` leaves it.
    mkdirSync(join(sb.home, ".cline", "data", "settings"), { recursive: true })
    writeFileSync(join(sb.home, SETTINGS), JSON.stringify({ mcpServers: { other: { transport: { type: "stdio", command: "true", args: [] } } } }, null, 2))
    const before = readFiles(sb.home, [SETTINGS])
    const init = await initHost(sb, "cline", "global", ["--base-url", ds.baseURL])
    assert.match(init.stdout, /the server inherits DEEPSEEK_API_KEY from Cline's hub daemon/)
    const entry = JSON.parse(readFileSync(join(sb.home, SETTINGS), "utf8")).mcpServers[SERVER]
    assert.deepEqual(entry, { transport: { type: "stdio", command: binary, args: ["mcp", "--search", "preferred", "--fetch", "optional", "--base-url", ds.baseURL] } })

    const r = await cline(sb, key, ["Find tips for writing Go, then read the best page."])
    // The mock DeepSeek accepts only the key: the server had it, from Cline's environment.
    checkChatRun({ r, llm, ds, ref, search: SEARCH_TOOL, fetch: FETCH_TOOL, resultText })
    checkKeyNowhere({ agent: "Cline CLI", key, ds, llm, runs: { output: r, init }, dirs: [sb.root], sessionDir: sb.home })

    await uninstallHost(sb, "cline", "global")
    assertRestored(sb.home, before, STATE(sb))
  })
})
