// Paging in the REAL OpenCode 1.18.33: the mock model reads a long page in three
// deepseek_fetch calls, taking each next offset from the continue line of the part before
// (as a model would), and the mock DeepSeek sees one fetch. Slow (seconds): skipped without
// node_modules.
import { after, before, test } from "node:test"
import assert from "node:assert/strict"
import { rmSync } from "node:fs"
import { dirname } from "node:path"

import { randomKey, stagePlugin } from "./lib/e2e.js"
import { startMockDeepSeek } from "./lib/mock-deepseek.js"
import { openCodeAvailable, runOpenCode } from "./lib/opencode.js"

const skip = openCodeAvailable() ? false : "opencode-ai not installed (cd tests/js && npm install)"
const T = { skip, timeout: 240_000 }
const NAME = "deepseek-web-retrieval"
const URL_ = "https://docs.example/reference"

// 1,200 numbered lines after "# Reference\n\n": 34,812 code points, the last newline trimmed.
const LINES = Array.from({ length: 1200 }, (_, i) => `entry ${String(i).padStart(4, "0")}: ünïcödé 🙂 value.`)
const PAGE = { title: "Reference", content: LINES.join("\n") + "\n" }

let staged
before(() => {
  if (!skip) staged = stagePlugin()
})
after(() => {
  if (staged) rmSync(dirname(staged), { recursive: true, force: true })
})

/** The offset the continue line of the last tool result names, as a model would read it. */
function nextOffset(body) {
  const tool = [...body.messages].reverse().find((m) => m.role === "tool")
  const text = typeof tool?.content === "string" ? tool.content : JSON.stringify(tool?.content)
  const m = /call deepseek_fetch with offset (\d+) for more\]$/.exec(text)
  assert.ok(m, `no continue line at the end of the last tool result: …${text?.slice(-200)}`)
  return Number(m[1])
}

test("a long page read in three calls: one DeepSeek fetch, exact continue lines", T, async () => {
  const key = randomKey()
  const ds = await startMockDeepSeek({ apiKey: key })
  ds.enqueue("fetch", { json: PAGE })
  const offsets = []
  const call = (id) => (body) => {
    const offset = nextOffset(body)
    offsets.push(offset)
    return { toolCalls: [{ id, name: "deepseek_fetch", args: { url: URL_, offset } }] }
  }
  const run = await runOpenCode({
    turns: [
      // OpenCode 1.x makes every argument required, so the first call names offset 0.
      { toolCalls: [{ id: "p1", name: "deepseek_fetch", args: { url: URL_, offset: 0 } }] },
      call("p2"),
      call("p3"),
      { text: "read it all" },
    ],
    projectConfig: { plugin: [[`./vendor/${NAME}`, { baseURL: ds.baseURL, fetch: "preferred" }]] },
    vendor: [{ from: staged, to: `project:vendor/${NAME}` }],
    env: { DEEPSEEK_API_KEY: key },
  })
  try {
    assert.equal(run.code, 0, `opencode exited ${run.code} ${run.signal ?? ""}\n${run.stderr.slice(-4000)}`)
    const result = (id) => {
      const r = run.toolResults.find((x) => x.tool_call_id === id)
      assert.ok(r, `no tool result for ${id}`)
      return r.content
    }
    const [a, b, c] = ["p1", "p2", "p3"].map(result)
    assert.deepEqual(offsets, [15893, 31781])
    assert.ok(a.startsWith("# Reference\n\nentry 0000: ünïcödé 🙂 value.\n"), a.slice(0, 80))
    assert.ok(a.endsWith("\n[content truncated: showing 0–15,893 of 34,812 characters; call deepseek_fetch with offset 15893 for more]"), a.slice(-160))
    assert.ok(!b.startsWith("# Reference"))
    assert.ok(b.endsWith("\n[content truncated: showing 15,893–31,781 of 34,812 characters; call deepseek_fetch with offset 31781 for more]"), b.slice(-160))
    assert.ok(c.endsWith("entry 1199: ünïcödé 🙂 value."), c.slice(-80))
    assert.ok(!c.includes("[content truncated"))
    for (const part of [a, b, c]) assert.ok([...part].length <= 16000)
    // Every line of the page reached the model, in order, once.
    const seen = [a, b, c].join("\n").match(/entry \d{4}:/g)
    assert.equal(new Set(seen).size, 1200)

    assert.equal(ds.fetchRequests.length, 1, "later parts come from the page cache")
    assert.deepEqual(ds.fetchRequests[0].json, { url: URL_ })
    assert.equal(run.toolUses.filter((u) => u.tool === "deepseek_fetch" && u.state.status === "completed").length, 3)

    // What the model is offered: offset, described, an integer ≥ 0.
    const fetchTool = run.turnRequests[0].tools.find((t) => t.function.name === "deepseek_fetch").function
    assert.equal(fetchTool.parameters.properties.offset.type, "integer")
    assert.equal(fetchTool.parameters.properties.offset.minimum, 0)
    assert.deepEqual([...fetchTool.parameters.required].sort(), ["offset", "url", "urls"], "1.18.33 requires every argument")
    assert.match(fetchTool.description, /call again with the same url and that offset/)
    assert.equal(run.text, "read it all")
  } finally {
    await run.cleanup()
    await ds.close()
  }
})
