package weburl

import (
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
)

// encoding names the part of a URL a byte is escaped or unescaped for; the
// rules are net/url's.
type encoding int

const (
	encodePath encoding = iota
	encodeHost
	encodeZone
	encodeUserPassword
	encodeFragment
)

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// shouldEscape reports whether c is written as %XX in that part of a URL.
func shouldEscape(c byte, mode encoding) bool {
	return escapeTable[c]&(1<<mode) != 0
}

// escapeTable holds escapeRule's answers, a bit per encoding.
var escapeTable = func() (t [256]uint8) {
	for c := range t {
		for mode := encodePath; mode <= encodeFragment; mode++ {
			if escapeRule(byte(c), mode) {
				t[c] |= 1 << mode
			}
		}
	}
	return t
}()

// escapeRule is net/url's rule for which bytes are escaped where.
func escapeRule(c byte, mode encoding) bool {
	if isAlnum(c) {
		return false
	}
	if mode == encodeHost || mode == encodeZone {
		// Sub-delimiters, the ":" of a port, the brackets of an IP
		// literal, and < > " (net/url would refuse them escaped).
		if strings.IndexByte(`!$&'()*+,;=:[]<>"`, c) >= 0 {
			return false
		}
	}
	switch c {
	case '-', '_', '.', '~':
		return false
	case '$', '&', '+', ',', '/', ':', ';', '=', '?', '@':
		switch mode {
		case encodePath:
			return c == '?'
		case encodeUserPassword:
			return c == '@' || c == '/' || c == '?' || c == ':'
		case encodeFragment:
			return false
		}
	}
	if mode == encodeFragment {
		switch c {
		case '!', '(', ')', '*':
			return false
		}
	}
	return true
}

// escape writes every byte of s that shouldEscape as %XX (upper-case hex).
func escape(s string, mode encoding) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if shouldEscape(s[i], mode) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	t := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; shouldEscape(c, mode) {
			t = append(t, '%', hex[c>>4], hex[c&15])
		} else {
			t = append(t, c)
		}
	}
	return string(t)
}

// unescape decodes every %XX in s, or reports false for a "%" without two
// hex digits. In a host, %XX may only spell a non-ASCII byte (or "%25"),
// and an ASCII byte that shouldEscape is refused; in a zone, %XX may spell
// only what could be written plainly, or a space.
func unescape(s string, mode encoding) (string, bool) {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c != '%' {
			if (mode == encodeHost || mode == encodeZone) && c < 0x80 && shouldEscape(c, mode) {
				return "", false
			}
			i++
			continue
		}
		if i+2 >= len(s) || !ascii.IsHex(s[i+1]) || !ascii.IsHex(s[i+2]) {
			return "", false
		}
		v := ascii.Unhex(s[i+1])<<4 | ascii.Unhex(s[i+2])
		switch {
		case mode == encodeHost && v < 0x80 && s[i:i+3] != "%25":
			return "", false
		case mode == encodeZone && s[i:i+3] != "%25" && v != ' ' && shouldEscape(v, encodeHost):
			return "", false
		}
		n++
		i += 3
	}
	if n == 0 {
		return s, true
	}
	t := make([]byte, 0, len(s)-2*n)
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			t = append(t, ascii.Unhex(s[i+1])<<4|ascii.Unhex(s[i+2]))
			i += 2
		} else {
			t = append(t, s[i])
		}
	}
	return string(t), true
}

// validEncoded reports whether s needs no escaping beyond the %XX it has:
// a path or fragment as written that can be kept as written.
func validEncoded(s string, mode encoding) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if strings.IndexByte("!$&'()*+,;=:@[]%", c) >= 0 {
			continue
		}
		if shouldEscape(c, mode) {
			return false
		}
	}
	return true
}
