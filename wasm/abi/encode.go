package abi

import (
	"bytes"
	"strconv"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// The results are written by hand, like the envelopes: each AppendJSON
// writes byte for byte what json.Marshal writes for the same value (the
// fuzz targets in encode_test.go check it), so hosts see no difference.

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

// MarshalJSON writes the envelope as encoding/json would if Options and
// Input were json.RawMessage (for hosts written in Go).
func (s Start) MarshalJSON() ([]byte, error) {
	b := append([]byte(`{"v":`), strconv.Itoa(s.V)...)
	b = append(b, `,"kind":`...)
	b = jsonlite.AppendString(b, s.Kind)
	if len(s.Options) > 0 {
		b = append(b, `,"options":`...)
		b = append(b, s.Options...)
	}
	if s.APIKey != "" {
		b = append(b, `,"apiKey":`...)
		b = jsonlite.AppendString(b, s.APIKey)
	}
	if len(s.Input) > 0 {
		b = append(b, `,"input":`...)
		b = append(b, s.Input...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON decodes the envelope with [DecodeStart], keeping a copy of
// Options and Input.
func (s *Start) UnmarshalJSON(data []byte) error {
	v, err := DecodeStart(bytes.Clone(data))
	if err == nil {
		*s = v
	}
	return err
}

// MarshalJSON writes the input as encoding/json would if Args were
// json.RawMessage.
func (t ToolInput) MarshalJSON() ([]byte, error) {
	b := append([]byte(`{"tool":`), jsonlite.AppendString(nil, t.Tool)...)
	b = append(b, `,"args":`...)
	b = jsonlite.AppendRaw(b, t.Args)
	return append(b, '}'), nil
}

// UnmarshalJSON decodes the input with [DecodeInput], keeping a copy of
// Args.
func (t *ToolInput) UnmarshalJSON(data []byte) error {
	return DecodeInput(bytes.Clone(data), t)
}

// MarshalJSON writes the step with [Step.AppendJSON].
func (s Step) MarshalJSON() ([]byte, error) { return s.AppendJSON(nil), nil }

// UnmarshalJSON decodes the step with [DecodeStep], keeping a copy of
// Result.
func (s *Step) UnmarshalJSON(data []byte) error {
	v, err := DecodeStep(bytes.Clone(data))
	if err == nil {
		*s = v
	}
	return err
}
