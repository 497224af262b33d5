// A loopback mock of OpenAI's Responses API as Codex 0.169.0 uses it with a custom model
// provider (`wire_api = "responses"`): `POST {base_url}/responses` with `stream: true`, answered
// with server-sent events `response.created`, `response.output_item.done` (one per output item)
// and `response.completed`.
//
//   const llm = await startMockResponses({ turns: [
//     { call: { namespace: "mcp__deepseek_web_retrieval", name: "deepseek_search", args: { query: "go" } } },
//     { text: "done" },
//   ] })
//   llm.baseURL        "http://127.0.0.1:<port>/v1" (the provider's base_url)
//   llm.requests       every request: { method, path, headers, body, json }
//   llm.toolOutputs()  every function_call_output item Codex sent, in order, de-duplicated by call_id
//
// Each request that reaches /responses consumes the next turn; once the turns run out the mock
// answers with a short final text, so a confused agent ends instead of looping.
import http from "node:http"
import { closeServer, listenLoopback, readRequest } from "../../js/lib/loopback.js"

export async function startMockResponses({ turns = [] } = {}) {
  const requests = []
  let turn = 0
  const server = http.createServer(async (req, res) => {
    const record = await readRequest(req)
    const { path, json } = record
    requests.push(record)
    if (req.method !== "POST" || !path.endsWith("/responses")) {
      res.writeHead(404, { "content-type": "application/json" })
      return res.end(JSON.stringify({ error: { message: `mock Responses: no route ${req.method} ${path}` } }))
    }
    const t = turns[turn++] ?? { text: "No more scripted turns." }
    const id = `resp_${turn}`
    const items = []
    if (t.call) {
      const call = { type: "function_call", id: `fc_${turn}`, call_id: `call_${turn}`, name: t.call.name, arguments: JSON.stringify(t.call.args) }
      if (t.call.namespace) call.namespace = t.call.namespace
      items.push(call)
    }
    if (t.text !== undefined) {
      items.push({ type: "message", id: `msg_${turn}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: t.text, annotations: [] }] })
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
    ev("response.created", { response: { id, object: "response", status: "in_progress", output: [] } })
    items.forEach((item, i) => ev("response.output_item.done", { output_index: i, item }))
    ev("response.completed", {
      response: { id, object: "response", status: "completed", output: items, usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 } },
    })
    res.end()
  })
  const port = await listenLoopback(server)
  return {
    port,
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    /** The agent's model requests (those that carry a tools list). */
    get turnRequests() {
      return requests.filter((r) => Array.isArray(r.json?.tools))
    },
    toolOutputs() {
      const seen = new Map()
      for (const r of requests) for (const item of r.json?.input ?? []) if (item.type === "function_call_output" && !seen.has(item.call_id)) seen.set(item.call_id, item)
      return [...seen.values()]
    },
    close() {
      return closeServer(server)
    },
  }
}
