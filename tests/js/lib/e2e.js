// Helpers for the end-to-end tests that run the real OpenCode with this repository's plugin
// (e2e-plugin.test.js, e2e-install.test.js).
import { randomBytes } from "node:crypto"
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
export const REPO = resolve(here, "..", "..", "..")
export const PLUGIN_DIR = join(REPO, "plugin")

/**
 * The files a user installs, by the rule of plugin.Installable in plugin/embed.go: top-level
 * package.json, README.md, LICENSE, core.wasm and *.js (no dot files, no Go sources, no tests).
 */
export function installable(name) {
  if (name.includes("/") || name.startsWith(".")) return false
  if (["package.json", "README.md", "LICENSE", "core.wasm"].includes(name)) return true
  return name.endsWith(".js")
}

export function installableFiles() {
  return readdirSync(PLUGIN_DIR, { withFileTypes: true })
    .filter((e) => e.isFile() && installable(e.name))
    .map((e) => e.name)
    .sort()
}

/** Copies exactly the installable plugin files into a fresh directory and returns it. */
export function stagePlugin() {
  const dir = join(mkdtempSync(join(tmpdir(), "dwr-plugin-")), "deepseek-web-retrieval")
  mkdirSync(dir)
  for (const f of installableFiles()) copyFileSync(join(PLUGIN_DIR, f), join(dir, f))
  return dir
}

/** A random key in DeepSeek's shape, unique per test run. */
export function randomKey() {
  return "sk-" + randomBytes(16).toString("hex")
}

/** Every regular file under dir (recursive), as absolute paths. */
export function walk(dir) {
  const out = []
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return out
  }
  for (const e of entries) {
    const p = join(dir, e.name)
    if (e.isDirectory()) out.push(...walk(p))
    else if (e.isFile()) out.push(p)
  }
  return out
}

/** Files under dir whose bytes contain needle (relative paths). */
export function filesContaining(dir, needle) {
  const n = Buffer.from(needle)
  return walk(dir)
    .filter((p) => statSync(p).size < 256 * 1024 * 1024 && readFileSync(p).includes(n))
    .map((p) => relative(dir, p))
}

/** Parses JSONC (comments and trailing commas), the way OpenCode reads its config files. */
export function parseJSONC(text) {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"') {
      let j = i + 1
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1
      out += text.slice(i, j + 1)
      i = j
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++
      out += "\n"
    } else if (c === "/" && text[i + 1] === "*") {
      i = text.indexOf("*/", i + 2) + 1
      if (i === 0) throw new SyntaxError("unterminated comment")
      out += " "
    } else {
      out += c
    }
  }
  // Drop trailing commas: a comma followed only by whitespace before ] or }.
  return JSON.parse(out.replace(/,(\s*[\]}])/g, "$1"))
}
