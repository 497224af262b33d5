// A fake OpenCode 2.x host (modelled on the v2 plugin API described in
// /work/shared/ARCHITECTURE.md; the v2 packages are not installable here) for fast tests.
//
//   const host = createFakeHostV2({ options: { search: "forced" } })
//   await host.load(plugin)            // plugin = { id, setup(ctx) } (default export)
//   host.websearch.list() / .default() // registered providers, the default id
//   const s = await host.search("go generics", { signal })
//     s.ok, s.providerId, s.results (decoded), s.modelText (what the model sees), s.error
//   host.tools.list() / .get(name)
//   const t = await host.runTool("deepseek_fetch", { url }, { signal, timeoutMs })
//     t.ok, t.content (what the model sees, after the cut), t.metadata, t.truncated, t.error
//   await host.unload()                // runs the cleanup setup() returned
//
// Host options:
//   options            ctx.options (the plugin entry's options)
//   defaultSticks      false → websearch `default.set` is ignored (get() keeps the old default)
//   toolRemove         false → the tool editor has no remove()
//   websearchRemove    false → the websearch editor has no remove()
//   builtinTools       names of pre-registered built-in tools (default: webfetch, websearch,
//                      read, bash, glob, grep, edit, write)
//   defaultProvider    id of the built-in default websearch provider ("exa"; null for none)
//
// Reproduced host rules:
//   - websearch provider = { id, name, execute({ query }, { signal }) → results[] }. Every
//     result must have `url` (string) and `time` (object): otherwise the HOST throws
//     (FakeHostError, search() rejects). A provider that throws → the model sees exactly
//     "Unable to search the web for <query>" (s.ok false, s.error = what was thrown).
//   - tool = { name, description, input (JSON Schema, not validated), output? (schema),
//     execute(input, ctx) }. Result: a string, or { content, metadata, output? }. A string or a
//     non-empty `content` wins; otherwise `output` without an `output` schema kills the call
//     (FakeHostError, runTool() rejects); with a schema, output is shown as JSON. Thrown errors
//     → t.ok false, the model sees "Error: <message>" (wording of the fake, not of OpenCode).
//   - content is cut at 2,000 lines / 50 KiB unless metadata.truncated is set.

export class FakeHostError extends Error {
  constructor(message) {
    super(message)
    this.name = "FakeHostError"
  }
}

export const MAX_LINES = 2000
export const MAX_BYTES = 50 * 1024

const DEFAULT_BUILTINS = ["webfetch", "websearch", "read", "bash", "glob", "grep", "edit", "write"]

export function truncateV2(text) {
  const lines = text.split("\n")
  const bytes = Buffer.byteLength(text, "utf-8")
  if (lines.length <= MAX_LINES && bytes <= MAX_BYTES) return { content: text, truncated: false }
  const kept = []
  let size = 0
  for (let i = 0; i < lines.length && i < MAX_LINES; i++) {
    const n = Buffer.byteLength(lines[i], "utf-8") + (i > 0 ? 1 : 0)
    if (size + n > MAX_BYTES) break
    kept.push(lines[i])
    size += n
  }
  return { content: `${kept.join("\n")}\n\n...output truncated...`, truncated: true }
}

function contentText(content) {
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === "string" ? p : p?.type === "text" ? p.text : "")).join("")
  }
  return ""
}

function builtinTool(name) {
  return {
    name,
    description: `Built-in ${name} tool (fake).`,
    input: { type: "object", properties: {}, additionalProperties: true },
    builtin: true,
    async execute() {
      return { content: `(fake built-in ${name})`, metadata: {} }
    },
  }
}

export function createFakeHostV2(config = {}) {
  const providers = new Map()
  let defaultId = config.defaultProvider === undefined ? "exa" : config.defaultProvider
  if (defaultId) {
    providers.set(defaultId, {
      id: defaultId,
      name: defaultId,
      builtin: true,
      async execute() {
        return [{ url: "https://builtin.example/", title: "built-in", content: "built-in result", time: {} }]
      },
    })
  }
  const tools = new Map()
  for (const name of config.builtinTools ?? DEFAULT_BUILTINS) tools.set(name, builtinTool(name))
  const log = []
  let cleanup = null

  const websearchEditor = {
    add(provider) {
      if (!provider || typeof provider.id !== "string" || typeof provider.execute !== "function") {
        throw new FakeHostError("websearch.add: a provider needs an id and execute()")
      }
      if (providers.has(provider.id)) throw new FakeHostError(`websearch.add: duplicate provider ${provider.id}`)
      providers.set(provider.id, provider)
      log.push(["websearch.add", provider.id])
    },
    get: (id) => providers.get(id),
    list: () => [...providers.values()],
    default: {
      set(id) {
        if (!providers.has(id)) throw new FakeHostError(`websearch.default.set: unknown provider ${id}`)
        log.push(["websearch.default.set", id])
        if (config.defaultSticks !== false) defaultId = id
      },
      get: () => defaultId,
    },
  }
  if (config.websearchRemove !== false) {
    websearchEditor.remove = (id) => {
      log.push(["websearch.remove", id])
      if (defaultId === id) defaultId = null
      return providers.delete(id)
    }
  }

  const toolEditor = {
    add(tool) {
      if (!tool || typeof tool.name !== "string" || typeof tool.execute !== "function") {
        throw new FakeHostError("tool.add: a tool needs a name and execute()")
      }
      if (tools.has(tool.name)) throw new FakeHostError(`tool.add: duplicate tool ${tool.name}`)
      tools.set(tool.name, tool)
      log.push(["tool.add", tool.name])
    },
    get: (id) => tools.get(id),
    list: () => [...tools.values()],
    update(id, fn) {
      const t = tools.get(id)
      if (!t) throw new FakeHostError(`tool.update: unknown tool ${id}`)
      const next = fn({ ...t }) ?? t
      tools.set(id, { ...next, name: id })
      log.push(["tool.update", id])
    },
  }
  if (config.toolRemove !== false) {
    toolEditor.remove = (id) => {
      log.push(["tool.remove", id])
      return tools.delete(id)
    }
  }

  const ctx = {
    options: config.options ?? {},
    websearch: {
      async transform(fn) {
        await fn(websearchEditor)
      },
    },
    tool: {
      async transform(fn) {
        await fn(toolEditor)
      },
    },
    log: {
      info: (...a) => log.push(["log.info", ...a]),
      warn: (...a) => log.push(["log.warn", ...a]),
      error: (...a) => log.push(["log.error", ...a]),
    },
  }

  async function load(plugin) {
    const p = plugin?.default ?? plugin
    if (!p || typeof p.id !== "string" || typeof p.setup !== "function") {
      throw new FakeHostError("plugin default export must be { id, setup }")
    }
    const r = await p.setup(ctx)
    if (typeof r === "function") cleanup = r
    return r
  }

  async function unload() {
    if (cleanup) await cleanup()
    cleanup = null
  }

  async function search(query, { signal, providerId } = {}) {
    const id = providerId ?? defaultId
    const provider = providers.get(id)
    if (!provider) throw new FakeHostError(`no websearch provider ${id}`)
    const controller = new AbortController()
    const sig = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal
    let raw
    try {
      raw = await provider.execute({ query }, { signal: sig })
    } catch (error) {
      return { ok: false, providerId: id, error, modelText: `Unable to search the web for ${query}` }
    }
    if (!Array.isArray(raw)) throw new FakeHostError(`provider ${id} returned ${typeof raw}, not an array`)
    const results = raw.map((r, i) => {
      if (!r || typeof r.url !== "string") throw new FakeHostError(`result ${i}: url must be a string`)
      if (!r.time || typeof r.time !== "object") throw new FakeHostError(`result ${i}: time is required (an object)`)
      if (r.time.published !== undefined && typeof r.time.published !== "number") {
        throw new FakeHostError(`result ${i}: time.published must be a number`)
      }
      return { url: r.url, title: r.title, content: r.content, time: { ...r.time } }
    })
    const modelText = results
      .map((r) => [r.title ?? r.url, r.url, r.content ?? ""].filter((x) => x !== "").join("\n"))
      .join("\n\n")
    return { ok: true, providerId: id, results, modelText }
  }

  async function runTool(name, input, { signal, timeoutMs } = {}) {
    const tool = tools.get(name)
    if (!tool) throw new FakeHostError(`no tool ${name}`)
    const signals = [new AbortController().signal]
    if (signal) signals.push(signal)
    if (timeoutMs) signals.push(AbortSignal.timeout(timeoutMs))
    const toolCtx = { signal: AbortSignal.any(signals), abort: undefined, sessionID: "ses_fake", callID: "call_fake" }
    toolCtx.abort = toolCtx.signal
    let result
    try {
      result = await tool.execute(input, toolCtx)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      return { ok: false, error, content: `Error: ${message}` }
    }
    let text
    let metadata = {}
    if (typeof result === "string") {
      text = result
    } else if (result && typeof result === "object") {
      metadata = result.metadata ?? {}
      const c = contentText(result.content)
      if (c !== "") text = c
      else if ("output" in result && result.output !== undefined) {
        if (!tool.output) throw new FakeHostError(`tool ${name} returned output without an output schema`)
        text = JSON.stringify(result.output)
      } else text = ""
    } else {
      throw new FakeHostError(`tool ${name} returned ${result === null ? "null" : typeof result}`)
    }
    if (metadata.truncated) return { ok: true, content: text, metadata, truncated: false, raw: result }
    const cut = truncateV2(text)
    return { ok: true, content: cut.content, metadata, truncated: cut.truncated, raw: result }
  }

  return {
    ctx,
    log,
    load,
    unload,
    search,
    runTool,
    websearch: {
      list: () => [...providers.keys()],
      get: (id) => providers.get(id),
      default: () => defaultId,
    },
    tools: {
      list: () => [...tools.keys()],
      get: (id) => tools.get(id),
    },
  }
}
