package opencode

import (
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// messagesQueryProperty is the schema of deepseek_search's query on the
// Messages backend: plain words, no operators.
const messagesQueryProperty = `{"type":"string","description":"What to search for."}`

// messagesSearchDescription is deepseek_search's description on the
// Messages backend: the same tool, described for what that backend returns
// (cited passages, no quality marker, no query operators).
func messagesSearchDescription(cfg *core.Config, builtin string) string {
	var b strings.Builder
	b.WriteString("Search the web with DeepSeek's native web search (one DeepSeek model turn that runs up to " + strconv.Itoa(cfg.Messages.MaxUses) + " searches). Returns up to " + strconv.Itoa(cfg.MaxResults) + " results, each with its title, URL, the publication date when known, and the passages DeepSeek cited from it (a result nobody cited has no passage). ")
	b.WriteString("Write the query in plain words, at most 128 characters. ")
	b.WriteString("Read a result in full with " + FetchTool + ".")
	if cfg.Search == core.TierPreferred || cfg.Search == core.TierForced {
		b.WriteString(" Prefer this tool over " + builtin + " for searching the web.")
	}
	return b.String()
}
