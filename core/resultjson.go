package core

import (
	"strconv"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// The results are written by hand, without encoding/json (which would link
// reflection into the WebAssembly module). AppendJSON is the one encoder:
// MarshalJSON calls it, so json.Marshal writes the same bytes, and the
// fuzz targets in resultjson_test.go hold it equal to json.Marshal of the
// wire shape. The JSON is what the module's "search" and "fetch" kinds
// return and the CLI's --json prints: a search carries its text (SPEC §6)
// and each hit its quality marker (SPEC §2.6), both computed.

// AppendJSON appends the result as JSON:
//
//	{"query", "results": [hits], "text", "cached",
//	 "summary", "dropped", "notes", "usage"}
//
// the last four only when set. A hit is {"url", "title", "text", "rerank",
// "authority", "site", "date", "published", "marker", "foundBy"}, the
// members from rerank on only when set. It fails only for a score that is
// NaN or infinite, with json.Marshal's message.
func (r *SearchResult) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"query":`...)
	b = jsonlite.AppendString(b, r.Query)
	b = append(b, `,"results":`...)
	if r.Hits == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Hits {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = r.Hits[i].appendJSON(b); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"text":`...)
	b = jsonlite.AppendString(b, r.Text())
	b = append(b, `,"cached":`...)
	b = jsonlite.AppendBool(b, r.Cached)
	if r.Summary != "" {
		b = append(b, `,"summary":`...)
		b = jsonlite.AppendString(b, r.Summary)
	}
	if r.Dropped != 0 {
		b = append(b, `,"dropped":`...)
		b = strconv.AppendInt(b, int64(r.Dropped), 10)
	}
	if len(r.Notes) > 0 {
		b = append(b, `,"notes":`...)
		b = jsonlite.AppendStrings(b, r.Notes)
	}
	if r.Usage != nil {
		b = append(b, `,"usage":`...)
		b = r.Usage.AppendJSON(b)
	}
	return append(b, '}'), nil
}

// MarshalJSON is [SearchResult.AppendJSON], for encoding/json.
func (r SearchResult) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil) }

func (h *Hit) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"url":`...)
	b = jsonlite.AppendString(b, h.URL)
	b = append(b, `,"title":`...)
	b = jsonlite.AppendString(b, h.Title)
	b = append(b, `,"text":`...)
	b = jsonlite.AppendString(b, h.Text)
	var err error
	if h.Rerank != nil {
		b = append(b, `,"rerank":`...)
		if b, err = jsonlite.AppendFloat(b, *h.Rerank); err != nil {
			return b, err
		}
	}
	if h.Authority != nil {
		b = append(b, `,"authority":`...)
		if b, err = jsonlite.AppendFloat(b, *h.Authority); err != nil {
			return b, err
		}
	}
	if h.Site != "" {
		b = append(b, `,"site":`...)
		b = jsonlite.AppendString(b, h.Site)
	}
	if h.Date != "" {
		b = append(b, `,"date":`...)
		b = jsonlite.AppendString(b, h.Date)
	}
	if ms, ok := h.PublishedMs(); ok {
		b = append(b, `,"published":`...)
		b = strconv.AppendInt(b, ms, 10)
	}
	if m := h.Marker(); m != "" {
		b = append(b, `,"marker":`...)
		b = jsonlite.AppendString(b, m)
	}
	if h.FoundBy != "" {
		b = append(b, `,"foundBy":`...)
		b = jsonlite.AppendString(b, h.FoundBy)
	}
	return append(b, '}'), nil
}

// AppendJSON appends the result as JSON: {"url", "title", "text", "chars",
// "truncated", "offset", "nextOffset", "totalChars", "cached"}, nextOffset
// only when more of the page follows.
func (r *FetchResult) AppendJSON(b []byte) []byte {
	b = append(b, `{"url":`...)
	b = jsonlite.AppendString(b, r.URL)
	b = append(b, `,"title":`...)
	b = jsonlite.AppendString(b, r.Title)
	b = append(b, `,"text":`...)
	b = jsonlite.AppendString(b, r.Text)
	b = append(b, `,"chars":`...)
	b = strconv.AppendInt(b, int64(r.Chars), 10)
	b = append(b, `,"truncated":`...)
	b = jsonlite.AppendBool(b, r.Truncated)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(r.Offset), 10)
	if r.NextOffset != 0 {
		b = append(b, `,"nextOffset":`...)
		b = strconv.AppendInt(b, int64(r.NextOffset), 10)
	}
	b = append(b, `,"totalChars":`...)
	b = strconv.AppendInt(b, int64(r.TotalChars), 10)
	b = append(b, `,"cached":`...)
	b = jsonlite.AppendBool(b, r.Cached)
	return append(b, '}')
}

// MarshalJSON is [FetchResult.AppendJSON], for encoding/json.
func (r FetchResult) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }
