// Package anthropic decodes the response of an Anthropic-compatible Messages
// endpoint (DeepSeek's /anthropic/v1/messages) that ran the server-side
// web_search tool. It keeps only what the core maps: the stop reason, the
// text blocks' web-search citations, the web_search_tool_result blocks, the
// usage counters, and each content block's raw JSON (to continue a paused
// turn). Every field may be missing, null or of an unexpected type; only a
// body that is not a JSON object, or whose "content" is not a list, is an
// error.
package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// ErrNotJSON is returned for bodies that are not a JSON object.
var ErrNotJSON = errors.New("not a JSON object")

// Limits on what one response may hold. A real turn (at most 20 searches,
// a few thousand output tokens) stays far below them; past one, the
// response is refused before the lists are decoded, so memory and time
// follow the limits, not the body.
const (
	// MaxBlocks caps the content blocks of a response.
	MaxBlocks = 2000
	// MaxListEntries caps the entries of one block's citations or results.
	MaxListEntries = 200
)

// LimitError is a response with more entries in a list than the limits
// allow.
type LimitError struct {
	// What names the list ("content blocks", "results in one
	// web_search_tool_result", "citations in one text block").
	What  string
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("more than %d %s", e.Limit, e.What)
}

// Block types this package reads; others are kept raw and otherwise ignored.
const (
	TypeText            = "text"
	TypeServerToolUse   = "server_tool_use"
	TypeWebSearchResult = "web_search_tool_result"
	typeResultError     = "web_search_tool_result_error"
	typeResultItem      = "web_search_result"
	typeCitation        = "web_search_result_location"
)

// Response is a decoded Messages response.
type Response struct {
	// Type is the top-level "type" ("message", or "error" for an error
	// object sent with a 2xx status).
	Type string
	// ErrorMessage is error.message of a top-level error object.
	ErrorMessage string
	// StopReason is e.g. "end_turn", "pause_turn", "max_tokens".
	StopReason string
	// Blocks are the content blocks in order, entries that are not objects
	// left out.
	Blocks []Block
	// Usage holds the token and search counters; missing ones are 0.
	Usage Usage
}

// Block is one content block.
type Block struct {
	Type string
	// Raw is the block exactly as received, for a continuation request.
	Raw json.RawMessage
	// Text and Citations are set for text blocks. Only citations of type
	// web_search_result_location (or without a type) are kept.
	Text      string
	Citations []Citation
	// Results are a successful web_search_tool_result's entries; ErrorCode
	// is set instead when the result is a web_search_tool_result_error.
	// Searched is true for a web_search_tool_result whose content is a
	// list (possibly empty).
	Results   []Result
	ErrorCode string
	Searched  bool
	// Query is a server_tool_use block's input.query.
	Query string
}

// Citation is a text block's citation of a search result.
type Citation struct {
	URL, Title, CitedText string
}

// Result is one web_search_result entry.
type Result struct {
	URL, Title, PageAge string
}

// Usage is the response's usage object.
type Usage struct {
	InputTokens, OutputTokens, WebSearchRequests int64
}

type rawResponse struct {
	Type       json.RawMessage `json:"type"`
	StopReason json.RawMessage `json:"stop_reason"`
	Content    json.RawMessage `json:"content"`
	Usage      json.RawMessage `json:"usage"`
	Error      json.RawMessage `json:"error"`
}

type rawBlock struct {
	Type      json.RawMessage `json:"type"`
	Text      json.RawMessage `json:"text"`
	Citations json.RawMessage `json:"citations"`
	Content   json.RawMessage `json:"content"`
	Input     json.RawMessage `json:"input"`
}

type rawFields struct {
	Type      json.RawMessage `json:"type"`
	URL       json.RawMessage `json:"url"`
	Title     json.RawMessage `json:"title"`
	CitedText json.RawMessage `json:"cited_text"`
	PageAge   json.RawMessage `json:"page_age"`
	ErrorCode json.RawMessage `json:"error_code"`
	Query     json.RawMessage `json:"query"`
	Message   json.RawMessage `json:"message"`
}

// Decode decodes a Messages response body.
func Decode(body []byte) (*Response, error) {
	var top rawResponse
	if err := decodeObject(body, &top); err != nil {
		return nil, err
	}
	r := &Response{Type: str(top.Type), StopReason: str(top.StopReason)}
	if e := object(top.Error); e != nil {
		r.ErrorMessage = str(e.Message)
	}
	r.Usage = usage(top.Usage)
	c := bytes.TrimSpace(top.Content)
	if len(c) == 0 || string(c) == "null" {
		return r, nil
	}
	if c[0] != '[' {
		return nil, fmt.Errorf("\"content\" is not a list")
	}
	entries, err := list(c, MaxBlocks, "content blocks")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		e = bytes.TrimSpace(e)
		var rb rawBlock
		if len(e) == 0 || e[0] != '{' || json.Unmarshal(e, &rb) != nil {
			continue
		}
		b := Block{Type: str(rb.Type), Raw: e}
		switch b.Type {
		case TypeText:
			b.Text = str(rb.Text)
			cites, err := objects(rb.Citations, "citations in one text block")
			if err != nil {
				return nil, err
			}
			for _, f := range cites {
				if t := str(f.Type); t != "" && t != typeCitation {
					continue
				}
				b.Citations = append(b.Citations, Citation{URL: str(f.URL), Title: str(f.Title), CitedText: str(f.CitedText)})
			}
		case TypeWebSearchResult:
			cc := bytes.TrimSpace(rb.Content)
			if len(cc) > 0 && cc[0] == '[' {
				b.Searched = true
				results, err := objects(cc, "results in one web_search_tool_result")
				if err != nil {
					return nil, err
				}
				for _, f := range results {
					if t := str(f.Type); t != "" && t != typeResultItem {
						continue
					}
					b.Results = append(b.Results, Result{URL: str(f.URL), Title: str(f.Title), PageAge: str(f.PageAge)})
				}
			} else if f := object(cc); f != nil {
				// An error object; one without a code still failed.
				b.ErrorCode = str(f.ErrorCode)
				if b.ErrorCode == "" {
					b.ErrorCode = "unknown"
				}
			} else {
				b.ErrorCode = "unknown"
			}
		case TypeServerToolUse:
			if f := object(rb.Input); f != nil {
				b.Query = str(f.Query)
			}
		}
		r.Blocks = append(r.Blocks, b)
	}
	return r, nil
}

func usage(v json.RawMessage) Usage {
	var u struct {
		InputTokens   json.RawMessage `json:"input_tokens"`
		OutputTokens  json.RawMessage `json:"output_tokens"`
		ServerToolUse json.RawMessage `json:"server_tool_use"`
	}
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &u) != nil {
		return Usage{}
	}
	out := Usage{InputTokens: count(u.InputTokens), OutputTokens: count(u.OutputTokens)}
	var s struct {
		WebSearchRequests json.RawMessage `json:"web_search_requests"`
	}
	if st := bytes.TrimSpace(u.ServerToolUse); len(st) > 0 && st[0] == '{' && json.Unmarshal(st, &s) == nil {
		out.WebSearchRequests = count(s.WebSearchRequests)
	}
	return out
}

// count reads a non-negative whole number; anything else is 0.
func count(v json.RawMessage) int64 {
	var f float64
	if len(v) == 0 || v[0] == '"' || json.Unmarshal(v, &f) != nil || f < 0 || f > 1e15 || f != math.Trunc(f) {
		return 0
	}
	return int64(f)
}

// list returns the entries of the JSON array v as sub-slices of v (no
// copies), refusing more than limit of them (a *LimitError naming what)
// before it holds more. v must be valid JSON: it comes out of a body that
// encoding/json has already checked whole.
func list(v json.RawMessage, limit int, what string) ([]json.RawMessage, error) {
	v = bytes.TrimSpace(v)
	if len(v) < 2 || v[0] != '[' {
		return nil, fmt.Errorf("%s: not a list", what)
	}
	var out []json.RawMessage
	depth, start, inString, escaped := 0, 1, false, false
	for i := 1; i < len(v); i++ {
		c := v[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
		case (c == ']' || c == '}') && depth > 0:
			depth--
		case c == ',' && depth == 0, c == ']' && depth == 0:
			if e := bytes.TrimSpace(v[start:i]); len(e) > 0 {
				if len(out) == limit {
					return nil, &LimitError{What: what, Limit: limit}
				}
				out = append(out, e)
			}
			start = i + 1
		}
	}
	return out, nil
}

// objects decodes a list of objects, skipping entries that are not
// objects; anything but a list is no entries. More than MaxListEntries
// entries is a *LimitError naming what.
func objects(v json.RawMessage, what string) ([]rawFields, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '[' {
		return nil, nil
	}
	entries, err := list(v, MaxListEntries, what)
	var le *LimitError
	if errors.As(err, &le) {
		return nil, err
	}
	if err != nil {
		return nil, nil
	}
	out := make([]rawFields, 0, len(entries))
	for _, e := range entries {
		if f := object(e); f != nil {
			out = append(out, *f)
		}
	}
	return out, nil
}

func object(v json.RawMessage) *rawFields {
	v = bytes.TrimSpace(v)
	var f rawFields
	if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &f) != nil {
		return nil
	}
	return &f
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
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}
