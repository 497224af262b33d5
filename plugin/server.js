// plugin/server.js — the OpenCode entry point of deepseek-web-retrieval.
//
// One default export serves both hosts: OpenCode 2.x calls setup(ctx),
// OpenCode 1.x calls server(input, options). The registration plan (what to
// register for these options on this host, the tools' schemas and
// descriptions) comes from the Go core in core.wasm; this file registers what
// it is told and hands every call to the module.

import { ID, clientLogger, fileLogger } from "./log.js"
import { Runtime } from "./runtime.js"

let shared = null
let sharedLog = null

// runtime returns the one module instance serving every call.
function runtime(log) {
  sharedLog = log
  shared ??= Runtime.create((level, message) => sharedLog?.(level, message)).catch((err) => {
    shared = null
    throw err
  })
  return shared
}

// The key is read at call time, from the variable the plan names, and is the
// only thing of the environment the module ever sees.
function apiKey(plan) {
  return plan.keyEnv ? (process.env[plan.keyEnv] ?? "") : ""
}

function makePlan(rt, host, options) {
  const step = rt.start({ kind: "opencode.plan", options: options ?? {}, input: { host } })
  if (step.error) throw new Error(step.error.message)
  return step.result
}

// run performs one operation; the "done" step carries result or error.
function run(rt, plan, options, kind, input, signal) {
  return rt.run({ kind, options: options ?? {}, apiKey: apiKey(plan), input }, signal)
}

async function call(rt, plan, options, kind, input, signal) {
  const step = await run(rt, plan, options, kind, input, signal)
  if (step.error) {
    const err = new Error(step.error.message)
    err.code = step.error.code
    throw err
  }
  return step.result
}

/**
 * OpenCode 2.x (setup(ctx) of the Promise plugin API).
 *
 * OpenCode 1.x calls setup() too, beside server(), with a partial context that has no tool
 * editor (options, agent, aisdk, catalog, command, integration, plugin, reference, skill:
 * observed with 1.18.33); its tools come from server(), so setup() does nothing there.
 */
async function setup(ctx) {
  if (typeof ctx?.tool?.transform !== "function") return
  const options = ctx.options ?? {}
  const log = fileLogger()
  let rt, plan
  try {
    rt = await runtime(log)
    plan = makePlan(rt, "opencode2", options)
  } catch (err) {
    // Setup fails (OpenCode marks the plugin failed); the reason is also in the log file.
    log("error", err?.message ?? String(err))
    throw err
  }
  for (const w of plan.warnings ?? []) log("warn", w)

  const tools = [...plan.tools]
  const p = plan.websearch
  if (p && typeof ctx.websearch?.transform === "function") {
    await ctx.websearch.transform((editor) => {
      editor.add({
        id: p.id,
        name: p.name,
        // The model only ever sees OpenCode's "Unable to search the web for <query>" when a
        // provider fails (packages/core/src/tool/plugin/websearch.ts): the reason goes to the log.
        execute: async ({ query }, extra) => {
          const step = await settle(run(rt, plan, options, "opencode.websearch", { query }, extra?.signal))
          if (!step.error) return step.result.results
          if (step.error.code !== "cancelled") log("error", step.error.message)
          throw new Error(step.error.message)
        },
      })
      if (p.default) editor.default.set(p.id)
    })
  } else if (p) {
    // A 2.x without the websearch provider API: search as a tool of our own.
    if (!tools.some((t) => t.name === p.fallback.name)) tools.push(p.fallback)
    log("warn", `this OpenCode has no websearch provider API, so DeepSeek search is offered to the model as the ${p.fallback.name} tool instead; update OpenCode to have DeepSeek behind its websearch tool, or set search to "off" to not offer it`)
  }

  const remove = plan.removeTools ?? []
  if (tools.length === 0 && remove.length === 0) return
  const kept = new Set()
  await ctx.tool.transform((editor) => {
    for (const t of tools) {
      editor.add({
        name: t.name,
        description: t.description,
        input: t.input,
        options: t.options,
        execute: (input, toolCtx) => executeV2(rt, plan, options, log, t.name, input, toolCtx?.signal),
      })
    }
    for (const name of remove) {
      editor.remove(name)
      if (editor.get(name)) kept.add(name)
    }
  })
  for (const name of kept) {
    const msg = plan.notExclusive?.[name === "websearch" ? "search" : "fetch"] ?? `deepseek-web-retrieval: could not remove ${name}`
    log("error", msg)
    throw new Error(msg)
  }
}

// settle turns a thrown failure of the bridge (a trapped module) into a done step's error.
async function settle(pending) {
  try {
    return await pending
  } catch (err) {
    return { error: { code: "internal", message: String(err?.message ?? err) } }
  }
}

/**
 * One 2.x tool call. It never rejects: the Promise adapter runs execute inside Effect.promise
 * (packages/plugin/src/promise/adapter.ts, executePromiseTool), so a rejection is a defect,
 * not a Tool.Error, and the step that ran it settles every unsettled call with the first
 * defect as an "unknown" failure (packages/core/src/session/runner/step.ts). A failure is
 * therefore a result whose text is our sentence, with metadata.error naming its kind.
 */
async function executeV2(rt, plan, options, log, tool, input, signal) {
  const step = await settle(run(rt, plan, options, "opencode.tool", { tool, args: input ?? {} }, signal))
  if (!step.error) return { content: step.result.content, metadata: step.result.metadata }
  if (step.error.code !== "cancelled") log("warn", `${tool}: ${step.error.message}`)
  return { content: step.error.message, metadata: { error: step.error.code } }
}

/** OpenCode 1.x. */
async function server(input, options) {
  const log = clientLogger(input?.client)
  const rt = await runtime(log)
  const plan = makePlan(rt, "opencode1", options)
  for (const w of plan.warnings ?? []) log("warn", w)
  const hooks = { tool: {} }
  for (const t of plan.tools) {
    hooks.tool[t.name] = {
      description: t.description,
      args: t.args,
      async execute(args, toolCtx) {
        const result = await call(rt, plan, options, "opencode.tool", { tool: t.name, args: args ?? {} }, toolCtx?.abort)
        // 1.18.33 keeps an object's title and metadata on the finished call (adding its own
        // `truncated`); a plain string gets title "" and metadata {truncated} only.
        return { output: result.content, title: result.title, metadata: result.metadata }
      },
    }
  }
  if (plan.disableTools?.length) {
    // Forced tiers: switch the built-in tools off in the loaded config.
    // OpenCode 1.18.33 turns `tools: {x: false}` into permission rules while
    // it loads the config, before any plugin runs, and later filters the
    // tools it offers by permission only: a tool whose last matching rule is
    // `deny` for "*" is not offered. So deny it, last, in the global rules
    // and in every configured agent's (agent rules are merged after them).
    hooks.config = async (config) => {
      config.tools = { ...(config.tools ?? {}) }
      for (const name of plan.disableTools) config.tools[name] = false
      config.permission = denyLast(config.permission, plan.disableTools)
      for (const agent of Object.values(config.agent ?? {})) {
        if (agent && typeof agent === "object" && agent.permission !== undefined) {
          agent.permission = denyLast(agent.permission, plan.disableTools)
        }
      }
    }
  }
  return hooks
}

// denyLast returns permission config rules with `name: "deny"` as the last
// entry for each name (a later rule wins in OpenCode 1.x).
function denyLast(permission, names) {
  const rules = typeof permission === "string" ? { "*": permission } : { ...(permission ?? {}) }
  for (const name of names) {
    delete rules[name]
    rules[name] = "deny"
  }
  return rules
}

export default { id: ID, setup, server }
