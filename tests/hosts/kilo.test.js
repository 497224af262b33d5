// Kilo CLI 7.7.7 (@kilocode/cli from npm; 7.8.1, npm's latest, has no linux-x64 binary in the
// registry) running our MCP server from its user config ~/.config/kilo/kilo.jsonc and from a
// project's .kilo/kilo.jsonc, with its model played by a loopback mock of OpenAI's Chat
// Completions API (a provider "mock" on @ai-sdk/openai-compatible, which the Kilo binary bundles)
// and DeepSeek by tests/js/lib/mock-deepseek.js.
import assert from "node:assert/strict"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { before, describe, test } from "node:test"
import { chatTurns, checkChatRun, startMockChat } from "./lib/mock-chat.js"
import { checkKeyNowhere, checkReference, referenceTexts } from "./lib/reference.js"
import { assertRestored, initHost, readFiles, uninstallHost } from "./lib/install.js"
import { BIN_DIR, dwrBinary, runAgent, startScene } from "./lib/sandbox.js"

const KILO = join(BIN_DIR, "kilo")
const SERVER = "deepseek-web-retrieval"
// Kilo 7.7.7 names MCP tools "<server>_<tool>".
const SEARCH_TOOL = `${SERVER}_deepseek_search`
const FETCH_TOOL = `${SERVER}_deepseek_fetch`
const STATE = (sb) => join(sb.home, ".local", "state", SERVER)

/** Every Kilo run: no update check, no models.dev download, the key. */
const env = (sb, key) => sb.env({ KILO_DISABLE_AUTOUPDATE: "1", KILO_DISABLE_MODELS_FETCH: "1", DEEPSEEK_API_KEY: key })
const kilo = (sb, key, args) => runAgent(KILO, args, { cwd: sb.project, env: env(sb, key), timeoutMs: 120000 })

/**
 * The user's config: the mock model as an OpenAI-compatible provider, and another MCP server.
 * Kilo is run once (its listing) before the test's snapshot, as a user who installs has run it:
 * its first start adds "permission": {"bash": "allow"} and a .gitignore, once.
 */
async function userConfig(sb, key, llm) {
  const dir = join(sb.home, ".config", "kilo")
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, "kilo.jsonc"),
    `{
  "$schema": "https://app.kilo.ai/config.json",
  // My Kilo settings; keep this comment.
  "provider": {
    "mock": { "npm": "@ai-sdk/openai-compatible", "options": { "baseURL": "${llm.baseURL}", "apiKey": "mock-model-key" }, "models": { "m": { "name": "m" } } },
  },
  "model": "mock/m",
  "mcp": {
    "other": { "type": "local", "command": ["true"], "enabled": false },
  },
}
`,
  )
  const first = await kilo(sb, key, ["mcp", "list"])
  assert.equal(first.code, 0, first.stderr)
}

const turns = () => chatTurns(SEARCH_TOOL, FETCH_TOOL)
const checkRun = (r, llm, ds, ref) => checkChatRun({ r, llm, ds, ref, search: SEARCH_TOOL, fetch: FETCH_TOOL })

describe("Kilo CLI 7.7.7", () => {
  let binary, ref
  before(async () => {
    binary = dwrBinary()
    ref = await referenceTexts(binary)
    checkReference(ref)
  })

  test("user scope: init writes ~/.config/kilo/kilo.jsonc, kilo mcp list connects, the model gets our search and fetch texts, uninstall restores the file", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "kilo-user", startMockChat, { turns: turns() })
    const version = await kilo(sb, key, ["--version"])
    assert.equal(version.code, 0, version.stderr)
    assert.equal(version.stdout.trim(), "7.7.7")
    await userConfig(sb, key, llm)
    const before = readFiles(sb.home, [".config/kilo/kilo.jsonc"])
    const init = await initHost(sb, "kilo", "global", ["--fetch", "forced", "--base-url", ds.baseURL])
    assert.match(init.stdout, /Kilo Code's built-in webfetch \(and websearch, where it is on\) stay available with forced tiers/)

    const list = await kilo(sb, key, ["mcp", "list"])
    assert.equal(list.code, 0, list.stderr)
    const ARGS = ["mcp", "--search", "preferred", "--fetch", "forced", "--base-url", ds.baseURL]
    assert.match(list.stdout, new RegExp(`✓ ${SERVER} .*connected`))
    assert.ok(list.stdout.includes(`${binary} ${ARGS.join(" ")}`), list.stdout)

    const r = await kilo(sb, key, ["run", "Find tips for writing Go, then read the best page."])
    checkRun(r, llm, ds, ref)
    checkKeyNowhere({ agent: "Kilo CLI", key, ds, llm, runs: { output: r, "mcp list": list, init }, dirs: [sb.root], sessionDir: sb.home })

    await uninstallHost(sb, "kilo", "global")
    assertRestored(sb.home, before, STATE(sb))
  })

  test("project scope: .kilo/kilo.jsonc with no environment (Kilo skips a project file that names one); the server inherits the key", async (t) => {
    const { sb, key, ds, llm } = await startScene(t, "kilo-project", startMockChat, { turns: turns() })
    await userConfig(sb, key, llm)
    const before = readFiles(sb.project, [".kilo/kilo.jsonc"])
    const homeBefore = readFiles(sb.home, [".config/kilo/kilo.jsonc"])
    await initHost(sb, "kilo", "project", ["--base-url", ds.baseURL])

    const list = await kilo(sb, key, ["mcp", "list"])
    assert.equal(list.code, 0, list.stderr)
    assert.match(list.stdout, new RegExp(`✓ ${SERVER} .*connected`))

    const r = await kilo(sb, key, ["run", "Find tips for writing Go, then read the best page."])
    checkRun(r, llm, ds, ref)
    checkKeyNowhere({ agent: "Kilo CLI", key, ds, llm, runs: { output: r, "mcp list": list }, dirs: [sb.root], sessionDir: sb.home })

    await uninstallHost(sb, "kilo", "project")
    assertRestored(sb.project, before, STATE(sb))
    assertRestored(sb.home, homeBefore, STATE(sb))
  })
})
