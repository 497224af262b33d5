// A loopback mock of the Gemini API (generativelanguage v1beta) as Gemini CLI 0.61.0 calls it
// when `GOOGLE_GEMINI_BASE_URL` points here: `POST /v1beta/models/<model>:streamGenerateContent
// ?alt=sse` (answered as server-sent `data:` chunks) and `:generateContent` (one JSON answer);
// `:countTokens` gets a small count.
//
//   const llm = await startMockGemini({ turns: [
//     { call: { name: "<tool name as offered>", args: { query: "go" } } },
//     { text: "done" },
//   ] })
//   llm.baseURL          "http://127.0.0.1:<port>" (GOOGLE_GEMINI_BASE_URL)
//   llm.requests         every request: { method, path, headers, body, json }
//   llm.turnRequests     the agent's requests (those offering function declarations)
//   llm.functionResponses()  every functionResponse part Gemini CLI sent back, in order
//
// Requests without function declarations (side requests: routing, summaries, next-speaker
// checks) get a short text and consume no turn. A turn may be a function of the request.
import http from "node:http"
import { closeServer, listenLoopback, readRequest } from "../../js/lib/loopback.js"

const declarations = (json) => (json?.tools ?? []).flatMap((t) => t.functionDeclarations ?? [])

export async function startMockGemini({ turns = [] } = {}) {
  const requests = []
  let turn = 0
  const server = http.createServer(async (req, res) => {
    const record = await readRequest(req)
    const { path, json } = record
    requests.push(record)
    const m = /:(streamGenerateContent|generateContent|countTokens)$/.exec(path)
    if (req.method !== "POST" || !m) {
      res.writeHead(404, { "content-type": "application/json" })
      return res.end(JSON.stringify({ error: { code: 404, message: `mock Gemini: no route ${req.method} ${path}`, status: "NOT_FOUND" } }))
    }
    if (m[1] === "countTokens") {
      res.writeHead(200, { "content-type": "application/json" })
      return res.end(JSON.stringify({ totalTokens: 10 }))
    }
    const agentTurn = declarations(json).length > 0
    let t = agentTurn ? turns[turn++] ?? { text: "No more scripted turns." } : { text: "Mock side answer." }
    if (typeof t === "function") t = t(record)
    const parts = []
    if (t.text !== undefined) parts.push({ text: t.text })
    if (t.call) parts.push({ functionCall: { name: t.call.name, args: t.call.args } })
    const answer = {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: "mock",
    }
    if (m[1] === "generateContent") {
      res.writeHead(200, { "content-type": "application/json" })
      return res.end(JSON.stringify(answer))
    }
    res.writeHead(200, { "content-type": "text/event-stream" })
    res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`)
  })
  const port = await listenLoopback(server)
  return {
    port,
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    get turnRequests() {
      return requests.filter((r) => declarations(r.json).length > 0)
    },
    declarations,
    functionResponses() {
      const out = []
      const seen = new Set()
      for (const r of requests)
        for (const c of r.json?.contents ?? [])
          for (const p of c.parts ?? [])
            if (p.functionResponse) {
              const k = p.functionResponse.id ?? JSON.stringify(p.functionResponse)
              if (!seen.has(k)) {
                seen.add(k)
                out.push(p.functionResponse)
              }
            }
      return out
    },
    close() {
      return closeServer(server)
    },
  }
}
