// Continue CLI 1.5.47 (@continuedev/cli from npm, `cn`) running our MCP server from the user's
// ~/.continue/config.yaml, with its model played by a loopback mock of OpenAI's Chat Completions
// API (a model block with provider openai and apiBase at the mock) and DeepSeek by
// tests/js/lib/mock-deepseek.js. cn has no command that lists MCP servers, so the test reads the
// file; it does not read a project's .continue/mcpServers/ (the IDE extension does), so the project
// file is covered by the Go tests alone.
import assert from "node:assert/strict"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { chatTurns, checkChatRun, startMockChat, toolText } from "./lib/mock-chat.js"
import { checkKeyNowhere, checkReference, referenceTexts } from "./lib/reference.js"
import { assertRestored, initHost, readFiles, uninstallHost } from "./lib/install.js"
import { BIN_DIR, dwrBinary, runAgent, startScene } from "./lib/sandbox.js"

const CN = join(BIN_DIR, "cn")
const SERVER = "deepseek-web-retrieval"
// Continue names MCP tools by the tool alone, no server prefix.
const SEARCH_TOOL = "deepseek_search"
const FETCH_TOOL = "deepseek_fetch"
const STATE = (sb) => join(sb.home, ".local", "state", SERVER)
const CONFIG = ".continue/config.yaml"

const cn = (sb, key, args) => runAgent(CN, args, { cwd: sb.project, env: sb.env({ DEEPSEEK_API_KEY: key }), timeoutMs: 120000 })

/** Continue hands the model a tool's MCP content as JSON text; the text of its parts. */
function resultText(message) {
  return JSON.parse(toolText(message)).map((c) => {
    assert.equal(c.type, "text")
    return c.text
  }).join("")
}

describe("Continue CLI 1.5.47", () => {
  let binary, ref
  before(async () => {
    binary = dwrBinary()
    ref = await referenceTexts(binary)
    checkReference(ref)
  })

  test("init adds an mcpServers item to ~/.continue/config.yaml, cn -p gives the model our search and fetch texts, uninstall restores the file", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "continue", startMockChat, { turns: chatTurns(SEARCH_TOOL, FETCH_TOOL) })
    const version = await cn(sb, key, ["--version"])
    assert.equal(version.code, 0, version.stderr)
    assert.equal(version.stdout.trim(), "1.5.47")

    mkdirSync(join(sb.home, ".continue"), { recursive: true })
    writeFileSync(
      join(sb.home, CONFIG),
      `name: Local Config
version: 1.0.0
schema: v1
# My Continue settings; keep this comment.
models:
  - name: mock
    provider: openai
    model: mock-model
    apiBase: ${llm.baseURL}
    apiKey: mock-model-key
    roles: [chat]
`,
    )
    const before = readFiles(sb.home, [CONFIG])
    const init = await initHost(sb, "continue", "global", ["--base-url", ds.baseURL])
    assert.match(init.stdout, /Continue shows the tools as deepseek_search and deepseek_fetch \(no server prefix\)/)
    const text = readFileSync(join(sb.home, CONFIG), "utf8")
    assert.ok(text.startsWith(before[CONFIG].toString()), text)
    assert.ok(text.endsWith(`mcpServers:\n  - name: ${SERVER}\n    command: ${binary}\n    args:\n      - mcp\n      - --search\n      - preferred\n      - --fetch\n      - optional\n      - --base-url\n      - ${ds.baseURL}\n    env:\n      DEEPSEEK_API_KEY: \${{ secrets.DEEPSEEK_API_KEY }}\n`), text)

    const r = await cn(sb, key, ["-p", "Find tips for writing Go, then read the best page."])
    checkChatRun({ r, llm, ds, ref, search: SEARCH_TOOL, fetch: FETCH_TOOL, resultText })
    checkKeyNowhere({ agent: "Continue CLI", key, ds, llm, runs: { output: r, init }, dirs: [sb.root], sessionDir: sb.home })

    // Without the key, ${{ secrets.DEEPSEEK_API_KEY }} is unresolved and cn -p stops before the
    // model is asked (the plan's note says the key must be set where Continue runs).
    const bare = await runAgent(CN, ["-p", "hello there"], { cwd: sb.project, env: sb.env(), timeoutMs: 120000 })
    assert.notEqual(bare.code, 0)
    assert.match(bare.stdout + bare.stderr, /unresolved secrets/)

    await uninstallHost(sb, "continue", "global")
    assertRestored(sb.home, before, STATE(sb))
  })
})
