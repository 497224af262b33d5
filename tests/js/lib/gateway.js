// The team gateway (`deepseek-web-retrieval serve`) as a child process, for the tests that
// drive it with real clients (gateway-client.test.js here, tests/hosts/gateway.test.js):
//
//   const token = addToken(bin, tokensFile, "alice", env)       // what `serve token add` printed
//   const gw = await startGateway({ bin, args: ["--tokens", tokensFile, "--base-url", ds.baseURL], env })
//   gw.url                  "http://127.0.0.1:<port>/mcp" (the address serve chose, from stderr)
//   gw.stderr()             everything it wrote to stderr so far
//   gw.audit()              its audit lines (stdout, `--audit -`), parsed
//   await gw.waitAudit(pred, n)  the audit lines matching pred once there are n of them: a
//                           line reaches this process through a pipe, the answer through a
//                           socket, so it may arrive after the answer (after 10 s: the
//                           lines there are, for the caller's assertion to show)
//   await gw.stop()         SIGTERM, then { code, signal } once it has exited (SIGKILL after 10 s)
//
// The process listens on 127.0.0.1:0. Stop it in an after hook (node:test and bun test run
// those whatever happened to the tests). Under Node it is also killed when the test process
// exits, and it never keeps that process alive (bun test 1.3.14 emits no "exit" event).
import { execFileSync, spawn } from "node:child_process"

const running = new Set()
process.on("exit", () => {
  for (const child of running) {
    try {
      child.kill("SIGKILL")
    } catch {}
  }
})

/** Runs `serve token add NAME --tokens FILE` and returns the token it printed on stdout. */
export function addToken(bin, file, name, env) {
  const out = execFileSync(bin, ["serve", "token", "add", name, "--tokens", file], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
  const token = out.trim()
  if (!/^\S{20,}$/.test(token)) throw new Error(`serve token add printed ${JSON.stringify(out)}, not one token`)
  return token
}

/** Runs `serve token revoke NAME --tokens FILE`. */
export function revokeToken(bin, file, name, env) {
  execFileSync(bin, ["serve", "token", "revoke", name, "--tokens", file], { env, stdio: ["ignore", "pipe", "pipe"] })
}

/**
 * Starts `bin serve --listen 127.0.0.1:0 ...args` with env and resolves once it prints the
 * address it serves; rejects with its stderr if it exits first or prints none in 30 s.
 */
export function startGateway({ bin, args = [], env }) {
  const child = spawn(bin, ["serve", "--listen", "127.0.0.1:0", ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
  running.add(child)
  child.unref()
  child.stdout.unref?.()
  child.stderr.unref?.()
  let stdout = ""
  let stderr = ""
  child.stdout.setEncoding("utf8")
  child.stderr.setEncoding("utf8")
  child.stdout.on("data", (d) => (stdout += d))
  const exited = new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      running.delete(child)
      resolve({ code, signal })
    })
  })
  return new Promise((resolve, reject) => {
    let settled = false
    const timer = setTimeout(() => fail(new Error(`serve printed no address in 30 s; stderr:\n${stderr}`)), 30_000)
    const fail = (err) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.kill("SIGKILL")
      reject(err)
    }
    child.on("error", fail)
    exited.then(({ code, signal }) => fail(new Error(`serve exited (${code ?? signal}) before serving; stderr:\n${stderr}`)))
    child.stderr.on("data", (d) => {
      stderr += d
      const m = /at (http:\/\/127\.0\.0\.1:(\d+)\/mcp) /.exec(stderr)
      if (!m || settled) return
      settled = true
      clearTimeout(timer)
      child.stderr.removeAllListeners("data")
      child.stderr.on("data", (d) => (stderr += d))
      resolve({
        url: m[1],
        port: Number(m[2]),
        pid: child.pid,
        stderr: () => stderr,
        stdout: () => stdout,
        audit: () =>
          stdout
            .split("\n")
            .filter((l) => l !== "")
            .map((l) => JSON.parse(l)),
        async waitAudit(pred, n, timeoutMs = 10_000) {
          const deadline = Date.now() + timeoutMs
          for (;;) {
            const lines = this.audit().filter(pred)
            if (lines.length >= n || Date.now() > deadline) return lines
            await new Promise((r) => setTimeout(r, 20))
          }
        },
        exited,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
          const kill = setTimeout(() => child.kill("SIGKILL"), 10_000)
          const r = await exited
          clearTimeout(kill)
          return r
        },
      })
    })
  })
}
