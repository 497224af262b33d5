// docs/hosts.md's OpenCode `mcp` snippet, loaded by the REAL OpenCode 1.18.33 against the mock
// model and the mock DeepSeek: OpenCode starts `deepseek-web-retrieval mcp`, offers its two
// tools to the model, and hands back exactly the CLI's text; a DeepSeek failure reaches the
// model as our sentence. Slow (seconds): skipped without node_modules.
import { after, test } from "node:test"
import assert from "node:assert/strict"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

import { filesContaining, randomKey } from "./lib/e2e.js"
import { defaultFetch } from "./lib/mock-deepseek.js"
import { startMockDeepSeek } from "./lib/mock-deepseek.js"
import { openCodeAvailable, runOpenCode } from "./lib/opencode.js"

const skip = openCodeAvailable() ? false : "opencode-ai not installed (cd tests/js && npm install)"
const T = { skip, timeout: 240_000 }
const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
// OpenCode 1.x names an MCP tool <server>_<tool>.
const SEARCH = "deepseek-web-retrieval_deepseek_search"
const FETCH = "deepseek-web-retrieval_deepseek_fetch"

// The binary is built when the file loads, not in a hook: Bun gives a hook 5 s, and the link
// of the binary with SQLite takes longer than that on a busy machine.
const dir = skip ? null : mkdtempSync(join(tmpdir(), "dwr-mcp-oc-"))
const bin = dir && join(dir, "deepseek-web-retrieval")
if (dir) execFileSync("go", ["build", "-o", bin, "./cmd/deepseek-web-retrieval"], { cwd: REPO, stdio: ["ignore", "inherit", "inherit"] })
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test("OpenCode's mcp key runs the server: tools offered, exact results, failures as our sentence, key nowhere", T, async () => {
  const key = randomKey()
  const ds = await startMockDeepSeek({ apiKey: key })
  ds.enqueue("search", { status: 402, json: { error: { message: "Insufficient Balance" } } })
  const run = await runOpenCode({
    turns: [
      { toolCalls: [{ id: "c_fetch", name: FETCH, args: { url: "https://go.dev/doc/" } }] },
      { toolCalls: [{ id: "c_402", name: SEARCH, args: { query: "go idioms" } }] },
      { text: "done" },
    ],
    projectConfig: {
      mcp: {
        "deepseek-web-retrieval": {
          type: "local",
          command: [bin, "mcp", "--base-url", ds.baseURL, "--fetch", "preferred"],
          environment: { DEEPSEEK_API_KEY: "{env:DEEPSEEK_API_KEY}" },
        },
      },
    },
    env: { DEEPSEEK_API_KEY: key },
  })
  try {
    assert.equal(run.code, 0, `opencode exited ${run.code}\n${run.stderr.slice(-4000)}`)
    const offered = run.turnRequests[0].tools.map((t) => t.function.name)
    assert.ok(offered.includes(SEARCH) && offered.includes(FETCH), `offered: ${offered}`)
    const fetchTool = run.turnRequests[0].tools.find((t) => t.function.name === FETCH)
    assert.ok(fetchTool.function.description.endsWith(" Prefer this tool over the host's built-in web fetch tool for reading web pages."))
    const result = (id) => run.toolResults.find((x) => x.tool_call_id === id)?.content
    const page = defaultFetch("https://go.dev/doc/")
    assert.equal(result("c_fetch"), `${page.content.trim()}`)
    assert.equal(result("c_402"), "DeepSeek Search failed: HTTP 402: Insufficient Balance")
    assert.equal(ds.fetchRequests[0].headers.authorization, `Bearer ${key}`)
    assert.ok(!run.stdout.includes(key) && !run.stderr.includes(key), "key in OpenCode's output")
    assert.ok(!JSON.stringify(run.requests).includes(key), "key in a request to the model")
    assert.deepEqual(filesContaining(run.dirs.root, key), [], "key in files under the sandbox")
  } finally {
    await run.cleanup()
    await ds.close()
  }
})
