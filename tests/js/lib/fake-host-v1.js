// A fake OpenCode 1.x host (modelled on opencode-ai 1.18.33, checked against its bundle and a
// real run — see tests/js/README.md) for fast tests of the plugin's 1.x path.
//
//   const host = await loadPluginV1(pluginModule.default, { options: { search: "preferred" } })
//   host.hooks                      what server() returned
//   host.tools                      [{ name, description, parameters }] as offered to the model
//   const r = await host.runTool("deepseek_search", { query: "x" }, { signal, timeoutMs })
//   r.status  "completed" | "error"
//   r.output  the text the model sees (after the host's 2,000-line / 50 KiB cut)
//   r.title, r.metadata (with the host's `truncated` verdict), r.error (the thrown value)
//
// 1.18.33 behaviour reproduced here:
//   - default export: a function (input, options) => hooks, or an object with server(input,
//     options). options = the entry's options object (undefined for a plain string entry).
//     An object's setup(ctx) is called too, after server(), with a partial 2.x-style context
//     whose keys are exactly options, agent, aisdk, catalog, command, integration, plugin,
//     reference, skill (no tool, no websearch; observed with a probe plugin under 1.18.33).
//     host.setup = { called, error? } records it.
//   - tool schema: when every `args` value is a zod schema, zod (not supported here: plain
//     JSON-Schema args only); otherwise { type: "object", properties: <args whose value is a
//     boolean or a non-array object>, required: <those keys> }. Input is NOT validated.
//   - execute(args, ctx), ctx = { sessionID, messageID, agent, abort: AbortSignal, callID,
//     extra, messages, metadata(), ask(), directory, worktree }.
//   - return value: a string is the output (title "", metadata {}); otherwise an object
//     { output, title?, metadata?, attachments? }.
//   - output is cut to 2,000 lines / 51,200 bytes (head kept) with a notice; metadata.truncated
//     is always the host's verdict (a plugin's own `truncated` is overwritten).
//   - a thrown error makes the call status "error" and the model sees the error's message only.

export const MAX_LINES = 2000
export const MAX_BYTES = 51200

export function truncateV1(text, outputPath = "/fake/tool-output/tool_0") {
  const lines = text.split("\n")
  const total = Buffer.byteLength(text, "utf-8")
  if (lines.length <= MAX_LINES && total <= MAX_BYTES) return { content: text, truncated: false }
  const kept = []
  let bytes = 0
  let hitBytes = false
  for (let i = 0; i < lines.length && i < MAX_LINES; i++) {
    const size = Buffer.byteLength(lines[i], "utf-8") + (i > 0 ? 1 : 0)
    if (bytes + size > MAX_BYTES) {
      hitBytes = true
      break
    }
    kept.push(lines[i])
    bytes += size
  }
  const removed = hitBytes ? total - bytes : lines.length - kept.length
  const unit = hitBytes ? "bytes" : "lines"
  const hint =
    `The tool call succeeded but the output was truncated. Full output saved to: ${outputPath}\n` +
    "Use the Task tool to have explore agent process this file with Grep and Read (with offset/limit). Do NOT read the full file yourself - delegate to save context."
  return { content: `${kept.join("\n")}\n\n...${removed} ${unit} truncated...\n\n${hint}`, truncated: true, outputPath }
}

function schemaFromArgs(args) {
  const entries = Object.entries(args ?? {})
  if (entries.length > 0 && entries.every(([, v]) => v && typeof v === "object" && "_zod" in v)) {
    throw new Error("fake-host-v1: zod args are not supported by the fake host")
  }
  const properties = Object.fromEntries(
    entries.filter(([, v]) => typeof v === "boolean" || (typeof v === "object" && v !== null && !Array.isArray(v))),
  )
  return { type: "object", properties, required: Object.keys(properties) }
}

export async function loadPluginV1(plugin, { options, input } = {}) {
  const pluginInput = {
    client: {},
    project: { id: "fake-project" },
    directory: "/fake/project",
    worktree: "/fake/project",
    serverUrl: new URL("http://127.0.0.1:4096"),
    experimental_workspace: {},
    $: () => {
      throw new Error("fake-host-v1: $ is not available")
    },
    ...(input ?? {}),
  }
  let hooks
  if (typeof plugin === "function") hooks = await plugin(pluginInput, options)
  else if (plugin && typeof plugin.server === "function") hooks = await plugin.server(pluginInput, options)
  else throw new Error("fake-host-v1: the default export has no server() and is not a function")
  hooks = hooks ?? {}

  const setup = { called: false }
  if (plugin && typeof plugin === "object" && typeof plugin.setup === "function") {
    const unsupported = (name) =>
      new Proxy({}, { get: (_, key) => (key === "then" ? undefined : () => Promise.reject(new Error(`fake-host-v1: setup ctx.${name}.${String(key)}`))) })
    const ctx = { options: options ?? {} }
    for (const name of ["agent", "aisdk", "catalog", "command", "integration", "plugin", "reference", "skill"]) ctx[name] = unsupported(name)
    setup.called = true
    try {
      await plugin.setup(ctx)
    } catch (error) {
      setup.error = error
    }
  }

  const toolDefs = hooks.tool ?? {}
  const tools = Object.entries(toolDefs).map(([name, def]) => ({
    name,
    description: def.description,
    parameters: schemaFromArgs(def.args),
  }))
  let calls = 0

  async function runTool(name, args, { signal, timeoutMs } = {}) {
    const def = toolDefs[name]
    if (!def) throw new Error(`fake-host-v1: no tool ${name}`)
    const controller = new AbortController()
    const signals = [controller.signal]
    if (signal) signals.push(signal)
    if (timeoutMs) signals.push(AbortSignal.timeout(timeoutMs))
    const abort = signals.length === 1 ? signals[0] : AbortSignal.any(signals)
    const metadataUpdates = []
    const ctx = {
      sessionID: "ses_fake",
      messageID: "msg_fake",
      agent: "build",
      abort,
      callID: `call_${++calls}`,
      extra: {},
      messages: [],
      metadata(m) {
        metadataUpdates.push(m)
      },
      async ask() {},
      directory: pluginInput.directory,
      worktree: pluginInput.worktree,
    }
    let result
    try {
      result = await def.execute(args, ctx)
    } catch (error) {
      return {
        status: "error",
        error,
        output: error instanceof Error ? error.message : String(error),
        metadataUpdates,
      }
    }
    try {
      const text = typeof result === "string" ? result : result.output
      const meta = typeof result === "string" ? {} : (result.metadata ?? {})
      const cut = truncateV1(text)
      return {
        status: "completed",
        title: typeof result === "string" ? "" : (result.title ?? ""),
        output: cut.content,
        metadata: { ...meta, truncated: cut.truncated, ...(cut.truncated ? { outputPath: cut.outputPath } : {}) },
        attachments: typeof result === "string" ? undefined : result.attachments,
        raw: result,
        metadataUpdates,
      }
    } catch (error) {
      // e.g. an object without `output`: the real host fails the call too.
      return { status: "error", error, output: error instanceof Error ? error.message : String(error), raw: result }
    }
  }

  return { hooks, tools, runTool, input: pluginInput, options, setup }
}
