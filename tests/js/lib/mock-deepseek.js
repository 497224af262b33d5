// A loopback HTTP server playing DeepSeek's Search & Fetch API (SPEC §1), scriptable per test.
//
//   const ds = await startMockDeepSeek({ apiKey: "sk-test" })
//   ds.baseURL                       "http://127.0.0.1:<port>" (use as the `baseURL` option)
//   ds.enqueue("search", { json: { results: [...] } })        // next search answer
//   ds.enqueue("fetch", { status: 404, json: { error: { message: "not found" } } })
//   ds.enqueue("search", { status: 429, headers: { "retry-after": "1" }, body: "slow down" })
//   ds.enqueue("fetch", { delayMs: 5000, json: {...} })       // answer late (headers too)
//   ds.enqueue("fetch", { slowBody: { chunks: 10, intervalMs: 200 }, json: {...} })  // trickle
//   ds.enqueue("fetch", { hugeBytes: 50 * 1024 * 1024 })      // a body of that many bytes
//   ds.enqueue("search", { destroy: true })                   // drop the connection
//   ds.enqueue("search", (req) => ({ json: ... }))            // computed from the request
//   ds.requests                      every request: { method, path, headers, body, json, time }
//   ds.searchRequests / ds.fetchRequests
//   await ds.close()
//
// A request without `Authorization: Bearer <apiKey>` gets 401 {"error":{"message":...}} and
// consumes no queued answer (set apiKey: null to accept any). When a queue is empty the server
// answers with `defaultSearch()` / `defaultFetch(url)` below. Unknown paths → 404.
// Answers are queued per endpoint; `enqueue(endpoint, a, b, c)` queues several at once.
import http from "node:http"
import { listenLoopback, readRequest } from "./loopback.js"

export function defaultSearch() {
  return {
    results: [
      {
        url: "https://go.dev/doc/effective_go",
        title: "Effective Go",
        snippet: "Tips for writing clear, idiomatic Go code.",
        summary: "Effective Go gives tips for writing clear, idiomatic Go code.",
        content: "",
        rerank_score: 2.4,
        authority: 4,
        date: "2024-01-15T00:00:00Z",
        site_name: "go.dev",
        site_icon: "",
      },
      {
        url: "https://example.com/go-tips",
        title: "Go tips",
        snippet: "Some Go tips.",
        summary: null,
        rerank_score: 1.1,
        authority: -1,
        date: null,
        site_name: null,
      },
    ],
  }
}

// DEFAULT_SEARCH_TEXT is what SPEC §6 makes of defaultSearch() with the default options: the
// text the model gets from deepseek_search (the MCP server's, the gateway's and the CLI's).
export const DEFAULT_SEARCH_TEXT = [
  "1. Effective Go",
  "https://go.dev/doc/effective_go",
  "[rerank 2.4 · authority 4 · go.dev] · published 2024-01-15",
  "Effective Go gives tips for writing clear, idiomatic Go code.",
  "",
  "2. Go tips",
  "https://example.com/go-tips",
  "[rerank 1.1 · authority unknown]",
  "Some Go tips.",
].join("\n")

export function defaultFetch(url) {
  return { title: "Example page", content: `# Example page\n\nFetched from ${url}.\n` }
}

// Every listener below is removed once it has done its job: a slow body sleeps once per chunk
// and a huge body waits for "drain" once per block, so listeners that stayed behind would pile
// up on one response (Node's MaxListenersExceededWarning at 11).
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(t)
      signal?.removeEventListener("abort", done)
      resolve()
    }
    const t = setTimeout(done, ms)
    signal?.addEventListener("abort", done)
  })

/** Resolves when res can take more data or has closed. */
const drainedOrClosed = (res) =>
  new Promise((resolve) => {
    const done = () => {
      res.off("drain", done)
      res.off("close", done)
      resolve()
    }
    res.on("drain", done)
    res.on("close", done)
  })

export async function startMockDeepSeek(options = {}) {
  const apiKey = options.apiKey === undefined ? "sk-test" : options.apiKey
  const queues = { search: [], fetch: [] }
  const requests = []
  const sockets = new Set()

  const server = http.createServer(async (req, res) => {
    const record = await readRequest(req)
    const { path, json } = record
    requests.push(record)

    const endpoint = path === "/v1/tools/search" ? "search" : path === "/v1/tools/fetch" ? "fetch" : null
    if (!endpoint || req.method !== "POST") {
      return send(res, { status: 404, json: { error: { message: `mock DeepSeek: no route ${req.method} ${path}` } } })
    }
    if (apiKey !== null && req.headers.authorization !== `Bearer ${apiKey}`) {
      return send(res, { status: 401, json: { error: { message: "Authentication Fails (mock: bad or missing API key)" } } })
    }
    let answer = queues[endpoint].shift()
    if (typeof answer === "function") answer = await answer(record)
    if (!answer) answer = { json: endpoint === "search" ? defaultSearch() : defaultFetch(json?.url) }
    return send(res, answer)
  })

  // Abort pending delays when the client goes away or the server closes: one controller per
  // response in progress, aborted by either (no listener on a signal that outlives a response).
  const inProgress = new Set()

  async function send(res, a) {
    const gone = new AbortController()
    inProgress.add(gone)
    res.on("close", () => {
      inProgress.delete(gone)
      gone.abort()
    })
    const signal = gone.signal
    if (a.delayMs) await sleep(a.delayMs, signal)
    if (signal.aborted) return
    if (a.destroy) {
      res.socket?.destroy()
      return
    }
    const status = a.status ?? 200
    const headers = { ...(a.headers ?? {}) }
    let payload
    if (a.hugeBytes !== undefined) {
      payload = null
    } else if (a.body !== undefined) {
      payload = Buffer.from(typeof a.body === "string" ? a.body : a.body)
    } else {
      payload = Buffer.from(JSON.stringify(a.json ?? {}))
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json"
    }
    if (a.hugeBytes !== undefined) {
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json"
      if (a.contentLength !== false) headers["content-length"] = String(a.hugeBytes)
      res.writeHead(status, headers)
      const block = Buffer.alloc(64 * 1024, 0x61) // "aaaa..."
      let left = a.hugeBytes
      while (left > 0 && !signal.aborted) {
        const n = Math.min(left, block.length)
        const ok = res.write(n === block.length ? block : block.subarray(0, n))
        left -= n
        if (!ok) await drainedOrClosed(res)
      }
      if (!signal.aborted) res.end()
      return
    }
    if (a.slowBody) {
      const parts = Math.max(1, a.slowBody.chunks ?? 10)
      const interval = a.slowBody.intervalMs ?? 100
      res.writeHead(status, headers) // chunked: no content-length
      const size = Math.ceil(payload.length / parts)
      for (let i = 0; i < payload.length && !signal.aborted; i += size) {
        res.write(payload.subarray(i, i + size))
        if (i + size < payload.length) await sleep(interval, signal)
      }
      if (!signal.aborted) res.end()
      return
    }
    headers["content-length"] = String(payload.length)
    res.writeHead(status, headers)
    res.end(payload)
  }

  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  const port = await listenLoopback(server)

  return {
    port,
    baseURL: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    get searchRequests() {
      return requests.filter((r) => r.path === "/v1/tools/search")
    },
    get fetchRequests() {
      return requests.filter((r) => r.path === "/v1/tools/fetch")
    },
    enqueue(endpoint, ...answers) {
      if (!queues[endpoint]) throw new Error(`mock DeepSeek: unknown endpoint ${endpoint}`)
      queues[endpoint].push(...answers)
    },
    pending(endpoint) {
      return queues[endpoint].length
    },
    reset() {
      queues.search.length = 0
      queues.fetch.length = 0
      requests.length = 0
    },
    close() {
      for (const c of inProgress) c.abort()
      for (const s of sockets) s.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
