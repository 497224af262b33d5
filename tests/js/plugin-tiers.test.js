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

/** The plan's messages for forced tiers, asked of the module itself. */
function planFor(host, options) {
  const step = runtime().start({ kind: "opencode.plan", options, input: { host } })
  assert.equal(step.error, undefined)
  return step.result
}

// --- OpenCode 2.x (the fake host rebuilt from OpenCode's source: lib/fake-host-v2.js) ------------

const FETCH_INPUT = {
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
}
const SEARCH_INPUT = {
  type: "object",
  properties: { query: { type: "string", description: "What to search for, with optional operators." } },
  required: ["query"],
  additionalProperties: false,
}

test("2.x: default options → search preferred (provider + default), deepseek_fetch on the native tool list", async () => {
  const host = await env.v2()
  assert.deepEqual(host.websearch.list(), ["exa", "deepseek"])
  assert.equal(host.websearch.default(), "deepseek")
  const p = host.websearch.get("deepseek")
  assert.equal(p.id, "deepseek")
  assert.equal(p.name, "DeepSeek")
  // Code Mode (packages/core/src/tool.ts) offers only codemode:false tools natively.
  assert.deepEqual(host.nativeTools(), ["deepseek_fetch", "webfetch", "websearch", "execute"])
  assert.deepEqual(host.codeModeTools(), [])
  const def = host.definitions().find((d) => d.name === "deepseek_fetch")
  assert.doesNotMatch(def.description, /Prefer/)
  assert.deepEqual(def.inputSchema, FETCH_INPUT)
  assert.equal(def.outputSchema, undefined, "no output schema: the tool returns content")
  assert.deepEqual(host.tools.get("deepseek_fetch").options, { codemode: false })
  assert.deepEqual(env.logLines(), [])
})

for (const [tier, registered, isDefault] of [
  ["off", false, false],
  ["optional", true, false],
  ["preferred", true, true],
  ["forced", true, true],
]) {
  test(`2.x: search ${tier}`, async () => {
    const host = await env.v2({ search: tier, fetch: "off" }, { formAnswer: { choose: "exa" } })
    assert.equal(host.websearch.list().includes("deepseek"), registered)
    assert.equal(host.websearch.default(), isDefault ? "deepseek" : undefined, "OpenCode has no default until one is picked")
    if (tier === "forced") {
      // Exclusive by construction: the built-in websearch tool is gone, deepseek_search is native.
      assert.deepEqual(host.nativeTools(), ["deepseek_search", "webfetch", "execute"])
      assert.deepEqual(host.definitions()[0].inputSchema, SEARCH_INPUT)
      assert.match(host.definitions()[0].description, /Prefer this tool over websearch/)
      const r = await host.runTool("deepseek_search", { query: "effective go" })
      assert.equal(r.status, "completed")
      assert.match(r.text, /^1\. /)
      return
    }
    assert.deepEqual(host.nativeTools(), ["webfetch", "websearch", "execute"], "no tool added, none removed")
    const s = await host.search("effective go")
    assert.equal(s.ok, true)
    // optional: the user picks (here Exa) when OpenCode asks; preferred: DeepSeek is the default.
    assert.equal(s.providerId, isDefault ? "deepseek" : "exa")
  })
}

test("2.x: preferred search yields to a websearch provider named in the user's config", async () => {
  const host = await env.v2({ search: "preferred" }, { config: { websearch: { provider: "exa" } } })
  assert.ok(host.websearch.list().includes("deepseek"))
  assert.equal(host.websearch.default(), "exa", "ConfigWebSearchPlugin runs after user plugins")
  assert.equal((await host.search("q")).providerId, "exa")
})

test("2.x: forced search stays exclusive whatever the config's websearch setting says", async () => {
  for (const websearch of [{ provider: "exa" }, false, undefined]) {
    const host = await env.v2({ search: "forced", fetch: "off" }, { config: { websearch } })
    assert.ok(!host.tools.list().includes("websearch"), JSON.stringify(websearch))
    assert.ok(host.nativeTools().includes("deepseek_search"))
    const r = await host.runTool("websearch", { query: "q" })
    assert.deepEqual(r.error, { type: "tool.execution", message: "Unknown tool: websearch" })
  }
})

test("2.x: forced search when the built-in websearch tool stays (hypothetical host) → setup fails, logged", async () => {
  const want = planFor("opencode2", env.options({ search: "forced" })).notExclusive.websearch
  assert.equal(want, 'deepseek-web-retrieval: search is "forced", but this OpenCode does not let a plugin remove its built-in websearch tool. Set search to "preferred" to run beside it, or disable websearch in the OpenCode config.')
  env.clearLog()
  await assert.rejects(env.v2({ search: "forced" }, { removeIgnored: ["websearch"] }), (err) => err.message === want)
  assert.match(env.logLines().at(-1), new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z ERROR \\[deepseek-web-retrieval\\] ${want.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`))
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
    const native = host.nativeTools()
    assert.equal(native.includes("deepseek_fetch"), registered, "on the native tool list")
    assert.equal(native.includes("webfetch"), tier !== "forced", "only forced removes webfetch")
    assert.ok(native.includes("websearch"))
    if (registered) {
      const def = host.definitions().find((d) => d.name === "deepseek_fetch")
      assert.equal(def.description.includes("Prefer this tool over webfetch"), prefers)
      assert.deepEqual(def.inputSchema, FETCH_INPUT)
      const r = await host.runTool("deepseek_fetch", { url: "https://example.com/a" })
      assert.equal(r.status, "completed")
    }
  })
}

test("2.x: fetch forced when webfetch stays (hypothetical host) → setup throws the plan's message", async () => {
  const want = planFor("opencode2", env.options({ fetch: "forced" })).notExclusive.webfetch
  assert.match(want, /fetch is "forced"/)
  await assert.rejects(env.v2({ fetch: "forced" }, { removeIgnored: ["webfetch"] }), (err) => err.message === want)
})

test("2.x: both forced, both exclusive", async () => {
  const host = await env.v2({ search: "forced", fetch: "forced" })
  assert.equal(host.websearch.default(), "deepseek")
  assert.deepEqual(host.nativeTools(), ["deepseek_fetch", "deepseek_search", "execute"])
})

test("2.x: both off registers nothing at all", async () => {
  const host = await env.v2({ search: "off", fetch: "off" })
  assert.deepEqual(host.websearch.list(), ["exa"])
  assert.deepEqual(host.nativeTools(), ["webfetch", "websearch", "execute"])
  assert.deepEqual(host.log, [])
})

test("2.x: an invalid tier names the option", async () => {
  await assert.rejects(env.v2({ search: "always" }), /"search"/)
  await assert.rejects(env.v2({ fetch: true }), /"fetch"/)
})

test("2.x without a websearch provider API: deepseek_search is offered as a native tool, with a log line saying so", async () => {
  for (const search of ["optional", "preferred", "forced"]) {
    env.clearLog()
    const host = await env.v2({ search, fetch: "optional" }, { noWebsearchApi: true })
    assert.deepEqual(host.nativeTools().filter((n) => n.startsWith("deepseek_")), ["deepseek_fetch", "deepseek_search"], search)
    const lines = env.logLines()
    assert.equal(lines.length, 1, lines.join("\n"))
    assert.ok(lines[0].endsWith(' WARN [deepseek-web-retrieval] this OpenCode has no websearch provider API, so DeepSeek search is offered to the model as the deepseek_search tool instead; update OpenCode to have DeepSeek behind its websearch tool, or set search to "off" to not offer it'), lines[0])
  }
  const host = await env.v2({ search: "off" }, { noWebsearchApi: true })
  assert.ok(!host.tools.list().includes("deepseek_search"))
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
        properties: {
          queries: {
            type: "array",
            items: { type: "string" },
            maxItems: 4,
            description: 'Up to 4 queries to run at once, results merged, with query ""; [] when you give query.',
          },
          query: { type: "string", description: "What to search for, with optional operators." },
        },
        required: ["queries", "query"],
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
          urls: {
            type: "array",
            items: { type: "string" },
            maxItems: 5,
            description: 'Up to 5 URLs to read at once, with url "" and offset 0; [] when you give url.',
          },
        },
        required: ["offset", "url", "urls"],
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

test("1.x: forced tiers deny the built-ins last, in the global rules and in each agent's that has rules", async () => {
  // OpenCode 1.x: a later rule wins, and a string is the rule for "*". The plan's configEdits
  // say so; the plugin applies them as they are.
  const h = await env.v1({ search: "forced", fetch: "forced" })
  const plan = planFor("opencode1", env.options({ search: "forced", fetch: "forced" }))
  assert.deepEqual(plan.configEdits.map((e) => e.path), [["tools"], ["permission"], ["agent", "*", "permission"]])
  for (const [config, want] of [
    [{}, { tools: { websearch: false, webfetch: false }, permission: { webfetch: "deny", websearch: "deny" } }],
    [
      { permission: "ask", agent: { build: { permission: "allow" }, plan: { model: "m" }, odd: null, text: "x" } },
      {
        tools: { websearch: false, webfetch: false },
        permission: { "*": "ask", webfetch: "deny", websearch: "deny" },
        agent: { build: { permission: { "*": "allow", webfetch: "deny", websearch: "deny" } }, plan: { model: "m" }, odd: null, text: "x" },
      },
    ],
    [
      { tools: { bash: true, webfetch: true }, permission: { websearch: "allow", bash: "ask" }, agent: { build: { permission: { webfetch: "allow", edit: "ask" } } } },
      {
        tools: { bash: true, webfetch: false, websearch: false },
        permission: { bash: "ask", webfetch: "deny", websearch: "deny" },
        agent: { build: { permission: { edit: "ask", webfetch: "deny", websearch: "deny" } } },
      },
    ],
  ]) {
    const given = JSON.stringify(config)
    await h.hooks.config(config)
    assert.deepEqual(config, want, given)
    // Last, after every rule of the user's: the order is the point.
    assert.deepEqual(Object.keys(config.permission).slice(-2), ["webfetch", "websearch"], given)
    for (const agent of Object.values(config.agent ?? {})) {
      if (agent?.permission) assert.deepEqual(Object.keys(agent.permission).slice(-2), ["webfetch", "websearch"], given)
    }
  }
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

test("1.x: OpenCode 1.x also calls setup() with a partial context: nothing is registered, nothing logged", async () => {
  const logs = captureLogs()
  env.clearLog()
  try {
    for (const search of ["optional", "preferred", "forced"]) {
      const h = await env.v1({ search, fetch: "forced" })
      assert.equal(h.setup.called, true)
      assert.equal(h.setup.error, undefined)
      assert.deepEqual(h.tools.map((t) => t.name), ["deepseek_search", "deepseek_fetch"])
    }
  } finally {
    logs.restore()
  }
  assert.deepEqual(logs.lines, [], "no 'no websearch provider API' warning on 1.x")
  assert.deepEqual(env.logLines(), [])
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
  // The npm name, kept with every other package name in npm/packages.json.
  const names = JSON.parse(await readFile(new URL("../../npm/packages.json", import.meta.url), "utf8"))
  assert.equal(pkg.name, names.plugin)
  assert.equal(pkg.name, "@deepseek-web-retrieval/opencode")
  assert.equal(pkg.main, "./server.js")
  assert.equal(pkg.exports["."], "./server.js")
  assert.equal(pkg.exports["./server"], "./server.js")
  for (const f of ["server.js", "index.js", "log.js", "runtime.js", "wasi.js", "core.wasm"]) {
    assert.ok(pkg.files.includes(f), `files lists ${f}`)
    assert.ok(existsSync(pluginDir + f), `${f} exists`)
  }
  assert.ok(pkg.dependencies === undefined || Object.keys(pkg.dependencies).length === 0, "no runtime dependencies")
})
