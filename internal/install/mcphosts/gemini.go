package mcphosts

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The Gemini CLI adapter. Each fact is taken from the host's own source or
// documentation; the real-host tests prove them against the installed host.
//
// google-gemini/gemini-cli docs/cli/configuration.md: settings in
// ~/.gemini/settings.json and the project's .gemini/settings.json (project
// overrides user); string values expand $VAR and ${VAR};
// mcpServers.<name> with command, args, env, timeout, includeTools;
// tools.exclude ("names of tools to exclude from discovery") removes
// built-in tools by name (google_web_search, web_fetch). packages/core/src/services/
// environmentSanitization.ts strips inherited variables whose names match
// /KEY/i, /TOKEN/i, … when redaction is on, so the key is passed explicitly
// in env. The policy engine splits tool names on "_" to find the server,
// so the server name has none.

func init() {
	adapters[Gemini] = adapter{label: `Gemini CLI (mcpServers in settings.json)`, targets: geminiTargets, traps: geminiTraps, detect: geminiDetect, launch: geminiLaunch, remote: true, urlKey: "httpUrl"}
}

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

// geminiVar is the variable syntax of Gemini CLI 0.61.0
// resolveEnvVarsInString, applied to the whole settings file when it is
// loaded: $VAR, ${VAR}, ${VAR:-default}; an unset one without a default
// stays as written.
var geminiVar = regexp.MustCompile(`\$(?:(\w+)|\{([^}]+?)(:-[^}]*)?\})`)

func geminiTargets(r *resolved) []target {
	path := r.home(".gemini", "settings.json")
	if !r.global() {
		path = r.project(".gemini", "settings.json")
	}
	entry := ordered("command", r.Binary, "args", r.args, "env", map[string]string{r.key: "$" + r.key})
	if r.Remote != nil {
		// docs/tools/mcp-server.md: httpUrl is the streamable HTTP endpoint
		// (url is SSE), headers are sent with every request.
		entry = ordered("httpUrl", r.Remote.URL, "headers", map[string]string{"Authorization": "Bearer ${" + r.Remote.TokenEnv + "}"})
	}
	t := target{path: path, server: true, serverPath: []string{"mcpServers", install.Name}, entry: entry}
	var ex []string
	if r.searchForced() {
		ex = append(ex, "google_web_search")
	}
	if r.fetchForced() {
		ex = append(ex, "web_fetch")
	}
	if len(ex) > 0 {
		t.adds = []addEdit{{Path: []string{"tools", "exclude"}, Items: ex}}
	}
	return []target{t}
}

func geminiTraps(r *resolved, p *install.Plan, cfgs []parsed) {
	if r.Remote != nil {
		p.Notes = append(p.Notes, "the entry sends the token as \"Authorization: Bearer ${"+r.Remote.TokenEnv+"}\", which Gemini CLI expands when it loads settings.json")
	} else {
		p.Notes = append(p.Notes, "Gemini CLI can strip inherited variables named like secrets from MCP servers, so the entry passes "+r.key+" explicitly (\"$"+r.key+"\")")
	}
	if r.searchForced() || r.fetchForced() {
		p.Notes = append(p.Notes, "forced tiers add Gemini's google_web_search / web_fetch to tools.exclude")
	}
	// Seen in tests/hosts (shapes.test.js): Gemini CLI 0.61.0 reads
	// settings.json with JSON.parse after stripping comments, and a byte
	// order mark makes it refuse the file ("Unexpected token").
	if mark, _ := install.SplitBOM(cfgs[0].data); len(mark) > 0 {
		p.Warnings = append(p.Warnings, r.rel(geminiTargets(r)[0].path)+" starts with a byte order mark, which Gemini CLI refuses (\"Unexpected token '\ufeff'\"): init keeps it, as it keeps every byte it does not own; remove it, or Gemini will not start")
	}
	if v := lookup(cfgs[0].plain, "excludeTools"); v != nil && (r.searchForced() || r.fetchForced()) {
		p.Warnings = append(p.Warnings, "this settings.json uses the old top-level excludeTools; current Gemini CLI reads tools.exclude, where init writes")
	}
	if inc, ok := lookup(cfgs[0].plain, "mcp", "allowed").([]any); ok {
		found := false
		for _, s := range inc {
			found = found || s == install.Name
		}
		if !found {
			p.Warnings = append(p.Warnings, "settings.json limits MCP servers with mcp.allowed, which does not list "+install.Name+": Gemini will not start it")
		}
	}
}

func geminiDetect(env install.Env) bool {
	_, ok := env.Find("gemini")
	return ok || exists(filepath.Join(env.Home, ".gemini"))
}

// geminiLaunch works out how Gemini CLI starts our server (see hostLaunch).
func geminiLaunch(c *launching) {
	// packages/core/src/tools/mcp-client.ts: GEMINI_CLI=1, the
	// sanitized environment, then each env value (already expanded
	// when settings.json was loaded) expanded again by dotenv-expand
	// against the sanitized environment, where unset is "".
	load := func(s string) string { return geminiExpand(s, c.parent, func(m []string) string { return m[0] }) }
	safe := geminiSanitize(c.parent)
	c.env["GEMINI_CLI"] = "1"
	maps.Copy(c.env, safe)
	c.command = load(c.command)
	for i := range c.args {
		c.args[i] = load(c.args[i])
	}
	for k, v := range c.envCfg {
		c.env[k] = geminiExpand(load(v), safe, func([]string) string { return "" })
	}
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

// geminiTrust returns a warning when Gemini CLI would not start stdio MCP
// servers in dir: with folder trust on (security.folderTrust.enabled,
// default true) it disables them in a folder trustedFolders.json does not
// trust (packages/cli/src/config/trustedFolders.ts: the longest matching
// rule wins, TRUST_PARENT trusts the rule's parent,
// GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder). Seen in 0.61.0:
// `gemini mcp list` then shows our server as "Disabled".
func geminiTrust(rs *resolved, dir string, parent map[string]string) string {
	if parent["GEMINI_CLI_TRUST_WORKSPACE"] == "true" || dir == "" {
		return ""
	}
	if data, _, ok, err := install.ReadConfig(filepath.Join(rs.Env.Home, ".gemini", "settings.json")); err == nil && ok {
		if v, err := install.Normalize(data); err == nil && lookup(v, "security", "folderTrust", "enabled") == false {
			return ""
		}
	}
	file := parent["GEMINI_CLI_TRUSTED_FOLDERS_PATH"]
	if file == "" {
		file = filepath.Join(rs.Env.Home, ".gemini", "trustedFolders.json")
	}
	rules := map[string]string{}
	if data, _, ok, err := install.ReadConfig(file); err == nil && ok {
		if body, err := install.Normalize(data); err == nil {
			raw, _ := json.Marshal(body)
			_ = json.Unmarshal(raw, &rules)
		}
	}
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	loc, best, level := real(dir), -1, ""
	for rule, lv := range rules {
		eff := rule
		if lv == "TRUST_PARENT" {
			eff = filepath.Dir(rule)
		}
		if rel, err := filepath.Rel(real(eff), loc); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && len(rule) > best {
			best, level = len(rule), lv
		}
	}
	if level == "TRUST_FOLDER" || level == "TRUST_PARENT" {
		return ""
	}
	state := "is not trusted"
	if level == "DO_NOT_TRUST" {
		state = "is marked DO_NOT_TRUST"
	}
	return fmt.Sprintf("Gemini CLI starts stdio MCP servers only in trusted folders, and %s %s in %s: run gemini there and trust the folder when it asks (`gemini mcp list` shows the server as Disabled until then)", dir, state, file)
}
