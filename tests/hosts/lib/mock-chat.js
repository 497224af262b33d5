// A loopback mock of OpenAI's Chat Completions API, as agents with an "OpenAI-compatible"
// provider call it (Qwen Code, Kilo CLI, Cline CLI): `POST /v1/chat/completions`, streamed as
// server-sent `chat.completion.chunk` events ending in `data: [DONE]` when the request asks for
// `stream: true`, else one `chat.completion`. `GET /v1/models` lists one model.
//
//   const llm = await startMockChat({ turns: [
//     { call: { name: "mcp__deepseek-web-retrieval__deepseek_search", args: { query: "go" } } },
//     { text: "done" },
//   ] })
//   llm.baseURL          "http://127.0.0.1:<port>/v1"
//   llm.requests         every request: { method, path, headers, body, json }
//   llm.turnRequests     the agent's requests (those offering tools); each consumed one turn
//   llm.toolResults()    every role "tool" message the agent sent back, in order, by tool_call_id
//
// Requests without tools (side requests: titles, summaries) get a short text and consume no
// turn. A turn may also be a function of the request that returns a turn, and a call's name may
// be a function of the offered tool names (for hosts that rename tools).
import assert from "node:assert/strict"
import http from "node:http"
import { closeServer, listenLoopback, readRequest } from "../../js/lib/loopback.js"
import { FETCH_URL, SEARCH_QUERY } from "./reference.js"

export async function startMockChat({ turns = [], model = "mock-model" } = {}) {
  const requests = []
  let turn = 0
  const server = http.createServer(async (req, res) => {
    const record = await readRequest(req)
    const { path, json } = record
    requests.push(record)
    if (req.method === "GET" && path === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json" })
      return res.end(JSON.stringify({ object: "list", data: [{ id: model, object: "model", created: 0, owned_by: "mock" }] }))
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      res.writeHead(404, { "content-type": "application/json" })
      return res.end(JSON.stringify({ error: { message: `mock Chat Completions: no route ${req.method} ${path}`, type: "invalid_request_error" } }))
    }
    const offered = (json?.tools ?? []).map((x) => x.function?.name ?? x.name)
    const agentTurn = offered.length > 0
    let t = agentTurn ? turns[turn++] ?? { text: "No more scripted turns." } : { text: "Mock side answer." }
    if (typeof t === "function") t = t(record)
    const n = requests.length
    const call = t.call && {
      id: `call_${n}`,
      type: "function",
      function: { name: typeof t.call.name === "function" ? t.call.name(offered) : t.call.name, arguments: JSON.stringify(t.call.args) },
    }
    const finish = call ? "tool_calls" : "stop"
    const base = { id: `chatcmpl-${n}`, created: Math.floor(Date.now() / 1000), model: json?.model ?? model }
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }
    if (!json?.stream) {
      res.writeHead(200, { "content-type": "application/json" })
      const message = { role: "assistant", content: t.text ?? null, ...(call ? { tool_calls: [call] } : {}) }
      return res.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage }))
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    const chunk = (delta, finish_reason = null, extra = {}) =>
      res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`)
    chunk({ role: "assistant", content: "" })
    if (t.text !== undefined) chunk({ content: t.text })
    if (call) chunk({ tool_calls: [{ index: 0, ...call }] })
    chunk({}, finish, json?.stream_options?.include_usage ? {} : { usage })
    if (json?.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage })}\n\n`)
    res.write("data: [DONE]\n\n")
    res.end()
  })
  const port = await listenLoopback(server)
  return {
    port,
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    get turnRequests() {
      return requests.filter((r) => Array.isArray(r.json?.tools) && r.json.tools.length > 0)
    },
    toolResults() {
      const seen = new Map()
      for (const r of requests)
        for (const m of r.json?.messages ?? [])
          if (m.role === "tool" && !seen.has(m.tool_call_id)) seen.set(m.tool_call_id, m)
      return [...seen.values()]
    },
    close() {
      return closeServer(server)
    },
  }
}

/** The text of a role "tool" message: a string or text parts. */
export function toolText(message) {
  if (typeof message.content === "string") return message.content
  return message.content.map((p) => p.text ?? "").join("")
}

/**
 * The turns of a run that calls our search tool, then our fetch tool (by the names the host gives
 * them), then answers "Done: searched and fetched.".
 */
export const chatTurns = (search, fetch) => [
  { call: { name: search, args: { query: SEARCH_QUERY } } },
  { call: { name: fetch, args: { url: FETCH_URL } } },
  { text: "Done: searched and fetched." },
]

/**
 * Asserts a run of chatTurns: the agent ended well and printed the answer, offered both our tools
 * on every turn, handed the model exactly our texts (resultText reads our text out of the host's
 * tool message: some wrap it in JSON), and DeepSeek got one search and one fetch.
 */
export function checkChatRun({ r, llm, ds, ref, search, fetch, resultText = toolText }) {
  assert.equal(r.timedOut, false, "the agent ran out of time")
  assert.equal(r.code, 0, r.stdout + r.stderr)
  assert.match(r.stdout, /Done: searched and fetched\./)
  assert.equal(llm.turnRequests.length, 3)
  for (const req of llm.turnRequests) {
    const offered = req.json.tools.map((x) => x.function.name)
    assert.ok(offered.includes(search) && offered.includes(fetch), offered.join(","))
  }
  const results = llm.toolResults()
  assert.equal(results.length, 2)
  assert.equal(resultText(results[0]), ref.search.text)
  assert.equal(resultText(results[1]), ref.fetch.text)
  assert.deepEqual(ds.requests.map((q) => q.path), ["/v1/tools/search", "/v1/tools/fetch"])
}
