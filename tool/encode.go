package tool

import (
	"strconv"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// The results are written by hand (see the package comment): each
// AppendJSON writes byte for byte what json.Marshal writes for the same
// value, and the fuzz targets in encode_test.go check it.

// AppendJSON appends the result as JSON. It fails only for a score that is
// NaN or infinite, with json.Marshal's message.
func (r *SearchResult) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"query":`...)
	b = jsonlite.AppendString(b, r.Query)
	b = append(b, `,"results":`...)
	if r.Results == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Results {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = r.Results[i].appendJSON(b); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"text":`...)
	b = jsonlite.AppendString(b, r.Text)
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
	if h.Published != nil {
		b = append(b, `,"published":`...)
		b = strconv.AppendInt(b, *h.Published, 10)
	}
	if h.Marker != "" {
		b = append(b, `,"marker":`...)
		b = jsonlite.AppendString(b, h.Marker)
	}
	return append(b, '}'), nil
}

// AppendJSON appends the result as JSON.
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

// AppendJSON appends the output as JSON. Metadata must be nil, a
// FetchMetadata, a PagesMetadata or a SearchMetadata (what OutputOf and
// Join set); anything else panics.
func (o *Output) AppendJSON(b []byte) []byte {
	b = append(b, `{"content":`...)
	b = jsonlite.AppendString(b, o.Content)
	b = append(b, `,"title":`...)
	b = jsonlite.AppendString(b, o.Title)
	switch m := o.Metadata.(type) {
	case nil:
	case FetchMetadata:
		b = append(b, `,"metadata":{"url":`...)
		b = jsonlite.AppendString(b, m.URL)
		b = append(b, `,"title":`...)
		b = jsonlite.AppendString(b, m.Title)
		b = append(b, `,"chars":`...)
		b = strconv.AppendInt(b, int64(m.Chars), 10)
		b = append(b, `,"contentTruncated":`...)
		b = jsonlite.AppendBool(b, m.ContentTruncated)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, int64(m.Offset), 10)
		if m.NextOffset != 0 {
			b = append(b, `,"nextOffset":`...)
			b = strconv.AppendInt(b, int64(m.NextOffset), 10)
		}
		b = append(b, `,"totalChars":`...)
		b = strconv.AppendInt(b, int64(m.TotalChars), 10)
		b = append(b, `,"cached":`...)
		b = jsonlite.AppendBool(b, m.Cached)
		b = append(b, '}')
	case PagesMetadata:
		b = append(b, `,"metadata":{"urls":`...)
		b = jsonlite.AppendStrings(b, m.URLs)
		b = append(b, `,"failed":`...)
		b = strconv.AppendInt(b, int64(m.Failed), 10)
		b = append(b, `,"cached":`...)
		b = jsonlite.AppendBool(b, m.Cached)
		b = append(b, '}')
	case SearchMetadata:
		b = append(b, `,"metadata":{"query":`...)
		b = jsonlite.AppendString(b, m.Query)
		b = append(b, `,"results":`...)
		b = strconv.AppendInt(b, int64(m.Results), 10)
		if m.Usage != nil {
			b = append(b, `,"usage":`...)
			b = m.Usage.AppendJSON(b)
		}
		b = append(b, `,"cached":`...)
		b = jsonlite.AppendBool(b, m.Cached)
		b = append(b, '}')
	default:
		panic("tool: Output.AppendJSON: unsupported metadata")
	}
	return append(b, '}')
}
