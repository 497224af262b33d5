// A minimal MCP client over stdio (newline-delimited JSON-RPC), enough to ask our server
// directly what it answers: the reference the hosts' forwarded texts are compared with.
//
//   const c = startMcpClient(BINARY, ["mcp", "--base-url", ds.baseURL], { env })
//   await c.initialize()
//   const tools = await c.request("tools/list", {})
//   const res = await c.request("tools/call", { name: "deepseek_search", arguments: { query: "go" } })
//   await c.close()
import { spawn } from "node:child_process"

export function startMcpClient(command, args, { env, timeoutMs = 15000 } = {}) {
  const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] })
  let buf = ""
  let stderr = ""
  let nextId = 1
  const pending = new Map()
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (d) => {
    buf += d
    let i
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i)
      buf = buf.slice(i + 1)
      if (!line.trim()) continue
      const msg = JSON.parse(line)
      const p = pending.get(msg.id)
      if (p && (msg.result !== undefined || msg.error !== undefined)) {
        pending.delete(msg.id)
        clearTimeout(p.timer)
        msg.error ? p.reject(new Error(`MCP error ${msg.error.code}: ${msg.error.message}`)) : p.resolve(msg.result)
      }
    }
  })
  child.stderr.on("data", (d) => (stderr += d))
  const exited = new Promise((resolve) => child.on("close", resolve))
  const send = (m) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n")
  function request(method, params) {
    const id = nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id)
        reject(new Error(`MCP ${method}: no answer in ${timeoutMs} ms; stderr: ${stderr}`))
      }, timeoutMs)
      pending.set(id, { resolve, reject, timer })
      send({ id, method, params })
    })
  }
  return {
    request,
    get stderr() {
      return stderr
    },
    async initialize() {
      const r = await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hosts-test", version: "0" } })
      send({ method: "notifications/initialized" })
      return r
    },
    async close() {
      child.stdin.end()
      const t = setTimeout(() => child.kill("SIGKILL"), 5000)
      await exited
      clearTimeout(t)
    },
  }
}
