// Exercises the fake OpenCode hosts (lib/fake-host-v2.js, lib/fake-host-v1.js) with a trivial
// inline plugin, so their rules are pinned before the real plugin is tested against them.
import { test } from "node:test"
import assert from "node:assert/strict"

import { createFakeHostV2, FakeHostError } from "./lib/fake-host-v2.js"
import { loadPluginV1 } from "./lib/fake-host-v1.js"

// A plugin that speaks both APIs, like plugin/server.js will.
function makePlugin(behaviour = {}) {
  return {
    id: "inline-test",
    async setup(ctx) {
      const o = ctx.options
      await ctx.websearch.transform((e) => {
        e.add({
          id: "inline",
          name: "Inline",
          async execute({ query }, { signal }) {
            if (!(signal instanceof AbortSignal)) throw new Error("no signal")
            if (behaviour.searchThrows) throw new Error("upstream broke")
            if (behaviour.noTime) return [{ url: "https://a.example/" }]
            return [{ url: "https://a.example/", title: "A", content: `about ${query}`, time: { published: 1700000000000 } }]
          },
        })
        e.default.set("inline")
        if (o.forced && e.default.get() !== "inline") throw new Error("default did not stick")
      })
      await ctx.tool.transform((e) => {
        e.add({
          name: "inline_fetch",
          description: "fetch",
          input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
          async execute(input, tctx) {
            if (behaviour.toolThrows) throw new Error("fetch failed: 404")
            if (behaviour.outputOnly) return { output: { x: 1 } }
            if (behaviour.big) return { content: "x\n".repeat(3000), metadata: { truncated: behaviour.selfTruncated ?? false } }
            return { content: `page ${input.url}`, output: { ignored: true }, metadata: { url: input.url, aborted: tctx.signal.aborted } }
          },
        })
        if (o.forced) {
          if (typeof e.remove !== "function") throw new Error("cannot remove webfetch on this host")
          e.remove("webfetch")
        }
      })
      return () => {
        behaviour.cleaned = true
      }
    },
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

test("v2: provider registers, becomes default, results decode, model text", async () => {
  const host = createFakeHostV2({ options: {} })
  await host.load(makePlugin())
  assert.deepEqual(host.websearch.list(), ["exa", "inline"])
  assert.equal(host.websearch.default(), "inline")
  const s = await host.search("go")
  assert.equal(s.ok, true)
  assert.deepEqual(s.results, [{ url: "https://a.example/", title: "A", content: "about go", time: { published: 1700000000000 } }])
  assert.match(s.modelText, /about go/)
})

test("v2: a throwing provider → 'Unable to search the web for <query>'", async () => {
  const host = createFakeHostV2()
  await host.load(makePlugin({ searchThrows: true }))
  const s = await host.search("rust")
  assert.equal(s.ok, false)
  assert.equal(s.modelText, "Unable to search the web for rust")
  assert.equal(s.error.message, "upstream broke")
})

test("v2: a result without `time` makes the host throw", async () => {
  const host = createFakeHostV2()
  await host.load(makePlugin({ noTime: true }))
  await assert.rejects(host.search("x"), FakeHostError)
})

test("v2: default.set that does not stick / no tool.remove → forced setup fails", async () => {
  await assert.rejects(createFakeHostV2({ options: { forced: true }, defaultSticks: false }).load(makePlugin()), /did not stick/)
  await assert.rejects(createFakeHostV2({ options: { forced: true }, toolRemove: false }).load(makePlugin()), /cannot remove/)
  const ok = createFakeHostV2({ options: { forced: true } })
  await ok.load(makePlugin())
  assert.equal(ok.tools.get("webfetch"), undefined)
  assert.ok(ok.tools.list().includes("inline_fetch"))
})

test("v2: tools — content wins, output-only kills the call, errors, truncation, cleanup", async () => {
  const b = {}
  const host = createFakeHostV2()
  await host.load(makePlugin(b))
  const r = await host.runTool("inline_fetch", { url: "https://x.example/" })
  assert.equal(r.ok, true)
  assert.equal(r.content, "page https://x.example/")
  assert.deepEqual(r.metadata, { url: "https://x.example/", aborted: false })
  await host.unload()
  assert.equal(b.cleaned, true)

  const h2 = createFakeHostV2()
  await h2.load(makePlugin({ outputOnly: true }))
  await assert.rejects(h2.runTool("inline_fetch", { url: "u" }), /output without an output schema/)

  const h3 = createFakeHostV2()
  await h3.load(makePlugin({ toolThrows: true }))
  const e = await h3.runTool("inline_fetch", { url: "u" })
  assert.equal(e.ok, false)
  assert.equal(e.content, "Error: fetch failed: 404")

  const h4 = createFakeHostV2()
  await h4.load(makePlugin({ big: true }))
  const big = await h4.runTool("inline_fetch", { url: "u" })
  assert.equal(big.truncated, true)
  assert.ok(big.content.split("\n").length <= 2003)

  const h5 = createFakeHostV2()
  await h5.load(makePlugin({ big: true, selfTruncated: true }))
  const self = await h5.runTool("inline_fetch", { url: "u" })
  assert.equal(self.truncated, false)
  assert.equal(self.content, "x\n".repeat(3000))
})

test("v2: tool editor update/get/list; built-ins present", async () => {
  const host = createFakeHostV2()
  for (const n of ["webfetch", "websearch", "read", "bash"]) assert.ok(host.tools.list().includes(n), n)
  await host.ctx.tool.transform((e) => {
    e.update("webfetch", (t) => ({ ...t, description: "changed" }))
    assert.equal(e.get("webfetch").description, "changed")
    assert.ok(e.list().length >= 8)
  })
})

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

test("v1: a plain function default export and a string entry (options undefined)", async () => {
  const host = await loadPluginV1(async (_input, options) => ({
    tool: { t: { description: "d", args: {}, execute: async () => `opts=${JSON.stringify(options)}` } },
  }))
  assert.equal((await host.runTool("t", {})).output, "opts=undefined")
})
