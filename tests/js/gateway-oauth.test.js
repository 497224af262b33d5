// The TypeScript SDK's client signs in to the team gateway with its OAuth provider: the
// gateway runs with --oidc-issuer pointing at a real OpenID provider (internal/oidctest, the
// zitadel/oidc op package, approving at once), and the client finds it through the
// gateway's protected-resource metadata, runs the authorization code flow with PKCE, and
// calls both tools with the token. The same flow as the Go SDK's in internal/gateway/oidc_test.go.
import { after, before, test } from "node:test"
import assert from "node:assert/strict"
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"

import { startMockDeepSeek } from "./lib/mock-deepseek.js"
import { startGateway } from "./lib/gateway.js"

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const KEY = "sk-oauthjs0123456789abcdefXYZ"
const T = { timeout: 120_000 }

// Built when the file loads, not in a hook (Bun gives a hook 5 s).
const dir = mkdtempSync(join(tmpdir(), "dwr-oauth-js-"))
const bin = join(dir, "deepseek-web-retrieval")
const idpBin = join(dir, "oidc-provider")
execFileSync("go", ["build", "-o", bin, "./cmd/deepseek-web-retrieval"], { cwd: REPO, stdio: ["ignore", "inherit", "inherit"] })
execFileSync("go", ["build", "-o", idpBin, "./internal/oidctest/cmd/oidc-provider"], { cwd: REPO, stdio: ["ignore", "inherit", "inherit"] })

let ds, idp, gw, issuer, clientID, redirect, endpoint

/** A free port on 127.0.0.1 (the gateway's audience names it before the gateway runs). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.on("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

/** Starts the provider for audience; resolves with what it printed. */
function startProvider(audience) {
  const child = spawn(idpBin, ["-audience", audience, "alice@example.com"], { stdio: ["pipe", "pipe", "inherit"] })
  let out = ""
  child.stdout.setEncoding("utf8")
  return new Promise((resolve, reject) => {
    child.on("error", reject)
    child.on("exit", (code) => reject(new Error(`oidc-provider exited ${code}: ${out}`)))
    child.stdout.on("data", (d) => {
      out += d
      const m = /^issuer (\S+)\nclient (\S+)\nredirect (\S+)\n/.exec(out)
      if (m) resolve({ child, issuer: m[1], client: m[2], redirect: m[3] })
    })
  })
}

before(async () => {
  ds = await startMockDeepSeek({ apiKey: KEY })
  const port = await freePort()
  endpoint = `http://127.0.0.1:${port}/mcp`
  idp = await startProvider(endpoint)
  ;({ issuer, client: clientID, redirect } = idp)
  gw = await startGateway({
    bin,
    args: ["--listen", `127.0.0.1:${port}`, "--oidc-issuer", issuer, "--audience", endpoint, "--base-url", ds.baseURL, "--audit", "-"],
    env: { ...process.env, DEEPSEEK_API_KEY: KEY, XDG_CACHE_HOME: join(dir, "cache") },
  })
})

after(async () => {
  await gw?.stop()
  idp?.child.stdin.end()
  idp?.child.kill()
  await ds?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The SDK's OAuthClientProvider for a client the provider has registered beforehand. */
class Provider {
  constructor() {
    this.saved = undefined
    this.verifier = undefined
    this.authorizationURL = undefined
  }
  get redirectUrl() {
    return redirect
  }
  get clientMetadata() {
    return { client_name: "ts-sdk-test", redirect_uris: [redirect], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }
  }
  clientInformation() {
    return { client_id: clientID }
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url) {
    this.authorizationURL = url
  }
  saveCodeVerifier(v) {
    this.verifier = v
  }
  codeVerifier() {
    return this.verifier
  }
}

/** Follows the authorization URL through the provider's approval to the redirect: the code. */
async function approve(url) {
  for (let i = 0; i < 10; i++) {
    const res = await fetch(url, { redirect: "manual" })
    const location = res.headers.get("location")
    assert.ok(location, `the sign-in stopped at HTTP ${res.status} without a redirect`)
    url = new URL(location, url)
    if (url.href.startsWith(redirect)) return url.searchParams.get("code")
  }
  throw new Error("too many redirects")
}

test("the TypeScript SDK's client signs in through the gateway's metadata and calls both tools", T, async () => {
  const provider = new Provider()
  const first = new Client({ name: "ts-oauth", version: "1" })
  await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider })), UnauthorizedError)
  assert.ok(provider.authorizationURL, "the client was sent to sign in")
  assert.equal(provider.authorizationURL.origin, issuer, "at the provider the gateway's metadata names")
  assert.equal(provider.authorizationURL.searchParams.get("code_challenge_method"), "S256")
  assert.equal(provider.authorizationURL.searchParams.get("resource"), endpoint, "for this gateway (RFC 8707)")

  const transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider })
  await transport.finishAuth(await approve(provider.authorizationURL))
  assert.ok(provider.saved?.access_token, "a token")
  const client = new Client({ name: "ts-oauth", version: "1" })
  await client.connect(transport)
  const { tools } = await client.listTools()
  assert.deepEqual(tools.map((t) => t.name).sort(), ["deepseek_fetch", "deepseek_search"])
  for (const [name, args] of [["deepseek_search", { query: "go" }], ["deepseek_fetch", { url: "https://go.dev/doc/effective_go" }]]) {
    const res = await client.callTool({ name, arguments: args })
    assert.notEqual(res.isError, true, JSON.stringify(res))
  }
  await client.close()
  const audit = await gw.waitAudit((l) => l.member === "alice@example.com", 2)
  assert.equal(audit.length, 2, gw.stdout())
  assert.ok(!gw.stderr().includes(provider.saved.access_token), "the token is in no log line")
})
