// A fake OpenCode 2.x host for fast tests of the plugin's 2.x path, rebuilt from the source of
// OpenCode 2.x (github.com/anomalyco/opencode, packages/*; the 2.x npm packages cannot be
// installed here). Every behaviour below names the file it follows; where the stored source
// had several versions, the comment says which shape is modelled. Nothing here is copied code.
//
//   const host = createFakeHostV2({ config: { websearch: { provider: "exa" } } })
//   await host.load(plugin, options)       // runs setup(ctx); a throw marks the plugin failed
//   host.plugins()                         // [{ id, status: "loaded" | "failed", error? }]
//   host.definitions()                     // what the model is offered: native tools + execute
//   host.nativeTools() / host.codeModeTools()
//   const t = await host.runTool("deepseek_fetch", { url }, { signal })
//     t.status "completed" | "error"; t.ok; t.content (Tool.Content[] after the output bound);
//     t.text (the text parts joined with "\n"); t.metadata; t.error ({ type, message });
//     t.defect (the call died instead of failing); t.truncated; t.interrupted (the caller's
//     signal aborted the call) with t.settled (what the executor ended with anyway)
//   const s = await host.search("go generics", { signal })   // the built-in websearch tool
//     s.ok, s.providerId, s.results (decoded), s.modelText (its content), s.error
//   host.websearch.list() / .get(id) / .default()             // providers and the selection
//   host.tools.list() / .get(name)                            // every registered tool
//   await host.unload()
//
// Host options (createFakeHostV2(config)):
//   config            the user's OpenCode config; only `websearch` (false | { provider }) is read
//   builtinProviders  ids of providers registered by OpenCode's own pre plugins (default ["exa"])
//   stored            the websearch selection kept in OpenCode's KV store from an earlier answer
//   formAnswer        the user's answer when the websearch tool asks for a provider:
//                     "allow" | "disable" | "cancel" | { choose: id } (default "cancel")
//   removeIgnored     names a HYPOTHETICAL host keeps after editor.remove() (the real editor
//                     always deletes): exercises the plugin's refusal path
//   noWebsearchApi    a hypothetical 2.x context without the websearch domain

export class FakeHostError extends Error {
  constructor(message) {
    super(message)
    this.name = "FakeHostError"
  }
}

// packages/core/src/tool-output.ts: MAX_LINES, MAX_BYTES.
export const MAX_LINES = 2000
export const MAX_BYTES = 50 * 1024

// packages/core/src/tool/plugin/websearch.ts: NO_RESULTS.
export const NO_RESULTS = "No search results found. Please try a different query."

/** Tool.Error of packages/schema/src/tool.ts: a typed failure with a message. */
export class ToolError extends Error {
  constructor(message, { error, metadata } = {}) {
    super(message)
    this.name = "Tool.Error"
    this.error = error
    this.metadata = metadata
  }
}

/** A defect: packages/plugin/src/promise/adapter.ts runs execute inside Effect.promise. */
class Defect extends Error {
  constructor(cause) {
    super(cause instanceof Error ? cause.message : String(cause))
    this.name = "Defect"
    this.cause = cause
  }
}

// packages/core/src/websearch.ts: the typed errors of WebSearch.query.
class ProviderRequiredError extends Error {}
class DisabledError extends Error {}
class ProviderNotFoundError extends Error {}
class RequestError extends Error {
  constructor(providerID, cause) {
    super(`web search provider ${providerID} failed`)
    this.providerID = providerID
    this.cause = cause
  }
}

/**
 * ToolOutput.truncate of packages/core/src/tool-output.ts: skipped whenever metadata.truncated
 * is defined (any value); else the text parts (joined with "\n") are bounded to MAX_LINES /
 * MAX_BYTES, the full text saved to a file and the marker
 * "... <n> bytes|lines truncated; full content saved to <file> ..." added as a text part.
 */
export function boundOutput(result, file = "/fake/data/opencode/tool-output/tool_0") {
  if (result.metadata?.truncated !== undefined) return result
  const content = typeof result.content === "string" ? [{ type: "text", text: result.content }] : (result.content ?? [])
  const text = content.flatMap((item) => (item.type === "text" ? [item.text] : [])).join("\n")
  const lines = text.split("\n")
  if (text.endsWith("\n")) lines.pop()
  const totalBytes = Buffer.byteLength(text, "utf-8")
  if (lines.length <= MAX_LINES && totalBytes <= MAX_BYTES) return { ...result, metadata: { ...result.metadata, truncated: false } }
  const kept = []
  let bytes = 0
  let hitBytes = false
  for (const line of lines.slice(0, MAX_LINES)) {
    const size = Buffer.byteLength(line, "utf-8") + (kept.length > 0 ? 1 : 0)
    if (bytes + size > MAX_BYTES) {
      hitBytes = true
      break
    }
    kept.push(line)
    bytes += size
  }
  if (!hitBytes && kept.length === lines.length && totalBytes > bytes) hitBytes = true
  const removed = hitBytes ? totalBytes - bytes : lines.length - kept.length
  const unit = hitBytes ? (removed === 1 ? "byte" : "bytes") : removed === 1 ? "line" : "lines"
  const marker = `... ${removed} ${unit} truncated; full content saved to ${file} ...`
  const bounded = []
  let remaining = kept.join("\n").length
  let seenText = false
  let marked = false
  for (const item of content) {
    if (item.type === "file") {
      bounded.push(item)
      continue
    }
    if (seenText && remaining > 0) remaining--
    seenText = true
    if (remaining >= item.text.length) {
      bounded.push(item)
      remaining -= item.text.length
      continue
    }
    if (remaining > 0) bounded.push({ ...item, text: item.text.slice(0, remaining) })
    if (!marked) bounded.push({ type: "text", text: marker })
    remaining = 0
    marked = true
  }
  if (!marked) bounded.push({ type: "text", text: marker })
  return { ...result, content: bounded, metadata: { ...result.metadata, truncated: true, outputPath: file } }
}

// normalizeContent of packages/core/src/tool/runtime.ts.
function normalizeContent(value, output) {
  if (typeof value === "string") return [{ type: "text", text: value }]
  if (value !== undefined && value.length > 0) return [...value]
  let text
  if (typeof output === "string") text = output
  else {
    try {
      text = JSON.stringify(output) ?? String(output)
    } catch {
      text = String(output)
    }
  }
  return [{ type: "text", text }]
}

// normalizedName / effectiveName of packages/core/src/tool/runtime.ts.
const normalizedName = (tool) => tool.name.replace(/[^a-zA-Z0-9_-]/g, "_")
const effectiveName = (tool) =>
  tool.options?.namespace === undefined ? normalizedName(tool) : `${tool.options.namespace.replaceAll(".", "_")}_${normalizedName(tool)}`

// registrationError of packages/core/src/tool.ts (ToolDefinition.make's schema check not modelled).
function registrationError(tool) {
  const name = normalizedName(tool)
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) return `Invalid tool name: ${name}`
  if (tool.options?.codemode === false && effectiveName(tool) === "execute") return 'Tool name "execute" is reserved for CodeMode'
}

/**
 * WebSearch.Result of packages/schema/src/websearch.ts (the 2.x shape):
 * { url: string, title?: string, content?: string, time: { published?: finite number } },
 * decoded as an array by WebSearch.query (packages/core/src/websearch.ts). Unknown keys are
 * dropped (Effect Schema structs ignore excess properties); anything else fails the decode.
 */
function decodeResults(raw) {
  if (!Array.isArray(raw)) throw new Error("Expected array")
  return raw.map((r, i) => {
    if (!r || typeof r !== "object") throw new Error(`[${i}] expected object`)
    if (typeof r.url !== "string") throw new Error(`[${i}].url expected string`)
    for (const k of ["title", "content"]) {
      if (k in r && r[k] !== undefined && typeof r[k] !== "string") throw new Error(`[${i}].${k} expected string`)
    }
    if (!r.time || typeof r.time !== "object") throw new Error(`[${i}].time expected object`)
    const p = r.time.published
    if (p !== undefined && (typeof p !== "number" || !Number.isFinite(p))) throw new Error(`[${i}].time.published expected finite`)
    const out = { url: r.url, time: p === undefined ? {} : { published: p } }
    if (r.title !== undefined) out.title = r.title
    if (r.content !== undefined) out.content = r.content
    return out
  })
}

/** The content of OpenCode's websearch tool (packages/core/src/tool/plugin/websearch.ts). */
export function renderSearch(results) {
  if (!results.length) return NO_RESULTS
  return results
    .map((r) => {
      const title = r.title ?? r.url
      const published = r.time.published ? `\nPublished: ${new Date(r.time.published).toISOString()}` : ""
      return `## [${title}](${r.url})${published}${r.content ? `\n\n${r.content}` : ""}`
    })
    .join("\n\n")
}

// toSessionError of packages/core/src/session/to-session-error.ts, for what a tool can throw.
function sessionError(cause) {
  if (cause instanceof ToolError) {
    if (cause.error === undefined) return { type: "tool.execution", message: cause.message }
    return { ...sessionError(cause.error), message: cause.message }
  }
  return { type: "unknown", message: cause instanceof Error ? cause.message : String(cause) }
}

// The Promise context's domains (packages/plugin/src/promise/plugin.ts `Context`, built in
// packages/plugin/src/promise/adapter.ts `fromPromise`). No `client`, no `log`.
const UNMODELLED = ["agent", "aisdk", "catalog", "command", "event", "experimental", "generate", "integration", "mcp", "permission", "plugin", "reference", "rpc", "session", "shell", "skill", "storage", "vcs", "worktree"]

function unmodelled(name) {
  return new Proxy(
    {},
    {
      get(_, key) {
        if (key === "then") return undefined
        return () => {
          throw new FakeHostError(`fake-host-v2: ctx.${name}.${String(key)} is not modelled`)
        }
      },
    },
  )
}

export function createFakeHostV2(hostConfig = {}) {
  const config = hostConfig.config ?? {}
  const removeIgnored = new Set(hostConfig.removeIgnored ?? [])
  const log = [] // instrumentation: the editor operations the fake saw (not part of the host)
  let seq = 0
  let calls = 0

  // State of packages/core/src/state.ts as used by tool.ts and websearch.ts: transforms are
  // replayed in registration order against a fresh draft on every change. Order: OpenCode's
  // `pre` plugins, the user's plugins in config order, the `post` plugins (ConfigWebSearchPlugin
  // among them) — packages/core/src/plugin/internal.ts and the PluginSupervisor's resolve().
  const transforms = { tool: [], websearch: [] }
  // Registering replays the domain at once (the real host may coalesce boot-time reloads, so
  // a plugin must not rely on its callback having run when transform() resolves).
  const register = (domain, fn, order = ++seq) => {
    const entry = { fn, order }
    transforms[domain].push(entry)
    transforms[domain].sort((a, b) => a.order - b.order)
    if (order > 0) (domain === "tool" ? toolState : websearchState)()
    return { dispose: () => transforms[domain].splice(transforms[domain].indexOf(entry), 1) }
  }

  function toolState() {
    // The editor of packages/core/src/tool.ts: add (the latest valid registration of a name
    // wins), update (keeps name and namespace), remove (deletes; missing names do nothing).
    const tools = new Map()
    const errors = []
    const editor = {
      list: () => [...tools.values()],
      get: (id) => tools.get(id),
      namespace: () => {},
      add: (tool) => {
        const error = registrationError(tool)
        if (error) return void errors.push({ name: tool.name, error })
        const id = effectiveName(tool)
        tools.set(id, { ...tool, id, options: tool.options && { ...tool.options } })
      },
      update: (id, fn) => {
        const current = tools.get(id)
        if (!current) return
        const next = { ...current, options: current.options && { ...current.options } }
        fn(next)
        next.name = current.name
        next.id = id
        tools.set(id, next)
      },
      remove: (id) => {
        if (!removeIgnored.has(id)) tools.delete(id)
      },
    }
    for (const t of transforms.tool) t.fn(editor)
    return { tools, errors }
  }

  function websearchState() {
    // The draft of packages/core/src/websearch.ts: add (same id: later wins), default get/set.
    const providers = new Map()
    const draft = { selection: undefined }
    const editor = {
      add: (provider) => providers.set(provider.id, provider),
      default: { get: () => draft.selection, set: (selection) => (draft.selection = selection) },
    }
    for (const t of transforms.websearch) t.fn(editor)
    return { providers, selection: draft.selection }
  }

  let stored = hostConfig.stored // KV "websearch:provider" (packages/core/src/websearch.ts)

  // WebSearch.default() of packages/core/src/websearch.ts: the transforms' selection, else the
  // stored one; false → DisabledError; "random" → any provider; nothing → no default.
  function defaultProvider() {
    const { providers, selection: set } = websearchState()
    const selection = set ?? stored
    if (selection === false) throw new DisabledError()
    if (selection === "random") return [...providers.values()][0]
    return selection ? providers.get(selection) : undefined
  }

  // WebSearch.query of packages/core/src/websearch.ts.
  async function query({ query, providerID }, signal) {
    const { providers } = websearchState()
    let provider
    if (providerID) {
      provider = providers.get(providerID)
      if (!provider) throw new ProviderNotFoundError()
    } else {
      provider = defaultProvider()
      if (!provider) throw new ProviderRequiredError()
    }
    let results
    try {
      results = decodeResults(await provider.execute({ query }, signal))
    } catch (cause) {
      throw new RequestError(provider.id, cause)
    }
    return { providerID: provider.id, results }
  }

  // configuredProvider of packages/core/src/tool/plugin/websearch.ts.
  function configuredProvider(providers) {
    const configured = config.websearch
    if (configured === false) throw new DisabledError()
    if (!configured) return undefined
    if (configured.provider !== "random") return configured.provider
    return providers[0]?.id
  }

  // The websearch tool of packages/core/src/tool/plugin/websearch.ts (registered by a `pre`
  // plugin with options { codemode: false } and an output schema).
  async function websearchExecute(input, context) {
    try {
      let result
      const provider = defaultProvider()
      if (provider) result = await query({ query: input.query, providerID: provider.id }, context.signal)
      else {
        try {
          result = await query({ query: input.query }, context.signal)
        } catch (error) {
          if (!(error instanceof ProviderRequiredError)) throw error
          // No default yet: the user is asked (Form), unless the config names a provider.
          const providers = [...websearchState().providers.values()].sort((a, b) => a.name.localeCompare(b.name))
          if (!providers[0]) throw new ProviderRequiredError()
          let providerID = configuredProvider(providers)
          if (!providerID) {
            const answer = hostConfig.formAnswer ?? "cancel"
            if (answer === "cancel") throw new Error("Web search cancelled")
            if (answer === "disable") {
              stored = false
              throw new DisabledError()
            }
            providerID = answer === "allow" ? "random" : answer.choose
            stored = providerID
            if (providerID === "random") providerID = providers[0].id
          }
          result = await query({ query: input.query, providerID }, context.signal)
        }
      }
      const output = { provider: result.providerID, results: result.results }
      return { output, content: renderSearch(output.results), metadata: { provider: output.provider } }
    } catch (error) {
      // A plugin provider's failure never carries an HTTP status (only an Effect
      // HttpClientError does): the model sees the generic sentence.
      const fallback = `Unable to search the web for ${input.query}`
      if (error instanceof RequestError) throw new ToolError(fallback, { error, metadata: { provider: error.providerID } })
      throw new ToolError(fallback, { error })
    }
  }

  // OpenCode's own `pre` plugins (internal.ts): providers (packages/core/src/plugin/websearch/),
  // the websearch tool (modelled in full) and the webfetch tool
  // (packages/core/src/tool/plugin/webfetch.ts: name, codemode:false, output schema and result
  // shape; no network here).
  register(
    "websearch",
    (editor) => {
      for (const id of hostConfig.builtinProviders ?? ["exa"]) {
        editor.add({
          id,
          name: id[0].toUpperCase() + id.slice(1),
          execute: async () => [{ url: `https://${id}.example/`, title: `${id} result`, content: `from ${id}`, time: {} }],
        })
      }
    },
    -2,
  )
  register(
    "tool",
    (editor) => {
      editor.add({
        name: "websearch",
        description: "Search the web using the user's selected search integration.",
        input: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
        output: { type: "object" },
        options: { codemode: false },
        builtin: true,
        execute: websearchExecute,
      })
      editor.add({
        name: "webfetch",
        description: "Fetch content from an HTTP or HTTPS URL and return it as text, markdown, or HTML.",
        input: { type: "object", properties: { url: { type: "string" }, format: { type: "string" } }, required: ["url"] },
        output: { type: "object" },
        options: { codemode: false },
        builtin: true,
        execute: async (input) => {
          const result = { url: input.url, contentType: "text/markdown", format: input.format, output: `(fake built-in webfetch of ${input.url})` }
          return { output: result, content: result.output, metadata: { contentType: result.contentType } }
        },
      })
    },
    -1,
  )

  // The Promise editors of packages/plugin/src/promise/adapter.ts.
  const promiseToolEditor = (editor) => ({
    list: () => editor.list(),
    get: (id) => editor.get(id),
    namespace: editor.namespace,
    add: (tool) => {
      log.push(["tool.add", tool.name])
      editor.add({ ...tool, promise: true })
    },
    update: (id, fn) => editor.update(id, fn),
    remove: (id) => {
      log.push(["tool.remove", id])
      editor.remove(id)
    },
  })
  const promiseWebsearchEditor = (editor) => ({
    // add wraps execute as `attempt((signal) => definition.execute(input, { signal }))`:
    // a rejection is a typed failure of WebSearch.query, not a defect.
    add: (definition) => {
      log.push(["websearch.add", definition.id])
      editor.add({
        id: definition.id,
        name: definition.name,
        execute: (input, signal) => definition.execute(input, { signal }),
        definition,
      })
    },
    default: {
      get: () => editor.default.get(),
      set: (selection) => {
        log.push(["websearch.default.set", selection])
        editor.default.set(selection)
      },
    },
  })

  const plugins = []
  const cleanups = []
  let postRegistered = false

  function makeContext(options, registrations) {
    const ctx = {
      // packages/plugin/src/app.ts `App`
      app: { name: "opencode", version: "2.3.0", channel: "latest" },
      location: { directory: "/fake/project" },
      options: options ?? {},
      tool: {
        transform: async (callback) => {
          const r = register("tool", (editor) => callback(promiseToolEditor(editor)))
          registrations.push(r)
          return { dispose: async () => r.dispose() }
        },
        reload: async () => {},
        list: async () => [...toolState().tools.values()],
        hook: unmodelled("tool.hook").hook,
      },
    }
    if (!hostConfig.noWebsearchApi) {
      ctx.websearch = {
        transform: async (callback) => {
          const r = register("websearch", (editor) => callback(promiseWebsearchEditor(editor)))
          registrations.push(r)
          return { dispose: async () => r.dispose() }
        },
        reload: async () => {},
        providers: async () => ({ data: [...websearchState().providers.values()].map(({ id, name }) => ({ id, name })) }),
        query: unmodelled("websearch").query,
      }
    }
    for (const name of UNMODELLED) ctx[name] = unmodelled(name)
    return ctx
  }

  function registerPost() {
    if (postRegistered) return
    postRegistered = true
    // ConfigWebSearchPlugin (packages/core/src/config/plugin/websearch.ts), a `post` plugin:
    // the user's `websearch` setting is applied after every user plugin.
    register("websearch", (editor) => {
      const selection = config.websearch
      if (selection === false) editor.default.set(false)
      if (selection) editor.default.set(selection.provider)
    })
  }

  /**
   * Loads user plugins in order (each `{ id, setup }`, options per plugin), then the post
   * plugins, as one generation. A plugin whose setup throws is marked failed (its
   * registrations are dropped); load() resolves with the status of each.
   */
  async function load(plugin, options) {
    const list = Array.isArray(plugin) ? plugin : [{ plugin, options }]
    for (const { plugin: mod, options: opts } of list) {
      const p = mod?.default ?? mod
      if (!p || typeof p.id !== "string" || typeof p.setup !== "function") throw new FakeHostError("plugin default export must be { id, setup }")
      const registrations = []
      try {
        const cleanup = await p.setup(makeContext(opts, registrations))
        if (typeof cleanup === "function") cleanups.push(cleanup)
        plugins.push({ id: p.id, status: "loaded" })
      } catch (error) {
        for (const r of registrations) r.dispose()
        plugins.push({ id: p.id, status: "failed", error: error instanceof Error ? error.message : String(error) })
      }
    }
    registerPost()
    return plugins.slice(-list.length)
  }

  async function unload() {
    for (const c of cleanups.splice(0)) await c()
  }

  // Tool.Service.snapshot of packages/core/src/tool.ts: tools with options.codemode === false
  // are offered natively (sorted by name); every other tool sits behind Code Mode's "execute".
  // The websearch tool's session context hook (websearch.ts) drops it when search is disabled.
  function snapshot() {
    const { tools } = toolState()
    const direct = new Map([...tools].filter(([, t]) => t.options?.codemode === false))
    const codeMode = new Map([...tools].filter(([, t]) => t.options?.codemode !== false))
    let disabled = config.websearch === false
    if (config.websearch === undefined) {
      try {
        defaultProvider()
      } catch {
        disabled = true
      }
    }
    if (disabled) direct.delete("websearch")
    return { direct, codeMode }
  }

  function definitions() {
    const { direct } = snapshot()
    return [
      ...[...direct.keys()].sort().map((name) => {
        const t = direct.get(name)
        return { name, description: t.description, inputSchema: t.input ?? {}, ...(t.output === undefined ? {} : { outputSchema: t.output }) }
      }),
      { name: "execute", description: "Code Mode", inputSchema: {} },
    ]
  }

  /**
   * One call from the model by name, through snapshot.execute (tool.ts), execute
   * (packages/core/src/tool/runtime.ts), ToolOutput.truncate (tool-output.ts) and the step's
   * settlement (packages/core/src/session/runner/step.ts): a Tool.Error fails the call with its
   * message; a defect fails it as "unknown" with the defect's message.
   */
  async function runTool(name, input, { signal, timeoutMs } = {}) {
    const { direct } = snapshot()
    const tool = direct.get(name)
    const signals = [new AbortController().signal]
    if (signal) signals.push(signal)
    if (timeoutMs) signals.push(AbortSignal.timeout(timeoutMs))
    // Tool.Context (packages/schema/src/tool.ts) plus what executePromiseTool and the Promise
    // ToolContext (packages/plugin/src/promise/tool.ts) add: signal, progress, checkpoint.
    const context = {
      sessionID: "ses_fake",
      agent: "build",
      messageID: "msg_fake",
      id: `call_${++calls}`,
      signal: AbortSignal.any(signals),
      progress: async () => {},
      checkpoint: async () => {},
    }
    let result
    // The caller's abort interrupts the call's fiber: step.ts settles it as TOOLS_INTERRUPTED
    // whatever the executor later returns (kept as `settled` for tests).
    const interrupted = (settled) =>
      context.signal.aborted
        ? { status: "error", ok: false, interrupted: true, error: { type: "aborted", message: "Tool execution interrupted" }, text: "Tool execution interrupted", settled }
        : null
    try {
      if (!tool) throw new ToolError(`Unknown tool: ${name}`)
      // The input schema of a plain JSON Schema is not validated (runtime.ts decodeInput).
      try {
        result = await tool.execute(input, context)
      } catch (error) {
        if (tool.promise) throw new Defect(error)
        throw error instanceof ToolError ? error : new ToolError(error instanceof Error ? error.message : String(error))
      }
      if (result === null || typeof result !== "object") throw new Defect(new TypeError(`tool ${name} returned ${result === null ? "null" : typeof result}`))
      if (tool.output === undefined) {
        if ("output" in result) throw new Defect(new Error("Tool result declared output without an output schema"))
        result = { content: normalizeContent(result.content), ...(result.metadata === undefined ? {} : { metadata: result.metadata }) }
      } else {
        if (!("output" in result)) throw new ToolError("Tool did not return its declared output")
        result = { output: result.output, content: normalizeContent(result.content, result.output), ...(result.metadata === undefined ? {} : { metadata: result.metadata }) }
      }
    } catch (error) {
      if (error instanceof Defect) return interrupted({ defect: error.cause }) ?? { status: "error", ok: false, defect: true, error: sessionError(error.cause), text: error.message }
      const e = sessionError(error)
      return interrupted({ error }) ?? { status: "error", ok: false, defect: false, error: e, text: e.message, metadata: error.metadata }
    }
    if (interrupted()) return interrupted({ result })
    const bounded = boundOutput(result, `/fake/data/opencode/tool-output/tool_${calls}`)
    return {
      status: "completed",
      ok: true,
      content: bounded.content,
      text: bounded.content.filter((c) => c.type === "text").map((c) => c.text).join("\n"),
      metadata: bounded.metadata,
      output: bounded.output,
      truncated: bounded.metadata?.truncated === true,
      raw: result,
    }
  }

  /** The model calling OpenCode's websearch tool. */
  async function search(q, opts) {
    const r = await runTool("websearch", { query: q }, opts)
    if (!r.ok) return { ok: false, status: r.status, error: r.error, modelText: r.text, providerId: r.metadata?.provider, interrupted: r.interrupted, settled: r.settled }
    return { ok: true, status: r.status, providerId: r.output.provider, results: r.output.results, modelText: r.text, metadata: r.metadata }
  }

  return {
    log,
    load,
    unload,
    plugins: () => plugins.map((p) => ({ ...p })),
    definitions,
    nativeTools: () => definitions().map((d) => d.name),
    codeModeTools: () => [...snapshot().codeMode.keys()].sort(),
    registrationErrors: () => toolState().errors,
    runTool,
    search,
    websearch: {
      list: () => [...websearchState().providers.keys()],
      get: (id) => websearchState().providers.get(id)?.definition ?? websearchState().providers.get(id),
      default: () => {
        try {
          return defaultProvider()?.id
        } catch (e) {
          if (e instanceof DisabledError) return false
          throw e
        }
      },
      selection: () => websearchState().selection ?? stored,
    },
    tools: {
      list: () => [...toolState().tools.keys()],
      get: (name) => toolState().tools.get(name),
    },
  }
}
