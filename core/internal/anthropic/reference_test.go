package anthropic

// The encoding/json decoder that Decode replaced, kept as the reference
// that FuzzDecodeReference checks Decode against.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

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

// referenceDecode is the former Decode.
func referenceDecode(body []byte) (*Response, error) {
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
