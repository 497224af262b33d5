// Package anthropic decodes the response of an Anthropic-compatible Messages
// endpoint (DeepSeek's /anthropic/v1/messages) that ran the server-side
// web_search tool. It keeps only what the core maps: the stop reason, the
// text blocks' web-search citations, the web_search_tool_result blocks, the
// usage counters, and each content block's raw JSON (to continue a paused
// turn). Every field may be missing, null or of an unexpected type; only a
// body that is not a JSON object, or whose "content" is not a list, is an
// error.
//
// Decode reads the body with the module's one JSON scanner
// (core/internal/wire's Scanner), not encoding/json: under WebAssembly
// reflection made a 5 MiB body cost up to a second. It returns what
// encoding/json-based decoding returned (reference_test.go keeps that
// decoder, and a fuzz target holds the two equal): member names match
// case-insensitively and the last of a repeated member wins, strings are
// decoded as encoding/json decodes them, and each Block.Raw is a sub-slice
// of the body.
package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/wire"
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

// Member names read from each kind of object, in the order of the texts
// members returns.
var (
	topNames      = []string{"type", "stop_reason", "error", "usage"}
	blockNames    = []string{"type", "text", "citations", "content", "input"}
	citationNames = []string{"type", "url", "title", "cited_text"}
	resultNames   = []string{"type", "url", "title", "page_age"}
	usageNames    = []string{"input_tokens", "output_tokens", "server_tool_use"}
)

// errNotList is the error for a "content" that is neither a list nor null.
var errNotList = errors.New(`"content" is not a list`)

// Decode decodes a Messages response body. Every error for a body that is
// not a JSON object matches [ErrNotJSON]; a list past its limit is a
// [*LimitError], found before more entries than the limit are held.
func Decode(body []byte) (*Response, error) {
	s := wire.NewScanner(body)
	if !s.Top() {
		return nil, notJSON(s.Err())
	}
	var top [4][]byte
	// blocks are the object entries of the last "content"; contentErr is
	// what is wrong with it. A repeated "content" replaces both, as it
	// replaces the member in encoding/json.
	var blocks [][]byte
	var contentErr error
	ok := s.Object(func(name []byte) bool {
		if !wire.MatchName(name, "content") {
			text, ok := s.Skip()
			if k := match(name, topNames); k >= 0 {
				top[k] = text
			}
			return ok
		}
		blocks, contentErr = blocks[:0], nil
		if s.Next() != '[' {
			text, ok := s.Skip()
			if ok && text[0] != 'n' { // not null
				contentErr = errNotList
			}
			return ok
		}
		n := 0
		return s.List(func() bool {
			text, ok := s.Skip()
			if n++; n > MaxBlocks {
				if contentErr == nil {
					contentErr = &LimitError{What: "content blocks", Limit: MaxBlocks}
				}
			} else if ok && text[0] == '{' {
				blocks = append(blocks, text)
			}
			return ok
		})
	})
	if !ok || !s.End() {
		return nil, notJSON(s.Err())
	}
	if contentErr != nil {
		return nil, contentErr
	}
	r := &Response{Type: wire.StringValue(top[0]), StopReason: wire.StringValue(top[1])}
	if e := top[2]; len(e) > 0 && e[0] == '{' {
		var m [1][]byte
		members(e, []string{"message"}, m[:])
		r.ErrorMessage = wire.StringValue(m[0])
	}
	r.Usage = readUsage(top[3])
	if len(blocks) > 0 {
		r.Blocks = make([]Block, 0, len(blocks))
	}
	for _, raw := range blocks {
		b, err := decodeBlock(raw)
		if err != nil {
			return nil, err
		}
		r.Blocks = append(r.Blocks, b)
	}
	return r, nil
}

// notJSON is the error for a body the scanner refused.
func notJSON(e *wire.Error) error {
	if e != nil && e.Problem == wire.Broken {
		return fmt.Errorf("%w: the body is not valid JSON at byte %d", ErrNotJSON, e.Offset)
	}
	return ErrNotJSON
}

// decodeBlock decodes one content block, the text of a JSON object.
func decodeBlock(raw []byte) (Block, error) {
	var m [5][]byte
	members(raw, blockNames, m[:])
	b := Block{Type: wire.StringValue(m[0]), Raw: raw}
	switch b.Type {
	case TypeText:
		b.Text = wire.StringValue(m[1])
		err := objectEntries(m[2], "citations in one text block", citationNames, func(f [][]byte) {
			if t := wire.StringValue(f[0]); t != "" && t != typeCitation {
				return
			}
			b.Citations = append(b.Citations, Citation{URL: wire.StringValue(f[1]), Title: wire.StringValue(f[2]), CitedText: wire.StringValue(f[3])})
		})
		if err != nil {
			return Block{}, err
		}
	case TypeWebSearchResult:
		switch c := m[3]; {
		case len(c) > 0 && c[0] == '[':
			b.Searched = true
			err := objectEntries(c, "results in one web_search_tool_result", resultNames, func(f [][]byte) {
				if t := wire.StringValue(f[0]); t != "" && t != typeResultItem {
					return
				}
				b.Results = append(b.Results, Result{URL: wire.StringValue(f[1]), Title: wire.StringValue(f[2]), PageAge: wire.StringValue(f[3])})
			})
			if err != nil {
				return Block{}, err
			}
		case len(c) > 0 && c[0] == '{':
			// An error object; one without a code still failed.
			var f [1][]byte
			members(c, []string{"error_code"}, f[:])
			if b.ErrorCode = wire.StringValue(f[0]); b.ErrorCode == "" {
				b.ErrorCode = "unknown"
			}
		default:
			b.ErrorCode = "unknown"
		}
	case TypeServerToolUse:
		if in := m[4]; len(in) > 0 && in[0] == '{' {
			var f [1][]byte
			members(in, []string{"query"}, f[:])
			b.Query = wire.StringValue(f[0])
		}
	}
	return b, nil
}

// objectEntries calls each for every entry of the list text v that is an
// object, with the texts of its members named by names (see members);
// anything but a list is no entries. More than MaxListEntries entries is a
// *LimitError naming what, returned before the entry past the limit is
// read.
func objectEntries(v []byte, what string, names []string, each func(f [][]byte)) error {
	if len(v) == 0 || v[0] != '[' {
		return nil
	}
	s := wire.NewScanner(v)
	var f [4][]byte
	var err error
	n := 0
	s.List(func() bool {
		if n++; n > MaxListEntries {
			err = &LimitError{What: what, Limit: MaxListEntries}
			return false
		}
		if s.Next() != '{' {
			_, ok := s.Skip()
			return ok
		}
		f = [4][]byte{}
		ok := s.Object(func(name []byte) bool {
			text, ok := s.Skip()
			if k := match(name, names); k >= 0 {
				f[k] = text
			}
			return ok
		})
		if ok {
			each(f[:len(names)])
		}
		return ok
	})
	return err
}

// members sets out[k] to the text of the last member of the object text v
// named names[k] (case-insensitively, as encoding/json matches), leaving it
// nil when there is none. v has been validated whole.
func members(v []byte, names []string, out [][]byte) {
	s := wire.NewScanner(v)
	s.Top()
	s.Object(func(name []byte) bool {
		text, ok := s.Skip()
		if k := match(name, names); k >= 0 {
			out[k] = text
		}
		return ok
	})
}

// match returns the index of the name in names that name selects, or -1.
func match(name []byte, names []string) int {
	for k, n := range names {
		if wire.MatchName(name, n) {
			return k
		}
	}
	return -1
}

// readUsage reads the usage object's text; anything else is no usage.
func readUsage(v []byte) Usage {
	if len(v) == 0 || v[0] != '{' {
		return Usage{}
	}
	var m [3][]byte
	members(v, usageNames, m[:])
	u := Usage{InputTokens: wholeNumber(m[0]), OutputTokens: wholeNumber(m[1])}
	if st := m[2]; len(st) > 0 && st[0] == '{' {
		var w [1][]byte
		members(st, []string{"web_search_requests"}, w[:])
		u.WebSearchRequests = wholeNumber(w[0])
	}
	return u
}

// wholeNumber reads a JSON number's text that is a non-negative whole
// number up to 1e15 (as a float64, the way encoding/json would read it);
// anything else, a string included, is 0.
func wholeNumber(v []byte) int64 {
	if len(v) == 0 || v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return 0
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f < 0 || f > 1e15 || f != math.Trunc(f) {
		return 0
	}
	return int64(f)
}
