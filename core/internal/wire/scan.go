package wire

import (
	"bytes"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// maxScannerName bounds the JSON text of an escaped member name a Scanner
// decodes. Every escape decodes to at least one byte per six, so a longer
// name is over 170 bytes and cannot match a field name of up to 56 bytes
// (see MatchName); it is given as nil.
const maxScannerName = 1 << 10

// Scanner exposes this package's bounded JSON scanner to decoders of other
// bodies (core/internal/anthropic), so that there is one JSON scanner in
// the module. It is a cursor over one body: every value is validated as
// encoding/json would, nesting is limited as encoding/json limits it, and
// nothing is copied unless a caller asks for a string's value.
//
// A method that returns false has set Err; the body is then invalid and
// the caller stops.
type Scanner struct {
	d dec
}

// NewScanner returns a Scanner at the start of body.
func NewScanner(body []byte) *Scanner {
	return &Scanner{d: dec{b: body, nameLimit: maxScannerName}}
}

// Top moves past leading white space to the body's opening brace. A body
// that is not a JSON object is validated, so that Err tells a valid value
// of another kind (NotObject) from a body that is not JSON (NotJSON,
// Broken).
func (s *Scanner) Top() bool { return s.d.bodyIsObject() }

// End checks that only white space follows the value just read.
func (s *Scanner) End() bool { return s.d.end() }

// Err is why the last call returned false, or nil.
func (s *Scanner) Err() *Error { return s.d.err }

// Next is the first byte of the value at the cursor ('{', '[', '"', 'n',
// 't', 'f', '-' or a digit for a valid value). Object and List place the
// cursor on a value before they call back, so it is never past the end
// there.
func (s *Scanner) Next() byte { return s.d.b[s.d.i] }

// Object reads the object at the cursor, calling member once per member,
// in order, with the cursor at the member's value; member must consume the
// value (with Object, List or Skip) and return whether it could. The name
// is valid only during the call: an escaped name is decoded as
// encoding/json decodes it (nil if over 1 KiB of JSON text), any other is
// its raw text, invalid UTF-8 included (which no field name matches).
func (s *Scanner) Object(member func(name []byte) bool) bool { return s.d.object(member) }

// Members is Object for a caller that reads only some members: member is
// called, with the cursor at the value, only for a member whose name
// matches names[k] (by MatchName, the first that does), and must consume
// the value; the others are skipped without a call back. It is the fast
// way through an object of many members. Every name in names must start
// with a lower-case ASCII letter (a quick test on the first byte relies on
// it), and no two may match each other by MatchName (an exact match is
// looked for first).
func (s *Scanner) Members(names []string, member func(k int) bool) bool {
	return s.d.members(names, member)
}

// List reads the list at the cursor, calling elem once per element with
// the cursor at the element; elem must consume it.
func (s *Scanner) List(elem func() bool) bool { return s.d.list(elem) }

// SkipRest, called by List's elem in place of consuming its element,
// validates and passes over that element and the rest of the list, its
// closing bracket included, without calling elem again: List then returns
// true. It is for a list past a limit, whose remaining entries are only
// validated.
func (s *Scanner) SkipRest() bool {
	if !s.d.skipIn([]byte{']'}) {
		return false
	}
	s.d.listDone = true
	return true
}

// Skip validates the value at the cursor, moves past it and returns its
// exact text, a sub-slice of the body.
func (s *Scanner) Skip() ([]byte, bool) {
	start := s.d.i
	if !s.d.skip() {
		return nil, false
	}
	return s.d.b[start:s.d.i], true
}

// Offset is the cursor's byte offset in the body.
func (s *Scanner) Offset() int { return s.d.i }

// Since returns the body's text from offset start (an earlier Offset) to
// the cursor, a sub-slice of the body: e.g. the exact text of a value that
// Object or List has just read.
func (s *Scanner) Since(start int) []byte { return s.d.b[start:s.d.i] }

// MatchName reports whether a member name selects the field named field,
// the way encoding/json matches names to struct fields: an exact match or
// one under Unicode simple case folding.
func MatchName(name []byte, field string) bool { return nameSelects(name, field) }

// StringValue returns the value of a JSON string's text (quotes included)
// that a Scanner has validated, decoded as encoding/json decodes it:
// escapes resolved, invalid UTF-8 and unpaired surrogates replaced with
// U+FFFD. Any other text (another kind of value, or none) is "".
func StringValue(text []byte) string {
	if len(text) < 2 || text[0] != '"' {
		return ""
	}
	raw := text[1 : len(text)-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw)
	}
	return jsonlite.UnescapeString(raw)
}

// list reads the list at d.i, calling elem with d.i at each element.
func (d *dec) list(elem func() bool) bool {
	if !d.open() {
		return false
	}
	if d.skipSpace(); d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		d.depth--
		return true
	}
	for {
		if d.skipSpace(); d.i >= len(d.b) {
			return d.broken()
		}
		if !elem() {
			return false
		}
		if d.listDone {
			d.listDone = false
			return true
		}
		if d.skipSpace(); d.i >= len(d.b) {
			return d.broken()
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			d.depth--
			return true
		default:
			return d.broken()
		}
	}
}

// members is Scanner.Members. It keeps the cursor in a local variable and
// rules names out by their first byte, for the reasons skipIn does.
func (d *dec) members(names []string, member func(k int) bool) bool {
	// first has bit c-'a' set for each lower-case letter c a name in
	// names starts with.
	var first uint32
	for _, f := range names {
		first |= 1 << (f[0] - 'a')
	}
	if !d.open() {
		return false
	}
	b, i := d.b, d.i
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i < len(b) && b[i] == '}' {
		d.i = i + 1
		d.depth--
		return true
	}
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		// A short plain name is read inline; any other by name.
		var name []byte
		plain := false
		if i < len(b) && b[i] == '"' {
			n, end := i+1, min(len(b), i+34)
			for n < end && b[n] != '"' && b[n] != '\\' && b[n] >= 0x20 {
				n++
			}
			if n < end && b[n] == '"' {
				name, i, plain = b[i+1:n], n+1, true
			}
		}
		if !plain {
			var ok bool
			d.i = i
			if name, ok = d.name(); !ok {
				return false
			}
			i = d.i
		}
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) || b[i] != ':' {
			d.i = i
			return d.broken()
		}
		i++
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			d.i = i
			return d.broken()
		}
		// The names start with a lower-case ASCII letter, which only the
		// same letter in either case, or a non-ASCII rune (K, ſ), folds
		// to: the first byte rules most names out without a call.
		k := -1
		if len(name) > 0 {
			c := name[0] | 0x20
			if name[0] >= 0x80 || c >= 'a' && c <= 'z' && first>>(c-'a')&1 != 0 {
				// A name spelled exactly, as fields usually are, is
				// found by its length and first byte without a call to
				// is per name tried; no two names fold together, so
				// it is the first that matches.
				for j, f := range names {
					if len(f) == len(name) && f[0] == name[0] && string(name) == f {
						k = j
						break
					}
				}
				for j := 0; k < 0 && j < len(names); j++ {
					if nameSelects(name, names[j]) {
						k = j
					}
				}
			}
		}
		if k >= 0 {
			d.i = i
			if !member(k) {
				return false
			}
			i = d.i
		} else if e := smallNumber(b, i); e > 0 {
			i = e // the smallest values, read without a call
		} else if e := smallValue(b, i, d.depth < maxDepth); e > 0 {
			i = e
		} else {
			d.i = i
			if !d.skip() {
				return false
			}
			i = d.i
		}
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			d.i = i
			return d.broken()
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			d.i = i + 1
			d.depth--
			return true
		default:
			d.i = i
			return d.broken()
		}
	}
}

// smallNumber returns the offset after the one-digit number at b[i] when
// one is there and followed by a byte that ends it, else 0.
func smallNumber(b []byte, i int) int {
	if i+1 < len(b) && b[i] >= '0' && b[i] <= '9' {
		if n := b[i+1]; n != '.' && n != 'e' && n != 'E' && (n < '0' || n > '9') {
			return i + 1
		}
	}
	return 0
}

// smallValue returns the offset after the small value at b[i] (as in
// smallRun) when it is complete and followed by a byte, else 0.
func smallValue(b []byte, i int, open bool) int {
	if i+1 >= len(b) {
		return 0
	}
	switch c := b[i]; {
	case c == '"':
		n, end := i+1, min(len(b), i+34)
		for n < end && b[n] != '"' && b[n] != '\\' && b[n] >= 0x20 {
			n++
		}
		if n < end && b[n] == '"' {
			return n + 1
		}
	case c == '{' || c == '[':
		if b[i+1] == c+2 && open {
			return i + 2
		}
	case c >= '0' && c <= '9':
		k := i + 1
		if c != '0' {
			for k < len(b) && b[k] >= '0' && b[k] <= '9' {
				k++
			}
		}
		if k < len(b) && b[k] != '.' && b[k] != 'e' && b[k] != 'E' && (b[k] < '0' || b[k] > '9') {
			return k
		}
	case c == 't' || c == 'n':
		if i+4 <= len(b) && (string(b[i:i+4]) == "true" || string(b[i:i+4]) == "null") {
			return i + 4
		}
	case c == 'f':
		if i+5 <= len(b) && string(b[i:i+5]) == "false" {
			return i + 5
		}
	}
	return 0
}
