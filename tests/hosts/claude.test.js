// Claude Code 2.1.328 (@anthropic-ai/claude-code from npm) running our MCP server from a
// project .mcp.json, with its model played by a loopback mock of the Messages API
// (ANTHROPIC_BASE_URL) and DeepSeek by tests/js/lib/mock-deepseek.js.
import assert from "node:assert/strict"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { startMockMessages } from "./lib/mock-messages.js"
import { FETCH_URL, PAYMENT_ERROR, SEARCH_402_SENTENCE, SEARCH_QUERY, checkKeyNowhere, checkKeyOnlyAsBearer, checkReference, referenceTexts } from "./lib/reference.js"
import { assertRestored, initHost, readFiles, uninstallHost } from "./lib/install.js"
import { BIN_DIR, dwrBinary, filesContaining, jsonLines, makeSandbox, runAgent, startScene } from "./lib/sandbox.js"

const CLAUDE = join(BIN_DIR, "claude")
const SERVER = "deepseek-web-retrieval"
const SEARCH_TOOL = `mcp__${SERVER}__deepseek_search`
const FETCH_TOOL = `mcp__${SERVER}__deepseek_fetch`

// Claude Code 2.1.328 offers MCP tools as deferred tools: the model loads their schemas with
// the built-in ToolSearch first, as a real model does.
const LOAD_TOOLS = { call: { name: "ToolSearch", args: { query: `select:${SEARCH_TOOL},${FETCH_TOOL}`, max_results: 5 } } }

/**
 * `init --host claude --scope project` writes .mcp.json (the key as ${DEEPSEEK_API_KEY:-},
 * expanded by Claude Code) and, under forced tiers, `permissions.deny` in the project's
 * .claude/settings.json. Approving a project server is the user's step; the harness gives it
 * the documented non-interactive way beforehand, `enabledMcpjsonServers` in the user's
 * ~/.claude/settings.json (Claude Code 2.1.328 ignores it in the project's own settings files).
 */
function writeHarnessConfig(sb) {
  mkdirSync(join(sb.home, ".claude"), { recursive: true })
  writeFileSync(join(sb.home, ".claude", "settings.json"), JSON.stringify({ enabledMcpjsonServers: [SERVER] }, null, 2) + "\n")
}

const PROJECT_FILES = [".mcp.json", ".claude/settings.json"]

const env = (sb, llm, key) =>
  sb.env({
    ANTHROPIC_BASE_URL: llm ? llm.baseURL : "http://127.0.0.1:9",
    ANTHROPIC_API_KEY: "mock-model-key",
    DEEPSEEK_API_KEY: key,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
  })

function print(sb, llm, key, prompt) {
  const args = ["-p", prompt, "--output-format", "stream-json", "--verbose", "--allowedTools", `${SEARCH_TOOL},${FETCH_TOOL}`]
  return runAgent(CLAUDE, args, { cwd: sb.project, env: env(sb, llm, key), timeoutMs: 90000 })
}

/**
 * Every tool name offered to the model in one request: the `tools` array plus the deferred
 * tools Claude Code 2.1.328 lists in a system reminder for its ToolSearch tool.
 */
function offeredTools(req) {
  const names = new Set((req.json.tools ?? []).map((t) => t.name))
  const marker = "before calling them:\n"
  let i = req.body.indexOf(marker.replace("\n", "\\n"))
  if (i >= 0) {
    // The list sits inside a JSON string: lines separated by "\n" escapes, ending at a blank line.
    const rest = JSON.parse('"' + req.body.slice(i + marker.length + 1).split('\\n\\n')[0] + '"')
    for (const line of rest.split("\n")) if (line.trim()) names.add(line.trim())
  }
  return names
}

/** The text of a tool_result block (a string or text blocks). */
function resultText(block) {
  if (typeof block.content === "string") return block.content
  return block.content.map((b) => {
    assert.equal(b.type, "text")
    return b.text
  }).join("")
}

describe("Claude Code 2.1.328", () => {
  let binary, ref
  before(async () => {
    binary = dwrBinary()
    ref = await referenceTexts(binary)
    checkReference(ref)
  })

  test("is the pinned version", async () => {
    const sb = makeSandbox("claude-version")
    try {
      const r = await runAgent(CLAUDE, ["--version"], { cwd: sb.project, env: env(sb, null, "x"), timeoutMs: 30000 })
      assert.equal(r.stdout.trim(), "2.1.328 (Claude Code)")
    } finally {
      sb.cleanup()
    }
  })

  test("forced search: the model gets our search and fetch texts, no WebSearch/WebFetch offered, the key only as Bearer", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "claude-e2e", startMockMessages, {
      turns: [
        LOAD_TOOLS,
        { call: { name: SEARCH_TOOL, args: { query: SEARCH_QUERY } } },
        { call: { name: FETCH_TOOL, args: { url: FETCH_URL } } },
        { text: "Done: searched and fetched." },
      ],
    })
    writeHarnessConfig(sb)
    const before = readFiles(sb.project, PROJECT_FILES)
    await initHost(sb, "claude", "project", ["--search", "forced", "--fetch", "forced", "--base-url", ds.baseURL])

    // The host's own listings: the project server, approved, connected.
    const list = await runAgent(CLAUDE, ["mcp", "list"], { cwd: sb.project, env: env(sb, llm, key), timeoutMs: 60000 })
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, new RegExp(`^${SERVER}: ${binary.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} mcp --search forced --fetch forced --base-url \\S+ - . Connected$`, "m"))
    const get = await runAgent(CLAUDE, ["mcp", "get", SERVER], { cwd: sb.project, env: env(sb, llm, key), timeoutMs: 60000 })
    assert.equal(get.code, 0, get.stderr)
    assert.match(get.stdout, /Scope: Project config/)
    assert.match(get.stdout, /Status: . Connected/)
    // .mcp.json holds "${DEEPSEEK_API_KEY:-}"; claude mcp get shows it as ${DEEPSEEK_API_KEY}.
    assert.match(get.stdout, /^ {4}DEEPSEEK_API_KEY=\$\{DEEPSEEK_API_KEY\}$/m)

    const r = await print(sb, llm, key, "Find tips for writing Go, then read the best page.")
    assert.equal(r.timedOut, false, "claude -p ran out of time")
    assert.equal(r.code, 0, r.stderr)
    const events = jsonLines(r.stdout)
    const result = events.find((e) => e.type === "result")
    assert.equal(result?.subtype, "success", r.stdout.slice(-2000))
    assert.equal(result.result, "Done: searched and fetched.")
    const init = events.find((e) => e.type === "system" && e.subtype === "init")
    assert.deepEqual(init.mcp_servers, [{ name: SERVER, source: "project", status: "connected" }])

    assert.equal(llm.turnRequests.length, 4)
    for (const req of llm.turnRequests) {
      const offered = offeredTools(req)
      assert.ok(offered.has(SEARCH_TOOL) && offered.has(FETCH_TOOL), [...offered].join(","))
      assert.ok(!offered.has("WebSearch") && !offered.has("WebFetch"), [...offered].join(","))
    }

    const results = llm.toolResults().slice(1) // [0] is ToolSearch's
    assert.equal(results.length, 2)
    assert.equal(resultText(results[0]), ref.search.text)
    assert.equal(results[0].is_error ?? false, false)
    assert.equal(resultText(results[1]), ref.fetch.text)
    assert.equal(results[1].is_error ?? false, false)

    assert.deepEqual(ds.requests.map((q) => q.path), ["/v1/tools/search", "/v1/tools/fetch"])
    checkKeyNowhere({ agent: "Claude Code", key, ds, llm, runs: { output: r, "mcp list": list, "mcp get": get }, dirs: [sb.root], sessionDir: sb.home })

    await uninstallHost(sb, "claude", "project")
    assertRestored(sb.project, before, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
  })

  test("user scope: init edits ~/.claude.json, claude mcp list/get show our server connected, uninstall restores it byte for byte", async (t) => {
    const { sb, key, ds } = await startScene(t, "claude-user")
    // A ~/.claude.json as Claude Code keeps it, with another user-scope server beside ours.
    const userJson = JSON.stringify({ numStartups: 7, hasCompletedOnboarding: true, mcpServers: { other: { type: "stdio", command: "true", args: [] } } }, null, 2) + "\n"
    writeFileSync(join(sb.home, ".claude.json"), userJson)
    // Claude Code adds its own keys (first start, IDs, migrations) on its first run; a user who
    // installs has run it before, so run it once before taking the snapshot.
    const first = await runAgent(CLAUDE, ["mcp", "list"], { cwd: sb.project, env: env(sb, null, key), timeoutMs: 60000 })
    assert.equal(first.code, 0, first.stderr)
    const before = readFiles(sb.home, [".claude.json", ".claude/settings.json"])
    await initHost(sb, "claude", "global", ["--search", "forced", "--base-url", ds.baseURL])

    const list = await runAgent(CLAUDE, ["mcp", "list"], { cwd: sb.project, env: env(sb, null, key), timeoutMs: 60000 })
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, new RegExp(`^${SERVER}: \\S+ mcp --search forced --fetch optional --base-url \\S+ - . Connected$`, "m"))
    const get = await runAgent(CLAUDE, ["mcp", "get", SERVER], { cwd: sb.project, env: env(sb, null, key), timeoutMs: 60000 })
    assert.equal(get.code, 0, get.stderr)
    assert.match(get.stdout, /Scope: User config/)
    assert.match(get.stdout, /Status: . Connected/)
    assert.ok(!list.stdout.includes(key) && !get.stdout.includes(key))

    await uninstallHost(sb, "claude", "global")
    assertRestored(sb.home, before, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
  })

  test("HTTP 402 from DeepSeek reaches the model as a failed tool result with our sentence; WebSearch stays without forced", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "claude-402", startMockMessages, { turns: [LOAD_TOOLS, { call: { name: SEARCH_TOOL, args: { query: SEARCH_QUERY } } }, { text: "The search failed." }] })
    ds.enqueue("search", PAYMENT_ERROR)
    writeHarnessConfig(sb)
    await initHost(sb, "claude", "project", ["--base-url", ds.baseURL])
    const r = await print(sb, llm, key, "Find tips for writing Go.")
    assert.equal(r.code, 0, r.stderr)
    const results = llm.toolResults().slice(1)
    assert.equal(results.length, 1)
    assert.equal(results[0].is_error, true)
    assert.equal(resultText(results[0]), ref.failure.text)
    assert.ok(ref.failure.text.includes(SEARCH_402_SENTENCE))
    // Control for the forced test: without the deny rules both built-ins are offered.
    const offered = offeredTools(llm.turnRequests[0])
    assert.ok(offered.has("WebSearch") && offered.has("WebFetch"), [...offered].join(","))
    checkKeyOnlyAsBearer(ds, key)
    assert.deepEqual(filesContaining(sb.root, key), [])
  })
})
