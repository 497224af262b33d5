package core

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// keyMask replaces the API key wherever it would be shown.
const keyMask = "[redacted]"

// Redactor masks one API key in text, in every form a server, a proxy or a
// library is likely to echo it: as is or with its letters in either case
// (SK-ABC…, Sk-aBc…); with any of its characters percent-encoded (%73k-…,
// either hex case), \u-escaped (\u0073k-…), \x-escaped, JSON-escaped (\/)
// or written as an HTML character reference (&#115;, &#x73;, &#X073;,
// &period;, &sol;, …); as hex, two digits a byte in either case
// (736b2d…, 736B2D…); and base64 or base64url encoded, as is or upper- or
// lower-cased first, with or without padding, alone or inside a longer
// base64 text at any offset (an "Authorization: Basic" echo). Keys are
// limited to letters, digits and -_.~+/=: (see validKey), so JSON encoding
// leaves a key unchanged and %q quoting cannot split it.
//
// The zero Redactor and a nil *Redactor mask nothing. A Redactor is
// immutable and safe for concurrent use.
type Redactor struct {
	key    string
	coded  []string  // base64 forms, longest first
	first  [256]bool // bytes a masked form can start with
	maxLen int       // longest text one masked form spans
	// pairs has bit a<<8|b set for each two bytes a, b a masked form can
	// start with, for a key of two or more bytes (a shorter one uses
	// first): in prose the key's first letter is common, the pair it
	// starts with is not, and the test is one load per byte of text.
	pairs *[1 << 16 / 64]uint64
	// either has bit a<<8|b set when a form can start at a (pairs) or at
	// b (first): next tests two offsets per load with it.
	either *[1 << 16 / 64]uint64
	// inner has bit a<<8|b set for each two bytes a, b that can follow
	// each other inside a masked form; stride is one less than the
	// shortest form (see next). Nil when that is under four bytes.
	inner  *[1 << 16 / 64]uint64
	stride int
}

// NewRedactor returns a Redactor for key; an empty key masks nothing.
func NewRedactor(key string) *Redactor {
	r := &Redactor{key: key}
	if key == "" {
		return r
	}
	for _, b := range []byte(startBytes(key[0])) {
		r.first[b] = true
	}
	for _, b := range []byte(hexStart(key[0])) {
		r.first[b] = true
	}
	r.maxLen = maxUnitLen * len(key)
	// base64 is case-sensitive: the key upper- or lower-cased before it is
	// encoded has forms of its own.
	for _, k := range []string{key, strings.ToUpper(key), strings.ToLower(key)} {
		r.addCoded(k)
	}
	// Longest first, ties in the order found (at most 30 forms, so an
	// insertion sort: slices.SortFunc's generic sorter would cost the module
	// more code than the sort is worth).
	for i := 1; i < len(r.coded); i++ {
		for j := i; j > 0 && len(r.coded[j]) > len(r.coded[j-1]); j-- {
			r.coded[j], r.coded[j-1] = r.coded[j-1], r.coded[j]
		}
	}
	if len(key) >= 2 {
		r.pairs = new([1 << 16 / 64]uint64)
		set := func(a, b byte) {
			v := uint(a)<<8 | uint(b)
			r.pairs[v/64] |= 1 << (v % 64)
		}
		for _, f := range r.coded {
			set(f[0], f[1])
		}
		// The key as is, in either case or escaped (see unitOf): its
		// first byte and then how the second starts.
		for _, a := range []byte(caseSet(key[0])) {
			for _, b := range []byte(startBytes(key[1])) {
				set(a, b)
			}
		}
		for b := range 256 {
			set('%', byte(b))
			set('\\', byte(b))
			set('&', byte(b))
		}
		// Its hex form: the first byte's two digits.
		for _, v := range []byte(caseSet(key[0])) {
			for _, a := range []byte(hexCases[v>>4]) {
				for _, b := range []byte(hexCases[v&15]) {
					set(a, b)
				}
			}
		}
		// Row a of either is row a of pairs, or-ed with first as a
		// 256-bit set.
		var firstSet [4]uint64
		for b, ok := range r.first {
			if ok {
				firstSet[b/64] |= 1 << (b % 64)
			}
		}
		r.either = new([1 << 16 / 64]uint64)
		for w := range r.either {
			r.either[w] = r.pairs[w] | firstSet[w%4]
		}
		r.setInner()
	}
	return r
}

// addCoded adds the base64 and base64url forms of k to coded: encoded
// alone (padded or not), and the characters that depend on k's bytes alone
// when it follows one or two other bytes in a longer text.
func (r *Redactor) addCoded(k string) {
	for a := range 3 {
		enc := base64.StdEncoding.EncodeToString(append(make([]byte, a), k...))
		// The characters that depend on the key's bytes alone.
		core := enc[(8*a+5)/6 : 8*(a+len(k))/6]
		forms := []string{core}
		if a == 0 {
			forms = append(forms, enc, strings.TrimRight(enc, "="))
		}
		for _, f := range forms {
			// Short forms would mask ordinary text; a key that short is
			// not a secret worth the noise.
			if len(f) < 8 {
				continue
			}
			for _, g := range []string{f, toURLAlphabet(f)} {
				if !slices.Contains(r.coded, g) {
					r.coded = append(r.coded, g)
					r.first[g[0]] = true
				}
			}
		}
	}
}

// setInner fills inner and stride: every two bytes that follow each other
// inside a base64 form, inside one spelling of a key byte (see unitOf), or
// across the spellings of two bytes that follow each other in the key.
func (r *Redactor) setInner() {
	shortest := len(r.key) // every spelling of a byte is a byte or more
	for _, f := range r.coded {
		shortest = min(shortest, len(f))
	}
	if shortest < 4 {
		return
	}
	r.inner, r.stride = new([1 << 16 / 64]uint64), shortest-1
	for _, f := range r.coded {
		for i := 0; i+1 < len(f); i++ {
			r.setInner2(f[i:i+1], f[i+1:i+2])
		}
	}
	// HTML numeric references: &#, then decimal digits and ;, or x, zeros,
	// the byte's two hex digits and ;. A key byte's high hex digit is
	// never a letter (keys are ASCII from 0x2b up), so no two letters
	// follow each other inside a reference: prose rarely looks like one.
	const decimal = "0123456789"
	highs := ""
	for k := 0; k < len(r.key); k++ {
		highs += expandSpelling('H', caseSet(r.key[k]))
	}
	r.setInner2("&", "#")
	r.setInner2("#", decimal+"xX")
	r.setInner2(decimal, decimal+";")
	r.setInner2("xX0", "0"+highs)
	for k := 0; k < len(r.key); k++ {
		r.setInner2(expandSpelling('L', caseSet(r.key[k])), ";")
	}
	for k := 0; k < len(r.key); k++ {
		c := caseSet(r.key[k])
		for _, t := range spellings {
			for i := 0; i+1 < len(t); i++ {
				r.setInner2(expandSpelling(t[i], c), expandSpelling(t[i+1], c))
			}
		}
		for _, n := range namedRefs[r.key[k]] {
			for i := 0; i+1 < len(n); i++ {
				r.setInner2(n[i:i+1], n[i+1:i+2])
			}
		}
		// The hex form: the byte's two digits, and the digit before.
		r.setInner2(expandSpelling('H', c), expandSpelling('L', c))
		if k > 0 {
			// A spelling of the byte before ends with it (in either
			// case), its low hex digit or ";"; one of this byte starts
			// with it, %, \ or &, or (hex form) its high hex digit.
			p := caseSet(r.key[k-1])
			r.setInner2(p+expandSpelling('L', p)+";", startBytes(r.key[k]))
			r.setInner2(expandSpelling('L', p), expandSpelling('H', c))
		}
	}
}

// maxUnitLen is the longest spelling of one byte unitOf reads: an HTML
// reference with seven digits, "&#x0000073;".
const maxUnitLen = 3 + maxRefDigits + 1

// maxRefDigits is the most digits unitOf reads in an HTML numeric
// reference, leading zeros included.
const maxRefDigits = 7

// spellings are unitOf's escapes of a byte c (but c itself, which has no
// two bytes, and HTML references, which setInner adds on their own), with
// H and L for its hex digits in either case.
var spellings = [...]string{"%HL", `\xHL`, `\u00HL`, `\c`}

// expandSpelling returns what byte t of a spelling of a byte in the case
// set cs stands for: a byte of cs, either case of one of their hex digits,
// or t itself.
func expandSpelling(t byte, cs string) string {
	out := ""
	for i := 0; i < len(cs); i++ {
		switch t {
		case 'c':
			return cs
		case 'H':
			out += hexCases[cs[i]>>4]
		case 'L':
			out += hexCases[cs[i]&15]
		default:
			return string(rune(t))
		}
	}
	return out
}

// caseSet is c and, for an ASCII letter, c in the other case.
func caseSet(c byte) string {
	if c|0x20 >= 'a' && c|0x20 <= 'z' {
		return string([]byte{c, c ^ 0x20})
	}
	return string(c)
}

// startBytes are the bytes a spelling of c (see unitOf) starts with.
func startBytes(c byte) string { return caseSet(c) + "%\\&" }

// hexStart are the bytes the hex form of a key starting with c starts
// with: c's high hex digit, in either case, for c in either case.
func hexStart(c byte) string { return expandSpelling('H', caseSet(c)) }

// namedRefs are the HTML named character references of the characters a
// key may hold (validKey); letters, digits, - and ~ have none.
var namedRefs = map[byte][]string{
	'.': {"&period;"}, '_': {"&lowbar;", "&UnderBar;"}, '+': {"&plus;"}, '/': {"&sol;"},
	'=': {"&equals;"}, ':': {"&colon;"},
}

// setInner2 sets the bit in inner of each two bytes a[i], b[j].
func (r *Redactor) setInner2(a, b string) {
	for i := 0; i < len(a); i++ {
		for j := 0; j < len(b); j++ {
			v := uint(a[i])<<8 | uint(b[j])
			r.inner[v/64] |= 1 << (v % 64)
		}
	}
}

// hexCases spells each hex digit in both cases.
var hexCases = [16]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "aA", "bB", "cC", "dD", "eE", "fF"}

// toURLAlphabet turns standard base64 into base64url.
func toURLAlphabet(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch c {
		case '+':
			b[i] = '-'
		case '/':
			b[i] = '_'
		}
	}
	return string(b)
}

// lastRedactor caches the Redactor of the key last used: a host sends the
// same key with every operation, and building one costs microseconds.
var lastRedactor atomic.Pointer[Redactor]

// redactorFor returns a Redactor for key, reusing the last one built.
func redactorFor(key string) *Redactor {
	if r := lastRedactor.Load(); r != nil && r.key == key {
		return r
	}
	r := NewRedactor(key)
	lastRedactor.Store(r)
	return r
}

// MaxLen is the longest text one masked form of the key can span, in
// bytes: a text cut at least MaxLen bytes after a limit, masked, and then
// cut at the limit shows no part of the key. 0 for no key.
func (r *Redactor) MaxLen() int {
	if r == nil {
		return 0
	}
	return r.maxLen
}

// Mask replaces every form of the key in s with "[redacted]".
func (r *Redactor) Mask(s string) string {
	if r == nil || r.key == "" {
		return s
	}
	var b strings.Builder
	last := 0
	for i := r.next(s, 0); i < len(s); i = r.next(s, i+1) {
		if n := r.matchAt(s, i); n > 0 {
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:i])
			b.WriteString(keyMask)
			i += n - 1
			last = i + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Contains reports whether s holds the key in any form Mask masks, also
// after percent-decoding s up to three times (a query or URL may carry it
// encoded more than once).
func (r *Redactor) Contains(s string) bool {
	if r == nil || r.key == "" {
		return false
	}
	for range 4 {
		for i := r.next(s, 0); i < len(s); i = r.next(s, i+1) {
			if r.matchAt(s, i) > 0 {
				return true
			}
		}
		d := percentDecodeAll(s)
		if d == s {
			break
		}
		s = d
	}
	return false
}

// next returns the first offset from i on where a form of the key may
// start (len(s) for none): every offset matchAt finds a form at, and few
// others.
//
// With a key whose forms are all four bytes or more, it first looks at one
// pair of bytes in every stride (the shortest form's length less one): a
// form starting anywhere in [i, i+stride) spans the pair at i+stride-1, so
// when that pair cannot occur inside a form (inner), no form starts there
// and the stride is passed over without a look at its other bytes. Ordinary
// text is mostly passed over that way (BenchmarkMask).
func (r *Redactor) next(s string, i int) int {
	if w := r.stride; r.inner != nil {
		for i+w < len(s) {
			if v := uint(s[i+w-1])<<8 | uint(s[i+w]); r.inner[v/64]&(1<<(v%64)) != 0 {
				// The pair may be inside a form: look at every offset
				// of the stride (and no further: the next one starts
				// with a look at its own pair).
				if j := r.scan(s[:i+w+1], i); j < i+w {
					return j
				}
			}
			i += w
		}
	}
	return r.scan(s, i)
}

// scan is next without its look at strides: it tests every offset, two at
// a time.
func (r *Redactor) scan(s string, i int) int {
	if r.pairs == nil {
		for ; i < len(s); i++ {
			if r.first[s[i]] {
				return i
			}
		}
		return len(s)
	}
	// Two offsets at a time while a third byte follows (a form can start
	// at i+1 only if first allows s[i+1]).
	for i+2 < len(s) {
		v := uint(s[i])<<8 | uint(s[i+1])
		if r.either[v/64]&(1<<(v%64)) != 0 {
			if r.pairs[v/64]&(1<<(v%64)) != 0 {
				return i
			}
			if w := uint(s[i+1])<<8 | uint(s[i+2]); r.pairs[w/64]&(1<<(w%64)) != 0 {
				return i + 1
			}
		}
		i += 2
	}
	// Every form is two bytes or more.
	for ; i+1 < len(s); i++ {
		if !r.first[s[i]] {
			continue
		}
		if v := uint(s[i])<<8 | uint(s[i+1]); r.pairs[v/64]&(1<<(v%64)) != 0 {
			return i
		}
	}
	return len(s)
}

// matchAt returns the length of the form of the key at s[i:], or 0.
func (r *Redactor) matchAt(s string, i int) int {
	for _, f := range r.coded {
		if s[i] == f[0] && strings.HasPrefix(s[i:], f) {
			return len(f)
		}
	}
	if n := r.hexAt(s, i); n > 0 {
		return n
	}
	j := i
	for k := 0; k < len(r.key); k++ {
		n := unitOf(s[j:], r.key[k])
		if n == 0 {
			return 0
		}
		j += n
	}
	return j - i
}

// hexAt returns the length of the key written in hex at s[i:] (two
// digits a byte, either case, each byte's letters in either case), or 0.
func (r *Redactor) hexAt(s string, i int) int {
	if len(s)-i < 2*len(r.key) {
		return 0
	}
	for k := 0; k < len(r.key); k++ {
		if !sameByte(hexByte(s[i+2*k:]), r.key[k]) {
			return 0
		}
	}
	return 2 * len(r.key)
}

// sameByte reports whether v is c or, for a letter, c in the other case.
func sameByte(v int, c byte) bool {
	return v == int(c) || v == int(c^0x20) && c|0x20 >= 'a' && c|0x20 <= 'z'
}

// unitOf returns how many bytes at the start of s spell c: c itself (a
// letter in either case), %XX, \xXX, \u00XX, a JSON escape of c, or an
// HTML character reference (&#DDD;, &#xHH;, a named one); each escape may
// also spell a letter's other case.
func unitOf(s string, c byte) int {
	if s == "" {
		return 0
	}
	switch {
	case sameByte(int(s[0]), c):
		return 1
	case s[0] == '%' && len(s) >= 3 && sameByte(hexByte(s[1:3]), c):
		return 3
	case s[0] == '&':
		return charRefLen(s, c)
	case s[0] != '\\' || len(s) < 2:
		return 0
	case s[1] == c && (c == '/' || c == '"' || c == '\\'):
		return 2
	case s[1] == 'x' && len(s) >= 4 && sameByte(hexByte(s[2:4]), c):
		return 4
	case s[1] == 'u' && len(s) >= 6 && s[2] == '0' && s[3] == '0' && sameByte(hexByte(s[4:6]), c):
		return 6
	}
	return 0
}

// charRefLen returns the length of an HTML character reference to c at the
// start of s ("&#115;", "&#x73;", "&#X0073;", "&sol;"), or 0. Numeric
// ones have one to maxRefDigits digits and end with ";".
func charRefLen(s string, c byte) int {
	for _, n := range namedRefs[c] {
		if strings.HasPrefix(s, n) {
			return len(n)
		}
	}
	if len(s) < 4 || s[1] != '#' {
		return 0
	}
	base, i := 10, 2
	if s[2] == 'x' || s[2] == 'X' {
		base, i = 16, 3
	}
	v, start := 0, i
	for ; i < len(s) && i-start < maxRefDigits; i++ {
		d := hexDigitValue(s[i])
		if d < 0 || d >= base {
			break
		}
		v = v*base + d
	}
	if i == start || i >= len(s) || s[i] != ';' || !sameByte(v, c) {
		return 0
	}
	return i + 1
}

// hexDigitValue is the value of a hex digit, or -1.
func hexDigitValue(b byte) int {
	switch {
	case b >= '0' && b <= '9':
		return int(b - '0')
	case b|0x20 >= 'a' && b|0x20 <= 'f':
		return int(b|0x20-'a') + 10
	}
	return -1
}

// hexByte reads two hex digits at the start of s, or returns -1.
func hexByte(s string) int {
	if len(s) < 2 {
		return -1
	}
	h, l := hexDigitValue(s[0]), hexDigitValue(s[1])
	if h < 0 || l < 0 {
		return -1
	}
	return h<<4 | l
}

// percentDecodeAll decodes every %XX in s (a "+" stays a "+").
func percentDecodeAll(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v := hexByte(s[i+1 : i+3]); v >= 0 {
				b = append(b, byte(v))
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// maskKey masks key in s; see [Redactor].
func maskKey(s, key string) string { return redactorFor(key).Mask(s) }

// validKey accepts what an API key can be: 1 to 1,024 characters from
// letters, digits and -_.~+/=: (every real key format uses a subset:
// DeepSeek's sk-<hex>, base64 and base64url tokens, JWTs). Anything else
// (quotes, backslashes, %, spaces, control or non-ASCII characters) would
// change under JSON escaping, percent-encoding or %q quoting, so an echo of
// it could slip past masking; such a key is refused with a sentence saying
// why instead.
func validKey(k string) bool {
	if k == "" || len(k) > 1024 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~+/=:", c) >= 0) {
			return false
		}
	}
	return true
}

// keyCharsRule says what validKey accepts, for error messages.
const keyCharsRule = "an API key is 1 to 1,024 letters, digits and - _ . ~ + / = :"

// looksLikeKey reports whether an option value could be a pasted secret:
// a token with a known key prefix (sk-, sk_, ghp_, github_pat_, xox…),
// or a long run of key characters mixing letters and digits. Errors about
// such a value do not repeat it.
func looksLikeKey(s string) bool {
	return hasKeyPrefix(s) || hasLongToken(s)
}

// keyTokens splits s into runs of characters keys are made of.
func keyTokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_+/=", r))
	})
}

// hasKeyPrefix reports whether s has a token that starts like a known
// key or token format.
func hasKeyPrefix(s string) bool {
	for _, tok := range keyTokens(s) {
		for _, p := range []string{"sk-", "sk_", "ghp_", "gho_", "ghs_", "github_pat_", "xoxb-", "xoxp-", "glpat-", "AKIA", "AIza"} {
			if strings.HasPrefix(tok, p) && len(tok) >= len(p)+8 {
				return true
			}
		}
	}
	return false
}

// hasLongToken reports whether s has a run of 20 or more key characters
// mixing letters and digits.
func hasLongToken(s string) bool {
	for _, tok := range keyTokens(s) {
		if len(tok) >= 20 {
			letters, digits := 0, 0
			for i := 0; i < len(tok); i++ {
				switch c := tok[i]; {
				case c >= '0' && c <= '9':
					digits++
				case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
					letters++
				}
			}
			if letters >= 3 && digits >= 3 {
				return true
			}
		}
	}
	return false
}

// shownEntry is shown for domain list entries, cut the way clipEntry cuts.
func shownEntry(s string) string {
	if looksLikeKey(s) {
		return quoteForMessage(s, 0)
	}
	return strconv.Quote(clipEntry(s))
}

// quoteForMessage quotes an option value for an error message, cut to n
// code points, or describes it without repeating it when it looks like a
// key.
func quoteForMessage(s string, n int) string {
	if looksLikeKey(s) {
		return "a value that looks like an API key (not repeated here)"
	}
	return strconv.Quote(clip(s, n))
}

// refuseKeyInInput refuses an operation whose inputs carry the key in any
// form red knows, also percent-encoded: it would be sent to DeepSeek's index
// or a third-party page, and error messages quote inputs. It runs before
// anything reads the inputs, so no message ever quotes one that holds the
// key.
func refuseKeyInInput(op Operation, name string, red *Redactor) *Error {
	for _, in := range []struct{ what, value string }{
		{"query", op.Query}, {"URL", op.URL}, {"format", op.Format}, {"operation kind", string(op.Kind)},
	} {
		if red.Contains(in.value) {
			return &Error{Code: CodeInvalidInput, Message: name + ": the " + in.what + " contains the API key; it was not sent"}
		}
	}
	return nil
}
