// plugin/server.js — the OpenCode entry point of deepseek-web-retrieval.
//
// One default export serves both hosts: OpenCode 2.x calls setup(ctx),
// OpenCode 1.x calls server(input, options). The registration plan (what to
// register for these options on this host, the tools' schemas and
// descriptions) comes from the Go core in core.wasm; this file registers what
// it is told and hands every call to the module.

import { Runtime } from "./runtime.js"

const ID = "deepseek-web-retrieval"

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

function logger(client) {
  return (level, message) => {
    const line = `[${ID}] ${message}`
    // OpenCode 1.x writes app.log entries to its log file; fall back to stderr.
    const app = client?.app
    if (typeof app?.log === "function") {
      Promise.resolve(app.log({ body: { service: ID, level, message } })).catch(() => {})
      if (level !== "error") return
    }
    if (level === "debug") return
    console.error(line)
  }
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

async function call(rt, plan, options, kind, input, signal) {
  const step = await rt.run({ kind, options: options ?? {}, apiKey: apiKey(plan), input }, signal)
  if (step.error) {
    const err = new Error(step.error.message)
    err.code = step.error.code
    throw err
  }
  return step.result
}

/** OpenCode 2.x. */
async function setup(ctx) {
  const options = ctx?.options ?? {}
  const log = logger(ctx?.client)
  const rt = await runtime(log)
  const plan = makePlan(rt, "opencode2", options)
  for (const w of plan.warnings ?? []) log("warn", w)

  if (plan.websearch && typeof ctx.websearch?.transform !== "function") {
    // A 2.x without the websearch provider API: never pretend.
    if (plan.websearch.exclusive) throw new Error(plan.notExclusive.search)
    log("warn", "this OpenCode has no websearch provider API; DeepSeek search is not registered")
  } else if (plan.websearch) {
    const p = plan.websearch
    let readBack = false
    await ctx.websearch.transform((editor) => {
      editor.add({
        id: p.id,
        name: p.name,
        execute: async ({ query }, extra) => {
          try {
            const result = await call(rt, plan, options, "opencode.websearch", { query }, extra?.signal)
            return result.results
          } catch (err) {
            // The model only sees OpenCode's generic sentence: tell the user why.
            if (err?.code !== "cancelled") log("error", err.message)
            throw err
          }
        },
      })
      if (p.default) {
        editor.default.set(p.id)
        readBack = typeof editor.default.get === "function" && editor.default.get() === p.id
      }
    })
    if (p.exclusive && !readBack) throw new Error(plan.notExclusive.search)
  }

  if (plan.tools.length > 0 || plan.removeTools) {
    let removed = true
    await ctx.tool.transform((editor) => {
      for (const t of plan.tools) {
        editor.add({
          name: t.name,
          description: t.description,
          input: t.input,
          execute: async (input, toolCtx) => {
            const signal = toolCtx?.signal ?? toolCtx?.abort
            const result = await call(rt, plan, options, "opencode.tool", { tool: t.name, args: input ?? {} }, signal)
            return { content: result.content, metadata: result.metadata }
          },
        })
      }
      for (const name of plan.removeTools ?? []) {
        if (typeof editor.remove !== "function") {
          removed = false
          continue
        }
        editor.remove(name)
        if (typeof editor.get === "function" && editor.get(name)) removed = false
      }
    })
    if (!removed) throw new Error(plan.notExclusive.fetch)
  }
}

/** OpenCode 1.x. */
async function server(input, options) {
  const log = logger(input?.client)
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
        return result.content
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
