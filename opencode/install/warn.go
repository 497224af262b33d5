package install

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/tailscale/hujson"
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
func configWarnings(c *config, h Host, o Options) []string {
	var warns []string
	add := func(format string, a ...any) { warns = append(warns, fmt.Sprintf(format, a...)) }
	for _, key := range []string{"plugins", "plugin"} {
		mi := c.member(key)
		if mi < 0 {
			continue
		}
		arr, ok := c.obj.Members[mi].Value.Value.(*hujson.Array)
		if !ok {
			continue
		}
		for _, e := range entries(arr) {
			lower := strings.ToLower(e.name)
			deepseek := strings.Contains(lower, "deepseek")
			switch {
			case isOurPath(e.name) && key != h.key():
				add("%q also lists %s (the %s key): the plugin could load twice; remove that entry", key, PackagePath, otherHostLabel(key))
			case isOurPath(e.name):
			case strings.HasPrefix(e.name, "-") && deepseek:
				add("%q holds %q, which disables a plugin of that name", key, e.name)
			case baseName(e.name) == Name:
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
	if h != HostOpenCode || o.Search == "off" {
		return warns
	}
	strong := o.Search == "preferred" || o.Search == "forced"
	switch ws := c.value("websearch").(type) {
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
	if tools, ok := c.value("tools").(map[string]any); ok {
		if v, ok := tools["websearch"].(bool); ok && !v {
			add(`"tools": {"websearch": false} turns the websearch tool off, so the DeepSeek provider (search=%s) will not be used`, o.Search)
		}
	}
	switch perm := c.value("permission").(type) {
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
