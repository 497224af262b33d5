// What every loopback mock server of the tests shares (mock-deepseek.js here, and the mock
// model APIs of tests/hosts/lib): reading a request into a record, listening on a free port,
// closing.

/**
 * Reads req's body and returns its record: { method, path, url, headers, body, json, time },
 * json undefined unless the body is JSON.
 */
export async function readRequest(req) {
  const chunks = []
  for await (const c of req) chunks.push(c)
  const body = Buffer.concat(chunks).toString("utf8")
  let json
  try {
    json = body ? JSON.parse(body) : undefined
  } catch {
    json = undefined
  }
  const path = new URL(req.url, "http://x").pathname
  return { method: req.method, path, url: req.url, headers: { ...req.headers }, body, json, time: Date.now() }
}

/** Listens on a free port of 127.0.0.1 and returns it. */
export async function listenLoopback(server) {
  await new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", resolve)
  })
  return server.address().port
}

/** Closes server, dropping its open connections. */
export function closeServer(server) {
  server.closeAllConnections?.()
  return new Promise((resolve) => server.close(() => resolve()))
}
