// Package jsonlite reads and writes JSON by hand, without encoding/json:
// the module (wasm/, internal/abi, internal/opencode) uses it so that neither
// encoding/json nor the reflection it brings is linked in. What it writes
// is byte for byte what json.Marshal writes for the same values, and what
// it reads it accepts exactly as json.Unmarshal would; the fuzz targets
// beside each user check that against encoding/json.
package jsonlite

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
)

// Raw is raw JSON text, as encoding/json's RawMessage: encoding/json writes
// it as it is (compacted) and stores a copy of a value's text into it, so
// structs holding it marshal the same with encoding/json and with the
// appenders here. nil is written as null.
type Raw []byte

// MarshalJSON returns r, or null when r is nil.
func (r Raw) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	return r, nil
}

// UnmarshalJSON sets *r to a copy of data.
func (r *Raw) UnmarshalJSON(data []byte) error {
	if r == nil {
		return errors.New("jsonlite.Raw: UnmarshalJSON on nil pointer")
	}
	*r = append((*r)[0:0], data...)
	return nil
}

// AppendRaw appends raw as it is, or null when it is nil (raw must be
// compact JSON with no <, > or & outside strings' escapes, as the constant
// schemas are; encoding/json would compact and escape it).
func AppendRaw(b, raw []byte) []byte {
	if raw == nil {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// AppendBool appends true or false.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// AppendArray appends list as encoding/json writes a slice: null for a nil
// slice, otherwise a JSON array whose elements elem appends.
func AppendArray[T any](b []byte, list []T, elem func(b []byte, v *T) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, &list[i])
	}
	return append(b, ']')
}

// AppendStrings appends a JSON array of strings, null for a nil slice. It
// is AppendArray written out: the strings are every step's hot path, and
// going through AppendArray's callback adds code to the module.
func AppendStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

// AppendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from 1e21
// on (with e-07 shortened to e-7). NaN and ±Inf fail with encoding/json's
// message.
func AppendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, errors.New("json: unsupported value: " + strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// verbatim[c] says that the ASCII byte c stands for itself (is not
// escaped) in a JSON string as encoding/json writes it (HTML-safe).
var verbatim = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// allVerbatim reports whether each of the eight bytes in x is written as it
// is (see verbatim), with the tests of package ascii. Masking one bit out
// of x ^ c·Ones zeroes the bytes that are c or c with that bit flipped, so
// three zero tests find " and & (0x22, 0x26: bit 2), < and > (0x3c, 0x3e:
// bit 1), and \. It is small enough to inline.
func allVerbatim(x uint64) bool {
	const ones = ascii.Ones
	q := (x ^ ones*'"') & (ones * 0xfb)
	a := (x ^ ones*'<') & (ones * 0xfd)
	return x&ascii.Highs|ascii.BelowByteMask(x, 0x20)|ascii.ZeroByteMask(q)|ascii.ZeroByteMask(a)|ascii.ZeroByteMask(x^ones*'\\') == 0
}

// AppendString appends s as a JSON string the way encoding/json writes it:
// HTML-safe (<, > and & escaped), U+2028 and U+2029 escaped, invalid UTF-8
// as U+FFFD.
//
// It is not inlined: inlined at its hundred-odd call sites, its two
// appends would add code to the module at each.
//
//go:noinline
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = AppendStringBody(b, s)
	return append(b, '"')
}

// AppendStringBody appends s escaped as AppendString escapes it, without
// the quotes: a string written in pieces (a prefix and a text kept apart)
// is then written without first joining the pieces.
func AppendStringBody(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time: most text is runs of them.
		for i+8 <= len(s) && allVerbatim(ascii.Load8(s[i:])) {
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if verbatim[c] {
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
	return append(b, s[start:]...)
}
