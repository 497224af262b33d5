#!/usr/bin/env node
// The deepseek-web-retrieval launcher (npm package "deepseek-web-retrieval",
// bin "deepseek-web-retrieval"). It runs the static binary of this platform,
// which npm installs as one of the package's optional dependencies (the
// os/cpu fields of each pick one), passing the arguments, stdio, exit code
// and signals through. DEEPSEEK_WEB_RETRIEVAL_BINARY names another binary to
// run instead. No dependencies, no install scripts.
//
// The platform package is looked for only in this launcher's own install, and
// must be of the launcher's version: nested in its node_modules (npm i -g), or
// next to it in the node_modules that holds it (npm i, npx, and pnpm's and
// Bun's stores, where the launcher's real path is inside the store). Not with
// require.resolve: that also searches every parent node_modules, NODE_PATH,
// ~/.node_modules and ~/.node_libraries, and would run whatever it found there.
import { spawn } from "node:child_process"
import { existsSync, readFileSync, realpathSync } from "node:fs"
import { createRequire } from "node:module"
import { constants } from "node:os"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const ENV = "DEEPSEEK_WEB_RETRIEVAL_BINARY"
const root = realpathSync(fileURLToPath(new URL("..", import.meta.url)))
const meta = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))

function fail(msg) {
  process.stderr.write(`deepseek-web-retrieval: ${msg}\n`)
  process.exit(1)
}

// ownPackage is the directory of pkg in this launcher's install, or "".
function ownPackage(pkg) {
  // Yarn's Plug'n'Play has no node_modules; its resolution knows only the
  // launcher's own dependencies, from the project's lockfile.
  if (process.versions.pnp) {
    try {
      return dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`))
    } catch {
      return ""
    }
  }
  const dirs = [join(root, "node_modules", pkg)]
  if (basename(dirname(root)) === "node_modules") dirs.push(join(dirname(root), pkg))
  return dirs.find((d) => existsSync(join(d, "package.json"))) ?? ""
}

// versionOf is the version in dir's package.json, or "unknown".
function versionOf(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version ?? "unknown"
  } catch {
    return "unknown"
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
  const dir = ownPackage(pkg)
  const version = dir && versionOf(dir)
  if (dir && version !== meta.version) {
    fail(`the package ${pkg} in ${dir} is version ${version}, and this launcher (${meta.name}) is version ${meta.version}: they must match.\n` +
      `Reinstall so the two match (npm install ${meta.name}@${meta.version}), or set ${ENV} to a deepseek-web-retrieval binary.`)
  }
  if (dir && existsSync(join(dir, "bin", exe))) return join(dir, "bin", exe)
  const others = Object.entries(table).filter(([k, p]) => k !== key && ownPackage(p)).map(([k]) => k)
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
