// plugin/server.js on the fake OpenCode 2.x and 1.x hosts: what each tier registers, the
// forced tiers' exclusivity checks, and both entry points.
import { test, before, after } from "node:test"
import assert from "node:assert/strict"
import { readFile } from "node:fs/promises"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { startEnv, plugin, runtime, captureLogs } from "./lib/plugin-helpers.js"
import indexDefault from "../../plugin/index.js"

const pluginDir = fileURLToPath(new URL("../../plugin/", import.meta.url))

let env
before(async () => {
  env = await startEnv()
})
after(async () => {
  await env.close()
})

const BUILTINS = ["webfetch", "websearch", "read", "bash", "glob", "grep", "edit", "write"]

/** The plan's messages for forced tiers, asked of the module itself. */
function planFor(host, options) {
  const step = runtime().start({ kind: "opencode.plan", options, input: { host } })
  assert.equal(step.error, undefined)
  return step.result
}

// --- OpenCode 2.x ---------------------------------------------------------------------------

test("2.x: default options → search preferred (provider + default), fetch optional", async () => {
  const host = await env.v2()
  assert.deepEqual(host.websearch.list(), ["exa", "deepseek"])
  assert.equal(host.websearch.default(), "deepseek")
  const p = host.websearch.get("deepseek")
  assert.equal(p.id, "deepseek")
  assert.equal(p.name, "DeepSeek")
  assert.deepEqual(host.tools.list(), [...BUILTINS, "deepseek_fetch"])
  assert.doesNotMatch(host.tools.get("deepseek_fetch").description, /Prefer/)
})

for (const [tier, registered, isDefault] of [
  ["off", false, false],
  ["optional", true, false],
  ["preferred", true, true],
  ["forced", true, true],
]) {
  test(`2.x: search ${tier}`, async () => {
    const host = await env.v2({ search: tier, fetch: "off" })
    assert.equal(host.websearch.list().includes("deepseek"), registered)
    assert.equal(host.websearch.default(), isDefault ? "deepseek" : "exa")
    assert.deepEqual(host.tools.list(), BUILTINS, "fetch off adds no tool, removes none")
    if (registered) {
      const s = await host.search("effective go")
      assert.equal(s.ok, true)
      assert.equal(s.providerId, isDefault ? "deepseek" : "exa")
    }
  })
}

test("2.x: search preferred with a default that does not stick still loads (not exclusive)", async () => {
  const host = await env.v2({ search: "preferred" }, { defaultSticks: false })
  assert.ok(host.websearch.list().includes("deepseek"))
  assert.equal(host.websearch.default(), "exa")
})

test("2.x: search forced with a default that does not stick → setup throws the plan's message", async () => {
  const options = env.options({ search: "forced" })
  const want = planFor("opencode2", options).notExclusive.search
  assert.match(want, /search is "forced"/)
  await assert.rejects(env.v2({ search: "forced" }, { defaultSticks: false }), (err) => {
    assert.equal(err.message, want)
    return true
  })
})

test("2.x: search forced when the host has no default provider at all", async () => {
  const host = await env.v2({ search: "forced" }, { defaultProvider: null })
  assert.deepEqual(host.websearch.list(), ["deepseek"])
  assert.equal(host.websearch.default(), "deepseek")
})

for (const [tier, registered, prefers] of [
  ["off", false, false],
  ["optional", true, false],
  ["preferred", true, true],
  ["forced", true, true],
]) {
  test(`2.x: fetch ${tier}`, async () => {
    const host = await env.v2({ search: "off", fetch: tier })
    assert.deepEqual(host.websearch.list(), ["exa"], "search off registers no provider")
    assert.equal(host.websearch.default(), "exa")
    const tools = host.tools.list()
    assert.equal(tools.includes("deepseek_fetch"), registered)
    assert.equal(tools.includes("webfetch"), tier !== "forced", "only forced removes webfetch")
    assert.ok(tools.includes("websearch"))
    if (registered) {
      const t = host.tools.get("deepseek_fetch")
      assert.equal(t.description.includes("Prefer this tool over webfetch"), prefers)
      assert.deepEqual(t.input, {
        type: "object",
        properties: {
          url: { type: "string", description: "The absolute http:// or https:// URL of the page to fetch." },
          format: { type: "string", enum: ["markdown"], description: 'Output format. Only "markdown" is available; leave it out.' },
          offset: {
            type: "integer",
            minimum: 0,
            description:
              "Where to start reading, in characters into the page: 0 (the default) for the start, or the offset named by the last line of the previous part to read on.",
          },
        },
        required: ["url"],
        additionalProperties: false,
      })
      assert.equal(t.output, undefined, "no output schema: the tool returns content")
      const r = await host.runTool("deepseek_fetch", { url: "https://example.com/a" })
      assert.equal(r.ok, true)
    }
  })
}

test("2.x: fetch forced on a host whose tool editor cannot remove → setup throws the plan's message", async () => {
  const want = planFor("opencode2", env.options({ fetch: "forced" })).notExclusive.fetch
  assert.match(want, /fetch is "forced"/)
  await assert.rejects(env.v2({ fetch: "forced" }, { toolRemove: false }), (err) => {
    assert.equal(err.message, want)
    return true
  })
})

test("2.x: both forced, both exclusive", async () => {
  const host = await env.v2({ search: "forced", fetch: "forced" })
  assert.equal(host.websearch.default(), "deepseek")
  assert.ok(!host.tools.list().includes("webfetch"))
  assert.ok(host.tools.list().includes("deepseek_fetch"))
})

test("2.x: both off registers nothing at all", async () => {
  const host = await env.v2({ search: "off", fetch: "off" })
  assert.deepEqual(host.websearch.list(), ["exa"])
  assert.deepEqual(host.tools.list(), BUILTINS)
  assert.ok(!host.log.some(([op]) => op.startsWith("tool.") || op.startsWith("websearch.")), JSON.stringify(host.log))
})

test("2.x: an invalid tier names the option", async () => {
  await assert.rejects(env.v2({ search: "always" }), /"search"/)
  await assert.rejects(env.v2({ fetch: true }), /"fetch"/)
})

// --- OpenCode 1.x ---------------------------------------------------------------------------

for (const [tier, present, prefers] of [
  ["off", false, false],
  ["optional", true, false],
  ["preferred", true, true],
  ["forced", true, true],
]) {
  test(`1.x: search ${tier}`, async () => {
    const h = await env.v1({ search: tier, fetch: "off" })
    const names = h.tools.map((t) => t.name)
    assert.deepEqual(names, present ? ["deepseek_search"] : [])
    if (present) {
      const t = h.tools[0]
      assert.equal(t.description.includes("Prefer this tool over websearch"), prefers)
      assert.deepEqual(t.parameters, {
        type: "object",
        properties: { query: { type: "string", description: "What to search for, with optional operators." } },
        required: ["query"],
      })
      const r = await h.runTool("deepseek_search", { query: "go" })
      assert.equal(r.status, "completed")
    }
    if (tier === "forced") {
      assert.equal(typeof h.hooks.config, "function")
      const config = { tools: { bash: true } }
      await h.hooks.config(config)
      assert.deepEqual(config.tools, { bash: true, websearch: false })
      const empty = {}
      await h.hooks.config(empty)
      assert.deepEqual(empty.tools, { websearch: false })
    } else {
      assert.equal(h.hooks.config, undefined)
    }
  })

  test(`1.x: fetch ${tier}`, async () => {
    const h = await env.v1({ search: "off", fetch: tier })
    assert.deepEqual(
      h.tools.map((t) => t.name),
      present ? ["deepseek_fetch"] : [],
    )
    if (present) {
      const t = h.tools[0]
      assert.equal(t.description.includes("Prefer this tool over webfetch"), prefers)
      assert.deepEqual(t.parameters, {
        type: "object",
        // 1.x makes every argument required: the model sends offset 0 for the first part.
        properties: {
          offset: {
          type: "integer",
          minimum: 0,
          description:
            "Where to start reading, in characters into the page: 0 (the default) for the start, or the offset named by the last line of the previous part to read on.",
        },
          url: { type: "string", description: "The absolute http:// or https:// URL of the page to fetch." },
        },
        required: ["offset", "url"],
      })
    }
    if (tier === "forced") {
      const config = { tools: { webfetch: true } }
      await h.hooks.config(config)
      assert.deepEqual(config.tools, { webfetch: false })
    } else {
      assert.equal(h.hooks.config, undefined)
    }
  })
}

test("1.x: default options → both tools, search preferred, fetch optional, no config hook", async () => {
  const h = await env.v1()
  assert.deepEqual(
    h.tools.map((t) => t.name),
    ["deepseek_search", "deepseek_fetch"],
  )
  assert.match(h.tools[0].description, /Prefer this tool over websearch/)
  assert.doesNotMatch(h.tools[1].description, /Prefer/)
  assert.equal(h.hooks.config, undefined)
})

test("1.x: both forced → one config hook switching both built-ins off", async () => {
  const h = await env.v1({ search: "forced", fetch: "forced" })
  const config = {}
  await h.hooks.config(config)
  assert.deepEqual(config.tools, { websearch: false, webfetch: false })
})

test("1.x: undefined options (a plain string plugin entry) works", async () => {
  // No options at all: the key comes from DEEPSEEK_API_KEY, baseURL is DeepSeek's. Only the
  // registration is checked here (no call is made).
  const logs = captureLogs()
  try {
    const { loadPluginV1 } = await import("./lib/fake-host-v1.js")
    const h = await loadPluginV1(plugin, { options: undefined })
    assert.deepEqual(
      h.tools.map((t) => t.name),
      ["deepseek_search", "deepseek_fetch"],
    )
  } finally {
    logs.restore()
  }
})

// --- entry points ---------------------------------------------------------------------------

test("entry points: index.js re-exports server.js's default { id, setup, server }", () => {
  assert.equal(indexDefault, plugin)
  assert.equal(typeof plugin.id, "string")
  assert.equal(plugin.id, "deepseek-web-retrieval")
  assert.equal(typeof plugin.setup, "function")
  assert.equal(typeof plugin.server, "function")
})

test("entry points: package.json has what OpenCode needs, and every listed file exists", async () => {
  const pkg = JSON.parse(await readFile(new URL("../../plugin/package.json", import.meta.url), "utf8"))
  assert.equal(pkg.type, "module")
  assert.equal(pkg.name, "deepseek-web-retrieval")
  assert.equal(pkg.main, "./server.js")
  assert.equal(pkg.exports["."], "./server.js")
  assert.equal(pkg.exports["./server"], "./server.js")
  for (const f of ["server.js", "index.js", "runtime.js", "wasi.js", "core.wasm"]) {
    assert.ok(pkg.files.includes(f), `files lists ${f}`)
    assert.ok(existsSync(pluginDir + f), `${f} exists`)
  }
  assert.ok(pkg.dependencies === undefined || Object.keys(pkg.dependencies).length === 0, "no runtime dependencies")
})

test("2.x without a websearch provider API: preferred search is skipped with a warning, forced fails setup", async () => {
  const added = []
  const ctx = (options) => ({
    options,
    tool: { transform: async (fn) => fn({ add: (t) => added.push(t.name), get: () => undefined, remove: () => {} }) },
  })
  const logs = captureLogs()
  try {
    await plugin.setup(ctx({ search: "preferred", fetch: "optional" }))
    assert.deepEqual(added, ["deepseek_fetch"])
    assert.match(logs.text(), /\[deepseek-web-retrieval\] this OpenCode has no websearch provider API; DeepSeek search is not registered/)
  } finally {
    logs.restore()
  }
  const want = planFor("opencode2", { search: "forced" }).notExclusive.search
  await assert.rejects(plugin.setup(ctx({ search: "forced" })), (err) => err.message === want)
})
