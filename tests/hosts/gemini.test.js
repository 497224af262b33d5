// Gemini CLI 0.61.0 (@google/gemini-cli from npm) running our MCP server, with its model
// played by a loopback mock of the Gemini API (GOOGLE_GEMINI_BASE_URL) and DeepSeek by
// tests/js/lib/mock-deepseek.js.
import assert from "node:assert/strict"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { startMockGemini } from "./lib/mock-gemini.js"
import { FETCH_URL, PAYMENT_ERROR, SEARCH_402_SENTENCE, SEARCH_QUERY, checkKeyNowhere, checkKeyOnlyAsBearer, checkReference, referenceTexts } from "./lib/reference.js"
import { assertRestored, initHost, readFiles, uninstallHost } from "./lib/install.js"
import { BIN_DIR, dwrBinary, filesContaining, jsonLines, makeSandbox, runAgent, startScene } from "./lib/sandbox.js"

const GEMINI = join(BIN_DIR, "gemini")
const SERVER = "deepseek-web-retrieval"
// Gemini CLI 0.61.0 offers MCP tools as "mcp_<server>_<tool>".
const SEARCH_TOOL = `mcp_${SERVER}_deepseek_search`
const FETCH_TOOL = `mcp_${SERVER}_deepseek_fetch`
const BUILTINS = ["google_web_search", "web_fetch"]

/**
 * The user's ~/.gemini/settings.json before init: the harness part (no update check, no
 * statistics or telemetry, API-key auth). init adds the mcpServers entry, whose env passes the
 * key as "$DEEPSEEK_API_KEY" (Gemini CLI drops inherited variables named like secrets), and
 * under forced tiers `tools.exclude` of the built-ins.
 */
function writeHarnessConfig(sb) {
  const settings = {
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    security: { auth: { selectedType: "gemini-api-key" } },
  }
  mkdirSync(join(sb.home, ".gemini"), { recursive: true })
  writeFileSync(join(sb.home, ".gemini", "settings.json"), JSON.stringify(settings, null, 2) + "\n")
}

const env = (sb, llm, key) =>
  sb.env({
    GOOGLE_GEMINI_BASE_URL: llm ? llm.baseURL : "http://127.0.0.1:9",
    GEMINI_API_KEY: "mock-model-key",
    DEEPSEEK_API_KEY: key,
    // Headless runs in an untrusted folder refuse to start; this is the documented switch.
    GEMINI_CLI_TRUST_WORKSPACE: "true",
  })

function prompt(sb, llm, key, text) {
  // A fixed model skips the model router's extra classification requests. YOLO approves every
  // call: headless runs otherwise drop the tools that would ask (web_fetch among them), and the
  // forced check must hold for the widest tool set a user can have.
  const args = ["-m", "gemini-2.5-flash", "-p", text, "--output-format", "stream-json", "--approval-mode", "yolo"]
  return runAgent(GEMINI, args, { cwd: sb.project, env: env(sb, llm, key), timeoutMs: 90000 })
}

describe("Gemini CLI 0.61.0", () => {
  let binary, ref
  before(async () => {
    binary = dwrBinary()
    ref = await referenceTexts(binary)
    checkReference(ref)
  })

  test("is the pinned version", async () => {
    const sb = makeSandbox("gemini-version")
    try {
      const r = await runAgent(GEMINI, ["--version"], { cwd: sb.project, env: env(sb, null, "x"), timeoutMs: 30000 })
      assert.equal(r.stdout.trim(), "0.61.0")
    } finally {
      sb.cleanup()
    }
  })

  test("forced search: the model gets our search and fetch texts, no google_web_search/web_fetch, the key only as Bearer", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "gemini-e2e", startMockGemini, {
      turns: [
        { call: { name: SEARCH_TOOL, args: { query: SEARCH_QUERY } } },
        { call: { name: FETCH_TOOL, args: { url: FETCH_URL } } },
        { text: "Done: searched and fetched." },
      ],
    })
    writeHarnessConfig(sb)
    const before = readFiles(sb.home, [".gemini/settings.json"])
    await initHost(sb, "gemini", "global", ["--search", "forced", "--fetch", "forced", "--base-url", ds.baseURL])

    const list = await runAgent(GEMINI, ["mcp", "list"], { cwd: sb.project, env: env(sb, llm, key), timeoutMs: 60000 })
    assert.equal(list.code, 0, list.stderr)
    // The host's own listing: our server, connected (gemini mcp list connects to each server).
    // Gemini CLI 0.61.0 prints the listing on stderr.
    assert.ok(list.stderr.split("\n").includes(`✓ ${SERVER}: ${binary} mcp --search forced --fetch forced --base-url ${ds.baseURL} (stdio) - Connected`), list.stderr)

    const r = await prompt(sb, llm, key, "Find tips for writing Go, then read the best page.")
    assert.equal(r.timedOut, false, "gemini -p ran out of time")
    assert.equal(r.code, 0, r.stderr)
    const events = jsonLines(r.stdout)
    assert.deepEqual(events.filter((e) => e.type === "tool_result").map((e) => e.status), ["success", "success"])
    assert.equal(events.at(-1).type, "result")
    assert.equal(events.at(-1).status, "success")

    assert.equal(llm.turnRequests.length, 3)
    for (const req of llm.turnRequests) {
      const names = llm.declarations(req.json).map((d) => d.name)
      assert.ok(names.includes(SEARCH_TOOL) && names.includes(FETCH_TOOL), names.join(","))
      assert.deepEqual(names.filter((n) => BUILTINS.includes(n)), [])
    }

    const responses = llm.functionResponses()
    assert.deepEqual(responses.map((f) => f.name), [SEARCH_TOOL, FETCH_TOOL])
    // Gemini CLI wraps every MCP tool's text in <untrusted_context> tags; inside, our text.
    assert.deepEqual(responses[0].response, { output: `<untrusted_context>\n${ref.search.text}\n</untrusted_context>` })
    assert.deepEqual(responses[1].response, { output: `<untrusted_context>\n${ref.fetch.text}\n</untrusted_context>` })

    assert.deepEqual(ds.requests.map((q) => q.path), ["/v1/tools/search", "/v1/tools/fetch"])
    checkKeyNowhere({ agent: "Gemini CLI", key, ds, llm, runs: { output: r, "mcp list": list }, dirs: [sb.root], sessionDir: sb.home })

    await uninstallHost(sb, "gemini", "global")
    assertRestored(sb.home, before, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
  })

  test("the trap init works around: without the env entry the server gets no key", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "gemini-env", startMockGemini, { turns: [{ call: { name: SEARCH_TOOL, args: { query: SEARCH_QUERY } } }, { text: "No key." }] })
    writeHarnessConfig(sb)
    await initHost(sb, "gemini", "global", ["--base-url", ds.baseURL])
    const file = join(sb.home, ".gemini", "settings.json")
    const settings = JSON.parse(readFileSync(file, "utf8"))
    assert.deepEqual(settings.mcpServers[SERVER].env, { DEEPSEEK_API_KEY: "$DEEPSEEK_API_KEY" })
    delete settings.mcpServers[SERVER].env
    writeFileSync(file, JSON.stringify(settings, null, 2) + "\n")
    const r = await prompt(sb, llm, key, "Find tips for writing Go.")
    assert.equal(r.code, 0, r.stderr)
    const responses = llm.functionResponses()
    assert.equal(responses.length, 1)
    assert.ok(responses[0].response.error?.includes(ref.missingKey.text), JSON.stringify(responses[0]))
    assert.equal(ds.requests.length, 0)
  })

  test("HTTP 402 from DeepSeek reaches the model as a failed tool result with our sentence; built-ins stay without forced", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "gemini-402", startMockGemini, { turns: [{ call: { name: SEARCH_TOOL, args: { query: SEARCH_QUERY } } }, { text: "The search failed." }] })
    ds.enqueue("search", PAYMENT_ERROR)
    writeHarnessConfig(sb)
    await initHost(sb, "gemini", "global", ["--base-url", ds.baseURL])
    const r = await prompt(sb, llm, key, "Find tips for writing Go.")
    assert.equal(r.code, 0, r.stderr)
    const responses = llm.functionResponses()
    assert.equal(responses.length, 1)
    // Gemini CLI 0.61.0 hands the model an `error` (not an `output`) that quotes the call and
    // our result, our sentence inside it verbatim.
    const call = { name: "deepseek_search", args: { query: SEARCH_QUERY } }
    const inner = [{ functionResponse: { name: "deepseek_search", response: { content: [{ type: "text", text: ref.failure.text }], isError: true } } }]
    assert.deepEqual(responses[0].response, {
      error: `MCP tool 'deepseek_search' reported tool error for function call: ${JSON.stringify(call)} with response: ${JSON.stringify(inner)}`,
    })
    assert.ok(responses[0].response.error.includes(SEARCH_402_SENTENCE))
    const failed = jsonLines(r.stdout).filter((e) => e.type === "tool_result")
    assert.deepEqual(failed.map((e) => [e.status, e.error?.type]), [["error", "mcp_tool_error"]])
    const names = llm.declarations(llm.turnRequests[0].json).map((d) => d.name)
    assert.ok(BUILTINS.every((b) => names.includes(b)), names.join(","))
    checkKeyOnlyAsBearer(ds, key)
    assert.deepEqual(filesContaining(sb.root, key), [])
  })
})
