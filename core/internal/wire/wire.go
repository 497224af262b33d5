// Package wire decodes DeepSeek's Search and Fetch response bodies leniently:
// every field may be missing, null or of an unexpected type, and only a body
// that is not a JSON object at all is an error.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrNotJSON is returned for bodies that are not a JSON object.
var ErrNotJSON = errors.New("not a JSON object")

// SearchItem is one entry of a search response's results array. Missing or
// ill-typed fields are zero, with the Has* flags telling numbers apart.
type SearchItem struct {
	URL, Title, Snippet, Summary, Date, SiteName string
	Rerank, Authority                            float64
	HasRerank, HasAuthority                      bool
}

type rawItem struct {
	URL       json.RawMessage `json:"url"`
	Title     json.RawMessage `json:"title"`
	Snippet   json.RawMessage `json:"snippet"`
	Summary   json.RawMessage `json:"summary"`
	Date      json.RawMessage `json:"date"`
	SiteName  json.RawMessage `json:"site_name"`
	Rerank    json.RawMessage `json:"rerank_score"`
	Authority json.RawMessage `json:"authority"`
}

// DecodeSearch decodes {"results": [...]}. A missing or null results field
// is an empty list; a results field that is not an array is an error.
// Entries that are not objects are skipped.
func DecodeSearch(body []byte) ([]SearchItem, error) {
	// Fast path: one pass when every field has the type DeepSeek sends;
	// anything odder (numbers as strings, non-object entries) takes the
	// lenient path below.
	var fast struct {
		Results []typedItem `json:"results"`
	}
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '{' && json.Unmarshal(b, &fast) == nil {
		if fast.Results == nil {
			return nil, nil
		}
		items := make([]SearchItem, len(fast.Results))
		for i, t := range fast.Results {
			items[i] = t.item()
		}
		return items, nil
	}
	var top struct {
		Results json.RawMessage `json:"results"`
	}
	if err := decodeObject(body, &top); err != nil {
		return nil, err
	}
	r := bytes.TrimSpace(top.Results)
	if len(r) == 0 || string(r) == "null" {
		return nil, nil
	}
	if r[0] != '[' {
		return nil, fmt.Errorf("\"results\" is not a list")
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(r, &entries); err != nil {
		return nil, fmt.Errorf("\"results\": %w", err)
	}
	items := make([]SearchItem, 0, len(entries))
	for _, e := range entries {
		var raw rawItem
		if e = bytes.TrimSpace(e); len(e) == 0 || e[0] != '{' || json.Unmarshal(e, &raw) != nil {
			continue
		}
		items = append(items, raw.item())
	}
	return items, nil
}

// typedItem is a result entry as DeepSeek sends it; null fields stay nil.
type typedItem struct {
	URL       *string  `json:"url"`
	Title     *string  `json:"title"`
	Snippet   *string  `json:"snippet"`
	Summary   *string  `json:"summary"`
	Date      *string  `json:"date"`
	SiteName  *string  `json:"site_name"`
	Rerank    *float64 `json:"rerank_score"`
	Authority *float64 `json:"authority"`
}

func (t typedItem) item() SearchItem {
	it := SearchItem{
		URL: deref(t.URL), Title: deref(t.Title), Snippet: deref(t.Snippet),
		Summary: deref(t.Summary), Date: deref(t.Date), SiteName: deref(t.SiteName),
	}
	if t.Rerank != nil {
		it.Rerank, it.HasRerank = *t.Rerank, true
	}
	if t.Authority != nil {
		it.Authority, it.HasAuthority = *t.Authority, true
	}
	return it
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (raw *rawItem) item() SearchItem {
	it := SearchItem{
		URL:      str(raw.URL),
		Title:    str(raw.Title),
		Snippet:  str(raw.Snippet),
		Summary:  str(raw.Summary),
		Date:     str(raw.Date),
		SiteName: str(raw.SiteName),
	}
	it.Rerank, it.HasRerank = num(raw.Rerank)
	it.Authority, it.HasAuthority = num(raw.Authority)
	return it
}

// FetchPage is a decoded fetch response.
type FetchPage struct {
	Title, Content string
}

// DecodeFetch decodes {"title", "content"}.
func DecodeFetch(body []byte) (FetchPage, error) {
	var fast struct {
		Title   *string `json:"title"`
		Content *string `json:"content"`
	}
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '{' && json.Unmarshal(b, &fast) == nil {
		return FetchPage{Title: deref(fast.Title), Content: deref(fast.Content)}, nil
	}
	var raw struct {
		Title   json.RawMessage `json:"title"`
		Content json.RawMessage `json:"content"`
	}
	if err := decodeObject(body, &raw); err != nil {
		return FetchPage{}, err
	}
	return FetchPage{Title: str(raw.Title), Content: str(raw.Content)}, nil
}

// ErrorMessage extracts DeepSeek's error message from an error body:
// {"error":{"message":...}}, {"error":"..."} or {"message":...}. When none is
// found it falls back to the raw body, whitespace-collapsed and cut to 300
// code points. It returns "" for an empty body.
func ErrorMessage(body []byte) string { return ErrorMessageRedacted(body, nil) }

// ErrorMessageRedacted is ErrorMessage with redact applied to the message
// before it is cut, so nothing redact removes can survive as a prefix at the
// cut. A nil redact changes nothing.
func ErrorMessageRedacted(body []byte, redact func(string) string) string {
	clean := func(s string) string { return clean(s, redact) }
	var raw struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
	}
	if decodeObject(body, &raw) == nil {
		var inner struct {
			Message json.RawMessage `json:"message"`
		}
		if e := bytes.TrimSpace(raw.Error); len(e) > 0 && e[0] == '{' && json.Unmarshal(e, &inner) == nil {
			if m := clean(str(inner.Message)); m != "" {
				return m
			}
		}
		if m := clean(str(raw.Error)); m != "" {
			return m
		}
		if m := clean(str(raw.Message)); m != "" {
			return m
		}
	}
	return clean(string(body))
}

// clean collapses whitespace and control characters, redacts, and cuts to
// 300 code points.
func clean(s string, redact func(string) string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r <= ' ' || r == 0x7f || r == 0xfffd
	}), " ")
	if redact != nil {
		s = redact(s)
	}
	if n := 0; len(s) > 300 {
		for i := range s {
			if n == 300 {
				return strings.TrimRight(s[:i], " ")
			}
			n++
		}
	}
	return s
}

func decodeObject(body []byte, v any) error {
	b := bytes.TrimSpace(body)
	if len(b) == 0 || b[0] != '{' {
		return ErrNotJSON
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	return nil
}

// str returns a JSON string's value, or "" for anything else.
func str(v json.RawMessage) string {
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// num accepts a JSON number or a numeric string.
func num(v json.RawMessage) (float64, bool) {
	// A null field reaches here as the literal "null" (json.RawMessage
	// receives it), and json.Unmarshal of null into a float64 succeeds
	// without setting it: null is missing, not 0.
	if len(v) == 0 || string(v) == "null" {
		return 0, false
	}
	if v[0] == '"' {
		f, err := strconv.ParseFloat(strings.TrimSpace(str(v)), 64)
		if err != nil || isNaNOrInf(f) {
			return 0, false
		}
		return f, true
	}
	var f float64
	if json.Unmarshal(v, &f) != nil {
		return 0, false
	}
	return f, true
}

func isNaNOrInf(f float64) bool { return f != f || f > 1e308 || f < -1e308 }
