package tool

import (
	"strconv"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// The output is written by hand (see the package comment): AppendJSON
// writes byte for byte what json.Marshal writes for the same value, and
// FuzzOutputJSON in encode_test.go checks it.

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
