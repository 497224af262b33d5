package opencode

import (
	"slices"
	"strconv"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// The module writes these values by hand instead of with encoding/json
// (which would link reflection into it). Each AppendJSON writes byte for
// byte what json.Marshal writes for the same value, map keys sorted, so
// the plan the module answers and the one init stores with encoding/json
// are the same; encode_test.go checks it.

// AppendWebsearchJSON appends what an OpenCode 2.x websearch provider
// returns for r: {"results": [ProviderResult...]}, one result per hit
// (SPEC §6), [] when there is none. The search's notes (results withheld,
// a search that failed, a paused turn) end the last result's content,
// after a blank line each: OpenCode shows the model a provider's results
// and nothing else, and renders the last result's content last. With no
// result left there is nowhere to put them; OpenCode then says it found
// nothing. It writes byte for byte what json.Marshal writes for the same
// results, without building them and their contents first (a 10-result
// search step made 16 allocations doing that); encode_test.go holds the
// two equal.
func AppendWebsearchJSON(b []byte, r *core.SearchResult) []byte {
	// No hits is [], not null.
	b = append(b, `{"results":[`...)
	notes := providerNotes(r)
	for i := range r.Hits {
		h := &r.Hits[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"url":`...)
		b = jsonlite.AppendString(b, h.URL)
		if h.Title != "" {
			b = append(b, `,"title":`...)
			b = jsonlite.AppendString(b, h.Title)
		}
		withNotes := i == len(r.Hits)-1 && notes != ""
		if h.Text != "" || h.Rerank != nil || h.Authority != nil || h.Site != "" {
			b = append(b, `,"content":`...)
			b = h.AppendProviderContentJSON(b)
			if withNotes {
				// Reopen the string: its closing quote gives way to the notes.
				b = append(jsonlite.AppendStringBody(append(b[:len(b)-1], `\n\n`...), notes), '"')
			}
		} else if withNotes {
			b = append(b, `,"content":`...)
			b = jsonlite.AppendString(b, notes)
		}
		b = append(b, `,"time":{`...)
		if ms, ok := h.PublishedMs(); ok {
			b = append(b, `"published":`...)
			b = strconv.AppendInt(b, ms, 10)
		}
		b = append(b, "}}"...)
	}
	return append(b, "]}"...)
}

// AppendJSON appends the plan as JSON. Tool options must be bools or
// strings (nativeTool's); anything else panics.
func (p *Plan) AppendJSON(b []byte) []byte {
	b = append(b, `{"host":`...)
	b = jsonlite.AppendString(b, p.Host)
	if p.KeyEnv != "" {
		b = append(b, `,"keyEnv":`...)
		b = jsonlite.AppendString(b, p.KeyEnv)
	}
	if w := p.Websearch; w != nil {
		b = append(b, `,"websearch":{"id":`...)
		b = jsonlite.AppendString(b, w.ID)
		b = append(b, `,"name":`...)
		b = jsonlite.AppendString(b, w.Name)
		b = append(b, `,"default":`...)
		b = jsonlite.AppendBool(b, w.Default)
		b = append(b, '}')
	}
	b = append(b, `,"tools":`...)
	b = jsonlite.AppendArray(b, p.Tools, func(b []byte, t *Tool) []byte { return t.appendJSON(b) })
	if p.NoWebsearchAPI != nil {
		b = append(b, `,"noWebsearchAPI":`...)
		b = p.NoWebsearchAPI.appendJSON(b)
	}
	if len(p.RemoveTools) > 0 {
		b = append(b, `,"removeTools":`...)
		b = jsonlite.AppendStrings(b, p.RemoveTools)
	}
	if len(p.ConfigEdits) > 0 {
		b = append(b, `,"configEdits":`...)
		b = jsonlite.AppendArray(b, p.ConfigEdits, func(b []byte, e *ConfigEdit) []byte { return e.appendJSON(b) })
	}
	if len(p.NotExclusive) > 0 {
		b = append(b, `,"notExclusive":{`...)
		for i, k := range sortedKeys(p.NotExclusive) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonlite.AppendString(b, k)
			b = append(b, ':')
			b = jsonlite.AppendString(b, p.NotExclusive[k])
		}
		b = append(b, '}')
	}
	if len(p.Warnings) > 0 {
		b = append(b, `,"warnings":`...)
		b = jsonlite.AppendStrings(b, p.Warnings)
	}
	return append(b, '}')
}

func (t *Tool) appendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = jsonlite.AppendString(b, t.Name)
	b = append(b, `,"description":`...)
	b = jsonlite.AppendString(b, t.Description)
	if len(t.Input) > 0 {
		b = append(b, `,"input":`...)
		b = append(b, t.Input...)
	}
	if len(t.Options) > 0 {
		b = append(b, `,"options":`...)
		b = appendScalars(b, t.Options, "Tool.Options")
	}
	if len(t.Args) > 0 {
		b = append(b, `,"args":`...)
		b = append(b, t.Args...)
	}
	return append(b, '}')
}

// sortedKeys returns m's keys in the order encoding/json writes them.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
