package install

import (
	"encoding/json"
	"fmt"
	"strings"
)

// OptionFlags returns the options as command-line flags: the two tiers
// (defaults filled in), then every other set option as its kebab-case
// flag, in SPEC order. It is the MCP server's command line after "mcp",
// and the flags init takes for the same options.
func OptionFlags(o Options) []string {
	if o.Search == "" {
		o.Search = "preferred"
	}
	if o.Fetch == "" {
		o.Fetch = "optional"
	}
	var args []string
	raw, _ := json.Marshal(o)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	for _, name := range optionNames {
		v, ok := m[name]
		if !ok {
			continue
		}
		flag := FlagName(name)
		switch x := v.(type) {
		case bool:
			args = append(args, fmt.Sprintf("%s=%t", flag, x))
		case []any:
			parts := make([]string, len(x))
			for i, e := range x {
				parts[i] = fmt.Sprint(e)
			}
			args = append(args, flag, strings.Join(parts, ","))
		case float64:
			args = append(args, flag, strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%f", x), "0"), "."))
		default:
			args = append(args, flag, fmt.Sprint(x))
		}
	}
	return args
}

// FlagName returns the flag of the option named name (SPEC §5):
// "maxResults" is "--max-results", "baseURL" "--base-url".
func FlagName(name string) string {
	var b strings.Builder
	b.WriteString("--")
	prevUpper := false
	for _, r := range name {
		upper := r >= 'A' && r <= 'Z'
		if upper {
			if !prevUpper {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		prevUpper = upper
		b.WriteRune(r)
	}
	return b.String()
}

// InitCommand is the shell command `deepseek-web-retrieval init --host
// HOST [--scope project --dir PROJECT] ARGS --yes`, quoted for a POSIX
// shell; an empty project means the global scope.
func InitCommand(host, project string, args []string) string {
	parts := []string{Name, "init", "--host", host}
	if project != "" {
		parts = append(parts, "--scope", "project", "--dir", project)
	}
	parts = append(append(parts, args...), "--yes")
	for i, p := range parts {
		parts[i] = ShellQuote(p)
	}
	return strings.Join(parts, " ")
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@+%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
