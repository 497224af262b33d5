// The harness part of a scratch ~/.codex/config.toml: the mock model on loopback and every
// Codex feature that would reach a public host switched off. Tests add the user's own lines
// around it; init adds the server entry.

import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/** The harness TOML for a mock Responses server at llm.baseURL. */
export function codexHarnessConfig(llm) {
  return `# Harness: the mock model on loopback, nothing that reaches a public host.
model = "mock-model"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = "${llm.baseURL}"
wire_api = "responses"
env_key = "MOCK_MODEL_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"
trace_exporter = "none"
metrics_exporter = "none"

[features]
plugins = false
apps = false
`
}

/** Writes the harness config to the sandbox's ~/.codex/config.toml. */
export function writeCodexHarness(sb, llm) {
  mkdirSync(join(sb.home, ".codex"), { recursive: true })
  writeFileSync(join(sb.home, ".codex", "config.toml"), codexHarnessConfig(llm))
}
