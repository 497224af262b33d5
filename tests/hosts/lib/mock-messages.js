// A loopback mock of Anthropic's Messages API, streamed, as Claude Code 2.1.328 calls it when
// `ANTHROPIC_BASE_URL` points here: `POST /v1/messages` with `stream: true`, answered with the
// events message_start, content_block_start/delta/stop, message_delta and message_stop.
//
//   const llm = await startMockMessages({ turns: [
//     { call: { name: "mcp__deepseek-web-retrieval__deepseek_search", args: { query: "go" } } },
//     { text: "done" },
//   ] })
//   llm.baseURL          "http://127.0.0.1:<port>" (ANTHROPIC_BASE_URL)
//   llm.requests         every request: { method, path, headers, body, json }
//   llm.turnRequests     the agent's requests (those offering tools); each consumed one turn
//   llm.toolResults()    every tool_result block Claude Code sent back, in order, by tool_use_id
//
// Requests without tools (Claude Code's side requests: titles, summaries) get a short text and
// consume no turn. A turn may also be a function of the request that returns a turn.
import http from "node:http"
import { closeServer, listenLoopback, readRequest } from "../../js/lib/loopback.js"

export async function startMockMessages({ turns = [] } = {}) {
  const requests = []
  let turn = 0
  const server = http.createServer(async (req, res) => {
    const record = await readRequest(req)
    const { path, json } = record
    requests.push(record)
    if (req.method !== "POST" || path !== "/v1/messages") {
      res.writeHead(404, { "content-type": "application/json" })
      return res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `mock Messages: no route ${req.method} ${path}` } }))
    }
    const agentTurn = Array.isArray(json?.tools) && json.tools.length > 0
    let t = agentTurn ? turns[turn++] ?? { text: "No more scripted turns." } : { text: "Mock side answer." }
    if (typeof t === "function") t = t(record)
    const n = requests.length
    const blocks = []
    if (t.text !== undefined) blocks.push({ type: "text", text: t.text })
    if (t.call) blocks.push({ type: "tool_use", id: `toolu_${n}`, name: t.call.name, input: t.call.args })
    const stop = t.call ? "tool_use" : "end_turn"
    if (json?.stream === false) {
      res.writeHead(200, { "content-type": "application/json" })
      return res.end(JSON.stringify({ id: `msg_${n}`, type: "message", role: "assistant", model: json.model, content: blocks, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } }))
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
    ev("message_start", { message: { id: `msg_${n}`, type: "message", role: "assistant", model: json?.model ?? "mock", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } })
    blocks.forEach((b, index) => {
      if (b.type === "text") {
        ev("content_block_start", { index, content_block: { type: "text", text: "" } })
        ev("content_block_delta", { index, delta: { type: "text_delta", text: b.text } })
      } else {
        ev("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } })
        ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } })
      }
      ev("content_block_stop", { index })
    })
    ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } })
    ev("message_stop", {})
    res.end()
  })
  const port = await listenLoopback(server)
  return {
    port,
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    get turnRequests() {
      return requests.filter((r) => Array.isArray(r.json?.tools) && r.json.tools.length > 0)
    },
    toolResults() {
      const seen = new Map()
      for (const r of requests)
        for (const m of r.json?.messages ?? [])
          if (Array.isArray(m.content)) for (const b of m.content) if (b.type === "tool_result" && !seen.has(b.tool_use_id)) seen.set(b.tool_use_id, b)
      return [...seen.values()]
    },
    close() {
      return closeServer(server)
    },
  }
}
