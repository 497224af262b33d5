#!/usr/bin/env node
// The deepseek-web-retrieval launcher (npm package "deepseek-web-retrieval",
// bin "deepseek-web-retrieval"). It runs the static binary of this platform,
// which npm installs as one of the package's optional dependencies (the
// os/cpu fields of each pick one), passing the arguments, stdio, exit code
// and signals through. DEEPSEEK_WEB_RETRIEVAL_BINARY names another binary to
// run instead. No dependencies, no install scripts.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { constants } from "node:os"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

const require = createRequire(import.meta.url)
const ENV = "DEEPSEEK_WEB_RETRIEVAL_BINARY"
const meta = require("../package.json")

function fail(msg) {
  process.stderr.write(`deepseek-web-retrieval: ${msg}\n`)
  process.exit(1)
}

// resolvePackage is the directory of pkg, or "" when it is not installed.
function resolvePackage(pkg) {
  try {
    return dirname(require.resolve(`${pkg}/package.json`))
  } catch {
    return ""
  }
}

function binary() {
  if (process.env[ENV]) return process.env[ENV]
  const table = meta.deepseekWebRetrieval?.platforms ?? {}
  const key = `${process.platform}-${process.arch}`
  const pkg = table[key]
  if (!pkg) {
    fail(`no binary is published for ${key} (there are: ${Object.keys(table).join(", ")}).\n` +
      `Build one from source (https://github.com/deepseek-web-retrieval/deepseek-web-retrieval: CGO_ENABLED=0 go install ./cmd/deepseek-web-retrieval) and set ${ENV} to its path.`)
  }
  const exe = process.platform === "win32" ? "deepseek-web-retrieval.exe" : "deepseek-web-retrieval"
  const dir = resolvePackage(pkg)
  if (dir && existsSync(join(dir, "bin", exe))) return join(dir, "bin", exe)
  const others = Object.entries(table).filter(([k, p]) => k !== key && resolvePackage(p)).map(([k]) => k)
  const why = others.length
    ? `node_modules holds the binary for ${others.join(", ")} instead: it was installed on another OS or CPU and copied here.`
    : `npm leaves it out when optional dependencies are omitted (--omit=optional, --no-optional, optional=false in .npmrc).`
  fail(`the package ${pkg}, which holds the binary for ${key}, is ${dir ? "incomplete" : "not installed"}.\n${why}\n` +
    `Reinstall with optional dependencies on this machine (npm install ${meta.name}@${meta.version}), ` +
    `or set ${ENV} to a deepseek-web-retrieval binary.`)
}

const exe = binary()
const child = spawn(exe, process.argv.slice(2), { stdio: "inherit" })
const signals = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]
const forward = (sig) => {
  try {
    child.kill(sig)
  } catch {
    // the child has gone already
  }
}
for (const sig of signals) process.on(sig, forward)
child.on("error", (err) => fail(`cannot run ${exe}: ${err.message}`))
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so our parent sees what the binary's would.
    for (const sig of signals) process.off(sig, forward)
    process.kill(process.pid, signal)
    setImmediate(() => process.exit(128 + (constants.signals[signal] ?? 0)))
    return
  }
  process.exit(code ?? 1)
})
