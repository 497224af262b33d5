// `deepseek-web-retrieval init` / `uninstall` on a scratch HOME, as a user runs them, and the
// byte-for-byte comparison of the files they touch.
import assert from "node:assert/strict"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { BIN_DIR, dwrBinary, runAgent, walk } from "./sandbox.js"

/** Runs the binary with HOME at the sandbox and the agents on PATH (so init detects them). */
export function dwr(sb, args) {
  return runAgent(dwrBinary(), args, { cwd: sb.project, env: sb.env({ PATH: `${BIN_DIR}:${process.env.PATH}` }), timeoutMs: 60000 })
}

/**
 * init --yes for one host; asserts success and returns the run. flags: extra init flags
 * (tiers, --base-url).
 */
export async function initHost(sb, host, scope, flags) {
  const r = await dwr(sb, ["init", "--host", host, "--scope", scope, ...(scope === "project" ? ["--dir", sb.project] : []), ...flags, "--yes"])
  assert.equal(r.code, 0, `init --host ${host}: ${r.stdout}\n${r.stderr}`)
  return r
}

export async function uninstallHost(sb, host, scope) {
  const r = await dwr(sb, ["uninstall", "--host", host, "--scope", scope, ...(scope === "project" ? ["--dir", sb.project] : []), "--yes"])
  assert.equal(r.code, 0, `uninstall --host ${host}: ${r.stdout}\n${r.stderr}`)
  return r
}

/** The bytes of each of these files (null when absent), relative to root. */
export function readFiles(root, paths) {
  const out = {}
  for (const p of paths) out[p] = existsSync(join(root, p)) ? readFileSync(join(root, p)) : null
  return out
}

/**
 * Asserts each file is byte-identical to its snapshot (or still absent), and that init's
 * install records are gone.
 */
export function assertRestored(root, before, stateDir) {
  const now = readFiles(root, Object.keys(before))
  for (const [p, bytes] of Object.entries(before)) {
    if (bytes === null) assert.equal(now[p], null, `${p} should be gone after uninstall`)
    else assert.ok(now[p] !== null && bytes.equals(now[p]), `${p} differs after uninstall:\n--- before\n${bytes}\n--- after\n${now[p]}`)
  }
  assert.deepEqual(walk(join(stateDir, "installs")), [], "install records left behind")
}
