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
	"errors"
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
	return "more than " + strconv.Itoa(e.Limit) + " " + e.What
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
	// Raw is the block's JSON exactly as received, for a continuation
	// request.
	Raw []byte
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

// errNotList is the error for a "content" that is neither a list nor null.
var errNotList = errors.New(`"content" is not a list`)

// The members read from each kind of object, by their index in these.
var (
	topNames      = []string{"content", "usage", "error", "type", "stop_reason"}
	blockNames    = []string{"citations", "content", "input", "type", "text"}
	usageNames    = []string{"input_tokens", "output_tokens", "server_tool_use"}
	messageName   = []string{"message"}
	errorCodeName = []string{"error_code"}
	queryName     = []string{"query"}
	searchesName  = []string{"web_search_requests"}
	fieldNames    = []string{"type", "url", "title", "cited_text", "page_age"}
)

// Decode decodes a Messages response body. Every error for a body that is
// not a JSON object matches [ErrNotJSON]; a list past its limit is a
// [*LimitError], found before more entries than the limit are held.
//
// It makes one pass over the body: each member is decoded as it is met,
// and a repeated member replaces what the earlier one gave, errors
// included. An error about the content is therefore only returned once
// the whole body has been read (and found to be JSON).
//
// Where it differs from the encoding/json-based decoder it replaced, only
// on bodies that are not JSON: white space around the body is JSON's (the
// old decoder trimmed Unicode spaces such as U+00A0 first, and so took a
// body that is not JSON), and the error for broken JSON names the byte
// offset instead of quoting encoding/json (core reports such a body from
// wire's own classification, so the text never reaches a user).
func Decode(body []byte) (*Response, error) {
	d := decoder{s: wire.NewScanner(body)}
	s := d.s
	if !s.Top() {
		return nil, notJSON(s.Err())
	}
	var typ, stop, message []byte
	var use usageTexts
	var c content
	ok := s.Members(topNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			return d.content(&c)
		case 1:
			use = usageTexts{}
			return d.usage(&use)
		case 2:
			message, ok = d.member(messageName)
		case 3:
			typ, ok = s.Skip()
		case 4:
			stop, ok = s.Skip()
		}
		return ok
	})
	if !ok || !s.End() {
		return nil, notJSON(s.Err())
	}
	switch {
	case c.notList:
		return nil, errNotList
	case c.count > MaxBlocks:
		return nil, &LimitError{What: "content blocks", Limit: MaxBlocks}
	case c.err != nil:
		return nil, c.err
	}
	r := &Response{
		Type:         wire.StringValue(typ),
		StopReason:   wire.StringValue(stop),
		ErrorMessage: wire.StringValue(message),
		Blocks:       c.blocks,
		Usage: Usage{
			InputTokens:       wholeNumber(use.input),
			OutputTokens:      wholeNumber(use.output),
			WebSearchRequests: wholeNumber(use.searches),
		},
	}
	if len(r.Blocks) == 0 {
		r.Blocks = nil
	}
	return r, nil
}

// notJSON is the error for a body the scanner refused.
func notJSON(e *wire.Error) error {
	if e != nil && e.Problem == wire.Broken {
		return &brokenError{offset: e.Offset}
	}
	return ErrNotJSON
}

// brokenError is a body that is not valid JSON; it matches [ErrNotJSON].
type brokenError struct{ offset int }

func (e *brokenError) Error() string {
	return ErrNotJSON.Error() + ": the body is not valid JSON at byte " + strconv.Itoa(e.offset)
}

func (e *brokenError) Unwrap() error { return ErrNotJSON }

// decoder holds the scanner and the scratch space reused from block to
// block.
type decoder struct {
	s *wire.Scanner
	// citations and results are the entries of the block being read.
	citations, results entries
}

// content is what the last "content" member gave.
type content struct {
	blocks []Block
	// count is the number of entries read, up to MaxBlocks+1.
	count int
	// notList: the member is neither a list nor null. err is the first
	// block's error (a list past its limit).
	notList bool
	err     error
}

// content reads a "content" member into c, replacing what c held.
func (d *decoder) content(c *content) bool {
	s := d.s
	*c = content{blocks: c.blocks[:0]}
	if s.Next() != '[' {
		text, ok := s.Skip()
		c.notList = ok && text[0] != 'n' // not null
		return ok
	}
	return s.List(func() bool {
		if c.count++; c.count > MaxBlocks {
			// Refused whatever the blocks hold: the rest is only
			// validated.
			return s.SkipRest()
		}
		if s.Next() != '{' || c.err != nil {
			_, ok := s.Skip()
			return ok
		}
		b, err, ok := d.block()
		if err != nil {
			c.err = err
		} else {
			c.blocks = append(c.blocks, b)
		}
		return ok
	})
}

// block reads the content block at the cursor (an object). err is what is
// wrong with a block that is valid JSON.
func (d *decoder) block() (b Block, err error, ok bool) {
	s := d.s
	var typ, text, query []byte
	// content is the last "content" member's kind: '[' a list (its entries
	// in d.results), '{' an object (its error_code in code), 0 another.
	var content byte
	var code []byte
	d.citations.reset(false)
	d.results.reset(false)
	start := s.Offset()
	ok = s.Members(blockNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			return d.citations.read(s)
		case 1:
			d.results.reset(false)
			content, code = s.Next(), nil
			switch content {
			case '[':
				return d.results.read(s)
			case '{':
				code, ok = d.member(errorCodeName)
				return ok
			}
			content = 0
			_, ok = s.Skip()
		case 2:
			query, ok = d.member(queryName)
		case 3:
			typ, ok = s.Skip()
		case 4:
			text, ok = s.Skip()
		}
		return ok
	})
	if !ok {
		return Block{}, nil, false
	}
	b = Block{Type: wire.StringValue(typ), Raw: s.Since(start)}
	switch b.Type {
	case TypeText:
		if d.citations.over {
			return Block{}, &LimitError{What: "citations in one text block", Limit: MaxListEntries}, true
		}
		b.Text = wire.StringValue(text)
		for _, f := range d.citations.list {
			if t := wire.StringValue(f[fieldType]); t != "" && t != typeCitation {
				continue
			}
			b.Citations = append(b.Citations, Citation{URL: wire.StringValue(f[fieldURL]), Title: wire.StringValue(f[fieldTitle]), CitedText: wire.StringValue(f[fieldCitedText])})
		}
	case TypeWebSearchResult:
		switch content {
		case '[':
			if d.results.over {
				return Block{}, &LimitError{What: "results in one web_search_tool_result", Limit: MaxListEntries}, true
			}
			b.Searched = true
			for _, f := range d.results.list {
				if t := wire.StringValue(f[fieldType]); t != "" && t != typeResultItem {
					continue
				}
				b.Results = append(b.Results, Result{URL: wire.StringValue(f[fieldURL]), Title: wire.StringValue(f[fieldTitle]), PageAge: wire.StringValue(f[fieldPageAge])})
			}
		case '{':
			// An error object; one without a code still failed.
			if b.ErrorCode = wire.StringValue(code); b.ErrorCode == "" {
				b.ErrorCode = "unknown"
			}
		default:
			b.ErrorCode = "unknown"
		}
	case TypeServerToolUse:
		b.Query = wire.StringValue(query)
	}
	return b, nil, true
}

// member returns the text of the last member of the object at the cursor
// named name[0], or nil; any other value is skipped and gives nil.
func (d *decoder) member(name []string) (text []byte, ok bool) {
	s := d.s
	if s.Next() != '{' {
		_, ok = s.Skip()
		return nil, ok
	}
	ok = s.Members(name, func(int) bool {
		text, ok = s.Skip()
		return ok
	})
	return text, ok
}

// Fields kept from the entries of a citations or results list.
const (
	fieldType = iota
	fieldURL
	fieldTitle
	fieldCitedText
	fieldPageAge
	fieldCount
)

// entries are the object entries of a block's citations or results list,
// each as the texts of its fields.
type entries struct {
	list [][fieldCount][]byte
	// isList: the member was a list. over: it had more than
	// MaxListEntries entries.
	isList, over bool
}

func (e *entries) reset(isList bool) {
	e.list, e.isList, e.over = e.list[:0], isList, false
}

// read reads the member at the cursor into e, replacing what e held:
// anything but a list is no entries.
func (e *entries) read(s *wire.Scanner) bool {
	if s.Next() != '[' {
		e.reset(false)
		_, ok := s.Skip()
		return ok
	}
	e.reset(true)
	n := 0
	return s.List(func() bool {
		if n++; n > MaxListEntries {
			e.over, e.list = true, e.list[:0]
			return s.SkipRest()
		}
		if s.Next() != '{' {
			_, ok := s.Skip()
			return ok
		}
		var f [fieldCount][]byte
		ok := s.Members(fieldNames, func(k int) bool {
			var ok bool
			f[k], ok = s.Skip()
			return ok
		})
		e.list = append(e.list, f)
		return ok
	})
}

// usageTexts are the texts of the usage counters.
type usageTexts struct{ input, output, searches []byte }

// usage reads the "usage" member at the cursor into u.
func (d *decoder) usage(u *usageTexts) bool {
	s := d.s
	if s.Next() != '{' {
		_, ok := s.Skip()
		return ok
	}
	return s.Members(usageNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			u.input, ok = s.Skip()
		case 1:
			u.output, ok = s.Skip()
		case 2:
			u.searches, ok = d.member(searchesName)
		}
		return ok
	})
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
