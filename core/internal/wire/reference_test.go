package wire

// The decoders this package had before decode.go, on encoding/json: the
// reference the streaming decoders are fuzzed against.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

type refRawItem struct {
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
func refDecodeSearch(body []byte) ([]SearchItem, error) {
	// Fast path: one pass when every field has the type DeepSeek sends;
	// anything odder (numbers as strings, non-object entries) takes the
	// lenient path below.
	var fast struct {
		Results []refTypedItem `json:"results"`
	}
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '{' && json.Unmarshal(b, &fast) == nil {
		if fast.Results == nil {
			return nil, nil
		}
		items := make([]SearchItem, len(fast.Results))
		for i, t := range fast.Results {
			items[i] = t.refItem()
		}
		return items, nil
	}
	var top struct {
		Results json.RawMessage `json:"results"`
	}
	if err := refDecodeObject(body, &top); err != nil {
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
		var raw refRawItem
		if e = bytes.TrimSpace(e); len(e) == 0 || e[0] != '{' || json.Unmarshal(e, &raw) != nil {
			continue
		}
		items = append(items, raw.refItem())
	}
	return items, nil
}

// refTypedItem is a result entry as DeepSeek sends it; null fields stay nil.
type refTypedItem struct {
	URL       *string  `json:"url"`
	Title     *string  `json:"title"`
	Snippet   *string  `json:"snippet"`
	Summary   *string  `json:"summary"`
	Date      *string  `json:"date"`
	SiteName  *string  `json:"site_name"`
	Rerank    *float64 `json:"rerank_score"`
	Authority *float64 `json:"authority"`
}

func (t refTypedItem) refItem() SearchItem {
	it := SearchItem{
		URL: refDeref(t.URL), Title: refDeref(t.Title), Snippet: refDeref(t.Snippet),
		Summary: refDeref(t.Summary), Date: refDeref(t.Date), SiteName: refDeref(t.SiteName),
	}
	if t.Rerank != nil {
		it.Rerank, it.HasRerank = *t.Rerank, true
	}
	if t.Authority != nil {
		it.Authority, it.HasAuthority = *t.Authority, true
	}
	return it
}

func refDeref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (raw *refRawItem) refItem() SearchItem {
	it := SearchItem{
		URL:      refStr(raw.URL),
		Title:    refStr(raw.Title),
		Snippet:  refStr(raw.Snippet),
		Summary:  refStr(raw.Summary),
		Date:     refStr(raw.Date),
		SiteName: refStr(raw.SiteName),
	}
	it.Rerank, it.HasRerank = refNum(raw.Rerank)
	it.Authority, it.HasAuthority = refNum(raw.Authority)
	return it
}

// DecodeFetch decodes {"title", "content"}.
func refDecodeFetch(body []byte) (FetchPage, error) {
	var fast struct {
		Title   *string `json:"title"`
		Content *string `json:"content"`
	}
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '{' && json.Unmarshal(b, &fast) == nil {
		return FetchPage{Title: refDeref(fast.Title), Content: refDeref(fast.Content)}, nil
	}
	var raw struct {
		Title   json.RawMessage `json:"title"`
		Content json.RawMessage `json:"content"`
	}
	if err := refDecodeObject(body, &raw); err != nil {
		return FetchPage{}, err
	}
	return FetchPage{Title: refStr(raw.Title), Content: refStr(raw.Content)}, nil
}

func refDecodeObject(body []byte, v any) error {
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
func refStr(v json.RawMessage) string {
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// num accepts a JSON number or a numeric string.
func refNum(v json.RawMessage) (float64, bool) {
	// A null field reaches here as the literal "null" (json.RawMessage
	// receives it), and json.Unmarshal of null into a float64 succeeds
	// without setting it: null is missing, not 0.
	if len(v) == 0 || string(v) == "null" {
		return 0, false
	}
	if v[0] == '"' {
		f, err := strconv.ParseFloat(strings.TrimSpace(refStr(v)), 64)
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

func refErrorMessage(body []byte, redact func(string) string) string {
	clean := func(s string) string { return refClean(s, redact) }
	var raw struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
	}
	if refDecodeObject(body, &raw) == nil {
		var inner struct {
			Message json.RawMessage `json:"message"`
		}
		if e := bytes.TrimSpace(raw.Error); len(e) > 0 && e[0] == '{' && json.Unmarshal(e, &inner) == nil {
			if m := clean(refStr(inner.Message)); m != "" {
				return m
			}
		}
		if m := clean(refStr(raw.Error)); m != "" {
			return m
		}
		if m := clean(refStr(raw.Message)); m != "" {
			return m
		}
	}
	return clean(string(body))
}

func refClean(s string, redact func(string) string) string {
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
