package mcphosts

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

var webSearchWord = regexp.MustCompile(`(?i)(web[-_ ]?search|\b(tavily|exa|brave|perplexity|firecrawl|serper|serpapi|searxng|kagi|jina|fetch)\b)`)

// conflictWarnings reports another web-search MCP server in the host's
// server map, and literal credentials in any of the host's files (named by
// where they are, never shown).
func conflictWarnings(r *resolved, ts []target, cfgs []parsed) []string {
	var warns []string
	for i, t := range ts {
		cfg := cfgs[i]
		if t.server {
			servers, _ := lookup(cfg.plain, t.serverPath[:len(t.serverPath)-1]...).(map[string]any)
			var names []string
			for name, v := range servers {
				if name == install.Name {
					continue
				}
				text := name + " " + fmt.Sprint(lookup(v, "command")) + " " + fmt.Sprint(lookup(v, "args")) + " " + fmt.Sprint(lookup(v, "url"))
				if webSearchWord.MatchString(text) {
					names = append(names, name)
				}
			}
			sort.Strings(names)
			for _, n := range names {
				warns = append(warns, fmt.Sprintf("another web-search or fetch MCP server is configured in %s: %q; the model may use it instead of deepseek_search / deepseek_fetch", r.rel(t.path), n))
			}
		}
		if len(install.Secrets(t.path, cfg.data)) > 0 {
			warns = append(warns, fmt.Sprintf("%s holds literal credentials (masked in this plan, never copied into the install record); consider moving them into environment variables", r.rel(t.path)))
		}
	}
	return warns
}

// existingCommand returns the program the server's entry already starts,
// read through the host's own entry form (Kilo's command list, Cline's
// transport).
func existingCommand(r *resolved, ts []target, cfgs []parsed) (string, bool) {
	m, ok := lookup(cfgs[0].plain, ts[0].serverPath...).(map[string]any)
	if !ok {
		return "", false
	}
	s, ok := flatEntry(r.Host, m)["command"].(string)
	return s, ok
}

// binaryWarnings reports a server entry whose command no longer exists
// (the binary was moved or deleted) and a binary in a place that is not
// meant to last.
func binaryWarnings(r *resolved, ts []target, cfgs []parsed) []string {
	var warns []string
	old, ok := existingCommand(r, ts, cfgs)
	if r.Remote != nil {
		if ok {
			warns = append(warns, fmt.Sprintf("the existing entry starts %s; init points it at the gateway %s instead", old, r.Remote.URL))
		}
		return warns
	}
	if ok && old != r.Binary {
		if _, err := os.Stat(old); err != nil {
			warns = append(warns, fmt.Sprintf("the existing entry starts %s, which no longer exists (moved or deleted); init points it at %s", old, r.Binary))
		} else {
			warns = append(warns, fmt.Sprintf("the existing entry starts %s; init points it at %s", old, r.Binary))
		}
	}
	if strings.Contains(r.Binary, string(os.PathSeparator)+"go-build") || strings.HasPrefix(r.Binary, os.TempDir()+string(os.PathSeparator)) {
		warns = append(warns, fmt.Sprintf("the host will start %s, a temporary build; run `make install` (it installs to ~/.local/bin) and init from there", r.Binary))
	}
	return warns
}
