package mcphosts

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	shared "github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

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
	if data, _, ok, err := shared.ReadFile(filepath.Join(rs.Env.Home, ".gemini", "settings.json")); err == nil && ok {
		if v, err := shared.Normalize(data); err == nil && lookup(v, "security", "folderTrust", "enabled") == false {
			return ""
		}
	}
	file := parent["GEMINI_CLI_TRUSTED_FOLDERS_PATH"]
	if file == "" {
		file = filepath.Join(rs.Env.Home, ".gemini", "trustedFolders.json")
	}
	rules := map[string]string{}
	if data, _, ok, err := shared.ReadFile(file); err == nil && ok {
		if body, err := shared.Normalize(data); err == nil {
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
