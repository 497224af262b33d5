package abi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The envelopes are decoded and encoded by hand, not with encoding/json:
// they are read and written on every call into the module, and reflection
// made them a noticeable part of a step's time. The decoders accept exactly
// what json.Unmarshal accepts into the same structs and produce the same
// values (field names matched case-insensitively, the last of repeated
// names winning, unknown names skipped, null leaving a field unset, invalid
// UTF-8 in strings replaced by U+FFFD); FuzzDecodeStart and FuzzDecodeReply
// check that against encoding/json. Their error messages are their own.

// DecodeStart decodes the start export's envelope.
func DecodeStart(data []byte) (Start, error) {
	var s Start
	err := decodeTop(data, func(d *decoder, key string) error {
		var err error
		switch {
		case strings.EqualFold(key, "v"):
			err = d.int(&s.V)
		case strings.EqualFold(key, "kind"):
			err = d.str(&s.Kind)
		case strings.EqualFold(key, "options"):
			s.Options, err = d.raw()
		case strings.EqualFold(key, "apiKey"):
			err = d.str(&s.APIKey)
		case strings.EqualFold(key, "input"):
			s.Input, err = d.raw()
		default:
			err = d.skip()
		}
		return err
	})
	return s, err
}

// DecodeReply decodes the resume export's metadata.
func DecodeReply(data []byte) (Reply, error) {
	var r Reply
	err := decodeTop(data, func(d *decoder, key string) error {
		switch {
		case strings.EqualFold(key, "v"):
			return d.int(&r.V)
		case strings.EqualFold(key, "kind"):
			return d.str(&r.Kind)
		case strings.EqualFold(key, "status"):
			return d.int(&r.Status)
		case strings.EqualFold(key, "message"):
			return d.str(&r.Message)
		case strings.EqualFold(key, "headers"):
			if d.null() {
				r.Headers = nil
				return nil
			}
			if r.Headers == nil {
				r.Headers = map[string]string{}
			}
			return d.object(func(d *decoder, name string) error {
				v := ""
				if err := d.str(&v); err != nil {
					return err
				}
				r.Headers[name] = v
				return nil
			})
		}
		return d.skip()
	})
	return r, err
}

// DecodeInput decodes a start envelope's input object into one of the
// input types of this package (*SearchInput, *FetchInput, *PlanInput,
// *WebsearchInput, *ToolInput).
func DecodeInput(data []byte, v any) error {
	return decodeTop(data, func(d *decoder, key string) error {
		var err error
		switch in := v.(type) {
		case *SearchInput:
			switch {
			case strings.EqualFold(key, "query"):
				err = d.str(&in.Query)
			case strings.EqualFold(key, "oriQuestion"):
				err = d.str(&in.OriQuestion)
			default:
				err = d.skip()
			}
		case *FetchInput:
			switch {
			case strings.EqualFold(key, "url"):
				err = d.str(&in.URL)
			case strings.EqualFold(key, "format"):
				err = d.str(&in.Format)
			case strings.EqualFold(key, "offset"):
				err = d.int(&in.Offset)
			default:
				err = d.skip()
			}
		case *PlanInput:
			if strings.EqualFold(key, "host") {
				return d.str(&in.Host)
			}
			err = d.skip()
		case *WebsearchInput:
			if strings.EqualFold(key, "query") {
				return d.str(&in.Query)
			}
			err = d.skip()
		case *ToolInput:
			switch {
			case strings.EqualFold(key, "tool"):
				err = d.str(&in.Tool)
			case strings.EqualFold(key, "args"):
				in.Args, err = d.raw()
			default:
				err = d.skip()
			}
		default:
			return fmt.Errorf("abi: cannot decode into %T", v)
		}
		return err
	})
}

// decodeTop decodes one JSON value that must be an object (or null, which
// sets nothing), calling field for each member, and refuses trailing data.
func decodeTop(data []byte, field func(d *decoder, key string) error) error {
	d := &decoder{data: data}
	d.space()
	if !d.null() {
		if d.peek() != '{' {
			if err := d.skip(); err != nil {
				return err
			}
			return errors.New("the value is not an object")
		}
		if err := d.object(field); err != nil {
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

type decoder struct {
	data  []byte
	pos   int
	depth int
}

func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) syntax(where string) error {
	if d.pos >= len(d.data) {
		return errors.New("unexpected end of JSON input")
	}
	return fmt.Errorf("invalid character %q at offset %d %s", d.data[d.pos], d.pos, where)
}

// null consumes a null literal (after whitespace) and reports whether there was one.
func (d *decoder) null() bool {
	d.space()
	if strings.HasPrefix(string(d.data[d.pos:min(d.pos+4, len(d.data))]), "null") {
		d.pos += 4
		return true
	}
	return false
}

// object decodes an object, calling field with each member's name; field
// must consume the value.
func (d *decoder) object(field func(d *decoder, key string) error) error {
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

// str decodes a string (null leaves *s as it is).
func (d *decoder) str(s *string) error {
	if d.null() {
		return nil
	}
	if d.peek() != '"' {
		if err := d.skip(); err != nil {
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

// int decodes an integer that fits an int (null leaves *n as it is).
func (d *decoder) int(n *int) error {
	if d.null() {
		return nil
	}
	start := d.pos
	if err := d.skip(); err != nil {
		return err
	}
	lit := string(d.data[start:d.pos])
	if c := lit[0]; c != '-' && (c < '0' || c > '9') {
		return errors.New("a number was expected")
	}
	v, err := strconv.ParseInt(lit, 10, strconv.IntSize)
	if err != nil {
		return fmt.Errorf("the number %s is not an integer of this size", lit)
	}
	*n = int(v)
	return nil
}

// raw returns the next value's text, validated.
func (d *decoder) raw() ([]byte, error) {
	start := d.pos
	if err := d.skip(); err != nil {
		return nil, err
	}
	return d.data[start:d.pos:d.pos], nil
}

// skip consumes and validates one value.
func (d *decoder) skip() error {
	d.space()
	switch c := d.peek(); {
	case c == '{':
		return d.object(func(d *decoder, _ string) error { return d.skip() })
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
			if err := d.skip(); err != nil {
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

func (d *decoder) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if d.pos >= len(d.data) || d.data[d.pos] != word[i] {
			return d.syntax("in a literal")
		}
		d.pos++
	}
	return nil
}

// number consumes a number in JSON's grammar.
func (d *decoder) number() error {
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
func (d *decoder) stringValue() (string, error) {
	d.pos++ // the quote
	start := d.pos
	// Fast path: no escapes, only printable ASCII.
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			s := string(d.data[start:d.pos])
			d.pos++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		d.pos++
	}
	var b strings.Builder
	b.Write(d.data[start:d.pos])
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return b.String(), nil
		case c < 0x20:
			return "", d.syntax("in a string")
		case c == '\\':
			d.pos++
			if d.pos >= len(d.data) {
				return "", d.syntax("in an escape")
			}
			e := d.data[d.pos]
			d.pos++
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", d.syntax("in a \\u escape")
				}
				if utf16.IsSurrogate(r) {
					// A pair makes one rune; anything else is U+FFFD, as encoding/json has it.
					save := d.pos
					if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
						d.pos += 2
						if r2, ok := d.hex4(); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								b.WriteRune(dec)
								continue
							}
						}
					}
					d.pos = save
					r = utf8.RuneError
				}
				b.WriteRune(r)
			default:
				d.pos--
				return "", d.syntax("in an escape")
			}
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			d.pos += size
			b.WriteRune(r) // an invalid byte is U+FFFD
		}
	}
	return "", d.syntax("in a string")
}

func (d *decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	d.pos += 4
	return r, true
}

// AppendJSON appends the step as JSON, byte for byte what json.Marshal
// writes for it (Result is written as it is: it must be compact JSON
// already, as json.Marshal writes it).
func (s *Step) AppendJSON(b []byte) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(s.V), 10)
	if s.Handle != 0 {
		b = append(b, `,"handle":`...)
		b = strconv.AppendUint(b, uint64(s.Handle), 10)
	}
	b = append(b, `,"step":`...)
	b = appendString(b, s.Step)
	if r := s.Request; r != nil {
		b = append(b, `,"request":{"delayMs":`...)
		b = strconv.AppendInt(b, r.DelayMs, 10)
		b = append(b, `,"method":`...)
		b = appendString(b, r.Method)
		b = append(b, `,"url":`...)
		b = appendString(b, r.URL)
		b = append(b, `,"headers":`...)
		if r.Headers == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, h := range r.Headers {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, '[')
				b = appendString(b, h[0])
				b = append(b, ',')
				b = appendString(b, h[1])
				b = append(b, ']')
			}
			b = append(b, ']')
		}
		b = append(b, `,"body":`...)
		b = appendString(b, r.Body)
		b = append(b, `,"timeoutMs":`...)
		b = strconv.AppendInt(b, r.TimeoutMs, 10)
		b = append(b, `,"maxBytes":`...)
		b = strconv.AppendInt(b, r.MaxBytes, 10)
		b = append(b, `,"redirect":`...)
		b = appendString(b, r.Redirect)
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(r.Attempt), 10)
		b = append(b, '}')
	}
	if len(s.Result) > 0 {
		b = append(b, `,"result":`...)
		b = append(b, s.Result...)
	}
	if e := s.Error; e != nil {
		b = append(b, `,"error":{"code":`...)
		b = appendString(b, e.Code)
		b = append(b, `,"message":`...)
		b = appendString(b, e.Message)
		if e.Status != 0 {
			b = append(b, `,"status":`...)
			b = strconv.AppendInt(b, int64(e.Status), 10)
		}
		b = append(b, '}')
	}
	if len(s.Warnings) > 0 {
		b = append(b, `,"warnings":[`...)
		for i, w := range s.Warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, w)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json writes it:
// HTML-safe (<, > and & escaped), U+2028 and U+2029 escaped, invalid UTF-8
// as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
