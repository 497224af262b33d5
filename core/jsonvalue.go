package core

import (
	"errors"
	"strconv"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/wire"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
)

// This file reads the JSON of options (ParseOptions, the seed variables)
// without encoding/json, which pulls reflect into the WebAssembly module.
// It accepts what json.Unmarshal accepts and words its errors the same
// way, word for word: a user who writes a broken options object sees
// what they saw before. options_reference_test.go keeps the
// encoding/json-based parser and a fuzz target holds the two equal.

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

// jsonPart is one member of a JSON object or one element of a list: key
// is the member name's text (quotes included), nil for a list element;
// value is the value's text without surrounding white space.
type jsonPart struct{ key, value []byte }

// jsonChecker validates one JSON value, collecting the members or elements
// of the outermost object or list.
type jsonChecker struct {
	b     []byte
	i     int
	depth int
	parts []jsonPart
	// msg is why the text is not JSON, as encoding/json says it.
	msg string
}

// parseJSON validates b as one JSON value (white space around it allowed)
// and returns its text without that white space and, when it is an object
// or a list, its members or elements in order. The error's text is
// encoding/json's for the same input.
func parseJSON(b []byte) (text []byte, parts []jsonPart, err error) {
	c := jsonChecker{b: b}
	c.more()
	start := c.i
	if c.value() {
		end := c.i
		if !c.more() {
			return b[start:end], c.parts, nil
		}
		c.fail("after top-level value")
	}
	return nil, nil, errors.New(c.msg)
}

// more moves past white space and reports whether a byte follows.
func (c *jsonChecker) more() bool {
	for c.i < len(c.b) && (c.b[c.i] == ' ' || c.b[c.i] == '\t' || c.b[c.i] == '\n' || c.b[c.i] == '\r') {
		c.i++
	}
	return c.i < len(c.b)
}

// fail records the error for the byte at the cursor, read as a space at
// the end of the input (that is how encoding/json's scanner ends one).
func (c *jsonChecker) fail(context string) bool {
	ch := byte(' ')
	if c.i < len(c.b) {
		ch = c.b[c.i]
	}
	c.msg = "invalid character " + quoteJSONChar(ch) + " " + context
	return false
}

// eof records the error for input that ends where more is needed.
func (c *jsonChecker) eof() bool {
	c.msg = "unexpected end of JSON input"
	return false
}

// quoteJSONChar quotes a byte the way encoding/json's syntax errors do.
func quoteJSONChar(ch byte) string {
	switch ch {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(ch)))
	return "'" + s[1:len(s)-1] + "'"
}

func (c *jsonChecker) value() bool {
	if !c.more() {
		return c.eof()
	}
	switch ch := c.b[c.i]; {
	case ch == '{':
		return c.object()
	case ch == '[':
		return c.list()
	case ch == '"':
		return c.validString()
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number()
	case ch == 't':
		return c.literal("true")
	case ch == 'f':
		return c.literal("false")
	case ch == 'n':
		return c.literal("null")
	}
	return c.fail("looking for beginning of value")
}

// open moves past a '{' or '[' unless it nests too deep.
func (c *jsonChecker) open() bool {
	if c.depth++; c.depth > maxJSONDepth {
		return c.fail("exceeded max depth")
	}
	c.i++
	return true
}

// element reads the value at the cursor, keeping it in c.parts when it
// belongs to the outermost object or list.
func (c *jsonChecker) element(key []byte) bool {
	if !c.more() {
		return c.eof()
	}
	start, outer := c.i, c.depth == 1
	if !c.value() {
		return false
	}
	if outer {
		c.parts = append(c.parts, jsonPart{key: key, value: c.b[start:c.i]})
	}
	return true
}

func (c *jsonChecker) object() bool {
	if !c.open() {
		return false
	}
	if !c.more() {
		return c.eof()
	}
	if c.b[c.i] == '}' {
		c.i++
		c.depth--
		return true
	}
	for {
		if !c.more() {
			return c.eof()
		}
		if c.b[c.i] != '"' {
			return c.fail("looking for beginning of object key string")
		}
		start := c.i
		if !c.validString() {
			return false
		}
		key := c.b[start:c.i]
		if !c.more() {
			return c.eof()
		}
		if c.b[c.i] != ':' {
			return c.fail("after object key")
		}
		c.i++
		if !c.element(key) {
			return false
		}
		if !c.more() {
			return c.eof()
		}
		switch c.b[c.i] {
		case ',':
			c.i++
			continue
		case '}':
			c.i++
			c.depth--
			return true
		}
		return c.fail("after object key:value pair")
	}
}

func (c *jsonChecker) list() bool {
	if !c.open() {
		return false
	}
	if !c.more() {
		return c.eof()
	}
	if c.b[c.i] == ']' {
		c.i++
		c.depth--
		return true
	}
	for {
		if !c.element(nil) {
			return false
		}
		if !c.more() {
			return c.eof()
		}
		switch c.b[c.i] {
		case ',':
			c.i++
			continue
		case ']':
			c.i++
			c.depth--
			return true
		}
		return c.fail("after array element")
	}
}

// validString moves past the string at the cursor (at its opening quote)
// and reports whether it is a valid JSON string.
func (c *jsonChecker) validString() bool {
	c.i++ // the opening quote
	for c.i < len(c.b) {
		switch ch := c.b[c.i]; {
		case ch == '"':
			c.i++
			return true
		case ch == '\\':
			c.i++
			if c.i < len(c.b) {
				switch c.b[c.i] {
				case 'b', 'f', 'n', 'r', 't', '\\', '/', '"':
					c.i++
					continue
				case 'u':
					c.i++
					for range 4 {
						if c.i == len(c.b) || !ascii.IsHex(c.b[c.i]) {
							return c.fail(`in \u hexadecimal character escape`)
						}
						c.i++
					}
					continue
				}
			}
			return c.fail("in string escape code")
		case ch < 0x20:
			return c.fail("in string literal")
		}
		c.i++
	}
	return c.eof()
}

// number reads a number; the byte after it is the caller's to judge.
func (c *jsonChecker) number() bool {
	if c.b[c.i] == '-' {
		c.i++
		if !c.digit() {
			return c.fail("in numeric literal")
		}
	}
	if c.b[c.i] == '0' {
		c.i++
	} else {
		c.digits()
	}
	if c.i < len(c.b) && c.b[c.i] == '.' {
		c.i++
		if !c.digit() {
			return c.fail("after decimal point in numeric literal")
		}
		c.digits()
	}
	if c.i < len(c.b) && (c.b[c.i] == 'e' || c.b[c.i] == 'E') {
		c.i++
		if c.i < len(c.b) && (c.b[c.i] == '+' || c.b[c.i] == '-') {
			c.i++
		}
		if !c.digit() {
			return c.fail("in exponent of numeric literal")
		}
		c.digits()
	}
	return true
}

func (c *jsonChecker) digit() bool { return c.i < len(c.b) && c.b[c.i] >= '0' && c.b[c.i] <= '9' }

func (c *jsonChecker) digits() {
	for c.digit() {
		c.i++
	}
}

func (c *jsonChecker) literal(word string) bool {
	c.i++
	for k := 1; k < len(word); k++ {
		if c.i == len(c.b) || c.b[c.i] != word[k] {
			return c.fail("in literal " + word + " (expecting " + quoteJSONChar(word[k]) + ")")
		}
		c.i++
	}
	return true
}

// jsonObjectMembers reads an options object: its members by name, the
// last of a repeated name winning, names decoded as encoding/json decodes
// them. The error is json.Unmarshal's into a map[string]json.RawMessage.
func jsonObjectMembers(data []byte) (map[string][]byte, error) {
	text, parts, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	var kind string
	switch text[0] {
	case '{':
		members := make(map[string][]byte, len(parts))
		for _, p := range parts {
			members[wire.StringValue(p.key)] = p.value
		}
		return members, nil
	case 'n':
		return nil, nil
	case '[':
		kind = "array"
	case '"':
		kind = "string"
	case 't', 'f':
		kind = "bool"
	default:
		kind = "number"
	}
	return nil, errors.New("json: cannot unmarshal " + kind + " into Go value of type map[string]json.RawMessage")
}

// The typed readers below answer what json.Unmarshal of v into a value of
// their type answers: false where it returns an error. JSON null is
// accepted and leaves dst unchanged (a list becomes nil), as it does.

// jsonString reads a string.
func jsonString(v []byte, dst *string) bool {
	text, _, err := parseJSON(v)
	switch {
	case err != nil:
		return false
	case text[0] == '"':
		*dst = wire.StringValue(text)
	case text[0] != 'n':
		return false
	}
	return true
}

// jsonBool reads true or false.
func jsonBool(v []byte, dst *bool) bool {
	text, _, err := parseJSON(v)
	switch {
	case err != nil:
		return false
	case text[0] == 't' || text[0] == 'f':
		*dst = text[0] == 't'
	case text[0] != 'n':
		return false
	}
	return true
}

// jsonFloat reads a number that fits a float64.
func jsonFloat(v []byte, dst *float64) bool {
	text, _, err := parseJSON(v)
	switch {
	case err != nil:
		return false
	case text[0] == '-' || text[0] >= '0' && text[0] <= '9':
		f, err := strconv.ParseFloat(string(text), 64)
		if err != nil {
			return false
		}
		*dst = f
	case text[0] != 'n':
		return false
	}
	return true
}

// jsonStrings reads a list of strings (null entries are ""). Unlike
// json.Unmarshal it leaves dst alone on failure rather than half-filled.
func jsonStrings(v []byte, dst *[]string) bool {
	text, parts, err := parseJSON(v)
	switch {
	case err != nil:
		return false
	case text[0] == 'n':
		*dst = nil
		return true
	case text[0] != '[':
		return false
	}
	list := make([]string, 0, len(parts))
	for _, p := range parts {
		var s string
		if !jsonString(p.value, &s) {
			return false
		}
		list = append(list, s)
	}
	*dst = list
	return true
}

// notObjectError is ParseOptions' error for input that is not a JSON
// object; it wraps encoding/json's reason, the way fmt's %w did.
type notObjectError struct{ err error }

func (e *notObjectError) Error() string { return "options: not a JSON object: " + e.err.Error() }

func (e *notObjectError) Unwrap() error { return e.err }
