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
	d.space()
	if !d.Null() {
		if d.peek() != '{' {
			if err := d.Skip(); err != nil {
				return err
			}
			return errors.New("the value is not an object")
		}
		if err := d.Object(field); err != nil {
			return err
		}
	}
	d.space()
	if d.pos < len(d.data) {
		return d.syntax("after the top-level value")
	}
	return nil
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
	d.space()
	if d.peek() != '{' {
		return d.syntax("looking for an object")
	}
	d.pos++
	if d.depth++; d.depth > maxDepth {
		return errors.New("exceeded max depth")
	}
	defer func() { d.depth-- }()
	d.space()
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	for {
		d.space()
		if d.peek() != '"' {
			return d.syntax("looking for a member name")
		}
		key, err := d.stringValue()
		if err != nil {
			return err
		}
		d.space()
		if d.peek() != ':' {
			return d.syntax("after a member name")
		}
		d.pos++
		d.space()
		if err := field(d, key); err != nil {
			return err
		}
		d.space()
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.syntax("after a member value")
		}
	}
}

// String decodes a string (null leaves *s as it is).
func (d *Decoder) String(s *string) error {
	if d.Null() {
		return nil
	}
	if d.peek() != '"' {
		if err := d.Skip(); err != nil {
			return err
		}
		return errors.New("a string was expected")
	}
	v, err := d.stringValue()
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Int decodes an integer that fits an int (null leaves *n as it is).
func (d *Decoder) Int(n *int) error {
	return integer(d, n, func(lit string) (int, error) {
		v, err := strconv.ParseInt(lit, 10, strconv.IntSize)
		return int(v), err
	})
}

// Int64 decodes an integer that fits an int64 (null leaves *n as it is).
func (d *Decoder) Int64(n *int64) error {
	return integer(d, n, func(lit string) (int64, error) { return strconv.ParseInt(lit, 10, 64) })
}

// Uint32 decodes an integer that fits a uint32 (null leaves *n as it is).
func (d *Decoder) Uint32(n *uint32) error {
	return integer(d, n, func(lit string) (uint32, error) {
		v, err := strconv.ParseUint(lit, 10, 32)
		return uint32(v), err
	})
}

// integer decodes a number with parse into *n; null leaves *n as it is.
func integer[T int | int64 | uint32](d *Decoder, n *T, parse func(lit string) (T, error)) error {
	lit, err := d.numeral()
	if lit == "" || err != nil {
		return err
	}
	v, err := parse(lit)
	if err != nil {
		return errors.New("the number " + lit + " is not an integer of this size")
	}
	*n = v
	return nil
}

// numeral consumes a number and returns its text, or "" for null.
func (d *Decoder) numeral() (string, error) {
	if d.Null() {
		return "", nil
	}
	start := d.pos
	if err := d.Skip(); err != nil {
		return "", err
	}
	lit := string(d.data[start:d.pos])
	if c := lit[0]; c != '-' && (c < '0' || c > '9') {
		return "", errors.New("a number was expected")
	}
	return lit, nil
}

// Array decodes an array, calling elem with each element's index; elem
// must consume the value.
func (d *Decoder) Array(elem func(d *Decoder, i int) error) error {
	d.space()
	if d.peek() != '[' {
		return d.syntax("looking for an array")
	}
	d.pos++
	if d.depth++; d.depth > maxDepth {
		return errors.New("exceeded max depth")
	}
	defer func() { d.depth-- }()
	d.space()
	if d.peek() == ']' {
		d.pos++
		return nil
	}
	for i := 0; ; i++ {
		d.space()
		if err := elem(d, i); err != nil {
			return err
		}
		d.space()
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return d.syntax("after an array element")
		}
	}
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
		return d.Object(func(d *Decoder, _ string) error { return d.Skip() })
	case c == '[':
		d.pos++
		if d.depth++; d.depth > maxDepth {
			return errors.New("exceeded max depth")
		}
		defer func() { d.depth-- }()
		d.space()
		if d.peek() == ']' {
			d.pos++
			return nil
		}
		for {
			if err := d.Skip(); err != nil {
				return err
			}
			d.space()
			switch d.peek() {
			case ',':
				d.pos++
			case ']':
				d.pos++
				return nil
			default:
				return d.syntax("after an array element")
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

// stringValue decodes a string starting at its opening quote: one pass
// checks it (encoding/json's grammar: no control byte, every escape well
// formed) and finds its end, and Unescape decodes what needs decoding.
func (d *Decoder) stringValue() (string, error) {
	d.pos++ // the quote
	start := d.pos
	plain := true // no escape, only ASCII: the text is the value
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			raw := d.data[start:d.pos]
			d.pos++
			if plain {
				return string(raw), nil
			}
			return UnescapeString(raw), nil
		case c < 0x20:
			return "", d.syntax("in a string")
		case c == '\\':
			plain = false
			d.pos++
			if d.pos >= len(d.data) {
				return "", d.syntax("in an escape")
			}
			switch d.data[d.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos++
			case 'u':
				d.pos++
				for k := 0; k < 4; k++ {
					if d.pos+k >= len(d.data) || !ascii.IsHex(d.data[d.pos+k]) {
						return "", d.syntax(`in a \u escape`) // at the escape's first digit
					}
				}
				d.pos += 4
			default:
				return "", d.syntax("in an escape")
			}
		default:
			if c >= utf8.RuneSelf {
				plain = false
			}
			d.pos++
		}
	}
	return "", d.syntax("in a string")
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
