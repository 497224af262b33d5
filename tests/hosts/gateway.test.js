// The team gateway (`deepseek-web-retrieval serve`) in the real Codex 0.169.0 and Claude Code
// 2.1.328: a member's scratch HOME gets the remote entry from `init --remote URL --token-env
// TEAM_TOKEN`, the agent (its model a loopback mock, as in codex.test.js and claude.test.js)
// calls deepseek_search and deepseek_fetch through the gateway, and the gateway's texts reach
// the model exactly as our stdio server's do. The member's environment has the token and no
// DeepSeek key; the key lives only in the gateway's. The host's own listing shows the remote
// entry, `doctor` connects to the gateway, every call is audited under the member's name, and
// `uninstall` gives back the config files byte for byte.
import assert from "node:assert/strict"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { addToken, revokeToken, startGateway } from "../js/lib/gateway.js"
import { writeCodexHarness } from "./lib/codex-harness.js"
import { startMockMessages } from "./lib/mock-messages.js"
import { startMockResponses } from "./lib/mock-responses.js"
import { FETCH_URL, SEARCH_QUERY, checkKeyNowhere, checkReference, referenceTexts } from "./lib/reference.js"
import { assertRestored, initHost, readFiles, uninstallHost } from "./lib/install.js"
import { BIN_DIR, dwrBinary, filesContaining, jsonLines, runAgent, startScene } from "./lib/sandbox.js"

const CODEX = join(BIN_DIR, "codex")
const CLAUDE = join(BIN_DIR, "claude")
const SERVER = "deepseek-web-retrieval"
const TOKEN_ENV = "TEAM_TOKEN"

/**
 * A scene (sandbox, key, mock DeepSeek and mock model: startScene) plus a gateway with the key
 * in its environment and one member, whose token is returned. The gateway's files (tokens,
 * HOME) are under the sandbox root, outside the member's HOME; it is stopped when t ends.
 */
async function startTeam(t, name, member, startLLM, llmOptions) {
  const scene = await startScene(t, name, startLLM, llmOptions)
  const dir = join(scene.sb.root, "gateway")
  mkdirSync(dir)
  const env = { PATH: process.env.PATH, HOME: dir, DEEPSEEK_API_KEY: scene.key }
  const tokensFile = join(dir, "tokens.json")
  const token = addToken(dwrBinary(), tokensFile, member, env)
  const gw = await startGateway({ bin: dwrBinary(), args: ["--tokens", tokensFile, "--base-url", scene.ds.baseURL], env })
  t.after(async () => {
    const { code } = await gw.stop()
    assert.equal(code, 0, `serve exited ${code}: ${gw.stderr()}`)
  })
  return { ...scene, gw, token }
}

/** init --remote at the gateway for host, the token by reference in TEAM_TOKEN. */
function initRemote(sb, host, scope, gw) {
  return initHost(sb, host, scope, ["--remote", gw.url, "--token-env", TOKEN_ENV])
}

/** `doctor` in the project, the member's token in its environment; resolves its run. */
function doctor(sb, token) {
  return runAgent(dwrBinary(), ["doctor"], { cwd: sb.project, env: sb.env({ PATH: `${BIN_DIR}:${process.env.PATH}`, [TOKEN_ENV]: token }), timeoutMs: 60000 })
}

/** The lines of one host's section of doctor's report. */
function doctorSection(stdout, label) {
  const i = stdout.indexOf(label)
  assert.ok(i >= 0, `doctor has no section ${label}:\n${stdout}`)
  return stdout.slice(i).split("\n\n")[0]
}

/** The gateway's audit, reduced to what the member did. */
async function auditedCalls(gw, n) {
  const lines = await gw.waitAudit(() => true, n)
  return lines.map((l) => [l.member, l.tool, l.query ?? l.url, l.outcome, l.deepseek_status])
}


/** codex exec with our server pre-approved (codex.test.js: approval_policy "never"). */
function codexExec(sb, env, prompt) {
  return runAgent(CODEX, ["exec", "-c", `mcp_servers.${SERVER}.default_tools_approval_mode="approve"`, "--skip-git-repo-check", "--json", prompt], { cwd: sb.project, env, timeoutMs: 60000 })
}

const EXPECTED_AUDIT = (member) => [
  [member, "deepseek_search", SEARCH_QUERY, "ok", 200],
  [member, "deepseek_fetch", FETCH_URL, "ok", 200],
]

describe("the team gateway in Codex 0.169.0 and Claude Code 2.1.328", () => {
  let ref
  before(async () => {
    ref = await referenceTexts(dwrBinary())
    checkReference(ref)
  })

  test("Codex: init --remote, codex mcp list --json, both tools through the gateway, doctor, uninstall", async (t) => {
    const NAMESPACE = "mcp__deepseek_web_retrieval"
    const { sb, key, ds, llm, gw, token } = await startTeam(t, "gateway-codex", "alice", startMockResponses, {
      turns: [
        { call: { namespace: NAMESPACE, name: "deepseek_search", args: { query: SEARCH_QUERY } } },
        { call: { namespace: NAMESPACE, name: "deepseek_fetch", args: { url: FETCH_URL } } },
        { text: "Done: searched and fetched." },
      ],
    })
    writeCodexHarness(sb, llm)
    const before = readFiles(sb.home, [".codex/config.toml"])
    await initRemote(sb, "codex", "global", gw)
    // The member's environment: the token, no DeepSeek key.
    const env = sb.env({ MOCK_MODEL_KEY: "mock-model-key", [TOKEN_ENV]: token })

    const listed = await runAgent(CODEX, ["mcp", "list", "--json"], { cwd: sb.project, env, timeoutMs: 20000 })
    assert.equal(listed.code, 0, listed.stderr)
    const ours = JSON.parse(listed.stdout).find((s) => s.name === SERVER)
    assert.ok(ours, listed.stdout)
    assert.equal(ours.enabled, true)
    assert.equal(ours.auth_status, "bearer_token")
    assert.deepEqual(ours.transport, { type: "streamable_http", url: gw.url, bearer_token_env_var: TOKEN_ENV, http_headers: null, env_http_headers: null, http_headers_helper: null })

    const r = await codexExec(sb, env, "Find tips for writing Go, then read the best page.")
    assert.equal(r.timedOut, false, "codex exec ran out of time")
    assert.equal(r.code, 0, r.stderr)
    const calls = jsonLines(r.stdout).filter((e) => e.type === "item.completed" && e.item?.type === "mcp_tool_call")
    assert.deepEqual(calls.map((e) => [e.item.server, e.item.tool, e.item.status]), [
      [SERVER, "deepseek_search", "completed"],
      [SERVER, "deepseek_fetch", "completed"],
    ])
    for (const req of llm.turnRequests) {
      const ns = req.json.tools.find((x) => x.type === "namespace" && x.name === NAMESPACE)
      assert.ok(ns, "our namespace is offered")
      assert.deepEqual(ns.tools.map((x) => x.name).sort(), ["deepseek_fetch", "deepseek_search"])
    }
    // What the model was handed after Codex's "Wall time" header: exactly our server's texts.
    const outs = llm.toolOutputs()
    assert.equal(outs.length, 2)
    const texts = outs.map((o) => {
      assert.match(o.output[0].text, /^Wall time: [0-9.]+ seconds\nOutput:$/)
      return o.output.slice(1).map((p) => p.text)
    })
    assert.deepEqual(texts, [[ref.search.text], [ref.fetch.text]])

    assert.deepEqual(ds.requests.map((q) => [q.path, q.json.query ?? q.json.url]), [
      ["/v1/tools/search", SEARCH_QUERY],
      ["/v1/tools/fetch", FETCH_URL],
    ])
    assert.deepEqual(await auditedCalls(gw, 2), EXPECTED_AUDIT("alice"))

    const doc = await doctor(sb, token)
    const section = doctorSection(doc.stdout, "Codex ([mcp_servers] in config.toml) (global)")
    assert.match(section, new RegExp(`connects to the gateway ${gw.url}\n`))
    assert.match(section, /\n {2}- connected, 2 tools \(deepseek_fetch, deepseek_search\)\n/)
    assert.equal(doc.code, 0, doc.stdout + doc.stderr)

    // The key: only as the Bearer header at DeepSeek, nowhere in the member's runs, requests
    // to the model or files; the token in no file (init writes only the variable's name).
    checkKeyNowhere({ agent: "Codex", key, ds, llm, runs: { output: r, "mcp list": listed, doctor: doc }, dirs: [sb.root], sessionDir: sb.home })
    assert.deepEqual(filesContaining(sb.home, token), [])

    await uninstallHost(sb, "codex", "global")
    assertRestored(sb.home, before, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
  })

  test("Claude Code: init --remote, claude mcp list Connected, both tools through the gateway, doctor, uninstall", async (t) => {
    const SEARCH_TOOL = `mcp__${SERVER}__deepseek_search`
    const FETCH_TOOL = `mcp__${SERVER}__deepseek_fetch`
    const { sb, key, ds, llm, gw, token } = await startTeam(t, "gateway-claude", "bob", startMockMessages, {
      turns: [
        // Claude Code 2.1.328 defers MCP tools: the model loads them with ToolSearch first.
        { call: { name: "ToolSearch", args: { query: `select:${SEARCH_TOOL},${FETCH_TOOL}`, max_results: 5 } } },
        { call: { name: SEARCH_TOOL, args: { query: SEARCH_QUERY } } },
        { call: { name: FETCH_TOOL, args: { url: FETCH_URL } } },
        { text: "Done: searched and fetched." },
      ],
    })
    // The project's .mcp.json (Claude Code rewrites ~/.claude.json on every run, so only a
    // project file can come back byte for byte after a run), approved the non-interactive way
    // claude.test.js documents.
    mkdirSync(join(sb.home, ".claude"), { recursive: true })
    writeFileSync(join(sb.home, ".claude", "settings.json"), JSON.stringify({ enabledMcpjsonServers: [SERVER] }, null, 2) + "\n")
    const before = readFiles(sb.project, [".mcp.json", ".claude/settings.json"])
    await initRemote(sb, "claude", "project", gw)
    const env = (token) =>
      sb.env({
        ANTHROPIC_BASE_URL: llm.baseURL,
        ANTHROPIC_API_KEY: "mock-model-key",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        ...(token ? { [TOKEN_ENV]: token } : {}),
      })

    // Connected with the token; without it the gateway refuses Claude Code (the control that
    // makes the first listing able to fail).
    const list = await runAgent(CLAUDE, ["mcp", "list"], { cwd: sb.project, env: env(token), timeoutMs: 60000 })
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, new RegExp(`^${SERVER}: ${gw.url} \\(HTTP\\) - . Connected$`, "m"))
    const refused = await runAgent(CLAUDE, ["mcp", "list"], { cwd: sb.project, env: env(null), timeoutMs: 60000 })
    // (${TEAM_TOKEN:-} unset: Claude Code sends "Bearer " and no OAuth fallback.)
    assert.match(refused.stdout, new RegExp(`^${SERVER}: ${gw.url} \\(HTTP\\) - . Failed to connect — Server rejected the configured Authorization header \\(HTTP 401\\)`, "m"))
    assert.match(gw.stderr(), /gateway: 401 for 127\.0\.0\.1:\d+: authorization header is not "Bearer <token>"/)

    const r = await runAgent(CLAUDE, ["-p", "Find tips for writing Go, then read the best page.", "--output-format", "stream-json", "--verbose", "--allowedTools", `${SEARCH_TOOL},${FETCH_TOOL}`], { cwd: sb.project, env: env(token), timeoutMs: 90000 })
    assert.equal(r.timedOut, false, "claude -p ran out of time")
    assert.equal(r.code, 0, r.stderr)
    const events = jsonLines(r.stdout)
    const result = events.find((e) => e.type === "result")
    assert.equal(result?.subtype, "success", r.stdout.slice(-2000))
    assert.equal(result.result, "Done: searched and fetched.")
    const init = events.find((e) => e.type === "system" && e.subtype === "init")
    assert.deepEqual(init.mcp_servers, [{ name: SERVER, source: "project", status: "connected" }])

    // What the model was handed: exactly our server's texts, not errors.
    const results = llm.toolResults().slice(1) // [0] is ToolSearch's
    assert.equal(results.length, 2)
    const text = (b) => (typeof b.content === "string" ? b.content : b.content.map((c) => c.text).join(""))
    assert.deepEqual(results.map((b) => [text(b), b.is_error ?? false]), [
      [ref.search.text, false],
      [ref.fetch.text, false],
    ])

    assert.deepEqual(ds.requests.map((q) => [q.path, q.json.query ?? q.json.url]), [
      ["/v1/tools/search", SEARCH_QUERY],
      ["/v1/tools/fetch", FETCH_URL],
    ])
    assert.deepEqual(await auditedCalls(gw, 2), EXPECTED_AUDIT("bob"))

    const doc = await doctor(sb, token)
    const section = doctorSection(doc.stdout, "Claude Code (mcpServers) (project)")
    assert.match(section, new RegExp(`connects to the gateway ${gw.url}\n`))
    assert.match(section, /\n {2}- connected, 2 tools \(deepseek_fetch, deepseek_search\)\n/)
    assert.equal(doc.code, 0, doc.stdout + doc.stderr)

    checkKeyNowhere({ agent: "Claude Code", key, ds, llm, runs: { output: r, "mcp list": list, "mcp list without the token": refused, doctor: doc }, dirs: [sb.root], sessionDir: sb.home })
    assert.deepEqual(filesContaining(sb.project, token), [])

    await uninstallHost(sb, "claude", "project")
    assertRestored(sb.project, before, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
  })

  test("Claude Code, user scope: init --remote edits ~/.claude.json, claude mcp list Connected, doctor, uninstall restores it", async (t) => {
    const { sb, gw, token } = await startTeam(t, "gateway-claude-user", "carol")
    const env = sb.env({ CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1", DISABLE_ERROR_REPORTING: "1", [TOKEN_ENV]: token })
    // A ~/.claude.json with another server, after Claude Code's own first run (claude.test.js).
    writeFileSync(join(sb.home, ".claude.json"), JSON.stringify({ numStartups: 7, hasCompletedOnboarding: true, mcpServers: { other: { type: "stdio", command: "true", args: [] } } }, null, 2) + "\n")
    const first = await runAgent(CLAUDE, ["mcp", "list"], { cwd: sb.project, env, timeoutMs: 60000 })
    assert.equal(first.code, 0, first.stderr)
    const before = readFiles(sb.home, [".claude.json", ".claude/settings.json"])
    await initRemote(sb, "claude", "global", gw)

    const list = await runAgent(CLAUDE, ["mcp", "list"], { cwd: sb.project, env, timeoutMs: 60000 })
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, new RegExp(`^${SERVER}: ${gw.url} \\(HTTP\\) - . Connected$`, "m"))
    const get = await runAgent(CLAUDE, ["mcp", "get", SERVER], { cwd: sb.project, env, timeoutMs: 60000 })
    assert.equal(get.code, 0, get.stderr)
    assert.match(get.stdout, /Scope: User config/)
    assert.match(get.stdout, /Type: http/)
    assert.match(get.stdout, /Status: . Connected/)
    assert.ok(!get.stdout.includes(token) && !list.stdout.includes(token), "Claude Code printed the token")

    const doc = await doctor(sb, token)
    const section = doctorSection(doc.stdout, "Claude Code (mcpServers) (global)")
    assert.match(section, /\n {2}- connected, 2 tools \(deepseek_fetch, deepseek_search\)\n/)
    assert.equal(doc.code, 0, doc.stdout + doc.stderr)
    // Listing and doctor's probe are initialize and tools/list: no call, nothing audited.
    assert.deepEqual(gw.audit(), [])
    assert.deepEqual(filesContaining(sb.home, token), [])

    await uninstallHost(sb, "claude", "global")
    assertRestored(sb.home, before, join(sb.home, ".local", "state", "deepseek-web-retrieval"))
  })

  test("Codex with a revoked token: the gateway refuses it, and Codex offers its model no tools of ours", async (t) => {
    const { sb, ds, llm, gw, token } = await startTeam(t, "gateway-codex-revoked", "dave", startMockResponses, { turns: [{ text: "No DeepSeek tools." }] })
    writeCodexHarness(sb, llm)
    await initRemote(sb, "codex", "global", gw)
    revokeToken(dwrBinary(), join(sb.root, "gateway", "tokens.json"), "dave", { PATH: process.env.PATH })
    const r = await codexExec(sb, sb.env({ MOCK_MODEL_KEY: "mock-model-key", [TOKEN_ENV]: token }), "Find tips for writing Go.")
    assert.equal(r.code, 0, r.stderr)
    // Codex 0.169.0 says so only on stderr, and runs the turn without the server.
    assert.match(r.stderr, /AuthRequired/)
    assert.match(gw.stderr(), /gateway: 401 for 127\.0\.0\.1:\d+: unknown or revoked token/)
    assert.equal(llm.turnRequests.length, 1)
    assert.ok(!llm.turnRequests[0].json.tools.some((x) => x.name === "mcp__deepseek_web_retrieval"), "our namespace offered with a revoked token")
    assert.deepEqual(ds.requests, [])
    assert.deepEqual(gw.audit(), [])
  })
})
