package opencodehost

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// webSearchWords name web-search services; a plugin whose name has one of
// these as a word is taken for a second web-search plugin.
var webSearchWords = []string{"websearch", "tavily", "exa", "brave", "perplexity", "firecrawl", "serper", "serpapi", "searxng", "kagi", "jina"}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

func isWebSearchName(name string) bool {
	n := strings.ToLower(name)
	if strings.Contains(n, "web-search") || strings.Contains(n, "web_search") || strings.Contains(n, "websearch") {
		return true
	}
	for _, w := range nonWord.Split(n, -1) {
		for _, x := range webSearchWords {
			if w == x {
				return true
			}
		}
	}
	return false
}

// configWarnings reports what in the config would surprise a user of the
// plugin. It never prints an API key.
func configWarnings(c *install.JSONC, h Host, o install.Options) []string {
	var warns []string
	add := func(format string, a ...any) { warns = append(warns, fmt.Sprintf(format, a...)) }
	for _, key := range []string{"plugins", "plugin"} {
		mi := c.Member(key)
		if mi < 0 {
			continue
		}
		arr, ok := c.Obj.Members[mi].Value.Value.(*hujson.Array)
		if !ok {
			continue
		}
		for _, e := range entries(arr) {
			lower := strings.ToLower(e.name)
			deepseek := strings.Contains(lower, "deepseek")
			switch {
			case isOurPath(e.name) && key != h.Key():
				add("%q also lists %s (the %s key): the plugin could load twice; remove that entry", key, packagePath, otherHostLabel(key))
			case isOurPath(e.name):
			case strings.HasPrefix(e.name, "-") && deepseek:
				add("%q holds %q, which disables a plugin of that name", key, e.name)
			case baseName(e.name) == pluginName:
				add("deepseek-web-retrieval is also configured from %q in %q: with this install it would load twice; remove one of them", e.name, key)
			case deepseek:
				add("another DeepSeek plugin is configured in %q: %q; it may register DeepSeek tools beside this one", key, e.name)
			case isWebSearchName(e.name) && o.Search != "off":
				add("a second web-search plugin is configured in %q: %q; with search=%s the two compete for web search", key, e.name, o.Search)
			}
			if deepseek {
				if opts, ok := e.options.(map[string]any); ok {
					if k, ok := opts["apiKey"]; ok {
						if s, isStr := k.(string); !isStr || !core.IsEnvReference(s) {
							add("the %q entry sets a literal apiKey in the config (not shown); move the key into the %s environment variable and delete the apiKey option", e.name, o.APIKeyVar())
						}
					}
				}
			}
		}
	}
	if h != HostV2 || o.Search == "off" {
		return warns
	}
	strong := o.Search == "preferred" || o.Search == "forced"
	switch ws := c.Value("websearch").(type) {
	case bool:
		if !ws {
			add(`"websearch": false turns OpenCode's web search off, so the DeepSeek provider (search=%s) will not be used`, o.Search)
		}
	case map[string]any:
		for _, k := range []string{"provider", "default"} {
			if p, ok := ws[k].(string); ok && p != "deepseek" && strong {
				add(`"websearch": {%q: %q} selects another web-search provider, which defeats search=%s`, k, p, o.Search)
			}
		}
	}
	if tools, ok := c.Value("tools").(map[string]any); ok {
		if v, ok := tools["websearch"].(bool); ok && !v {
			add(`"tools": {"websearch": false} turns the websearch tool off, so the DeepSeek provider (search=%s) will not be used`, o.Search)
		}
	}
	switch perm := c.Value("permission").(type) {
	case map[string]any:
		if v, _ := perm["websearch"].(string); v == "deny" {
			add(`"permission": {"websearch": "deny"} blocks web search, so the DeepSeek provider (search=%s) will not be used`, o.Search)
		}
	}
	return warns
}

func otherHostLabel(key string) string {
	if key == "plugin" {
		return "OpenCode 1.x"
	}
	return "OpenCode 2.x"
}

// baseName returns the last path element of a plugin name, without an npm
// version suffix.
func baseName(name string) string {
	n := strings.TrimRight(name, "/")
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	if i := strings.LastIndexByte(n, '@'); i > 0 {
		n = n[:i]
	}
	return n
}

// dirWarnings reports a copy of the plugin in an auto-loaded directory.
func dirWarnings(dir string) []string {
	var warns []string
	for _, sub := range []string{"plugin", "plugins"} {
		ents, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if strings.Contains(strings.ToLower(e.Name()), "deepseek") {
				warns = append(warns, fmt.Sprintf("%s/%s is auto-loaded by OpenCode from %s/: with the entry init writes, the plugin would load twice; remove it", sub, e.Name(), sub))
			}
		}
	}
	return warns
}

// shapeWarnings reports a config shape that does not match the OpenCode
// found on PATH (found is its version, empty when none was read), and a
// config that already uses the other generation's key.
func shapeWarnings(c *install.JSONC, h Host, found string) []string {
	var warns []string
	if found != "" {
		major1 := strings.HasPrefix(found, "1.")
		switch {
		case major1 && h == HostV2:
			warns = append(warns, fmt.Sprintf(`the opencode on PATH is %s (1.x), which reads only the "plugin" key; this install writes the 2.x "plugins" key, which that OpenCode ignores: use --host opencode1 (or --host auto)`, found))
		case !major1 && h == HostV1:
			warns = append(warns, fmt.Sprintf(`the opencode on PATH is %s, which reads the 2.x "plugins" key; this install writes the 1.x "plugin" key: use --host opencode (or --host auto)`, found))
		}
	}
	other := HostV1
	if h == HostV1 {
		other = HostV2
	}
	if arr, ok := c.LookupPlain(other.Key()).([]any); ok && len(arr) > 0 && c.Member(h.Key()) < 0 {
		warns = append(warns, fmt.Sprintf("this config lists plugins under %q, the key of %s; this install writes %s", other.Key(), other.label(), h.label()))
	}
	return warns
}

// configShape reports which OpenCode generation the config an install
// would edit is written for: the recorded host of an existing install,
// else the one whose plugin key ("plugin" for 1.x, "plugins" for 2.x) the
// config already has. ok is false when neither or both keys are there.
func configShape(env install.Env, scope install.Scope, dir string) (h Host, ok bool) {
	d, err := configDir(env, scope, dir)
	if err != nil {
		return "", false
	}
	if rec, _, err := readRecord(d); err == nil && rec != nil {
		return Host(rec.Host), true
	}
	name, _ := pickConfig(d, nil)
	data, _, exists, err := install.ReadConfig(filepath.Join(d, name))
	if err != nil || !exists {
		return "", false
	}
	_, body := install.SplitBOM(data)
	c, err := install.ParseJSONC(body)
	if err != nil {
		return "", false
	}
	v1, v2 := c.Member("plugin") >= 0, c.Member("plugins") >= 0
	switch {
	case v1 && !v2:
		return HostV1, true
	case v2 && !v1:
		return HostV2, true
	}
	return "", false
}
