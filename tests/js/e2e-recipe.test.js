// Proves the recipe for end-to-end tests in the REAL OpenCode 1.18.33: a local plugin
// directory is loaded from the global config dir and from the project, its tool runs, and
// the tool result reaches the (mock) model in the next request. Also pins down how 1.x
// treats a plugin tool's return value, thrown errors, missing args and big outputs.
// Slow (seconds per run): skipped when tests/js/node_modules is not installed.
import { test } from "node:test"
import assert from "node:assert/strict"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

import { openCodeAvailable, runOpenCode } from "./lib/opencode.js"

const here = dirname(fileURLToPath(import.meta.url))
const echoPlugin = join(here, "fixtures", "echo-plugin")
const probePlugin = join(here, "fixtures", "probe-plugin")
const skip = openCodeAvailable() ? false : "opencode-ai not installed (cd tests/js && npm ci)"
const T = { skip, timeout: 240_000 }

function assertRun(run) {
  assert.equal(run.code, 0, `opencode exited ${run.code} ${run.signal ?? ""}\n${run.stderr.slice(-4000)}`)
}

test("global config (opencode.jsonc): [\"./vendor/<dir>\", options] resolves from the config dir", T, async () => {
  const run = await runOpenCode({
    turns: [{ tool: "echo_test", args: { text: "hi" } }, { text: "done" }],
    globalConfigName: "opencode.jsonc",
    globalConfig: { plugin: [["./vendor/echo-plugin", { x: 1 }]] },
    vendor: [{ from: echoPlugin, to: "global:vendor/echo-plugin" }],
  })
  try {
    assertRun(run)
    const use = run.toolUses.find((t) => t.tool === "echo_test")
    assert.ok(use, JSON.stringify(run.events))
    assert.equal(use.state.status, "completed")
    assert.equal(use.state.output, 'echo:hi:{"x":1}')
    // The tool was offered to the model with the schema 1.x derives from plain `args`.
    const offered = run.turnRequests[0].tools.find((t) => t.function.name === "echo_test")
    assert.deepEqual(offered.function.parameters, {
      type: "object",
      properties: { text: { type: "string", description: "Text to echo." } },
      required: ["text"],
    })
    // ...and its output reached the model in the next request.
    assert.deepEqual(run.toolResults.map((r) => r.content), ['echo:hi:{"x":1}'])
    assert.equal(run.text, "done")
  } finally {
    await run.cleanup()
  }
})

test("project config: plugin vendored in the project resolves from the config file, run from a subdir", T, async () => {
  const run = await runOpenCode({
    cwd: "src/deep",
    turns: [{ tool: "echo_test", args: { text: "p" } }, { text: "done" }],
    projectConfig: { plugin: [["./vendor/echo-plugin", { y: 2 }]] },
    vendor: [{ from: echoPlugin, to: "project:vendor/echo-plugin" }],
  })
  try {
    assertRun(run)
    assert.deepEqual(run.toolResults.map((r) => r.content), ['echo:p:{"y":2}'])
  } finally {
    await run.cleanup()
  }
})

test("1.x plugin tools: ctx, object results, thrown errors, unvalidated args, truncation", T, async () => {
  const run = await runOpenCode({
    turns: [
      {
        toolCalls: [
          { id: "c_ctx", name: "probe_ctx", args: { note: "n" } },
          { id: "c_obj", name: "probe_object", args: { text: "t" } },
          { id: "c_throw", name: "probe_throw", args: { text: "kaboom" } },
          { id: "c_big", name: "probe_big", args: { lines: 2500 } },
          { id: "c_noargs", name: "probe_ctx", args: {} },
        ],
      },
      { text: "done" },
    ],
    projectConfig: { plugin: ["./vendor/probe"] },
    vendor: [{ from: probePlugin, to: "project:vendor/probe" }],
  })
  try {
    assertRun(run)
    const seen = Object.fromEntries(run.toolResults.map((r) => [r.tool_call_id, r.content]))
    const ctx = JSON.parse(seen.c_ctx)
    assert.equal(ctx.abortIsSignal, true)
    for (const k of ["abort", "agent", "callID", "directory", "messageID", "metadata", "sessionID", "worktree"]) {
      assert.ok(ctx.ctxKeys.includes(k), k)
    }
    // A string-only entry passes no options: server()'s second argument is undefined.
    assert.equal(ctx.options, undefined)
    // {title, output, metadata} is accepted; the model sees `output`.
    assert.equal(seen.c_obj, "object-output:t")
    const obj = run.toolUses.find((t) => t.callID === "c_obj")
    assert.equal(obj.state.title, "probe title")
    assert.equal(obj.state.metadata.probe, true)
    // A thrown error: status "error", the model sees the error's message, nothing more.
    assert.equal(seen.c_throw, "probe failure: kaboom")
    assert.equal(run.toolUses.find((t) => t.callID === "c_throw").state.status, "error")
    // Required args are not enforced for plain JSON-Schema args.
    assert.deepEqual(JSON.parse(seen.c_noargs).args, {})
    // Output is cut at 2,000 lines by the host (metadata.truncated is the host's verdict).
    assert.match(seen.c_big, /\n\.\.\.500 lines truncated\.\.\.\n/)
    assert.match(seen.c_big, /The tool call succeeded but the output was truncated\. Full output saved to: /)
    assert.equal(run.toolUses.find((t) => t.callID === "c_big").state.metadata.truncated, true)
  } finally {
    await run.cleanup()
  }
})
