// plugin/log.js — where the plugin's messages go on each host.
//
// OpenCode 1.x hands plugins an SDK client whose app.log() writes to OpenCode's own log file.
// OpenCode 2.x hands a Promise plugin no client and no log function (its context is built in
// packages/plugin/src/promise/adapter.ts, `fromPromise`), and a plugin's stderr is either lost
// or drawn over the TUI. So on 2.x the plugin appends its lines to a file of its own beside
// OpenCode's log files: $XDG_DATA_HOME/opencode/log/deepseek-web-retrieval.log (by default
// ~/.local/share/opencode/log/, OpenCode's Global.Path.log in packages/util/src/global.ts).
// Messages come from the Go core, which masks the key before any text leaves it.

import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"

export const ID = "deepseek-web-retrieval"

/** Past this size the file is moved to <name>.old and a new one started. */
export const LOG_MAX_BYTES = 1 << 20

/** The 2.x log file, read from the environment at every call. */
export function logFile(env = process.env) {
  const data = env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share")
  return join(data, "opencode", "log", `${ID}.log`)
}

/**
 * OpenCode 1.x: client.app.log into OpenCode's log file (1.18.33 writes `level=WARN ...
 * message="..."` and drops the service name, so the message carries our prefix); errors also
 * on stderr.
 */
export function clientLogger(client) {
  return (level, message) => {
    const app = client?.app
    if (typeof app?.log === "function") {
      Promise.resolve(app.log({ body: { service: ID, level, message: `[${ID}] ${message}` } })).catch(() => {})
      if (level !== "error") return
    }
    if (level === "debug") return
    console.error(`[${ID}] ${message}`)
  }
}

/** OpenCode 2.x: one line per message in logFile(); stderr only when the file cannot be written. */
export function fileLogger() {
  return (level, message) => {
    if (level === "debug") return
    const line = `${new Date().toISOString()} ${level.toUpperCase()} [${ID}] ${message}\n`
    const file = logFile()
    try {
      mkdirSync(join(file, ".."), { recursive: true })
      try {
        if (statSync(file).size > LOG_MAX_BYTES) renameSync(file, `${file}.old`)
      } catch {
        // no file yet
      }
      appendFileSync(file, line)
    } catch {
      console.error(line.trimEnd())
    }
  }
}
