// Codex 0.169.0 (@openai/codex from npm) running our MCP server, with its model played by a
// loopback mock of the Responses API and DeepSeek by tests/js/lib/mock-deepseek.js.
import assert from "node:assert/strict"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { writeCodexHarness } from "./lib/codex-harness.js"
import { startMockResponses } from "./lib/mock-responses.js"
import { FETCH_URL, PAYMENT_ERROR, SEARCH_402_SENTENCE, SEARCH_QUERY, checkKeyNowhere, checkKeyOnlyAsBearer, checkReference, referenceTexts } from "./lib/reference.js"
import { assertRestored, initHost, readFiles, uninstallHost } from "./lib/install.js"
import { BIN_DIR, dwrBinary, filesContaining, jsonLines, makeSandbox, runAgent, startScene } from "./lib/sandbox.js"

const CODEX = join(BIN_DIR, "codex")
const SERVER = "deepseek-web-retrieval"
// Codex offers MCP tools to the model in a namespace "mcp__<server>", "-" becoming "_".
const NAMESPACE = "mcp__deepseek_web_retrieval"


const env = (sb, key) => sb.env({ MOCK_MODEL_KEY: "mock-model-key", DEEPSEEK_API_KEY: key })

// approval_policy "never" refuses every MCP call unless the server is pre-approved; the harness
// approves ours on the command line, so the config file stays exactly what init wrote.
const APPROVE = ["-c", `mcp_servers.${SERVER}.default_tools_approval_mode="approve"`]

function exec(sb, key, prompt) {
  return runAgent(CODEX, ["exec", ...APPROVE, "--skip-git-repo-check", "--json", prompt], { cwd: sb.project, env: env(sb, key), timeoutMs: 60000 })
}

/** The texts of a function_call_output after Codex's own "Wall time: … Output:" header. */
function outputTexts(item) {
  assert.ok(Array.isArray(item.output), `structured output: ${JSON.stringify(item)}`)
  assert.match(item.output[0].text, /^Wall time: [0-9.]+ seconds\nOutput:$/)
  return item.output.slice(1).map((p) => {
    assert.equal(p.type, "input_text")
    return p.text
  })
}

describe("Codex 0.169.0", () => {
  let binary, ref
  before(async () => {
    binary = dwrBinary()
    ref = await referenceTexts(binary)
    checkReference(ref)
  })

  test("is the pinned version", async () => {
    const sb = makeSandbox("codex-version")
    try {
      const r = await runAgent(CODEX, ["--version"], { cwd: sb.project, env: sb.env(), timeoutMs: 20000 })
      assert.equal(r.stdout.trim(), "codex-cli 0.169.0")
    } finally {
      sb.cleanup()
    }
  })

  test("forced search: the model gets our search and fetch texts, no built-in web_search, the key only as Bearer", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "codex-e2e", startMockResponses, {
      turns: [
        { call: { namespace: NAMESPACE, name: "deepseek_search", args: { query: SEARCH_QUERY } } },
        { call: { namespace: NAMESPACE, name: "deepseek_fetch", args: { url: FETCH_URL } } },
        { text: "Done: searched and fetched." },
      ],
    })
    writeCodexHarness(sb, llm)
    const before = readFiles(sb.home, [".codex/config.toml"])
    await initHost(sb, "codex", "global", ["--search", "forced", "--fetch", "forced", "--base-url", ds.baseURL])

    const listed = await runAgent(CODEX, ["mcp", "list", "--json"], { cwd: sb.project, env: env(sb, key), timeoutMs: 20000 })
    assert.equal(listed.code, 0, listed.stderr)
    const servers = JSON.parse(listed.stdout)
    const ours = servers.find((s) => s.name === SERVER)
    assert.ok(ours, listed.stdout)
    assert.equal(ours.enabled, true)
    assert.deepEqual({ command: ours.transport.command, args: ours.transport.args.slice(0, 5), env_vars: ours.transport.env_vars }, { command: binary, args: ["mcp", "--search", "forced", "--fetch", "forced"], env_vars: ["DEEPSEEK_API_KEY"] })

    const r = await exec(sb, key, "Find tips for writing Go, then read the best page.")
    assert.equal(r.timedOut, false, "codex exec ran out of time")
    assert.equal(r.code, 0, r.stderr)
    const events = jsonLines(r.stdout)
    const calls = events.filter((e) => e.type === "item.completed" && e.item?.type === "mcp_tool_call")
    assert.deepEqual(calls.map((e) => [e.item.server, e.item.tool, e.item.status]), [
      [SERVER, "deepseek_search", "completed"],
      [SERVER, "deepseek_fetch", "completed"],
    ])
    assert.equal(events.at(-1).type, "turn.completed")

    // The tools offered: our namespace with both tools, and no built-in web_search.
    assert.equal(llm.turnRequests.length, 3)
    for (const req of llm.turnRequests) {
      const tools = req.json.tools
      const ns = tools.find((x) => x.type === "namespace" && x.name === NAMESPACE)
      assert.ok(ns, "our namespace is offered")
      assert.deepEqual(ns.tools.map((x) => x.name).sort(), ["deepseek_fetch", "deepseek_search"])
      assert.deepEqual(tools.filter((x) => x.type === "web_search" || /web_search/.test(x.name ?? "")), [])
    }

    // What the model was handed: exactly our texts.
    const outs = llm.toolOutputs()
    assert.deepEqual(outs.map((o) => o.call_id), ["call_1", "call_2"])
    assert.deepEqual(outputTexts(outs[0]), [ref.search.text])
    assert.deepEqual(outputTexts(outs[1]), [ref.fetch.text])

    // The key: only as the Bearer header at DeepSeek, nowhere in output, requests or files.
    assert.deepEqual(ds.requests.map((q) => q.path), ["/v1/tools/search", "/v1/tools/fetch"])
    assert.equal(ds.searchRequests[0].json.query, SEARCH_QUERY)
    assert.equal(ds.fetchRequests[0].json.url, FETCH_URL)
    checkKeyNowhere({ agent: "Codex", key, ds, llm, runs: { output: r }, dirs: [sb.root], sessionDir: sb.home })

    // uninstall restores config.toml byte for byte, after Codex itself ran on it.
    await uninstallHost(sb, "codex", "global")
    assertRestored(sb.home, before, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
  })

  test("several at once: two queries in one deepseek_search call, and a task that needs three pages in one deepseek_fetch call", async (t) => {
    const urls = ["https://go.dev/doc/effective_go", "https://go.dev/doc/faq", "https://go.dev/ref/spec"]
    const queries = ["goroutines effective go", "goroutines go spec"]
    const { sb, key, ds, llm } = await startScene(t, "codex-batch", startMockResponses, {
      turns: [
        { call: { namespace: NAMESPACE, name: "deepseek_search", args: { queries } } },
        { call: { namespace: NAMESPACE, name: "deepseek_fetch", args: { urls } } },
        { text: "Done: read the three pages." },
      ],
    })
    writeCodexHarness(sb, llm)
    await initHost(sb, "codex", "global", ["--base-url", ds.baseURL])
    const r = await exec(sb, key, "Compare what the Effective Go guide, the FAQ and the spec say about goroutines.")
    assert.equal(r.timedOut, false, "codex exec ran out of time")
    assert.equal(r.code, 0, r.stderr)
    const calls = jsonLines(r.stdout).filter((e) => e.type === "item.completed" && e.item?.type === "mcp_tool_call")
    assert.deepEqual(calls.map((e) => [e.item.tool, e.item.status]), [["deepseek_search", "completed"], ["deepseek_fetch", "completed"]], "one call each")
    // Both queries went out under the one search call; the mock answers both with the same
    // results, so each is listed once, found by the first query.
    assert.deepEqual(ds.searchRequests.map((q) => q.json.query).sort(), [...queries].sort())
    const [found] = outputTexts(llm.toolOutputs()[0])
    assert.equal((found.match(/^found by "goroutines effective go"$/gm) ?? []).length, 2, found)
    assert.ok(!found.includes('found by "goroutines go spec"'), found)
    // The tool's schema offered the list, and the three requests went out under that one call.
    const ns = llm.turnRequests[0].json.tools.find((x) => x.type === "namespace" && x.name === NAMESPACE)
    const fetchTool = ns.tools.find((x) => x.name === "deepseek_fetch")
    assert.equal(fetchTool.parameters.properties.urls.type, "array")
    assert.deepEqual(ds.fetchRequests.map((q) => q.json.url).sort(), [...urls].sort())
    const [text] = outputTexts(llm.toolOutputs()[1])
    const page = (u) => `# Example page\n\nFetched from ${u}.`
    assert.equal(text, urls.map((u, i) => `=== Page ${i + 1} of 3: ${u} ===\n\n${page(u)}`).join("\n\n"))
    checkKeyOnlyAsBearer(ds, key)
    assert.ok(!r.stdout.includes(key) && !r.stderr.includes(key))
    assert.deepEqual(filesContaining(sb.root, key), [])
  })

  test("the trap init works around: without env_vars Codex starts the server without the key", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "codex-envvars", startMockResponses, { turns: [{ call: { namespace: NAMESPACE, name: "deepseek_search", args: { query: SEARCH_QUERY } } }, { text: "No key." }] })
    writeCodexHarness(sb, llm)
    await initHost(sb, "codex", "global", ["--base-url", ds.baseURL])
    const file = join(sb.home, ".codex", "config.toml")
    const toml = readFileSync(file, "utf8")
    assert.ok(toml.includes('env_vars = ["DEEPSEEK_API_KEY"]\n'), toml)
    writeFileSync(file, toml.replace('env_vars = ["DEEPSEEK_API_KEY"]\n', ""))
    const r = await exec(sb, key, "Find tips for writing Go.")
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(outputTexts(llm.toolOutputs()[0]), [ref.missingKey.text])
    assert.equal(ds.requests.length, 0)
  })

  test("HTTP 402 from DeepSeek reaches the model as our failure sentence; built-in web_search stays without forced", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "codex-402", startMockResponses, {
      turns: [{ call: { namespace: NAMESPACE, name: "deepseek_search", args: { query: SEARCH_QUERY } } }, { text: "The search failed." }],
    })
    ds.enqueue("search", PAYMENT_ERROR)
    writeCodexHarness(sb, llm)
    await initHost(sb, "codex", "global", ["--base-url", ds.baseURL])
    const r = await exec(sb, key, "Find tips for writing Go.")
    assert.equal(r.code, 0, r.stderr)
    const calls = jsonLines(r.stdout).filter((e) => e.type === "item.completed" && e.item?.type === "mcp_tool_call")
    assert.equal(calls.length, 1)
    // Codex marks the call failed in its own events and hands the model our text (its
    // function_call_output has no error flag, so the sentence itself says it failed).
    assert.equal(calls[0].item.status, "failed")
    const outs = llm.toolOutputs()
    assert.equal(outs.length, 1)
    assert.deepEqual(outputTexts(outs[0]), [ref.failure.text])
    assert.ok(ref.failure.text.includes(SEARCH_402_SENTENCE))
    // Control for the forced test: without `web_search = "disabled"` Codex offers its built-in.
    assert.ok(llm.turnRequests[0].json.tools.some((x) => x.type === "web_search"), "built-in web_search offered without forced")
    checkKeyOnlyAsBearer(ds, key)
    assert.deepEqual(filesContaining(sb.root, key), [])
  })
})
