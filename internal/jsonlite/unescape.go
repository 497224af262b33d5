package jsonlite

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
)

// Unescape writes the value of a string's raw text (between its quotes,
// already validated: every escape well formed, no control byte) to b, the
// way encoding/json decodes it: invalid UTF-8 and unpaired surrogates become
// U+FFFD. A strings.Builder, so that a decoded value becomes a string without
// a copy. Both this package's Decoder and core/internal/wire's body decoder
// decode strings with it.
func Unescape(b *strings.Builder, raw []byte) {
	for r := 0; r < len(raw); {
		// A run of plain ASCII is copied at once, found eight bytes at a
		// time where it can be.
		k := r
		for k+8 <= len(raw) && asciiNoBackslash(ascii.Load8(raw[k:])) {
			k += 8
		}
		for k < len(raw) && raw[k] != '\\' && raw[k] < utf8.RuneSelf {
			k++
		}
		if k > r {
			b.Write(raw[r:k])
			r = k
			continue
		}
		c := raw[r]
		switch {
		case c == '\\':
			switch e := raw[r+1]; e {
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
				rr := hex4(raw[r+2 : r+6])
				r += 6
				if utf16.IsSurrogate(rr) {
					if r+6 <= len(raw) && raw[r] == '\\' && raw[r+1] == 'u' {
						if dec := utf16.DecodeRune(rr, hex4(raw[r+2:r+6])); dec != unicode.ReplacementChar {
							b.WriteRune(dec)
							r += 6
							continue
						}
					}
					rr = unicode.ReplacementChar
				}
				switch {
				case rr < 0x80:
					b.WriteByte(byte(rr))
				case rr < 0x800:
					// Two bytes, the common case, without a call.
					two := [2]byte{0xc0 | byte(rr>>6), 0x80 | byte(rr)&0x3f}
					b.Write(two[:])
				default:
					b.WriteRune(rr)
				}
				continue
			default: // '"', '\\', '/'
				b.WriteByte(e)
			}
			r += 2
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			r++
		default:
			// A valid encoding is kept as it is; an invalid byte is U+FFFD.
			if _, size := utf8.DecodeRune(raw[r:]); size > 1 {
				b.Write(raw[r : r+size])
				r += size
			} else {
				b.WriteString("\uFFFD")
				r++
			}
		}
	}
}

// UnescapeString returns the value of a validated string's raw text (see
// Unescape).
func UnescapeString(raw []byte) string {
	var b strings.Builder
	b.Grow(len(raw))
	Unescape(&b, raw)
	return b.String()
}

// hexValue maps a hex digit to its value; Unescape's callers have
// validated every \u escape, so other bytes never reach it.
var hexValue = func() (t [256]rune) {
	for c := range 256 {
		if ascii.IsHex(byte(c)) {
			t[c] = rune(ascii.Unhex(byte(c)))
		}
	}
	return t
}()

// hex4 reads four validated hex digits. Table lookups rather than a loop:
// in WebAssembly every call costs, and text in some languages is all
// \u escapes.
func hex4(b []byte) rune {
	_ = b[3]
	return hexValue[b[0]]<<12 | hexValue[b[1]]<<8 | hexValue[b[2]]<<4 | hexValue[b[3]]
}

// asciiNoBackslash reports whether the eight bytes in x are ASCII without a
// backslash (SWAR: a byte's high bit is set in the result when it is
// non-ASCII or a backslash).
func asciiNoBackslash(x uint64) bool {
	return x&ascii.Highs|ascii.ZeroByteMask(x^ascii.Ones*'\\') == 0
}
