// A loopback OpenAI-compatible chat-completions server (SSE streaming) that plays a scripted
// model for a real OpenCode run.
//
//   const llm = await startMockLLM({ turns: [
//     { tool: "echo_test", args: { text: "hi" } },          // turn 1: one tool call
//     { toolCalls: [{ name: "a", args: {...} }, ...] },      // turn 2: several tool calls
//     { text: "all done" },                                  // final turn: plain text
//     (body, index) => ({ text: "computed from the request" }),
//   ] })
//   llm.baseURL          "http://127.0.0.1:<port>/v1"  (use as the provider's baseURL)
//   llm.requests         every POST /v1/chat/completions body (parsed), in order
//   llm.turnRequests     the bodies that consumed a scripted turn (requests with `tools`)
//   llm.toolResults()    every { tool_call_id, content } the client sent back (role "tool")
//   await llm.close()
//
// Requests that carry no `tools` (OpenCode's session-title generation and other helper
// calls) do not consume a turn: they get `auxText` ("Mock title" by default). When the script
// is exhausted, a turn answers with `exhaustedText`.
import http from "node:http"
import { listenLoopback } from "./loopback.js"

function sseChunk(id, model, delta, finish = null, extra = {}) {
  return {
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  }
}

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }

export async function startMockLLM(options = {}) {
  const turns = [...(options.turns ?? [])]
  const auxText = options.auxText ?? "Mock title"
  const exhaustedText = options.exhaustedText ?? "(mock LLM: no more scripted turns)"
  const requests = []
  const turnRequests = []
  let callCounter = 0
  let turnIndex = 0

  function resolveTurn(body) {
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0
    if (!hasTools) return { text: auxText, aux: true }
    turnRequests.push(body)
    const index = turnIndex++
    let turn = index < turns.length ? turns[index] : { text: exhaustedText }
    if (typeof turn === "function") turn = turn(body, index)
    return turn
  }

  function toolCallsOf(turn) {
    if (turn.tool) return [{ name: turn.tool, args: turn.args ?? {} }]
    return turn.toolCalls ?? []
  }

  const server = http.createServer((req, res) => {
    let raw = ""
    req.setEncoding("utf8")
    req.on("data", (c) => (raw += c))
    req.on("end", () => {
      if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: `mock LLM: no route ${req.method} ${req.url}` } }))
        return
      }
      let body
      try {
        body = JSON.parse(raw)
      } catch {
        res.writeHead(400).end()
        return
      }
      requests.push(body)
      const turn = resolveTurn(body)
      const id = `chatcmpl-${requests.length}`
      const model = body.model ?? "m"
      const chunks = []
      const calls = toolCallsOf(turn)
      const callIds = calls.map((c) => c.id ?? `call_${++callCounter}`)
      if (calls.length > 0) {
        chunks.push(sseChunk(id, model, { role: "assistant", content: null }))
        calls.forEach((call, i) => {
          const callId = callIds[i]
          const args = typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {})
          chunks.push(
            sseChunk(id, model, {
              tool_calls: [{ index: i, id: callId, type: "function", function: { name: call.name, arguments: "" } }],
            }),
          )
          chunks.push(sseChunk(id, model, { tool_calls: [{ index: i, function: { arguments: args } }] }))
        })
        chunks.push(sseChunk(id, model, {}, "tool_calls"))
      } else {
        chunks.push(sseChunk(id, model, { role: "assistant", content: "" }))
        chunks.push(sseChunk(id, model, { content: String(turn.text ?? "") }))
        chunks.push(sseChunk(id, model, {}, "stop"))
      }
      chunks.push({ ...sseChunk(id, model, {}), choices: [], usage: USAGE })

      if (body.stream === false) {
        const message = calls.length
          ? {
              role: "assistant",
              content: null,
              tool_calls: calls.map((c, i) => ({
                id: callIds[i],
                type: "function",
                function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
              })),
            }
          : { role: "assistant", content: String(turn.text ?? "") }
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            id,
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model,
            choices: [{ index: 0, message, finish_reason: calls.length ? "tool_calls" : "stop" }],
            usage: USAGE,
          }),
        )
        return
      }
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      })
      for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`)
      res.end("data: [DONE]\n\n")
    })
  })

  const port = await listenLoopback(server)

  return {
    port,
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    turnRequests,
    toolResults() {
      const out = []
      const seen = new Set()
      for (const body of requests) {
        for (const m of body.messages ?? []) {
          if (m.role !== "tool") continue
          const content = typeof m.content === "string" ? m.content : JSON.stringify(m.content)
          const key = `${m.tool_call_id}\u0000${content}`
          if (seen.has(key)) continue
          seen.add(key)
          out.push({ tool_call_id: m.tool_call_id, content })
        }
      }
      return out
    },
    close() {
      server.closeAllConnections?.()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
