// One OpenCode start of the plugin package as npm installed it, under Bun (OpenCode's
// runtime): imports it by name from the directory given, loads it into the fake 2.x host of
// tests/js with the options given (JSON), runs one deepseek_fetch through it (the module,
// read from the package's core.wasm, answers), and prints what happened as JSON: the
// plugin's status, the tools registered, how many plans setup asked the module for (not
// the warm-up's), and the plan cache files under $XDG_CACHE_HOME.
//   bun plugin-start.js <install dir> <options JSON>
import { readdirSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { createFakeHostV2 } from "../js/lib/fake-host-v2.js"

const [dir, optionsJSON] = process.argv.slice(2)
const require = createRequire(join(dir, "package.json"))
const entry = require.resolve("@deepseek-web-retrieval/opencode")
const { Runtime } = await import(pathToFileURL(join(dirname(entry), "runtime.js")).href)
let plans = 0
const start = Runtime.prototype.start
Runtime.prototype.start = function (envelope) {
  if (envelope.kind === "opencode.plan" && envelope.apiKey === undefined) plans++
  return start.call(this, envelope)
}
const plugin = (await import(pathToFileURL(entry).href)).default

const host = createFakeHostV2()
const [status] = await host.load(plugin, JSON.parse(optionsJSON))
const fetched = status.status === "loaded" ? await host.runTool("deepseek_fetch", { url: "https://go.dev/doc/effective_go" }) : null
const plansDir = join(process.env.XDG_CACHE_HOME, "deepseek-web-retrieval", "plans")
let cache = []
try {
  cache = readdirSync(plansDir)
} catch {}
console.log(JSON.stringify({ entry, status, tools: host.tools.list(), providers: host.websearch.list(), plans, fetch: fetched && { status: fetched.status, text: fetched.text }, cache }))
process.exit(0)
