package jsonlite

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
)

// The decoder accepts exactly what json.Unmarshal accepts and produces the
// same values (field names are the callers' to match: encoding/json matches
// struct fields case-insensitively and map keys exactly; null leaves a
// value unset; invalid UTF-8 in strings becomes U+FFFD). Its error
// messages are its own.

// DecodeObject decodes one JSON value that must be an object (or null, which
// sets nothing), calling field for each member, and refuses trailing data.
func DecodeObject(data []byte, field func(d *Decoder, key string) error) error {
	d := &Decoder{data: data}
	return d.Members(func(name []byte) error { return field(d, string(name)) })
}

// maxDepth bounds nesting in skipped and raw values (encoding/json allows 10,000).
const maxDepth = 10000

// Decoder reads JSON values from a byte slice; DecodeObject hands it to
// each member's callback, which must consume the value.
type Decoder struct {
	data  []byte
	pos   int
	depth int
}

func (d *Decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *Decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *Decoder) syntax(where string) error {
	if d.pos >= len(d.data) {
		return errors.New("unexpected end of JSON input")
	}
	return errors.New("invalid character " + strconv.QuoteRune(rune(d.data[d.pos])) + " at offset " + strconv.Itoa(d.pos) + " " + where)
}

// Null consumes a null literal (after whitespace) and reports whether there was one.
func (d *Decoder) Null() bool {
	d.space()
	if strings.HasPrefix(string(d.data[d.pos:min(d.pos+4, len(d.data))]), "null") {
		d.pos += 4
		return true
	}
	return false
}

// Object decodes an object, calling field with each member's name; field
// must consume the value.
func (d *Decoder) Object(field func(d *Decoder, key string) error) error {
	return d.ObjectMembers(func(name []byte) error { return field(d, string(name)) })
}

// Members and ObjectMembers decode an object as DecodeObject and Object
// do, for the decoders that run on every call into the module: they hand
// field the member's name as bytes (a slice of the data when it has no
// escape, else a decoded copy; compare it with [EqualFold]), not as a new
// string, and no Decoder, so that the one the caller holds (field's
// closure consumes each value through it) stays on the stack. Through
// DecodeObject a five-member envelope cost six allocations before any
// value.

// NewDecoder returns a Decoder of data, for Members.
func NewDecoder(data []byte) Decoder { return Decoder{data: data} }

// Members decodes d's data as DecodeObject does: one object (or null,
// which sets nothing) and nothing after it.
func (d *Decoder) Members(field func(name []byte) error) error {
	d.space()
	if !d.Null() {
		if d.peek() != '{' {
			if err := d.Skip(); err != nil {
				return err
			}
			return errors.New("the value is not an object")
		}
		if err := d.ObjectMembers(field); err != nil {
			return err
		}
	}
	d.space()
	if d.pos < len(d.data) {
		return d.syntax("after the top-level value")
	}
	return nil
}

// ObjectMembers decodes an object as Object does, calling field with each
// member's name; field must consume the value through d.
func (d *Decoder) ObjectMembers(field func(name []byte) error) error {
	if err := d.openObject(); err != nil {
		return err
	}
	for i := 0; ; i++ {
		name, plain, ok, err := d.member(i)
		if !ok || err != nil {
			return err
		}
		if !plain {
			name = []byte(UnescapeString(name))
		}
		if err := field(name); err != nil {
			return err
		}
	}
}

// openObject consumes an object's opening brace (after white space), for a
// loop of member calls.
func (d *Decoder) openObject() error {
	d.space()
	if d.peek() != '{' {
		return d.syntax("looking for an object")
	}
	d.pos++
	if d.depth++; d.depth > maxDepth {
		return errors.New("exceeded max depth")
	}
	return nil
}

// member reads the next member name of the object openObject opened, and
// its colon; i is the number of members read before. ok is false when the
// object ends (its closing brace is consumed). raw is the name's text as
// written; plain says that it needs no decoding.
func (d *Decoder) member(i int) (raw []byte, plain, ok bool, err error) {
	d.space()
	switch c := d.peek(); {
	case c == '}':
		d.pos++
		d.depth--
		return nil, false, false, nil
	case i == 0:
	case c == ',':
		d.pos++
		d.space()
	default:
		return nil, false, false, d.syntax("after a member value")
	}
	if d.peek() != '"' {
		return nil, false, false, d.syntax("looking for a member name")
	}
	if raw, plain, err = d.scanString(); err != nil {
		return nil, false, false, err
	}
	d.space()
	if d.peek() != ':' {
		return nil, false, false, d.syntax("after a member name")
	}
	d.pos++
	d.space()
	return raw, plain, true, nil
}

// EqualFold reports whether a member name matches a struct field's name
// as encoding/json matches them: strings.EqualFold, without converting
// the name, and with ASCII compared in place.
func EqualFold(name []byte, field string) bool {
	if len(name) != len(field) {
		// Only non-ASCII folds across lengths (KELVIN SIGN is k).
		if isASCII(name) && isASCII(field) {
			return false
		}
		return strings.EqualFold(string(name), field)
	}
	for i, c := range name {
		f := field[i]
		switch {
		case c|f >= utf8.RuneSelf:
			// Up to here both were ASCII, one rune a byte: the runes are
			// aligned, and the rest is strings.EqualFold's.
			return strings.EqualFold(string(name[i:]), field[i:])
		case c == f:
		case c|0x20 != f|0x20 || c|0x20 < 'a' || c|0x20 > 'z':
			return false
		}
	}
	return true
}

func isASCII[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// StringBytes decodes a string as String does, returning it as bytes
// rather than a new string: the text itself when it has no escape and is
// ASCII (a slice of the data), else a decoded copy. null is false, leaving
// the value unset.
func (d *Decoder) StringBytes() (v []byte, ok bool, err error) {
	raw, plain, ok, err := d.stringRaw()
	if ok && !plain {
		raw = []byte(UnescapeString(raw))
	}
	return raw, ok, err
}

// String decodes a string (null leaves *s as it is).
func (d *Decoder) String(s *string) error {
	raw, plain, ok, err := d.stringRaw()
	switch {
	case !ok:
	case plain:
		*s = string(raw)
	default:
		*s = UnescapeString(raw)
	}
	return err
}

// stringRaw reads a string's text as scanString does; ok is false for null
// and on error.
func (d *Decoder) stringRaw() (raw []byte, plain, ok bool, err error) {
	if d.Null() {
		return nil, false, false, nil
	}
	if d.peek() != '"' {
		if err := d.Skip(); err != nil {
			return nil, false, false, err
		}
		return nil, false, false, errors.New("a string was expected")
	}
	if raw, plain, err = d.scanString(); err != nil {
		return nil, false, false, err
	}
	return raw, plain, true, nil
}

// Int decodes an integer that fits an int (null leaves *n as it is).
func (d *Decoder) Int(n *int) error {
	v, ok, err := d.signed(strconv.IntSize)
	if ok {
		*n = int(v)
	}
	return err
}

// Int64 decodes an integer that fits an int64 (null leaves *n as it is).
func (d *Decoder) Int64(n *int64) error {
	v, ok, err := d.signed(64)
	if ok {
		*n = v
	}
	return err
}

// Uint32 decodes an integer that fits a uint32 (null leaves *n as it is).
func (d *Decoder) Uint32(n *uint32) error {
	lit, err := d.numeral()
	if lit == nil || err != nil {
		return err
	}
	v, err := strconv.ParseUint(string(lit), 10, 32)
	if err != nil {
		return notInteger(lit)
	}
	*n = uint32(v)
	return nil
}

// signed decodes an integer of the given size; ok is false for null and
// on error. The numeral is parsed where it lies: strconv does not keep
// the text, so the conversion to string needs no allocation (through a
// callback, as before, it cost one per number).
func (d *Decoder) signed(bits int) (v int64, ok bool, err error) {
	lit, err := d.numeral()
	if lit == nil || err != nil {
		return 0, false, err
	}
	if v, err = strconv.ParseInt(string(lit), 10, bits); err != nil {
		return 0, false, notInteger(lit)
	}
	return v, true, nil
}

func notInteger(lit []byte) error {
	return errors.New("the number " + string(lit) + " is not an integer of this size")
}

// numeral consumes a number and returns its text, or nil for null.
func (d *Decoder) numeral() ([]byte, error) {
	if d.Null() {
		return nil, nil
	}
	start := d.pos
	if err := d.Skip(); err != nil {
		return nil, err
	}
	lit := d.data[start:d.pos]
	if c := lit[0]; c != '-' && (c < '0' || c > '9') {
		return nil, errors.New("a number was expected")
	}
	return lit, nil
}

// Array decodes an array, calling elem with each element's index; elem
// must consume the value.
func (d *Decoder) Array(elem func(d *Decoder, i int) error) error {
	if err := d.openArray(); err != nil {
		return err
	}
	for i := 0; ; i++ {
		if ok, err := d.element(i); !ok || err != nil {
			return err
		}
		if err := elem(d, i); err != nil {
			return err
		}
	}
}

// openArray consumes an array's opening bracket (after white space), for
// a loop of element calls, as openObject does for member calls.
func (d *Decoder) openArray() error {
	d.space()
	if d.peek() != '[' {
		return d.syntax("looking for an array")
	}
	d.pos++
	if d.depth++; d.depth > maxDepth {
		return errors.New("exceeded max depth")
	}
	return nil
}

// element moves to the next element of the array openArray opened; i is
// the number of elements read before. ok is false when the array ends (its
// closing bracket is consumed).
func (d *Decoder) element(i int) (ok bool, err error) {
	d.space()
	switch c := d.peek(); {
	case c == ']':
		d.pos++
		d.depth--
		return false, nil
	case i == 0:
	case c == ',':
		d.pos++
		d.space()
	default:
		return false, d.syntax("after an array element")
	}
	return true, nil
}

// Raw returns the next value's text, validated.
func (d *Decoder) Raw() ([]byte, error) {
	start := d.pos
	if err := d.Skip(); err != nil {
		return nil, err
	}
	return d.data[start:d.pos:d.pos], nil
}

// Skip consumes and validates one value.
func (d *Decoder) Skip() error {
	d.space()
	switch c := d.peek(); {
	case c == '{':
		// Member by member rather than through Object: a callback would
		// make every Decoder escape to the heap, and names need no decoding.
		if err := d.openObject(); err != nil {
			return err
		}
		for i := 0; ; i++ {
			_, _, ok, err := d.member(i)
			if !ok || err != nil {
				return err
			}
			if err := d.Skip(); err != nil {
				return err
			}
		}
	case c == '[':
		if err := d.openArray(); err != nil {
			return err
		}
		for i := 0; ; i++ {
			if ok, err := d.element(i); !ok || err != nil {
				return err
			}
			if err := d.Skip(); err != nil {
				return err
			}
		}
	case c == '"':
		_, err := d.stringValue()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	}
	return d.syntax("looking for the beginning of a value")
}

func (d *Decoder) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if d.pos >= len(d.data) || d.data[d.pos] != word[i] {
			return d.syntax("in a literal")
		}
		d.pos++
	}
	return nil
}

// number consumes a number in JSON's grammar.
func (d *Decoder) number() error {
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.peek() == '-' {
		d.pos++
	}
	switch c := d.peek(); {
	case c == '0':
		d.pos++
	case c >= '1' && c <= '9':
		digits()
	default:
		return d.syntax("in a number")
	}
	if d.peek() == '.' {
		d.pos++
		if digits() == 0 {
			return d.syntax("after a decimal point")
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.pos++
		if c := d.peek(); c == '+' || c == '-' {
			d.pos++
		}
		if digits() == 0 {
			return d.syntax("in an exponent")
		}
	}
	return nil
}

// stringValue decodes a string starting at its opening quote.
func (d *Decoder) stringValue() (string, error) {
	raw, plain, err := d.scanString()
	if err != nil || plain {
		return string(raw), err
	}
	return UnescapeString(raw), nil
}

// scanString reads a string starting at its opening quote: one pass checks
// it (encoding/json's grammar: no control byte, every escape well formed)
// and finds its end. raw is the text between the quotes; plain reports that
// it has no escape and only ASCII, so that it is the value itself
// (UnescapeString decodes the others).
func (d *Decoder) scanString() (raw []byte, plain bool, err error) {
	d.pos++ // the quote
	start := d.pos
	plain = true
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			raw := d.data[start:d.pos]
			d.pos++
			return raw, plain, nil
		case c < 0x20:
			return nil, false, d.syntax("in a string")
		case c == '\\':
			plain = false
			d.pos++
			if d.pos >= len(d.data) {
				return nil, false, d.syntax("in an escape")
			}
			switch d.data[d.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos++
			case 'u':
				d.pos++
				for k := 0; k < 4; k++ {
					if d.pos+k >= len(d.data) || !ascii.IsHex(d.data[d.pos+k]) {
						return nil, false, d.syntax(`in a \u escape`) // at the escape's first digit
					}
				}
				d.pos += 4
			default:
				return nil, false, d.syntax("in an escape")
			}
		default:
			if c >= utf8.RuneSelf {
				plain = false
			}
			d.pos++
		}
	}
	return nil, false, d.syntax("in a string")
}

// Unquote decodes raw, one JSON value with optional white space around
// it, as a string; ok is false when it is not a string (or not JSON), where
// json.Unmarshal into a string fails too (null aside, which it accepts and
// Unquote does not).
func Unquote(raw []byte) (s string, ok bool) {
	d := &Decoder{data: raw}
	d.space()
	if d.peek() != '"' {
		return "", false
	}
	s, err := d.stringValue()
	if err != nil {
		return "", false
	}
	d.space()
	return s, d.pos == len(d.data)
}
