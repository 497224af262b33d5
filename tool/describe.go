package tool

import (
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// Property schemas of the tools' inputs. A host adapter builds its input
// schema from them when its shape differs from [SearchSchema] and
// [FetchSchema].
const (
	URLProperty    = `{"type":"string","description":"The absolute http:// or https:// URL of the page to fetch."}`
	FormatProperty = `{"type":"string","enum":["markdown"],"description":"Output format. Only \"markdown\" is available; leave it out."}`
	// QueryProperty is the query of the Search API backend; see
	// [SearchQueryProperty] for the one that fits the configured backend.
	QueryProperty = `{"type":"string","description":"What to search for, with optional operators."}`
	// QueriesProperty and URLsProperty are the several-at-once forms of
	// query and url, for the hosts that run a batch (the MCP server).
	QueriesProperty = `{"type":"array","items":{"type":"string"},"maxItems":4,"description":"Or up to 4 queries at once; results merged."}`
	URLsProperty    = `{"type":"array","items":{"type":"string"},"maxItems":5,"description":"Or up to 5 URLs at once."}`
	// OffsetProperty is deepseek_fetch's offset: where to start reading.
	OffsetProperty = `{"type":"integer","minimum":0,"description":"Where to start reading, in characters into the page: 0 (the default) for the start, or the offset named by the last line of the previous part to read on."}`
)

// messagesQueryProperty is the schema of deepseek_search's query on the
// Messages backend: plain words, no operators.
const messagesQueryProperty = `{"type":"string","description":"What to search for."}`

// FetchSchema is the JSON Schema of deepseek_fetch's input object (its keys
// sorted, as json.Marshal wrote it from a map).
func FetchSchema() jsonlite.Raw {
	return jsonlite.Raw(`{"additionalProperties":false,"properties":{"format":` + FormatProperty + `,"offset":` + OffsetProperty + `,"url":` + URLProperty + `},"required":["url"],"type":"object"}`)
}

// SearchSchema is the JSON Schema of deepseek_search's input object for the
// configured backend (its keys sorted, as json.Marshal wrote it from a map).
func SearchSchema(cfg *core.Config) jsonlite.Raw {
	return jsonlite.Raw(`{"additionalProperties":false,"properties":{"query":` + SearchQueryProperty(cfg) + `},"required":["query"],"type":"object"}`)
}

// SearchQueryProperty is the schema of deepseek_search's query for the
// configured backend (the Messages backend takes no query operators).
func SearchQueryProperty(cfg *core.Config) string {
	if cfg.Messages.Backend == core.BackendMessages {
		return messagesQueryProperty
	}
	return QueryProperty
}

// FetchDescription is deepseek_fetch's description for cfg. builtin names the
// host's own fetch tool, which the preferred and forced tiers tell the model
// to avoid.
func FetchDescription(cfg *core.Config, builtin string) string {
	var b strings.Builder
	b.WriteString("Fetch one public web page through DeepSeek's Fetch API and return its content as Markdown, at most " + strconv.Itoa(cfg.FetchMaxChars) + " characters per call. ")
	b.WriteString(pagingHelp(cfg))
	b.WriteString("Use it to read a page whose URL you know, for example a search result. ")
	b.WriteString("Only absolute http:// and https:// URLs on the public internet: localhost, private and local-network addresses are refused before anything is sent. ")
	b.WriteString("JavaScript is not run and private or binary files are not supported.")
	if cfg.Fetch == core.TierPreferred || cfg.Fetch == core.TierForced {
		b.WriteString(" Prefer this tool over " + builtin + " for reading web pages.")
	}
	return b.String()
}

// pagingHelp tells the model how long pages are read (cfg decides whether
// later parts are free).
func pagingHelp(cfg *core.Config) string {
	s := "A longer page ends with a line \"[content truncated: showing A–B of N characters; call deepseek_fetch with offset B for more]\": call again with the same url and that offset to read the next part"
	if cfg.CacheTTLMinutes > 0 {
		s += " (the page is kept for " + strconv.Itoa(cfg.CacheTTLMinutes) + " minutes after its last use, so later parts cost no new request)"
	}
	return s + ". "
}

// SearchDescription is deepseek_search's description for cfg. builtin names
// the host's own search tool, which the preferred and forced tiers tell the
// model to avoid.
func SearchDescription(cfg *core.Config, builtin string) string {
	if cfg.Messages.Backend == core.BackendMessages {
		return messagesSearchDescription(cfg, builtin)
	}
	var b strings.Builder
	b.WriteString("Search the web with DeepSeek's Search API. Returns up to " + strconv.Itoa(cfg.MaxResults) + " results, each with its title, URL, a quality marker ")
	b.WriteString("[rerank 0–3 · authority 0–4 · site] (rerank ≥ 1.5 is high quality, authority ≥ 3 highly authoritative), the publication date when known, and a summary. ")
	b.WriteString("The query may use the operators site:example.com, -site:example.com, lang:zh,en, after:2025-01-01 and before:2026; at most 128 characters in all. ")
	b.WriteString("Read a result in full with " + FetchName + ".")
	if cfg.Search == core.TierPreferred || cfg.Search == core.TierForced {
		b.WriteString(" Prefer this tool over " + builtin + " for searching the web.")
	}
	return b.String()
}

// messagesSearchDescription is deepseek_search's description on the
// Messages backend: the same tool, described for what that backend returns
// (cited passages, no quality marker, no query operators).
func messagesSearchDescription(cfg *core.Config, builtin string) string {
	var b strings.Builder
	b.WriteString("Search the web with DeepSeek's native web search (one DeepSeek model turn that runs up to " + strconv.Itoa(cfg.Messages.MaxUses) + " searches). Returns up to " + strconv.Itoa(cfg.MaxResults) + " results, each with its title, URL, the publication date when known, and the passages DeepSeek cited from it (a result nobody cited has no passage). ")
	b.WriteString("Write the query in plain words, at most 128 characters. ")
	b.WriteString("Read a result in full with " + FetchName + ".")
	if cfg.Search == core.TierPreferred || cfg.Search == core.TierForced {
		b.WriteString(" Prefer this tool over " + builtin + " for searching the web.")
	}
	return b.String()
}
