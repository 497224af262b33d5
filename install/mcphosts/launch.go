package mcphosts

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Launch is how a host would start an entry's server: the command, its
// arguments and the whole environment the server gets, each worked out the
// way that host reads its config.
type Launch struct {
	// Command is the program as the host would run it (after its variable
	// expansion); Args follow it.
	Command string
	Args    []string
	// Env is the server's environment, KEY=VALUE, sorted.
	Env []string
	// Dir is the working directory: the entry's cwd, else the host's own
	// (the project directory, or doctor's for the global scope).
	Dir string
	// Notes are what the launch could not reproduce (an env value Pi gets
	// by running a command, which doctor does not run).
	Notes []string
}

// lookup returns a variable of the server's environment.
func (l Launch) lookup(name string) (string, bool) {
	for _, kv := range l.Env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v, true
		}
	}
	return "", false
}

// codexDefaultEnv is the whitelist Codex passes every stdio MCP server on
// Unix (openai/codex codex-rs/rmcp-client/src/utils.rs DEFAULT_ENV_VARS):
// these from its own environment, then the entry's env_vars from it, then
// the entry's env as literal values (no expansion anywhere).
var codexDefaultEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "__CF_USER_TEXT_ENCODING", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"}

// geminiAlwaysAllowed, geminiNeverAllowed and geminiSecretName are Gemini
// CLI 0.61.0's environment sanitization (packages/core/src/services/
// environmentSanitization.ts), always on for stdio MCP servers: an
// inherited variable whose name looks like a secret is dropped, so the key
// reaches the server only through the entry's env.
// (Go's regexp has no repeat count above 1,000: {1,1024} is + here.)
var (
	geminiAlwaysAllowed = []string{"PATH", "SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR", "TEMP", "TMP", "USERPROFILE", "SYSTEMDRIVE", "HOME", "LANG", "SHELL", "TMPDIR", "USER", "LOGNAME", "TERM", "COLORTERM",
		"ADDITIONAL_CONTEXT", "AVAILABLE_LABELS", "BRANCH_NAME", "DESCRIPTION", "EVENT_NAME", "GITHUB_ENV", "IS_PULL_REQUEST", "ISSUES_TO_TRIAGE", "ISSUE_BODY", "ISSUE_NUMBER", "ISSUE_TITLE", "PULL_REQUEST_NUMBER", "REPOSITORY", "TITLE", "TRIGGERING_ACTOR"}
	geminiNeverAllowed = []string{"CLIENT_ID", "DB_URI", "CONNECTION_STRING", "AWS_DEFAULT_REGION", "AZURE_CLIENT_ID", "AZURE_TENANT_ID", "SLACK_WEBHOOK_URL", "TWILIO_ACCOUNT_SID", "DATABASE_URL", "GOOGLE_CLOUD_PROJECT"}
	geminiSecretName   = regexp.MustCompile(`(?i)TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIAL|CREDS|PRIVATE|CERT`)
	geminiSecretValue  = regexp.MustCompile(`(?i)-----BEGIN (RSA|OPENSSH|EC|PGP) PRIVATE KEY-----|-----BEGIN CERTIFICATE-----|(https?|ftp|smtp)://[^:\s]+:[^@\s]+@|(ghp|gho|ghu|ghs|ghr|github_pat)_[a-zA-Z0-9_]{36,}|AIzaSy[a-zA-Z0-9_\\-]{33}|AKIA[A-Z0-9]{16}|eyJ[a-zA-Z0-9_-]*\.[a-zA-Z0-9_-]*\.[a-zA-Z0-9_-]*|(s|r)k_(live|test)_[0-9a-zA-Z]{24}|xox[abpr]-[a-zA-Z0-9-]+`)
)

// The hosts' variable syntaxes.
var (
	// Claude Code 2.1.328: ${VAR} and ${VAR:-default} in command, args
	// and env; an unset ${VAR} without a default stays as written.
	claudeVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}`)
	// Gemini CLI 0.61.0 resolveEnvVarsInString, applied to the whole
	// settings file when it is loaded: $VAR, ${VAR}, ${VAR:-default}; an
	// unset one without a default stays as written.
	geminiVar = regexp.MustCompile(`\$(?:(\w+)|\{([^}]+?)(:-[^}]*)?\})`)
	// pi-mcp-adapter utils.ts interpolateEnvVars: ${VAR}, $env:VAR and
	// {env:VAR}; unset is "".
	piVar = regexp.MustCompile(`\$\{(\w+)\}|\$env:(\w+)|\{env:(\w+)\}`)
	// Cursor (docs.cursor.com/context/mcp): ${env:NAME}; unset taken as "".
	cursorVar = regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)
)

// expand replaces each match of re in s with what value returns for it.
func expand(re *regexp.Regexp, s string, value func(m []string) string) string {
	return re.ReplaceAllStringFunc(s, func(match string) string { return value(re.FindStringSubmatch(match)) })
}

func claudeExpand(s string, env map[string]string) string {
	return expand(claudeVar, s, func(m []string) string {
		if v, ok := env[m[1]]; ok {
			return v
		}
		if m[2] != "" {
			return m[2][2:]
		}
		return m[0]
	})
}

func geminiExpand(s string, env map[string]string, unset func(m []string) string) string {
	return expand(geminiVar, s, func(m []string) string {
		name := m[1] + m[2]
		if v, ok := env[name]; ok {
			return v
		}
		if m[3] != "" {
			return m[3][2:]
		}
		return unset(m)
	})
}

func piExpand(s string, env map[string]string) string {
	return expand(piVar, s, func(m []string) string { return env[m[1]+m[2]+m[3]] })
}

func cursorExpand(s string, env map[string]string) string {
	return expand(cursorVar, s, func(m []string) string { return env[m[1]] })
}

// geminiSanitize is the inherited environment Gemini CLI passes a stdio
// MCP server (redaction on, no allow or block list configured).
func geminiSanitize(env map[string]string) map[string]string {
	out := map[string]string{}
	strict := env["GITHUB_SHA"] != "" || env["SURFACE"] == "Github"
	for k, v := range env {
		up := strings.ToUpper(k)
		drop := false
		switch {
		case strings.HasPrefix(up, "GEMINI_CLI_"):
		case geminiSecretValue.MatchString(v):
			drop = true
		case strings.HasPrefix(up, "GIT_CONFIG_"), slices.Contains(geminiAlwaysAllowed, up):
		case slices.Contains(geminiNeverAllowed, up), strict, geminiSecretName.MatchString(up):
			drop = true
		}
		if !drop {
			out[k] = v
		}
	}
	return out
}

// hostLaunch works out how host h starts entry (the plain JSON or TOML
// value of our server's entry), run from an environment parent (the one
// doctor runs in, standing for the one the host is started from) in the
// directory dir. Each host's rules are cited beside it.
func hostLaunch(h Host, entry map[string]any, parent map[string]string, dir string) (Launch, error) {
	command, _ := entry["command"].(string)
	if command == "" {
		return Launch{}, fmt.Errorf("the entry has no command (not a stdio server)")
	}
	args := stringList(entry["args"])
	envCfg := map[string]string{}
	if m, ok := entry["env"].(map[string]any); ok {
		for k, v := range m {
			if s, ok := v.(string); ok {
				envCfg[k] = s
			}
		}
	}
	l := Launch{Dir: dir}
	if cwd, ok := entry["cwd"].(string); ok && cwd != "" && h != Claude && h != Cursor {
		l.Dir = cwd
	}
	env := map[string]string{}
	switch h {
	case Codex:
		// codex-rs/rmcp-client/src/utils.rs create_env_for_mcp_server.
		for _, k := range append(slices.Clone(codexDefaultEnv), stringList(entry["env_vars"])...) {
			if v, ok := parent[k]; ok {
				env[k] = v
			}
		}
		maps.Copy(env, envCfg)
	case Claude:
		// The whole environment, CLAUDECODE=1, then the expanded env.
		maps.Copy(env, parent)
		env["CLAUDECODE"] = "1"
		command = claudeExpand(command, parent)
		for i := range args {
			args[i] = claudeExpand(args[i], parent)
		}
		for k, v := range envCfg {
			env[k] = claudeExpand(v, parent)
		}
	case Gemini:
		// packages/core/src/tools/mcp-client.ts: GEMINI_CLI=1, the
		// sanitized environment, then each env value (already expanded
		// when settings.json was loaded) expanded again by dotenv-expand
		// against the sanitized environment, where unset is "".
		load := func(s string) string { return geminiExpand(s, parent, func(m []string) string { return m[0] }) }
		safe := geminiSanitize(parent)
		env["GEMINI_CLI"] = "1"
		maps.Copy(env, safe)
		command = load(command)
		for i := range args {
			args[i] = load(args[i])
		}
		for k, v := range envCfg {
			env[k] = geminiExpand(load(v), safe, func([]string) string { return "" })
		}
	case Pi:
		// pi-mcp-adapter server-manager.ts: the command as written, args
		// interpolated, the environment inherited unless inheritEnv is
		// false, env values interpolated ("!cmd" runs a command; "!!"
		// escapes the "!"), or taken as written with literalEnv.
		if entry["inheritEnv"] != false {
			maps.Copy(env, parent)
		}
		for i := range args {
			args[i] = piExpand(args[i], parent)
		}
		for k, v := range envCfg {
			switch {
			case entry["literalEnv"] == true:
			case strings.HasPrefix(v, "!!"):
				v = piExpand(v[1:], parent)
			case strings.HasPrefix(v, "!"):
				l.Notes = append(l.Notes, fmt.Sprintf("env %s is the output of a command Pi runs (%q); doctor does not run it and leaves %s unset", k, "!…", k))
				continue
			default:
				v = piExpand(v, parent)
			}
			env[k] = v
		}
	case Cursor:
		// Cursor is not run here: the whole environment and ${env:NAME}
		// in command, args and env, as its docs describe.
		maps.Copy(env, parent)
		command = cursorExpand(command, parent)
		for i := range args {
			args[i] = cursorExpand(args[i], parent)
		}
		for k, v := range envCfg {
			env[k] = cursorExpand(v, parent)
		}
	default:
		return Launch{}, fmt.Errorf("unknown MCP host %q", h)
	}
	l.Command, l.Args = command, args
	for k, v := range env {
		l.Env = append(l.Env, k+"="+v)
	}
	sort.Strings(l.Env)
	return l, nil
}

// stringList returns the strings of a plain array (Codex's env_vars may
// also hold { name = "…" } tables).
func stringList(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		switch x := e.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			if s, ok := x["name"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// EnvMap turns KEY=VALUE pairs (os.Environ) into a map; a later pair wins.
func EnvMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[k] = v
		}
	}
	return m
}
