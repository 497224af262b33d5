// GitHub Copilot CLI 1.0.102 (@github/copilot from npm) running our MCP server, from its user
// file ~/.copilot/mcp-config.json and from a project's .mcp.json shared with Claude Code, with
// its model played by a loopback mock of Anthropic's Messages API (COPILOT_PROVIDER_TYPE=anthropic
// and COPILOT_PROVIDER_BASE_URL: Copilot CLI's own "bring your own key" provider) and DeepSeek by
// tests/js/lib/mock-deepseek.js.
import assert from "node:assert/strict"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { startMockMessages } from "./lib/mock-messages.js"
import { FETCH_URL, SEARCH_QUERY, checkKeyNowhere, checkReference, referenceTexts } from "./lib/reference.js"
import { assertRestored, initHost, readFiles, uninstallHost } from "./lib/install.js"
import { BIN_DIR, dwrBinary, runAgent, startScene } from "./lib/sandbox.js"

const COPILOT = join(BIN_DIR, "copilot")
const SERVER = "deepseek-web-retrieval"
// Copilot CLI 1.0.102 names MCP tools "<server>-<tool>".
const SEARCH_TOOL = `${SERVER}-deepseek_search`
const FETCH_TOOL = `${SERVER}-deepseek_fetch`
const STATE = (sb) => join(sb.home, ".local", "state", SERVER)

/**
 * The environment of every Copilot CLI run: the mock model through Copilot CLI's own provider
 * variables, no update check, and COPILOT_OFFLINE (no GitHub sign-in, telemetry, web tools or
 * built-in GitHub MCP server; it requires such a provider). Copilot CLI unpacks its JavaScript
 * into $XDG_CACHE_HOME/copilot/pkg on its first run in a HOME (~2 s).
 */
const env = (sb, llm, key) =>
  sb.env({
    COPILOT_PROVIDER_BASE_URL: llm ? llm.baseURL : "http://127.0.0.1:9",
    COPILOT_PROVIDER_TYPE: "anthropic",
    COPILOT_PROVIDER_API_KEY: "mock-model-key",
    COPILOT_MODEL: "claude-sonnet-4.5",
    COPILOT_AUTO_UPDATE: "false",
    COPILOT_OFFLINE: "true",
    DEEPSEEK_API_KEY: key,
  })

const copilot = (sb, llm, key, args) => runAgent(COPILOT, args, { cwd: sb.project, env: env(sb, llm, key), timeoutMs: 60000 })

/** The text of a tool_result block (a string or text blocks). */
function resultText(block) {
  if (typeof block.content === "string") return block.content
  return block.content.map((b) => {
    assert.equal(b.type, "text")
    return b.text
  }).join("")
}

describe("GitHub Copilot CLI 1.0.102", () => {
  let binary, ref
  before(async () => {
    binary = dwrBinary()
    ref = await referenceTexts(binary)
    checkReference(ref)
  })

  test("user scope: init writes ~/.copilot/mcp-config.json, copilot mcp list shows it, the model gets our search and fetch texts, uninstall restores the file", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "copilot-user", startMockMessages, {
      turns: [
        { call: { name: SEARCH_TOOL, args: { query: SEARCH_QUERY } } },
        { call: { name: FETCH_TOOL, args: { url: FETCH_URL } } },
        { text: "Done: searched and fetched." },
      ],
    })
    const version = await copilot(sb, null, key, ["--version"])
    assert.equal(version.code, 0, version.stderr)
    assert.match(version.stdout, /^GitHub Copilot CLI 1\.0\.102\.$/m)

    // The user's file as `copilot mcp add` leaves it, with another server.
    const userFile = join(sb.home, ".copilot", "mcp-config.json")
    mkdirSync(join(sb.home, ".copilot"), { recursive: true })
    writeFileSync(userFile, JSON.stringify({ mcpServers: { other: { tools: ["*"], type: "local", command: "true", args: [] } } }, null, 2) + "\n")
    const before = readFiles(sb.home, [".copilot/mcp-config.json"])
    const init = await initHost(sb, "copilot", "global", ["--search", "forced", "--fetch", "forced", "--base-url", ds.baseURL])
    assert.match(init.stdout, /built-in web_fetch cannot be turned off in its config files: with --fetch forced, start it with --excluded-tools=web_fetch/)

    const list = await copilot(sb, null, key, ["mcp", "list"])
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, /^User servers:\n {2}other \(local\)\n {2}deepseek-web-retrieval \(local\)$/m)
    const json = await copilot(sb, null, key, ["mcp", "list", "--json"])
    assert.equal(json.code, 0, json.stderr)
    assert.deepEqual(JSON.parse(json.stdout).mcpServers[SERVER], {
      type: "local",
      command: binary,
      args: ["mcp", "--search", "forced", "--fetch", "forced", "--base-url", ds.baseURL],
      env: { DEEPSEEK_API_KEY: "${DEEPSEEK_API_KEY}" },
      tools: ["*"],
      source: "user",
      enabled: true,
    })

    const r = await copilot(sb, llm, key, ["-p", "Find tips for writing Go, then read the best page.", "--allow-all-tools"])
    assert.equal(r.timedOut, false, "copilot -p ran out of time")
    assert.equal(r.code, 0, r.stdout + r.stderr)
    assert.match(r.stdout, /Done: searched and fetched\./)
    assert.equal(llm.turnRequests.length, 3)
    for (const req of llm.turnRequests) {
      const offered = req.json.tools.map((x) => x.name)
      assert.ok(offered.includes(SEARCH_TOOL) && offered.includes(FETCH_TOOL), offered.join(","))
    }
    const results = llm.toolResults()
    assert.equal(results.length, 2)
    assert.equal(resultText(results[0]), ref.search.text)
    assert.equal(results[0].is_error ?? false, false)
    assert.equal(resultText(results[1]), ref.fetch.text)
    assert.equal(results[1].is_error ?? false, false)
    assert.deepEqual(ds.requests.map((q) => q.path), ["/v1/tools/search", "/v1/tools/fetch"])
    checkKeyNowhere({ agent: "Copilot CLI", key, ds, llm, runs: { output: r, "mcp list": list, "mcp list --json": json, init }, dirs: [sb.root], sessionDir: sb.home })

    await uninstallHost(sb, "copilot", "global")
    assertRestored(sb.home, before, STATE(sb))
    assert.equal(readFileSync(userFile, "utf8"), before[".copilot/mcp-config.json"].toString())
  })

  test("project scope: the .mcp.json init --host claude writes is Copilot CLI's too, shared until the last uninstall", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "copilot-project", startMockMessages, {
      turns: [{ call: { name: SEARCH_TOOL, args: { query: SEARCH_QUERY } } }, { text: "Done: searched." }],
    })
    const mcpJSON = join(sb.project, ".mcp.json")
    writeFileSync(mcpJSON, '{\n  "mcpServers": {}\n}\n')
    const before = readFiles(sb.project, [".mcp.json"])
    await initHost(sb, "claude", "project", ["--base-url", ds.baseURL])
    const installed = readFileSync(mcpJSON, "utf8")
    assert.match(installed, /"DEEPSEEK_API_KEY": "\$\{DEEPSEEK_API_KEY:-\}"/)

    // An untrusted folder's .mcp.json is not loaded, neither listed nor offered to the model
    // (the controls for the listing and the run below).
    const untrusted = await copilot(sb, null, key, ["mcp", "list"])
    assert.equal(untrusted.code, 0, untrusted.stderr)
    assert.match(untrusted.stdout, /No MCP servers configured/)

    const bare = await startMockMessages({ turns: [{ text: "No tools of yours." }] })
    t.after(() => bare.close())
    const control = await copilot(sb, bare, key, ["-p", "Find tips for writing Go."])
    assert.equal(control.code, 0, control.stdout + control.stderr)
    const offered = bare.turnRequests[0].json.tools.map((x) => x.name)
    assert.ok(offered.includes("bash") && !offered.includes(SEARCH_TOOL), offered.join(","))

    // A prompt run trusts the folder with --trust-folder; our read-only tools need no
    // --allow-all-tools. ${DEEPSEEK_API_KEY:-} expands: the key reaches DeepSeek.
    const r = await copilot(sb, llm, key, ["-p", "Find tips for writing Go.", "--trust-folder"])
    assert.equal(r.timedOut, false, "copilot -p ran out of time")
    assert.equal(r.code, 0, r.stdout + r.stderr)
    assert.match(r.stdout, /Done: searched\./)
    const results = llm.toolResults()
    assert.equal(results.length, 1)
    assert.equal(resultText(results[0]), ref.search.text)
    assert.deepEqual(ds.requests.map((q) => q.path), ["/v1/tools/search"])
    checkKeyNowhere({ agent: "Copilot CLI", key, ds, llm, runs: { output: r, control, "mcp list": untrusted }, dirs: [sb.root], sessionDir: sb.home })

    // Trusted for good (trustedFolders in ~/.copilot/config.json, what answering the CLI's
    // question saves): `copilot mcp list` shows the workspace server.
    writeFileSync(join(sb.home, ".copilot", "config.json"), JSON.stringify({ trustedFolders: [sb.project] }, null, 2) + "\n")
    const listed = async () => {
      const list = await copilot(sb, null, key, ["mcp", "list", "--json"])
      assert.equal(list.code, 0, list.stderr)
      return JSON.parse(list.stdout).mcpServers?.[SERVER]
    }
    assert.deepEqual(await listed(), {
      tools: ["*"],
      type: "stdio",
      command: binary,
      args: ["mcp", "--search", "preferred", "--fetch", "optional", "--base-url", ds.baseURL],
      env: { DEEPSEEK_API_KEY: "${DEEPSEEK_API_KEY:-}" },
      source: "workspace",
      sourcePath: mcpJSON,
      enabled: true,
    })

    // init --host copilot finds Claude Code's entry: the file is not changed.
    const second = await initHost(sb, "copilot", "project", ["--base-url", ds.baseURL])
    assert.match(second.stdout, /Claude Code's install already has the entry in \.mcp\.json: this install records it too/)
    assert.equal(readFileSync(mcpJSON, "utf8"), installed)
    // Claude Code's uninstall leaves it to Copilot CLI's install.
    const first = await uninstallHost(sb, "claude", "project")
    assert.match(first.stdout, /\.mcp\.json is left as it is: GitHub Copilot CLI's install still uses the entry/)
    assert.equal(readFileSync(mcpJSON, "utf8"), installed)
    assert.equal((await listed())?.command, binary)
    // The last uninstall gives the file back byte for byte.
    await uninstallHost(sb, "copilot", "project")
    assertRestored(sb.project, before, STATE(sb))
    assert.equal(await listed(), undefined)
  })
})
