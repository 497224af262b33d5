// Qwen Code 0.24.4 (@qwen-code/qwen-code from npm) running our MCP server from its user file
// ~/.qwen/settings.json and from a project's .qwen/settings.json, with its model played by a
// loopback mock of OpenAI's Chat Completions API (--auth-type openai and OPENAI_BASE_URL: Qwen
// Code's own OpenAI-compatible provider) and DeepSeek by tests/js/lib/mock-deepseek.js.
import assert from "node:assert/strict"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { chatTurns, checkChatRun, startMockChat } from "./lib/mock-chat.js"
import { checkKeyNowhere, checkReference, referenceTexts } from "./lib/reference.js"
import { assertRestored, initHost, readFiles, uninstallHost } from "./lib/install.js"
import { BIN_DIR, dwrBinary, runAgent, startScene } from "./lib/sandbox.js"

const QWEN = join(BIN_DIR, "qwen")
const SERVER = "deepseek-web-retrieval"
// Qwen Code 0.24.4 names MCP tools "mcp__<server>__<tool>"; with "alwaysLoadTools": true (which
// init writes) they are declared to the model directly, not behind tool_search.
const SEARCH_TOOL = `mcp__${SERVER}__deepseek_search`
const FETCH_TOOL = `mcp__${SERVER}__deepseek_fetch`
const STATE = (sb) => join(sb.home, ".local", "state", SERVER)

/** Every Qwen Code run: the mock model through Qwen's OpenAI provider variables, and the key. */
const env = (sb, llm, key) =>
  sb.env({
    OPENAI_BASE_URL: llm ? llm.baseURL : "http://127.0.0.1:9/v1",
    OPENAI_API_KEY: "mock-model-key",
    OPENAI_MODEL: "mock-model",
    QWEN_CODE_SUPPRESS_YOLO_WARNING: "1",
    DEEPSEEK_API_KEY: key,
  })

const qwen = (sb, llm, key, args, cwd = sb.project) => runAgent(QWEN, args, { cwd, env: env(sb, llm, key), timeoutMs: 120000 })

const turns = () => chatTurns(SEARCH_TOOL, FETCH_TOOL)
const checkRun = (r, llm, ds, ref) => checkChatRun({ r, llm, ds, ref, search: SEARCH_TOOL, fetch: FETCH_TOOL })

describe("Qwen Code 0.24.4", () => {
  let binary, ref
  before(async () => {
    binary = dwrBinary()
    ref = await referenceTexts(binary)
    checkReference(ref)
  })

  test("user scope: init writes ~/.qwen/settings.json, qwen mcp list connects, the model gets our search and fetch texts, uninstall restores the file", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "qwen-user", startMockChat, { turns: turns() })
    const version = await qwen(sb, null, key, ["--version"])
    assert.equal(version.code, 0, version.stderr)
    assert.equal(version.stdout.trim(), "0.24.4")

    // The user's file as `qwen mcp add` leaves it, with another server and a comment.
    const userFile = join(sb.home, ".qwen", "settings.json")
    mkdirSync(join(sb.home, ".qwen"), { recursive: true })
    writeFileSync(userFile, `{\n  // mine\n  "mcpServers": {\n    "other": {\n      "command": "true",\n      "args": []\n    }\n  },\n  "$version": 4\n}\n`)
    const before = readFiles(sb.home, [".qwen/settings.json"])
    const init = await initHost(sb, "qwen", "global", ["--search", "forced", "--fetch", "forced", "--base-url", ds.baseURL])
    assert.match(init.stdout, /forced tiers add Qwen Code's built-in web_search \/ web_fetch to tools\.disabled/)

    const list = await qwen(sb, null, key, ["mcp", "list"])
    assert.equal(list.code, 0, list.stderr)
    const ARGS = ["mcp", "--search", "forced", "--fetch", "forced", "--base-url", ds.baseURL]
    assert.ok(list.stdout.includes(`${SERVER}: ${binary} ${ARGS.join(" ")} (stdio) - Connected`), list.stdout)

    const r = await qwen(sb, llm, key, ["--auth-type", "openai", "-y", "Find tips for writing Go, then read the best page."])
    checkRun(r, llm, ds, ref)
    // tools.disabled took Qwen's own web_fetch out of the registry, deferred list included.
    assert.ok(!JSON.stringify(llm.turnRequests[0].json).includes('"web_fetch"'), "web_fetch still offered")
    checkKeyNowhere({ agent: "Qwen Code", key, ds, llm, runs: { output: r, "mcp list": list, init }, dirs: [sb.root], sessionDir: sb.home })

    await uninstallHost(sb, "qwen", "global")
    assertRestored(sb.home, before, STATE(sb))
  })

  test("project scope: the entry has no env, the server inherits the key, and a -y run starts it before any approval", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "qwen-project", startMockChat, { turns: turns() })
    const before = readFiles(sb.project, [".qwen/settings.json"])
    const init = await initHost(sb, "qwen", "project", ["--base-url", ds.baseURL])
    assert.match(init.stdout, /Qwen Code starts a project's MCP servers only once approved: run `qwen mcp approve deepseek-web-retrieval`/)

    // Until approved, the listing says so (and does not start it).
    const list = await qwen(sb, null, key, ["mcp", "list"])
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, new RegExp(`${SERVER}: .*Pending approval`))

    const r = await qwen(sb, llm, key, ["--auth-type", "openai", "-y", "Find tips for writing Go, then read the best page."])
    checkRun(r, llm, ds, ref)
    checkKeyNowhere({ agent: "Qwen Code", key, ds, llm, runs: { output: r, "mcp list": list, init }, dirs: [sb.root], sessionDir: sb.home })

    await uninstallHost(sb, "qwen", "project")
    assertRestored(sb.project, before, STATE(sb))
  })
})
