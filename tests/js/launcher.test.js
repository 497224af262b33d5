// The npm launcher (npm/launcher/launcher.js) in node_modules layouts built by hand in a temporary
// directory: its package as `make dist` writes it (bin/deepseek-web-retrieval.js and a
// package.json with the platform table), and fake platform packages whose "binary" is a shell
// script printing which package it is. The launcher runs only the platform package of its own
// install (nested in its node_modules, or next to it: npm's hoisting, npx, pnpm's store) of its
// own version; a package found anywhere else Node would look (a parent node_modules, NODE_PATH,
// ~/.node_modules) is not run.
import assert from "node:assert/strict"
import { spawnSync } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { after, describe, test } from "node:test"
import { fileURLToPath } from "node:url"

const REPO = fileURLToPath(new URL("../../", import.meta.url))
const NAMES = JSON.parse(readFileSync(join(REPO, "npm", "packages.json"), "utf8"))
const LAUNCHER = NAMES.launcher
const VERSION = "1.2.3"
const KEY = `${process.platform}-${process.arch}`
const TABLE = Object.fromEntries(NAMES.platforms.map((p) => [`${p.os}-${p.cpu}`, p.package]))
const PKG = TABLE[KEY]
const OTHER = Object.entries(TABLE).find(([k]) => k !== KEY)
const ENV = "DEEPSEEK_WEB_RETRIEVAL_BINARY"
// The fake binaries are shell scripts; the launcher's table must name this platform.
const skip = process.platform === "win32" ? "the fake binaries are shell scripts" : !PKG && `no package for ${KEY}`

// Real path: the launcher names its packages by theirs.
const root = realpathSync(mkdtempSync(join(tmpdir(), "dwr-launcher-")))
after(() => rmSync(root, { recursive: true, force: true }))
let n = 0

/** The launcher package in node_modules dir nm, as make dist packs it; its bin script's path. */
function launcherAt(nm, version = VERSION) {
  const dir = join(nm, LAUNCHER)
  mkdirSync(join(dir, "bin"), { recursive: true })
  writeFileSync(join(dir, "package.json"), JSON.stringify({
    name: LAUNCHER, version, type: "module", bin: { [LAUNCHER]: `bin/${LAUNCHER}.js` },
    optionalDependencies: Object.fromEntries(Object.values(TABLE).map((p) => [p, version])),
    deepseekWebRetrieval: { platforms: TABLE },
  }))
  const js = join(dir, "bin", `${LAUNCHER}.js`)
  copyFileSync(join(REPO, "npm", "launcher", "launcher.js"), js)
  return js
}

/**
 * Platform package pkg in node_modules dir nm: its binary prints id and its arguments, copies a
 * line of stdin to stdout, writes to stderr and exits 7.
 */
function platformAt(nm, { pkg = PKG, version = VERSION, id }) {
  const dir = join(nm, ...pkg.split("/"))
  mkdirSync(join(dir, "bin"), { recursive: true })
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: pkg, version, os: [process.platform], cpu: [process.arch] }))
  const exe = join(dir, "bin", "deepseek-web-retrieval")
  writeFileSync(exe, `#!/bin/sh\nprintf '%s' ${id}; printf ' [%s]' "$@"; echo\nread line; echo "stdin: $line"\necho "${id} to stderr" >&2\nexit 7\n`)
  chmodSync(exe, 0o755)
  return dir
}

/** A fresh scratch directory with a home of its own. */
function scratch() {
  const dir = join(root, String(n++))
  mkdirSync(join(dir, "home"), { recursive: true })
  return dir
}

/** Runs the launcher script js with args; only PATH and HOME (and extra) in its environment. */
function launch(js, home, extra = {}, args = ["a b", "c"]) {
  const r = spawnSync(process.execPath, [js, ...args], {
    env: { PATH: process.env.PATH, HOME: home, ...extra },
    input: "hello\n",
    encoding: "utf8",
    timeout: 60000,
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const ran = (id) => ({ code: 7, stdout: `${id} [a b] [c]\nstdin: hello\n`, stderr: `${id} to stderr\n` })

const missing = {
  code: 1,
  stdout: "",
  stderr: `deepseek-web-retrieval: the package ${PKG}, which holds the binary for ${KEY}, is not installed.
npm leaves it out when optional dependencies are omitted (--omit=optional, --no-optional, optional=false in .npmrc).
Reinstall with optional dependencies on this machine (npm install ${LAUNCHER}@${VERSION}), or set ${ENV} to a deepseek-web-retrieval binary.
`,
}

describe("the npm launcher", { skip }, () => {
  // (a) Without its own platform package, a copy that Node's resolution would find elsewhere,
  // even of the same version, is not run: the launcher says its package is missing.
  const decoys = [
    {
      name: "a parent directory's node_modules",
      place: (dir) => {
        platformAt(join(dir, "node_modules"), { id: "decoy" })
        return {}
      },
    },
    {
      name: "NODE_PATH",
      place: (dir) => {
        platformAt(join(dir, "path"), { id: "decoy" })
        return { NODE_PATH: join(dir, "path") }
      },
    },
    {
      name: "~/.node_modules",
      place: (dir) => {
        platformAt(join(dir, "home", ".node_modules"), { id: "decoy" })
        return {}
      },
    },
    {
      name: "~/.node_libraries",
      place: (dir) => {
        platformAt(join(dir, "home", ".node_libraries"), { id: "decoy" })
        return {}
      },
    },
  ]
  for (const d of decoys) {
    test(`a platform package in ${d.name} is not run`, () => {
      const dir = scratch()
      const js = launcherAt(join(dir, "project", "node_modules"))
      const env = d.place(dir)
      assert.deepEqual(launch(js, join(dir, "home"), env), missing)
      // The explicit override still runs what it names.
      const other = platformAt(join(dir, "elsewhere"), { id: "override" })
      assert.deepEqual(launch(js, join(dir, "home"), { ...env, [ENV]: join(other, "bin", "deepseek-web-retrieval") }), ran("override"))
    })
  }

  // (b) A platform package of another version than the launcher's is refused.
  const mismatches = [
    { name: "nested", nm: (dir) => join(dir, "node_modules", LAUNCHER, "node_modules") },
    { name: "hoisted", nm: (dir) => join(dir, "node_modules") },
  ]
  for (const m of mismatches) {
    test(`a ${m.name} platform package of another version is refused`, () => {
      const dir = scratch()
      const js = launcherAt(join(dir, "node_modules"))
      const pkgDir = platformAt(m.nm(dir), { version: "1.2.2", id: "stale" })
      assert.deepEqual(launch(js, join(dir, "home")), {
        code: 1,
        stdout: "",
        stderr: `deepseek-web-retrieval: the package ${PKG} in ${pkgDir} is version 1.2.2, and this launcher (${LAUNCHER}) is version ${VERSION}: they must match.
Reinstall so the two match (npm install ${LAUNCHER}@${VERSION}), or set ${ENV} to a deepseek-web-retrieval binary.
`,
      })
    })
  }

  // (c) The layouts npm, npx and pnpm produce run the right binary, passing arguments, stdin,
  // stdout, stderr and the exit code through.
  const layouts = [
    {
      // npm i -g: the optional dependency inside the launcher's own node_modules.
      name: "nested (npm i -g)",
      build: (dir) => {
        const nm = join(dir, "lib", "node_modules")
        platformAt(join(nm, LAUNCHER, "node_modules"), { id: "nested" })
        platformAt(nm, { version: "0.0.1", id: "hoisted-other" })
        return { js: launcherAt(nm), id: "nested" }
      },
    },
    {
      // npm i and npx: hoisted next to the launcher.
      name: "hoisted (npm i, npx)",
      build: (dir) => {
        const nm = join(dir, "_npx", "0123abcd", "node_modules")
        platformAt(nm, { id: "hoisted" })
        platformAt(join(dir, "node_modules"), { id: "decoy" })
        return { js: launcherAt(nm), id: "hoisted" }
      },
    },
    {
      // pnpm: node_modules/<name> links into the store, where each package's dependencies are
      // links next to it; the launcher runs from its real path.
      name: "pnpm's store",
      build: (dir) => {
        const store = join(dir, "node_modules", ".pnpm")
        const own = join(store, `${LAUNCHER}@${VERSION}`, "node_modules")
        const real = platformAt(join(store, `${PKG.replace("/", "+")}@${VERSION}`, "node_modules"), { id: "pnpm" })
        mkdirSync(join(own, dirname(PKG)), { recursive: true })
        symlinkSync(real, join(own, PKG))
        launcherAt(own)
        symlinkSync(join(own, LAUNCHER), join(dir, "node_modules", LAUNCHER))
        platformAt(join(store, "node_modules"), { id: "decoy" })
        return { js: join(dir, "node_modules", LAUNCHER, "bin", `${LAUNCHER}.js`), id: "pnpm" }
      },
    },
  ]
  for (const l of layouts) {
    test(`${l.name}: the launcher runs its own platform package`, () => {
      const dir = scratch()
      const { js, id } = l.build(dir)
      assert.deepEqual(launch(js, join(dir, "home"), { NODE_PATH: join(dir, "node_modules") }), ran(id))
    })
  }

  test("a node_modules installed for another platform says so", () => {
    const dir = scratch()
    const nm = join(dir, "node_modules")
    const js = launcherAt(nm)
    platformAt(nm, { pkg: OTHER[1], id: "foreign" })
    platformAt(join(dir, "home", ".node_modules"), { id: "decoy" })
    const r = launch(js, join(dir, "home"))
    assert.equal(r.code, 1)
    assert.equal(r.stdout, "")
    assert.equal(r.stderr, `deepseek-web-retrieval: the package ${PKG}, which holds the binary for ${KEY}, is not installed.
node_modules holds the binary for ${OTHER[0]} instead: it was installed on another OS or CPU and copied here.
Reinstall with optional dependencies on this machine (npm install ${LAUNCHER}@${VERSION}), or set ${ENV} to a deepseek-web-retrieval binary.
`)
  })
})
