// Pi (@mariozechner/pi-coding-agent 0.73.1) with pi-mcp-adapter 2.36.0 running our MCP server,
// with its model played by a loopback mock of the Messages API (a custom provider in
// ~/.pi/agent/models.json) and DeepSeek by tests/js/lib/mock-deepseek.js.
//
// pi-mcp-adapter 2.36.0 imports @earendil-works/pi-coding-agent and @earendil-works/pi-tui (Pi's
// packages after their rename at 0.74.0); package.json maps both names onto the 0.73.1 packages
// with npm aliases so the adapter loads in Pi 0.73.1 (see README.md).
import assert from "node:assert/strict"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { startMockMessages } from "./lib/mock-messages.js"
import { FETCH_URL, PAYMENT_ERROR, SEARCH_402_SENTENCE, SEARCH_QUERY, checkKeyNowhere, checkKeyOnlyAsBearer, checkReference, referenceTexts } from "./lib/reference.js"
import { assertRestored, initHost, readFiles, uninstallHost } from "./lib/install.js"
import { BIN_DIR, HOSTS_DIR, dwrBinary, filesContaining, jsonLines, makeSandbox, runAgent, startScene } from "./lib/sandbox.js"

const PI = join(BIN_DIR, "pi")
const ADAPTER_DIR = join(HOSTS_DIR, "node_modules", "pi-mcp-adapter")
const SERVER = "deepseek-web-retrieval"
// With directTools the adapter registers each MCP tool as "<server>_<tool>".
const SEARCH_TOOL = `${SERVER}_deepseek_search`
const FETCH_TOOL = `${SERVER}_deepseek_fetch`

/**
 * The user's ~/.pi/agent before init: settings.json lists pi-mcp-adapter as a package (a local
 * path to the one in tests/hosts/node_modules; `pi install npm:pi-mcp-adapter` would list
 * "npm:pi-mcp-adapter" and download it) and models.json adds a provider "mock" speaking the
 * Messages API at the loopback mock. init then writes mcp.json with `directTools: true`
 * (without it the adapter hides our tools behind its one `mcp` proxy tool).
 */
function writeHarnessConfig(sb, { llm }) {
  const agentDir = join(sb.home, ".pi", "agent")
  mkdirSync(agentDir, { recursive: true })
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ packages: [ADAPTER_DIR] }, null, 2) + "\n")
  const models = {
    providers: {
      mock: {
        baseUrl: llm.baseURL,
        api: "anthropic-messages",
        apiKey: "mock-model-key",
        models: [{ id: "m", name: "Mock", reasoning: false, input: ["text"], contextWindow: 100000, maxTokens: 4096, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
      },
    },
  }
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(models, null, 2) + "\n")
}

// Pi compiles the adapter's TypeScript with jiti on every start (~10 s on 2 busy cores) and
// caches the result under $TMPDIR/jiti: one TMPDIR shared by the Pi runs keeps that cache (the
// key checks scan it too).
const PI_TMP = join(HOSTS_DIR, "node_modules", ".cache", "pi-tmp")
mkdirSync(PI_TMP, { recursive: true })

function prompt(sb, key, text) {
  // --offline (PI_OFFLINE=1): no update checks, package checks or install telemetry.
  const args = ["--offline", "--provider", "mock", "--model", "m", "--mode", "json", "-p", text]
  return runAgent(PI, args, { cwd: sb.project, env: sb.env({ DEEPSEEK_API_KEY: key, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", TMPDIR: PI_TMP }), timeoutMs: 90000 })
}

describe("Pi 0.73.1 with pi-mcp-adapter 2.36.0", () => {
  let binary, ref
  before(async () => {
    binary = dwrBinary()
    ref = await referenceTexts(binary)
    checkReference(ref)
  })

  test("is the pinned version", async () => {
    const sb = makeSandbox("pi-version")
    try {
      const r = await runAgent(PI, ["--version"], { cwd: sb.project, env: sb.env({ PI_OFFLINE: "1" }), timeoutMs: 30000 })
      assert.equal((r.stdout + r.stderr).trim(), "0.73.1")
    } finally {
      sb.cleanup()
    }
  })

  test("the adapter lists our server and both tools; the model gets our search and fetch texts, the key only as Bearer", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "pi-e2e", startMockMessages, {
      turns: [
        { call: { name: "mcp", args: {} } },
        { call: { name: "mcp", args: { server: SERVER } } },
        { call: { name: SEARCH_TOOL, args: { query: SEARCH_QUERY } } },
        { call: { name: FETCH_TOOL, args: { url: FETCH_URL } } },
        { text: "Done: searched and fetched." },
      ],
    })
    writeHarnessConfig(sb, { llm })
    const before = readFiles(sb.home, [".pi/agent/mcp.json", ".pi/agent/settings.json"])
    const init = await initHost(sb, "pi", "global", ["--search", "forced", "--fetch", "forced", "--base-url", ds.baseURL])
    assert.ok(!init.stdout.includes("pi-mcp-adapter is not installed"), init.stdout)
    const r = await prompt(sb, key, "Find tips for writing Go, then read the best page.")
    assert.equal(r.timedOut, false, "pi -p ran out of time")
    assert.equal(r.code, 0, r.stderr)
    const ends = jsonLines(r.stdout).filter((e) => e.type === "tool_execution_end")
    assert.deepEqual(ends.map((e) => [e.toolName, e.isError]), [["mcp", false], ["mcp", false], [SEARCH_TOOL, false], [FETCH_TOOL, false]])

    const results = llm.toolResults()
    assert.equal(results.length, 4)
    // The adapter's own listing (its `mcp` tool): our server connected with 2 tools, then both by name.
    assert.match(results[0].content, new RegExp(`^MCP: 1/1 servers, 2 tools\n\n✓ ${SERVER} \\(2 tools`))
    assert.match(results[1].content, new RegExp(`^${SERVER} \\(2 tools\\):\n\n- ${FETCH_TOOL} - Fetch one public web page.*\n- ${SEARCH_TOOL} - Search the web with DeepSeek`))
    assert.equal(results[2].content, ref.search.text)
    assert.equal(results[2].is_error, false)
    assert.equal(results[3].content, ref.fetch.text)
    assert.equal(results[3].is_error, false)

    // Pi has no built-in web tool; the tools offered are its own four, the adapter's and ours.
    for (const req of llm.turnRequests) {
      const names = req.json.tools.map((x) => x.name)
      assert.ok(names.includes(SEARCH_TOOL) && names.includes(FETCH_TOOL), names.join(","))
    }

    assert.deepEqual(ds.requests.map((q) => q.path), ["/v1/tools/search", "/v1/tools/fetch"])
    checkKeyNowhere({ agent: "Pi", key, ds, llm, runs: { output: r }, dirs: [sb.root, PI_TMP], sessionDir: sb.home })

    await uninstallHost(sb, "pi", "global")
    assertRestored(sb.home, before, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
  })

  test("HTTP 402 from DeepSeek reaches the model as a failed tool result with our sentence", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "pi-402", startMockMessages, { turns: [{ call: { name: SEARCH_TOOL, args: { query: SEARCH_QUERY } } }, { text: "The search failed." }] })
    ds.enqueue("search", PAYMENT_ERROR)
    writeHarnessConfig(sb, { llm })
    await initHost(sb, "pi", "global", ["--base-url", ds.baseURL])
    const r = await prompt(sb, key, "Find tips for writing Go.")
    assert.equal(r.code, 0, r.stderr)
    const results = llm.toolResults()
    assert.equal(results.length, 1)
    // The adapter prefixes a failed call's text with "Error: ".
    assert.equal(results[0].is_error, true)
    assert.equal(results[0].content, `Error: ${ref.failure.text}`)
    assert.ok(ref.failure.text.includes(SEARCH_402_SENTENCE))
    assert.deepEqual(filesContaining(PI_TMP, key), [])
    checkKeyOnlyAsBearer(ds, key)
    assert.deepEqual(filesContaining(sb.root, key), [])
  })
})
