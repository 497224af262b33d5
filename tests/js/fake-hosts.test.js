// Exercises the fake OpenCode hosts (lib/fake-host-v2.js, lib/fake-host-v1.js) with trivial
// inline plugins, so the rules they take from OpenCode's source (2.x) or a real run (1.x) are
// pinned before the real plugin is tested against them.
import { test } from "node:test"
import assert from "node:assert/strict"

import { createFakeHostV2, FakeHostError, NO_RESULTS, boundOutput, renderSearch } from "./lib/fake-host-v2.js"
import { loadPluginV1 } from "./lib/fake-host-v1.js"

// A 2.x plugin whose tools and provider behave as `b` says.
function v2Plugin(b = {}) {
  return {
    id: "inline-test",
    async setup(ctx) {
      await ctx.websearch.transform((e) => {
        e.add({
          id: "inline",
          name: "Inline",
          async execute({ query }, { signal }) {
            if (!(signal instanceof AbortSignal)) throw new Error("no signal")
            if (b.searchThrows) throw new Error("upstream broke")
            if (b.results) return b.results
            return [{ url: "https://a.example/", title: "A", content: `about ${query}`, time: { published: 1700000000000 } }]
          },
        })
        if (b.setDefault !== false) e.default.set("inline")
        b.readBack = e.default.get()
      })
      await ctx.tool.transform((e) => {
        e.add({
          name: "inline_fetch",
          description: "fetch",
          input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
          ...(b.output ? { output: b.output } : {}),
          options: b.codemode ? undefined : { codemode: false },
          async execute(input, tctx) {
            b.ctxKeys = Object.keys(tctx).sort()
            if (b.toolThrows) throw new Error("fetch failed: 404")
            if (b.result) return b.result
            return { content: `page ${input.url}`, metadata: { url: input.url, aborted: tctx.signal.aborted } }
          },
        })
        if (b.remove) e.remove(b.remove)
      })
      return () => {
        b.cleaned = true
      }
    },
  }
}

test("v2 context: exactly the Promise API domains, no client, no log", async () => {
  let keys
  let unmodelled
  const host = createFakeHostV2()
  await host.load({
    id: "k",
    setup: (ctx) => {
      keys = Object.keys(ctx).sort()
      assert.equal(ctx.client, undefined)
      assert.equal(ctx.log, undefined)
      assert.throws(() => ctx.session.prompt({}), (e) => (unmodelled = e) instanceof FakeHostError)
    },
  })
  assert.deepEqual(host.plugins(), [{ id: "k", status: "loaded" }])
  assert.ok(unmodelled)
  assert.deepEqual(keys, ["agent", "aisdk", "app", "catalog", "command", "event", "experimental", "generate", "integration", "location", "mcp", "options", "permission", "plugin", "reference", "rpc", "session", "shell", "skill", "storage", "tool", "vcs", "websearch", "worktree"])
})

test("v2 Code Mode: only codemode:false tools are on the native list; the rest sit behind execute", async () => {
  const host = createFakeHostV2()
  await host.load(v2Plugin({ codemode: true }))
  assert.deepEqual(host.nativeTools(), ["webfetch", "websearch", "execute"])
  assert.deepEqual(host.codeModeTools(), ["inline_fetch"])
  const r = await host.runTool("inline_fetch", { url: "u" })
  assert.equal(r.status, "error")
  assert.deepEqual(r.error, { type: "tool.execution", message: "Unknown tool: inline_fetch" })

  const native = createFakeHostV2()
  await native.load(v2Plugin())
  assert.deepEqual(native.nativeTools(), ["inline_fetch", "webfetch", "websearch", "execute"])
  assert.deepEqual(native.codeModeTools(), [])
})

test("v2 tools: content wins; metadata kept; the context has signal, no abort/callID", async () => {
  const b = {}
  const host = createFakeHostV2()
  await host.load(v2Plugin(b))
  const r = await host.runTool("inline_fetch", { url: "https://x.example/" })
  assert.equal(r.status, "completed")
  assert.deepEqual(r.content, [{ type: "text", text: "page https://x.example/" }])
  assert.equal(r.text, "page https://x.example/")
  assert.deepEqual(r.metadata, { url: "https://x.example/", aborted: false, truncated: false })
  assert.deepEqual(b.ctxKeys, ["agent", "checkpoint", "id", "messageID", "progress", "sessionID", "signal"])
  await host.unload()
  assert.equal(b.cleaned, true)
})

test("v2 tools: output without an output schema kills the call, even when undefined", async () => {
  for (const result of [{ output: { x: 1 } }, { content: "c", output: undefined }]) {
    const host = createFakeHostV2()
    await host.load(v2Plugin({ result }))
    const r = await host.runTool("inline_fetch", { url: "u" })
    assert.equal(r.status, "error")
    assert.equal(r.defect, true)
    assert.deepEqual(r.error, { type: "unknown", message: "Tool result declared output without an output schema" })
  }
})

test("v2 tools: with an output schema, missing output fails and content falls back to the JSON", async () => {
  const h1 = createFakeHostV2()
  await h1.load(v2Plugin({ output: { type: "object" }, result: { content: "c" } }))
  assert.deepEqual((await h1.runTool("inline_fetch", {})).error, { type: "tool.execution", message: "Tool did not return its declared output" })
  const h2 = createFakeHostV2()
  await h2.load(v2Plugin({ output: { type: "object" }, result: { output: { a: 1 } } }))
  assert.equal((await h2.runTool("inline_fetch", {})).text, '{"a":1}')
  const h3 = createFakeHostV2()
  await h3.load(v2Plugin({ output: { type: "object" }, result: { output: { a: 1 }, content: "wins" } }))
  assert.equal((await h3.runTool("inline_fetch", {})).text, "wins")
})

test("v2 tools: a thrown error is a defect, reported as an unknown failure", async () => {
  const host = createFakeHostV2()
  await host.load(v2Plugin({ toolThrows: true }))
  const r = await host.runTool("inline_fetch", { url: "u" })
  assert.equal(r.status, "error")
  assert.equal(r.defect, true)
  assert.deepEqual(r.error, { type: "unknown", message: "fetch failed: 404" })
})

test("v2 output bound: 2,000 lines / 50 KiB with the host's marker, skipped when metadata.truncated is defined", async () => {
  const lines = await (async () => {
    const host = createFakeHostV2()
    await host.load(v2Plugin({ result: { content: "x\n".repeat(3000) } }))
    return host.runTool("inline_fetch", {})
  })()
  assert.equal(lines.truncated, true)
  assert.equal(lines.content.at(-1).text, "... 1000 lines truncated; full content saved to /fake/data/opencode/tool-output/tool_1 ...")
  assert.equal(lines.text.split("\n").length, 2001)
  assert.equal(lines.metadata.outputPath, "/fake/data/opencode/tool-output/tool_1")

  const bytes = boundOutput({ content: Array(1000).fill("é".repeat(40)).join("\n") }, "/f")
  assert.deepEqual(bytes.content.at(-1), { type: "text", text: "... 29808 bytes truncated; full content saved to /f ..." })
  assert.equal(Buffer.byteLength(bytes.content[0].text), 51191)
  const oneLine = boundOutput({ content: "é".repeat(30000) }, "/f")
  assert.deepEqual(oneLine.content, [{ type: "text", text: "... 60000 bytes truncated; full content saved to /f ..." }], "a first line over the bound keeps nothing")

  for (const truncated of [false, true, null, 0]) {
    const host = createFakeHostV2()
    await host.load(v2Plugin({ result: { content: "x\n".repeat(3000), metadata: { truncated } } }))
    const r = await host.runTool("inline_fetch", {})
    assert.equal(r.text, "x\n".repeat(3000), `metadata.truncated = ${truncated}`)
  }
})

test("v2 tool editor: later add of a name wins; remove deletes; invalid names are skipped", async () => {
  const host = createFakeHostV2()
  const mk = (description) => ({ name: "dup", description, input: {}, options: { codemode: false }, execute: async () => ({ content: description }) })
  await host.load([
    { plugin: { id: "a", setup: (ctx) => ctx.tool.transform((e) => e.add(mk("first"))) } },
    {
      plugin: {
        id: "b",
        setup: (ctx) =>
          ctx.tool.transform((e) => {
            e.add(mk("second"))
            e.remove("webfetch")
            e.remove("missing")
            e.add({ ...mk("bad"), name: "" })
            e.add({ ...mk("reserved"), name: "execute" })
          }),
      },
    },
  ])
  assert.equal((await host.runTool("dup", {})).text, "second")
  assert.equal(host.tools.get("webfetch"), undefined)
  assert.deepEqual(host.registrationErrors().map((e) => e.error), ["Invalid tool name: ", 'Tool name "execute" is reserved for CodeMode'])
})

test("v2 plugins: a setup that throws marks the plugin failed and drops its registrations", async () => {
  const host = createFakeHostV2()
  const status = await host.load({
    id: "boom",
    async setup(ctx) {
      await ctx.tool.transform((e) => e.add({ name: "t", description: "d", input: {}, execute: async () => ({}) }))
      throw new Error("refused")
    },
  })
  assert.deepEqual(status, [{ id: "boom", status: "failed", error: "refused" }])
  assert.equal(host.tools.get("t"), undefined)
  await assert.rejects(host.load({ nope: true }), FakeHostError)
})

test("v2 websearch: no default until one is picked; the user's answer or config decides", async () => {
  const none = createFakeHostV2()
  assert.equal(none.websearch.default(), undefined)
  const cancelled = await none.search("go")
  assert.equal(cancelled.ok, false)
  assert.equal(cancelled.modelText, "Unable to search the web for go")

  const allow = createFakeHostV2({ formAnswer: { choose: "exa" } })
  const s = await allow.search("go")
  assert.equal(s.providerId, "exa")
  assert.equal(allow.websearch.selection(), "exa", "the answer is stored")

  const configured = createFakeHostV2({ config: { websearch: { provider: "exa" } } })
  await configured.load(v2Plugin())
  assert.equal(configured.websearch.default(), "exa", "the config websearch plugin runs after user plugins")

  const disabled = createFakeHostV2({ config: { websearch: false } })
  await disabled.load(v2Plugin())
  assert.equal(disabled.websearch.default(), false)
  assert.ok(!disabled.nativeTools().includes("websearch"), "a disabled websearch tool is not offered")
})

test("v2 websearch: a provider's default.set reads back inside its own transform, before the config plugin", async () => {
  const b = {}
  const host = createFakeHostV2({ config: { websearch: { provider: "exa" } } })
  await host.load(v2Plugin(b))
  assert.equal(b.readBack, "inline", "the read-back proves nothing about later transforms")
  assert.equal(host.websearch.default(), "exa")
})

test("v2 websearch: results render as the real tool renders them", async () => {
  const host = createFakeHostV2()
  await host.load(v2Plugin({
    results: [
      { url: "https://a.example/", title: "A", content: "about a", time: { published: 1700000000000 }, extra: 1 },
      { url: "https://b.example/", time: {} },
    ],
  }))
  const s = await host.search("go")
  assert.equal(s.ok, true)
  assert.equal(s.providerId, "inline")
  assert.deepEqual(s.results, [
    { url: "https://a.example/", title: "A", content: "about a", time: { published: 1700000000000 } },
    { url: "https://b.example/", time: {} },
  ])
  assert.equal(s.modelText, "## [A](https://a.example/)\nPublished: 2023-11-14T22:13:20.000Z\n\nabout a\n\n## [https://b.example/](https://b.example/)")
  assert.deepEqual(s.metadata, { provider: "inline", truncated: false })
  assert.equal(renderSearch([]), NO_RESULTS)
  const empty = createFakeHostV2()
  await empty.load(v2Plugin({ results: [] }))
  assert.equal((await empty.search("go")).modelText, "No search results found. Please try a different query.")
})

test("v2 websearch: a throwing provider or a result that fails the decode → the generic sentence", async () => {
  for (const b of [{ searchThrows: true }, { results: [{ url: "https://a.example/" }] }, { results: [{ url: "u", title: null, time: {} }] }, { results: [{ url: "u", time: { published: "2024" } }] }, { results: [{ url: "u", time: { published: Infinity } }] }, { results: {} }]) {
    const host = createFakeHostV2()
    await host.load(v2Plugin(b))
    const s = await host.search("rust")
    assert.equal(s.ok, false, JSON.stringify(b))
    assert.equal(s.modelText, "Unable to search the web for rust")
    assert.deepEqual(s.error, { type: "unknown", message: "Unable to search the web for rust" })
  }
})

test("v2 websearch: a later provider with the same id wins", async () => {
  const host = createFakeHostV2()
  const mk = (title) => ({ id: title, setup: (ctx) => ctx.websearch.transform((e) => {
    e.add({ id: "same", name: "Same", execute: async () => [{ url: "https://s.example/", title, time: {} }] })
    e.default.set("same")
  }) })
  await host.load([{ plugin: mk("one") }, { plugin: mk("two") }])
  assert.equal((await host.search("q")).results[0].title, "two")
})

// A 1.x plugin (server hook only).
function makePlugin() {
  return {
    id: "inline-test",
    server(_input, options) {
      return {
        tool: {
          inline_search: {
            description: "search",
            args: { query: { type: "string", description: "q" }, junk: ["not", "a", "schema"] },
            async execute(args, ctx) {
              if (!(ctx.abort instanceof AbortSignal)) throw new Error("no abort signal")
              if (args.query === "fail") throw new Error("search failed: quota")
              if (args.query === "big") return "l\n".repeat(2500)
              if (args.query === "obj") return { title: "T", output: "object out", metadata: { truncated: true, n: 1 } }
              return `results for ${args.query} ${JSON.stringify(options)}`
            },
          },
        },
      }
    },
  }
}

test("v1: server(input, options) → tool schema, string output, errors, truncation", async () => {
  const host = await loadPluginV1(makePlugin(), { options: { k: 1 } })
  assert.deepEqual(host.tools, [
    {
      name: "inline_search",
      description: "search",
      parameters: {
        type: "object",
        properties: { query: { type: "string", description: "q" } },
        required: ["query"],
      },
    },
  ])
  const ok = await host.runTool("inline_search", { query: "go" })
  assert.equal(ok.status, "completed")
  assert.equal(ok.output, 'results for go {"k":1}')
  assert.deepEqual(ok.metadata, { truncated: false })

  const err = await host.runTool("inline_search", { query: "fail" })
  assert.equal(err.status, "error")
  assert.equal(err.output, "search failed: quota")

  const big = await host.runTool("inline_search", { query: "big" })
  assert.equal(big.metadata.truncated, true)
  assert.match(big.output, /\n\n\.\.\.501 lines truncated\.\.\.\n\nThe tool call succeeded but the output was truncated\./)

  const obj = await host.runTool("inline_search", { query: "obj" })
  assert.equal(obj.title, "T")
  assert.equal(obj.output, "object out")
  assert.deepEqual(obj.metadata, { truncated: false, n: 1 }) // the host's verdict wins

  const aborted = new AbortController()
  aborted.abort()
  const a = await host.runTool("inline_search", { query: "go" }, { signal: aborted.signal })
  assert.equal(a.status, "completed")
})

test("v1: an object's setup() is called too, with a partial context without tool or websearch", async () => {
  let keys
  const host = await loadPluginV1({ id: "x", server: async () => ({}), setup: async (ctx) => void (keys = Object.keys(ctx).sort()) }, { options: { a: 1 } })
  assert.equal(host.setup.called, true)
  assert.deepEqual(keys, ["agent", "aisdk", "catalog", "command", "integration", "options", "plugin", "reference", "skill"])
})

test("v1: a plain function default export and a string entry (options undefined)", async () => {
  const host = await loadPluginV1(async (_input, options) => ({
    tool: { t: { description: "d", args: {}, execute: async () => `opts=${JSON.stringify(options)}` } },
  }))
  assert.equal((await host.runTool("t", {})).output, "opts=undefined")
})
