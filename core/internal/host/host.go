// Package host parses the host of an http(s) URL the way the WHATWG URL
// Standard (browsers, Node) does, so that every spelling of an address is
// judged by the address it means: "127.1", "0x7f.0.0.1", "2130706433",
// "%31%32%37.0.0.1", "127。0。0。1" and "[::ffff:7f00:1]" all parse to
// 127.0.0.1 or its IPv4-mapped form.
//
// It follows the standard's host parser for special schemes
// (https://url.spec.whatwg.org/#host-parsing): percent-decoding, domain to
// ASCII, the "ends in a number" check, the IPv4 parser and the IPv6 parser.
//
// # Differences from the standard
//
// There is no IDNA mapping table, so domain to ASCII is done for the forms
// that matter for spelling addresses and reserved names, and anything it
// cannot map exactly is rejected rather than guessed:
//
//   - ASCII letters are lower-cased; full-width ASCII U+FF01–U+FF5E maps to
//     ASCII; the ideographic and full-width full stops U+3002, U+FF0E and
//     U+FF61 map to "."; the code points IDNA ignores (soft hyphen,
//     zero-width space, variation selectors, byte order mark and the like)
//     are removed.
//   - Other non-ASCII code points are kept only when they are letters,
//     marks or decimal digits that no compatibility mapping turns into
//     ASCII (see compatRanges in host.go); they are lower-cased with
//     [unicode.ToLower] and the label is Punycode-encoded ("münchen" becomes
//     "xn--mnchen-3ya"). Names are not NFC-normalized, and the bidi and
//     joiner rules are not checked, so a name a browser would reject or
//     spell differently may be accepted; such a name is still only a name,
//     never an address.
//   - Non-ASCII symbols, punctuation, compatibility letters and digits
//     (superscripts, circled and mathematical forms, ligatures, letterlike
//     symbols, …) are rejected, because browsers map many of them to ASCII.
//   - Labels already in "xn--" form are kept as they are, not decoded.
//   - Empty labels ("a..b", ".a", "a..") are rejected; only one trailing dot
//     is allowed, and it is removed.
package host

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/ipaddr"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
)

// Host is a parsed URL host: either a domain name or an IP address. It is a
// small comparable value, so it can be compared with == and used as a map
// key. The zero Host is invalid; [Parse] never returns it.
type Host struct {
	name string      // lower-case ASCII (Punycode) without a trailing dot
	addr ipaddr.Addr // valid when the host is an IP address
}

// IsAddr reports whether h is an IP address rather than a domain name.
func (h Host) IsAddr() bool { return h.addr.IsValid() }

// Addr returns the address of an IP host as parsed: IPv4 for IPv4 hosts and
// IPv6 (possibly IPv4-mapped, never unmapped) for bracketed hosts. It is the
// zero ipaddr.Addr for a domain name.
func (h Host) Addr() ipaddr.Addr { return h.addr }

// Name returns the domain name of a name host: lower-case ASCII, non-ASCII
// labels in Punycode, without a trailing dot. It is "" for an IP address.
func (h Host) Name() string { return h.name }

// String returns the host as it would appear in a URL: the domain name,
// dotted-decimal IPv4, or a bracketed IPv6 address. Parse(h.String())
// returns h.
func (h Host) String() string {
	switch {
	case h.name != "":
		return h.name
	case h.addr.Is4():
		return h.addr.String()
	case h.addr.IsValid():
		return "[" + h.addr.String() + "]"
	}
	return ""
}

// Error is the error [Parse] returns. Reason says in plain words what is
// wrong, e.g. "an IPv4 part is over 255"; it never repeats the input.
type Error struct {
	Reason string
}

func (e *Error) Error() string { return "invalid host: " + e.Reason }

func invalid(reason string) error {
	return &Error{Reason: reason}
}

// codePoint spells r as "U+0041", as Unicode charts do.
func codePoint(r rune) string {
	h := strings.ToUpper(strconv.FormatInt(int64(r), 16))
	if len(h) < 4 {
		h = strings.Repeat("0", 4-len(h)) + h
	}
	return "U+" + h
}

var errEmpty = &Error{Reason: "the host is empty"}

// Parse parses the host component of an http(s) URL authority (without
// user info or port), e.g. "Example.COM.", "127.1" or "[::1]". Bracketed
// input is parsed as IPv6 (zone identifiers are invalid, as in WHATWG);
// anything else is percent-decoded, mapped to ASCII and, when it ends in a
// number, parsed as IPv4 with WHATWG's rules (decimal, 0x hex or leading-0
// octal parts; 1–4 parts, the last filling the remaining bytes).
func Parse(input string) (Host, error) {
	if ParsesUnchanged(input) {
		// Nearly every host is one, and it is its own answer: no
		// decoding or mapping, which allocated once per character in
		// WebAssembly. FuzzPlain holds it to parse.
		return Host{name: input}, nil
	}
	return parse(input)
}

// ParsesUnchanged reports whether h is a domain name that Parse gives back
// unchanged: lower-case ASCII letters, digits, hyphens and dots, no empty
// label, and a last label that starts with a letter, so it is not a number
// and h is not an IPv4 address.
func ParsesUnchanged(h string) bool {
	label := 0 // bytes in the label so far
	last := 0  // offset of the last label
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == '.':
			if label == 0 {
				return false
			}
			label, last = 0, i+1
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-':
			label++
		default:
			return false
		}
	}
	return label > 0 && h[last] >= 'a' && h[last] <= 'z'
}

// parse is Parse without its shortcut for plain names.
func parse(input string) (Host, error) {
	if input == "" {
		return Host{}, errEmpty
	}
	if input[0] == '[' {
		if input[len(input)-1] != ']' {
			return Host{}, invalid("the IPv6 address is missing its closing \"]\"")
		}
		a, err := parseIPv6(input[1 : len(input)-1])
		if err != nil {
			return Host{}, err
		}
		return Host{addr: a}, nil
	}
	decoded := percentDecode(input)
	if !utf8.ValidString(decoded) {
		return Host{}, invalid("it is not valid UTF-8 after percent-decoding")
	}
	ascii, err := toASCII(decoded)
	if err != nil {
		return Host{}, err
	}
	if endsInNumber(ascii) {
		a, err := parseIPv4(ascii)
		if err != nil {
			return Host{}, err
		}
		return Host{addr: a}, nil
	}
	return Host{name: strings.TrimSuffix(ascii, ".")}, nil
}

// percentDecode decodes %XX sequences; a "%" not followed by two hex digits
// is kept (and later rejected as a forbidden domain code point).
func percentDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && ascii.IsHex(s[i+1]) && ascii.IsHex(s[i+2]) {
			b = append(b, ascii.Unhex(s[i+1])<<4|ascii.Unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// forbiddenDomain reports the ASCII forbidden domain code points of WHATWG:
// the forbidden host code points, C0 controls, "%" and DEL.
func forbiddenDomain(r rune) bool {
	if r <= 0x20 || r == 0x7f {
		return true
	}
	switch r {
	case '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|', '%':
		return true
	}
	return false
}

// ignored lists code points that IDNA mapping removes.
func ignored(r rune) bool {
	switch {
	case r == 0x00AD, r == 0x034F, r == 0x200B, r == 0x2060, r == 0x2064, r == 0xFEFF:
		return true
	case 0x180B <= r && r <= 0x180F:
		return true
	case 0xFE00 <= r && r <= 0xFE0F:
		return true
	case 0x1BCA0 <= r && r <= 0x1BCA3:
		return true
	case 0xE0100 <= r && r <= 0xE01EF:
		return true
	}
	return false
}

// compatRanges lists blocks holding letters, marks and digits that NFKC or
// case folding maps to ASCII (or to text containing ASCII), so a browser
// would read them as ASCII: "ſ" is "s", "𝟏" is "1", "ﬁ" is "fi", "ℓ" is
// "l", "ᵃ" is "a". They are rejected instead of mapped. The list is
// deliberately coarse (whole blocks); host_test.go checks it against the
// cases known to matter.
var compatRanges = [][2]rune{
	{0x00AA, 0x00AA},   // ª
	{0x00B2, 0x00BA},   // superscripts, º
	{0x0132, 0x0133},   // Ĳ ĳ
	{0x013F, 0x0140},   // Ŀ ŀ
	{0x0149, 0x0149},   // ŉ
	{0x017F, 0x017F},   // ſ
	{0x01C4, 0x01CC},   // DŽ … nj
	{0x01F1, 0x01F3},   // DZ Dz dz
	{0x02B0, 0x02FF},   // spacing modifier letters
	{0x1D2C, 0x1DBF},   // phonetic extensions (modifier letters)
	{0x1E9A, 0x1E9B},   // ẚ ẛ
	{0x2070, 0x209F},   // superscripts and subscripts
	{0x2100, 0x218F},   // letterlike symbols, number forms
	{0x2460, 0x24FF},   // enclosed alphanumerics
	{0x2C7C, 0x2C7D},   // ⱼ ⱽ
	{0xA7F0, 0xA7FF},   // Latin modifier capitals
	{0xAB5C, 0xAB5F},   // Latin modifier small letters
	{0xAB69, 0xAB69},   // ꭩ
	{0xFB00, 0xFB4F},   // alphabetic presentation forms (ligatures)
	{0xFF00, 0xFFEF},   // half-width and full-width forms not mapped above
	{0x10780, 0x107BF}, // Latin extended-F (modifier letters)
	{0x1D400, 0x1D7FF}, // mathematical alphanumeric symbols
	{0x1E030, 0x1E08F}, // Cyrillic extended-D (modifier letters)
	{0x1F100, 0x1F1FF}, // enclosed alphanumeric supplement
	{0x1FBF0, 0x1FBFF}, // segmented digits
}

func inCompatRange(r rune) bool {
	for _, c := range compatRanges {
		if c[0] <= r && r <= c[1] {
			return true
		}
	}
	return false
}

// mapRune applies the domain-to-ASCII mapping for one code point: the
// mapped text (empty when ignored) or an error.
func mapRune(r rune) (string, error) {
	switch {
	case r < 0x80:
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		if forbiddenDomain(r) {
			return "", invalid("it contains the character " + strconv.QuoteRune(r) + ", which is not allowed in a host")
		}
		return asciiChars[r : r+1], nil
	case r == 0x3002 || r == 0xFF61: // ideographic / half-width ideographic full stop
		return ".", nil
	case 0xFF01 <= r && r <= 0xFF5E: // full-width ASCII, incl. U+FF0E full stop
		return mapRune(r - 0xFF01 + 0x21)
	case ignored(r):
		return "", nil
	case r == 0x0130: // İ lower-cases to "i̇", not to "i"
		return "i\u0307", nil
	case r == 0x1E9E: // ẞ maps to "ss" in IDNA
		return "ss", nil
	}
	if inCompatRange(r) || !(unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r)) {
		return "", invalid("it contains " + codePoint(r) + ", which this parser does not map to ASCII")
	}
	l := unicode.ToLower(r)
	if l < 0x80 { // e.g. U+212A KELVIN SIGN; caught above, kept as a guard
		return "", invalid("it contains " + codePoint(r) + ", which this parser does not map to ASCII")
	}
	return string(l), nil
}

// asciiChars holds every ASCII character at its own index, so that mapRune
// returns one without allocating a string.
var asciiChars = func() string {
	b := make([]byte, 0x80)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}()

// toASCII maps a percent-decoded host to lower-case ASCII, Punycode-encoding
// labels that stay non-ASCII, and rejects forbidden code points and empty
// labels (one trailing dot excepted).
func toASCII(s string) (string, error) {
	var b strings.Builder
	b.Grow(len(s))
	ascii := true
	for _, r := range s {
		m, err := mapRune(r)
		if err != nil {
			return "", err
		}
		for _, c := range m {
			if c >= 0x80 {
				ascii = false
			}
		}
		b.WriteString(m)
	}
	out := b.String()
	if out == "" {
		return "", errEmpty
	}
	if ascii {
		if t := strings.TrimSuffix(out, "."); t == "" || t[0] == '.' || t[len(t)-1] == '.' || strings.Contains(t, "..") {
			return "", invalid("it has an empty label (two dots in a row, or a leading dot)")
		}
		return out, nil
	}
	labels := strings.Split(strings.TrimSuffix(out, "."), ".")
	for i, l := range labels {
		if l == "" {
			return "", invalid("it has an empty label (two dots in a row, or a leading dot)")
		}
		if !isASCII(l) {
			p, err := punycode(l)
			if err != nil {
				return "", err
			}
			labels[i] = p
		}
	}
	trailing := strings.HasSuffix(out, ".")
	out = strings.Join(labels, ".")
	if trailing {
		out += "."
	}
	return out, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// endsInNumber is WHATWG's "ends in a number" check.
func endsInNumber(s string) bool {
	if s == "" {
		return false
	}
	t := strings.TrimSuffix(s, ".") // one trailing dot is not a label
	last := t[strings.LastIndexByte(t, '.')+1:]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, err := parseIPv4Number(last)
	return err == nil
}

// parseIPv4 is WHATWG's IPv4 parser.
func parseIPv4(s string) (ipaddr.Addr, error) {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return ipaddr.Addr{}, invalid("the IPv4 address has more than four parts")
	}
	var nums [4]uint64
	for i, p := range parts {
		n, err := parseIPv4Number(p)
		if err != nil {
			return ipaddr.Addr{}, invalid("it ends in a number, so it is an IPv4 address, but a part is not a number")
		}
		nums[i] = n
	}
	last := len(parts) - 1
	for i := 0; i < last; i++ {
		if nums[i] > 255 {
			return ipaddr.Addr{}, invalid("an IPv4 part before the last is over 255")
		}
	}
	if nums[last] >= 1<<(8*(4-last)) {
		return ipaddr.Addr{}, invalid("the IPv4 address is out of range")
	}
	v := nums[last]
	for i := 0; i < last; i++ {
		v += nums[i] << (8 * (3 - i))
	}
	return ipaddr.From4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

var errNotNumber = errors.New("not an IPv4 number")

// parseIPv4Number is WHATWG's IPv4 number parser. Values above 2^32 are
// reported as 2^32+1 (every caller treats them as out of range).
func parseIPv4Number(s string) (uint64, error) {
	if s == "" {
		return 0, errNotNumber
	}
	radix := uint64(10)
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, radix = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, radix = s[1:], 8
	}
	const over = 1<<32 + 1
	var v uint64
	for i := 0; i < len(s); i++ {
		var d uint64
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, errNotNumber
		}
		if d >= radix {
			return 0, errNotNumber
		}
		if v < over {
			v = v*radix + d
		}
	}
	if v > over {
		v = over
	}
	return v, nil
}

// parseIPv6 is WHATWG's IPv6 parser (no zone identifiers).
func parseIPv6(s string) (ipaddr.Addr, error) {
	bad := func(why string) (ipaddr.Addr, error) {
		return ipaddr.Addr{}, invalid("the IPv6 address " + why)
	}
	var address [8]uint16
	pieceIndex, compress, p := 0, -1, 0
	at := func(i int) int {
		if i < len(s) {
			return int(s[i])
		}
		return -1
	}
	if at(p) == ':' {
		if at(p+1) != ':' {
			return bad("starts with a single \":\"")
		}
		p += 2
		pieceIndex++
		compress = pieceIndex
	}
	for at(p) != -1 {
		if pieceIndex == 8 {
			return bad("has too many pieces")
		}
		if at(p) == ':' {
			if compress != -1 {
				return bad("has more than one \"::\"")
			}
			p++
			pieceIndex++
			compress = pieceIndex
			continue
		}
		value, length := 0, 0
		for length < 4 && at(p) != -1 && ascii.IsHex(byte(at(p))) {
			value = value*16 + int(ascii.Unhex(byte(at(p))))
			p++
			length++
		}
		if at(p) == '.' {
			if length == 0 {
				return bad("has an empty IPv4 part")
			}
			p -= length
			if pieceIndex > 6 {
				return bad("has no room for an embedded IPv4 address")
			}
			numbersSeen := 0
			for at(p) != -1 {
				piece := -1
				if numbersSeen > 0 {
					if at(p) == '.' && numbersSeen < 4 {
						p++
					} else {
						return bad("has an invalid embedded IPv4 address")
					}
				}
				if c := at(p); c < '0' || c > '9' {
					return bad("has an invalid embedded IPv4 address")
				}
				for c := at(p); c >= '0' && c <= '9'; c = at(p) {
					n := c - '0'
					switch piece {
					case -1:
						piece = n
					case 0:
						return bad("has a leading zero in its embedded IPv4 address")
					default:
						piece = piece*10 + n
					}
					if piece > 255 {
						return bad("has an embedded IPv4 part over 255")
					}
					p++
				}
				address[pieceIndex] = address[pieceIndex]*0x100 + uint16(piece)
				numbersSeen++
				if numbersSeen == 2 || numbersSeen == 4 {
					pieceIndex++
				}
			}
			if numbersSeen != 4 {
				return bad("has an embedded IPv4 address with fewer than four parts")
			}
			break
		} else if at(p) == ':' {
			p++
			if at(p) == -1 {
				return bad("ends with a single \":\"")
			}
		} else if at(p) != -1 {
			return bad("has an invalid character")
		}
		address[pieceIndex] = uint16(value)
		pieceIndex++
	}
	if compress != -1 {
		swaps := pieceIndex - compress
		pieceIndex = 7
		for pieceIndex != 0 && swaps > 0 {
			address[pieceIndex], address[compress+swaps-1] = address[compress+swaps-1], address[pieceIndex]
			pieceIndex--
			swaps--
		}
	} else if pieceIndex != 8 {
		return bad("has too few pieces")
	}
	var b [16]byte
	for i, v := range address {
		b[2*i], b[2*i+1] = byte(v>>8), byte(v)
	}
	return ipaddr.From16(b), nil
}

// punycode encodes one non-ASCII label as "xn--" + RFC 3492 Punycode.
func punycode(label string) (string, error) {
	const (
		base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
		initialBias, initialN        = 72, 128
	)
	runes := []rune(label)
	out := make([]byte, 0, len(label)+8)
	out = append(out, "xn--"...)
	for _, r := range runes {
		if r < 0x80 {
			out = append(out, byte(r))
		}
	}
	b := len(out) - 4
	h := b
	if b > 0 {
		out = append(out, '-')
	}
	digit := func(d int64) byte {
		if d < 26 {
			return byte('a' + d)
		}
		return byte('0' + d - 26)
	}
	adapt := func(delta, numPoints int64, first bool) int64 {
		if first {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / numPoints
		k := int64(0)
		for delta > ((base-tmin)*tmax)/2 {
			delta /= base - tmin
			k += base
		}
		return k + (base-tmin+1)*delta/(delta+skew)
	}
	n, delta, bias := int64(initialN), int64(0), int64(initialBias)
	for h < len(runes) {
		m := int64(1 << 62)
		for _, r := range runes {
			if int64(r) >= n && int64(r) < m {
				m = int64(r)
			}
		}
		delta += (m - n) * int64(h+1)
		if delta < 0 || delta > 1<<50 {
			return "", invalid("a label is too long to encode")
		}
		n = m
		for _, r := range runes {
			c := int64(r)
			if c < n {
				delta++
			}
			if c == n {
				q := delta
				for k := int64(base); ; k += base {
					t := k - bias
					if t < tmin {
						t = tmin
					} else if t > tmax {
						t = tmax
					}
					if q < t {
						break
					}
					out = append(out, digit(t+(q-t)%(base-t)))
					q = (q - t) / (base - t)
				}
				out = append(out, digit(q))
				bias = adapt(delta, int64(h+1), h == b)
				delta = 0
				h++
			}
		}
		delta++
		n++
	}
	return string(out), nil
}
