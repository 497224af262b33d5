package wire

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// Limits of the streaming decoders. They bound memory and work by what a
// real answer needs, not by the size of the body.
const (
	// MaxResults is the most entries a search response's results list may
	// have. DeepSeek sends at most 50 (the largest count we ask for); a
	// longer list is an error, detected before the entry past the limit is
	// read.
	MaxResults = 200
	// MaxFieldBytes bounds one string field of a search result, measured
	// as its JSON text: a longer value is treated as missing and skipped
	// without being decoded. The longest summary we keep is 20,000 code
	// points (80 KB at most).
	MaxFieldBytes = 256 << 10
	// MaxTitleBytes bounds a fetched page's title the same way. The content
	// has no bound of its own: it is what was asked for, and the body is
	// already at most 5 MiB.
	MaxTitleBytes = 64 << 10
	// maxDepth is encoding/json's nesting limit: a deeper body is invalid.
	maxDepth = 10000
)

// Problem says what is wrong with a body that could not be decoded.
type Problem uint8

// Problems, in the order a decoder can meet them.
const (
	// NotJSON: the body is empty or does not start like a JSON value.
	NotJSON Problem = iota + 1
	// Broken: the body starts like JSON but is invalid (cut off, or
	// malformed) at Offset.
	Broken
	// NotObject: the body is valid JSON but not an object.
	NotObject
	// ResultsNotList: the search response's "results" is neither a list
	// nor null.
	ResultsNotList
	// TooManyResults: the results list is longer than MaxResults.
	TooManyResults
)

// Error is a decoder's failure: what is wrong and, for Broken, the byte
// offset where the body stops being JSON.
type Error struct {
	Problem Problem
	// Offset is the byte offset of the problem for Broken, else 0.
	Offset int
}

func (e *Error) Error() string {
	switch e.Problem {
	case NotJSON:
		return "not a JSON object: the body is not JSON"
	case Broken:
		return "not a JSON object: the body is not valid JSON at byte " + strconv.Itoa(e.Offset)
	case NotObject:
		return "not a JSON object: the body is JSON of another kind"
	case ResultsNotList:
		return `"results" is not a list`
	case TooManyResults:
		return "more than " + strconv.Itoa(MaxResults) + " results"
	}
	return "malformed body"
}

// Is makes every body that is not a JSON object match [ErrNotJSON].
func (e *Error) Is(target error) bool {
	return target == ErrNotJSON && (e.Problem == NotJSON || e.Problem == Broken || e.Problem == NotObject)
}

// dec is a cursor over one body. Every method that returns false has set
// err; the decoders never read a byte twice except to decode a string they
// keep.
type dec struct {
	b     []byte
	i     int
	depth int // containers open at i
	err   *Error
	key   []byte // scratch for escaped member names
	// listDone is set when SkipRest has passed over the rest of the list
	// being read, its bracket included.
	listDone bool
	// nameLimit bounds the JSON text of an escaped member name that is
	// decoded; 0 means 64, enough for the fields this package reads.
	nameLimit int
	// pk gathers DecodeSearch's strings.
	pk *pack
	// ascii is set by scanString: the string read has no byte over 0x7f
	// (so it is valid UTF-8 without a second look).
	ascii bool
}

func (d *dec) broken() bool {
	if d.err == nil {
		d.err = &Error{Problem: Broken, Offset: d.i}
	}
	return false
}

// skipSpace moves d.i past JSON white space.
func (d *dec) skipSpace() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// bodyIsObject reports whether the body is a JSON object, and positions d
// at its opening brace. A body of another kind is validated, so that a
// valid non-object and invalid JSON are told apart.
func (d *dec) bodyIsObject() bool {
	d.skipSpace()
	if d.i == len(d.b) || !startsValue(d.b[d.i]) {
		d.err = &Error{Problem: NotJSON}
		return false
	}
	if d.b[d.i] == '{' {
		return true
	}
	scalar := d.b[d.i] != '['
	if !d.skip() {
		if scalar {
			// "not json", "nul", "-x": not JSON, rather than JSON cut short.
			d.err = &Error{Problem: NotJSON}
		}
		return false
	}
	if d.skipSpace(); d.i != len(d.b) {
		return d.broken()
	}
	d.err = &Error{Problem: NotObject}
	return false
}

// end checks that only white space follows the top-level value.
func (d *dec) end() bool {
	if d.skipSpace(); d.i != len(d.b) {
		return d.broken()
	}
	return true
}

func startsValue(c byte) bool {
	switch c {
	case '{', '[', '"', '-', 't', 'f', 'n':
		return true
	}
	return c >= '0' && c <= '9'
}

// open enters a container at d.i.
func (d *dec) open() bool {
	d.i++
	d.depth++
	if d.depth > maxDepth {
		d.i--
		return d.broken()
	}
	return true
}

// object reads the object at d.i, calling member for each member with d.i
// at the start of its value; member must consume the value. The member
// name is its raw text when it has no escapes, else decoded (into scratch
// space reused by the next call).
func (d *dec) object(member func(name []byte) bool) bool {
	if !d.open() {
		return false
	}
	d.skipSpace()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		return true
	}
	for {
		d.skipSpace()
		name, ok := d.name()
		if !ok {
			return false
		}
		if d.skipSpace(); d.i >= len(d.b) || d.b[d.i] != ':' {
			return d.broken()
		}
		d.i++
		if d.skipSpace(); d.i >= len(d.b) {
			return d.broken()
		}
		if !member(name) {
			return false
		}
		if d.skipSpace(); d.i >= len(d.b) {
			return d.broken()
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			d.depth--
			return true
		default:
			return d.broken()
		}
	}
}

// name reads a member name. Names longer than any field we read are
// validated but not decoded.
func (d *dec) name() ([]byte, bool) {
	start := d.i
	end, escaped, ok := d.scanString()
	if !ok {
		return nil, false
	}
	raw := d.b[start+1 : end-1]
	if !escaped {
		return raw, true
	}
	if limit := d.nameLimit; len(raw) > 64 && (limit == 0 || len(raw) > limit) {
		return nil, true
	}
	d.key = append(d.key[:0], jsonlite.UnescapeString(raw)...)
	return d.key, true
}

// scanString validates the string at d.i and moves past it. It returns the
// offset after the closing quote and whether the string has escapes.
func (d *dec) scanString() (end int, escaped, ok bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return 0, false, d.broken()
	}
	i := d.i + 1
	var high uint64 // the bytes read, or-ed: their high bit says non-ASCII
	for i < len(d.b) {
		// Eight plain bytes at a time: no quote, backslash or control.
		for i+8 <= len(d.b) {
			x := ascii.Load8(d.b[i:])
			if !noQuoteBackslashOrControl(x) {
				break
			}
			high |= x
			i += 8
		}
		if i >= len(d.b) {
			break
		}
		c := d.b[i]
		switch {
		case c == '"':
			d.i = i + 1
			d.ascii = high&0x8080808080808080 == 0
			return d.i, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(d.b) {
				d.i = len(d.b)
				return 0, false, d.broken()
			}
			switch d.b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := 2; k < 6; k++ {
					if i+k >= len(d.b) {
						d.i = len(d.b)
						return 0, false, d.broken()
					}
					if !ascii.IsHex(d.b[i+k]) {
						d.i = i + k
						return 0, false, d.broken()
					}
				}
				i += 6
			default:
				d.i = i + 1
				return 0, false, d.broken()
			}
		case c < 0x20:
			d.i = i
			return 0, false, d.broken()
		default:
			high |= uint64(c)
			i++
		}
	}
	d.i = len(d.b)
	return 0, false, d.broken()
}

// noQuoteBackslashOrControl reports whether none of the eight bytes in x
// is a quote, a backslash or a control character (below 0x20): the bytes
// a string scan must stop at. SWAR: a byte b is flagged when b < 0x20, b == '"' or
// b == '\\'; the tests have no false negatives.
func noQuoteBackslashOrControl(x uint64) bool {
	return ascii.BelowByteMask(x, 0x20)|ascii.ZeroByteMask(x^ascii.Ones*'"')|ascii.ZeroByteMask(x^ascii.Ones*'\\') == 0
}

// stringUpTo reads the string at d.i and returns its value, or "" with kept
// false when its JSON text is longer than limit bytes (the value is then
// not decoded at all).
func (d *dec) stringUpTo(limit int) (s string, kept, ok bool) {
	start := d.i
	end, escaped, ok := d.scanString()
	if !ok {
		return "", false, false
	}
	raw := d.b[start+1 : end-1]
	if len(raw) > limit {
		return "", false, true
	}
	if !escaped && (d.ascii || utf8.Valid(raw)) {
		return string(raw), true, true
	}
	return jsonlite.UnescapeString(raw), true, true
}

// number validates the number at d.i (JSON grammar) and returns its text.
func (d *dec) number() ([]byte, bool) {
	start := d.i
	b := d.b
	i := d.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		d.i = i
		return nil, d.broken()
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			d.i = i
			return nil, d.broken()
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			d.i = i
			return nil, d.broken()
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	d.i = i
	return b[start:i], true
}

// literal reads true, false or null.
func (d *dec) literal() bool {
	for _, lit := range [...]string{"true", "false", "null"} {
		if d.b[d.i] != lit[0] {
			continue
		}
		k := 1
		for k < len(lit) && d.i+k < len(d.b) && d.b[d.i+k] == lit[k] {
			k++
		}
		d.i += k
		if k < len(lit) {
			return d.broken()
		}
		return true
	}
	return d.broken()
}

// isNull reports whether the value at d.i is the literal null.
func (d *dec) isNull() bool { return bytes.HasPrefix(d.b[d.i:], []byte("null")) }

// skip validates and passes over one value of any kind without keeping
// anything. It is iterative, so deep nesting costs a byte per level (up to
// encoding/json's limit), not a stack frame.
func (d *dec) skip() bool { return d.skipIn(nil) }

// skipIn is skip, or, given the closers of containers already open (their
// innermost last) and d.i at a value inside them, passes over that value
// and the rest of those containers, their closers included.
//
// It keeps the cursor in a local variable and reads short plain strings
// inline: under WebAssembly, a load of d.i or a call per token adds up on
// long runs of tiny values such as a 5 MiB list of empty objects
// (BenchmarkWorstBodies in tests/ prints what such bodies cost).
func (d *dec) skipIn(stack []byte) bool {
	b, i := d.b, d.i
	for {
		// A value is expected at i.
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			d.i = i
			return d.broken()
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if d.depth == maxDepth {
				d.i = i
				return d.broken()
			}
			d.depth++
			i++
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			for i < len(b) && isSpace(b[i]) {
				i++
			}
			if i < len(b) && b[i] == closer {
				i++
				d.depth--
				break
			}
			stack = append(stack, closer)
			// Small first entries are read inline, as later ones are.
			if e := d.smallRun(i, c == '{', true); e != i {
				i = e
				goto after
			}
			if c == '{' {
				var ok bool
				if i, ok = d.skipName(i); !ok {
					return false
				}
			}
			continue
		case c == '"':
			if e := shortString(b, i); e > 0 {
				i = e
				break
			}
			d.i = i
			if _, _, ok := d.scanString(); !ok {
				return false
			}
			i = d.i
		case c == '-' || c >= '0' && c <= '9':
			d.i = i
			if _, ok := d.number(); !ok {
				return false
			}
			i = d.i
		default:
			d.i = i
			if !d.literal() {
				return false
			}
			i = d.i
		}
		// After a value: close containers or move to the next element.
	after:
		for {
			if len(stack) == 0 {
				d.i = i
				return true
			}
			for i < len(b) && isSpace(b[i]) {
				i++
			}
			if i >= len(b) {
				d.i = i
				return d.broken()
			}
			closer := stack[len(stack)-1]
			i = d.smallRun(i, closer == '}', false)
			if i >= len(b) {
				d.i = i
				return d.broken()
			}
			if c := b[i]; c == ',' {
				i++
				if closer == '}' {
					var ok bool
					if i, ok = d.skipName(i); !ok {
						return false
					}
				}
				break
			} else if c != closer {
				d.i = i
				return d.broken()
			}
			i++
			d.depth--
			stack = stack[:len(stack)-1]
		}
	}
}

// smallRun passes over a run of list elements (members false) or object
// members (members true) from offset i: each a comma (but the first, with
// first, which is just inside the bracket), for a member a short plain
// name and a colon, and a small value: an empty object or list, a whole
// number, true, false, null or a short plain string, with no white space
// between. It returns the offset of the first entry it leaves to skipIn
// (i when there is none). Runs of the smallest values cost a body the most
// per byte; this loop reads them at a few branches each, without a call
// (calls are dear in WebAssembly).
func (d *dec) smallRun(i int, members, first bool) int {
	b := d.b
	open := d.depth < maxDepth // an empty container is one level more
	for {
		k := i
		if !first {
			if i >= len(b) || b[i] != ',' {
				return i
			}
			k++
		}
		first = false
		if members {
			// The name: shortString, written out (a call each costs).
			if k >= len(b) || b[k] != '"' {
				return i
			}
			n, end := k+1, min(len(b), k+34)
			for n < end && b[n] != '"' && b[n] != '\\' && b[n] >= 0x20 {
				n++
			}
			if n+1 >= len(b) || b[n] != '"' || b[n+1] != ':' {
				return i
			}
			k = n + 2
		}
		if k+1 >= len(b) {
			return i
		}
		switch c := b[k]; {
		case c == '"':
			n, end := k+1, min(len(b), k+34)
			for n < end && b[n] != '"' && b[n] != '\\' && b[n] >= 0x20 {
				n++
			}
			if n >= end || b[n] != '"' {
				return i
			}
			k = n + 1
		case c == '{' || c == '[':
			if b[k+1] != c+2 || !open { // '{'+2 == '}', '['+2 == ']'
				return i
			}
			k += 2
		case c >= '0' && c <= '9':
			k++
			if c != '0' {
				for k < len(b) && b[k] >= '0' && b[k] <= '9' {
					k++
				}
			}
			if k >= len(b) {
				return i
			}
			if n := b[k]; n == '.' || n == 'e' || n == 'E' || n >= '0' && n <= '9' {
				return i
			}
		case c == 't' || c == 'n':
			if k+4 > len(b) || string(b[k:k+4]) != "true" && string(b[k:k+4]) != "null" {
				return i
			}
			k += 4
		case c == 'f':
			if k+5 > len(b) || string(b[k:k+5]) != "false" {
				return i
			}
			k += 5
		default:
			return i
		}
		i = k
	}
}

// skipName passes over `"name":` inside a skipped object, from offset i;
// it returns the offset after the colon.
func (d *dec) skipName(i int) (int, bool) {
	b := d.b
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if e := shortString(b, i); e > 0 {
		i = e
	} else {
		d.i = i
		if _, _, ok := d.scanString(); !ok {
			return 0, false
		}
		i = d.i
	}
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i >= len(b) || b[i] != ':' {
		d.i = i
		return 0, d.broken()
	}
	return i + 1, true
}

// shortString returns the offset after the string at b[i] when it is
// short (up to 32 bytes), has no escape or control character and is
// closed; else 0, and scanString reads it.
func shortString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return 0
	}
	k, end := i+1, min(len(b), i+34)
	for k+8 <= end && noQuoteBackslashOrControl(ascii.Load8(b[k:])) {
		k += 8
	}
	for ; k < end; k++ {
		switch c := b[k]; {
		case c == '"':
			return k + 1
		case c == '\\' || c < 0x20:
			return 0
		}
	}
	return 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// nameSelects reports whether a member name selects field, matching as
// encoding/json does (Unicode case folding, as jsonlite.EqualFold matches
// the envelopes' names); a name shorter than field, or over three times its
// length, never does.
func nameSelects(name []byte, field string) bool {
	return len(name) >= len(field) && len(name) <= 3*len(field) && jsonlite.EqualFold(name, field)
}

// DecodeSearch decodes {"results": [...]} in one pass over body. A missing
// or null results field is an empty list; a results field that is neither
// is an error; entries that are not objects are skipped; fields that are
// missing, null, of another type or longer than MaxFieldBytes are zero. A
// member given twice counts as the last one given, as in encoding/json.
// Every error is an [*Error].
//
// The items' short strings share one allocation (see pack).
func DecodeSearch(body []byte) ([]SearchItem, error) {
	d := &dec{b: body, pk: &pack{}}
	if !d.bodyIsObject() {
		return nil, d.err
	}
	var items []SearchItem
	notList := false
	ok := d.object(func(name []byte) bool {
		if !nameSelects(name, "results") {
			return d.skip()
		}
		items, notList = nil, false
		d.pk.reset() // a list given before is dropped
		switch {
		case d.b[d.i] == '[':
			var ok bool
			items, ok = d.results()
			return ok
		case d.isNull():
			d.i += 4
			return true
		}
		notList = true
		return d.skip()
	})
	if !ok || !d.end() {
		return nil, d.err
	}
	if notList {
		return nil, &Error{Problem: ResultsNotList}
	}
	d.pk.fill(items)
	return items, nil
}

// results reads the results list at d.i.
func (d *dec) results() ([]SearchItem, bool) {
	if !d.open() {
		return nil, false
	}
	items := make([]SearchItem, 0, 10) // DeepSeek's usual count
	if d.skipSpace(); d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		d.depth--
		return items, true
	}
	for n := 1; ; n++ {
		if n > MaxResults {
			d.err = &Error{Problem: TooManyResults}
			return nil, false
		}
		if d.skipSpace(); d.i >= len(d.b) {
			return nil, d.broken()
		}
		if d.b[d.i] == '{' {
			it, ok := d.item(len(items))
			if !ok {
				return nil, false
			}
			items = append(items, it)
		} else if !d.skip() {
			return nil, false
		}
		if d.skipSpace(); d.i >= len(d.b) {
			return nil, d.broken()
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			d.depth--
			return items, true
		default:
			return nil, d.broken()
		}
	}
}

// itemNames are the members of a result object item reads, in the order
// it tries them: string fields in SearchItem's order (see field), then the
// two scores.
var itemNames = []string{"url", "title", "snippet", "summary", "date", "site_name", "rerank_score", "authority"}

// item reads one result object, the n-th of the list. It goes through
// members, which reads short plain names inline and rules most out by
// their first byte, rather than object, which read each name with
// scanString and tried the eight names in turn.
func (d *dec) item(n int) (SearchItem, bool) {
	var it SearchItem
	slots := [itemStrings]int32{-1, -1, -1, -1, -1, -1}
	ok := d.members(itemNames, func(k int) bool {
		switch k {
		case 6:
			return d.float(&it.Rerank, &it.HasRerank)
		case 7:
			return d.float(&it.Authority, &it.HasAuthority)
		}
		return d.packedField(it.field(k), n, k, &slots[k])
	})
	return it, ok
}

// itemStrings is the number of string fields of a SearchItem.
const itemStrings = 6

// field returns the item's k-th string field, in the order of the struct.
func (it *SearchItem) field(k int) *string {
	switch k {
	case 0:
		return &it.URL
	case 1:
		return &it.Title
	case 2:
		return &it.Snippet
	case 3:
		return &it.Summary
	case 4:
		return &it.Date
	}
	return &it.SiteName
}

// packLimit bounds the decoded text of a search body's strings that share
// one allocation; longer ones get their own. It bounds how much a kept
// result's strings can hold alive beyond themselves.
const packLimit = 16 << 10

// pack gathers the decoded text of a search body's result strings, as
// long as they fit in packLimit, so that they become slices of one string
// (fill) rather than an allocation each: a ten-result body had sixty, and
// allocating is dear in WebAssembly.
type pack struct {
	buf   strings.Builder
	spans []span
}

// span places a string field's text in pack.buf.
type span struct {
	item       int32
	field      int8 // -1: the member was given again, this text is unused
	start, end int32
}

func (p *pack) reset() {
	p.buf.Reset()
	p.spans = p.spans[:0]
}

// fill sets the packed fields of items.
func (p *pack) fill(items []SearchItem) {
	if len(p.spans) == 0 {
		return
	}
	s := p.buf.String()
	for _, sp := range p.spans {
		if sp.field >= 0 {
			*items[sp.item].field(int(sp.field)) = s[sp.start:sp.end]
		}
	}
}

// packedField is stringField for the k-th string field of the n-th
// result: the value goes to the pack when it fits. *slot is the field's
// span in the pack, or -1; a member given again unsets it, so that the last
// one given counts, as in stringField.
func (d *dec) packedField(f *string, n, k int, slot *int32) bool {
	if *slot >= 0 {
		d.pk.spans[*slot].field = -1
		*slot = -1
	}
	*f = ""
	if d.b[d.i] != '"' {
		return d.skip()
	}
	start := d.i
	end, escaped, ok := d.scanString()
	if !ok {
		return false
	}
	raw := d.b[start+1 : end-1]
	if len(raw) > MaxFieldBytes {
		return true
	}
	p := d.pk
	if p.buf.Len()+len(raw) > packLimit {
		if !escaped && (d.ascii || utf8.Valid(raw)) {
			*f = string(raw)
		} else {
			*f = jsonlite.UnescapeString(raw)
		}
		return true
	}
	if p.spans == nil {
		p.buf.Grow(min(len(d.b), packLimit))
		p.spans = make([]span, 0, 64)
	}
	from := p.buf.Len()
	if !escaped && (d.ascii || utf8.Valid(raw)) {
		p.buf.Write(raw)
	} else {
		jsonlite.Unescape(&p.buf, raw)
	}
	*slot = int32(len(p.spans))
	p.spans = append(p.spans, span{item: int32(n), field: int8(k), start: int32(from), end: int32(p.buf.Len())})
	return true
}

// stringField sets *f to the string at d.i, or to "" for any other value
// or a string over limit.
func (d *dec) stringField(f *string, limit int) bool {
	*f = ""
	if d.b[d.i] != '"' {
		return d.skip()
	}
	s, _, ok := d.stringUpTo(limit)
	*f = s
	return ok
}

// float sets *f to the number at d.i, also when it is written as a string;
// anything else (a number out of float64 range, or one whose text is over
// MaxFieldBytes) leaves it missing.
func (d *dec) float(f *float64, has *bool) bool {
	*f, *has = 0, false
	switch c := d.b[d.i]; {
	case c == '-' || c >= '0' && c <= '9':
		raw, ok := d.number()
		if !ok {
			return false
		}
		if len(raw) > MaxFieldBytes {
			return true // like a string over the limit: missing
		}
		if v, err := strconv.ParseFloat(string(raw), 64); err == nil {
			*f, *has = v, true
		}
		return true
	case c == '"':
		s, _, ok := d.stringUpTo(MaxFieldBytes)
		if !ok {
			return false
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !isNaNOrInf(v) {
			*f, *has = v, true
		}
		return true
	}
	return d.skip()
}

// DecodeFetch decodes {"title", "content"} in one pass over body, with the
// same leniency as DecodeSearch; a title longer than MaxTitleBytes is
// missing. Every error is an [*Error].
func DecodeFetch(body []byte) (FetchPage, error) {
	d := &dec{b: body}
	if !d.bodyIsObject() {
		return FetchPage{}, d.err
	}
	var p FetchPage
	ok := d.object(func(name []byte) bool {
		switch {
		case nameSelects(name, "title"):
			return d.stringField(&p.Title, MaxTitleBytes)
		case nameSelects(name, "content"):
			return d.stringField(&p.Content, len(d.b))
		}
		return d.skip()
	})
	if !ok || !d.end() {
		return FetchPage{}, d.err
	}
	return p, nil
}
