package core

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/host"
)

// This file keeps the implementations that the faster ones in text.go and
// redact.go replaced, as the reference their equivalence tests and fuzz
// targets compare with (speed_test.go).

// refCollapseN is collapseN as first written: a rune at a time into a
// strings.Builder.
func refCollapseN(s string, n int) string {
	var b strings.Builder
	space := false
	count := 0
	for _, r := range s {
		if unicode.IsSpace(r) || r == 0 {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			if count == n {
				break
			}
			b.WriteByte(' ')
			count++
		}
		if count == n {
			break
		}
		space = false
		b.WriteRune(r)
		count++
	}
	return b.String()
}

// refEllipsize is ellipsize as first written.
func refEllipsize(s string, n int) string {
	if runeCount(s) <= n {
		return s
	}
	return strings.TrimRightFunc(clip(s, n-1), unicode.IsSpace) + "…"
}

// refClip is clip as first written.
func refClip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// refMask is Redactor.Mask as first written: matchAt tried at every byte
// a form can start with.
func refMask(r *Redactor, s string) string {
	if r == nil || r.key == "" {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if !r.first[s[i]] {
			continue
		}
		if n := refMatchAt(r, s, i); n > 0 {
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

// refContains is Redactor.Contains as first written.
func refContains(r *Redactor, s string) bool {
	if r == nil || r.key == "" {
		return false
	}
	for range 4 {
		for i := 0; i < len(s); i++ {
			if r.first[s[i]] && refMatchAt(r, s, i) > 0 {
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

// refMatchAt is matchAt as first written.
func refMatchAt(r *Redactor, s string, i int) int {
	for _, f := range r.coded {
		if strings.HasPrefix(s[i:], f) {
			return len(f)
		}
	}
	if n := 2 * len(r.key); len(s)-i >= n {
		if d, err := hex.DecodeString(s[i : i+n]); err == nil && asciiEqualFold(string(d), r.key) {
			return n
		}
	}
	j := i
	for k := 0; k < len(r.key); k++ {
		n := refUnitOf(s[j:], r.key[k])
		if n == 0 {
			return 0
		}
		j += n
	}
	return j - i
}

// asciiEqualFold is strings.EqualFold for ASCII letters only.
func asciiEqualFold(a, b string) bool {
	return len(a) == len(b) && strings.ToLower(strings.Map(asciiOnly, a)) == strings.ToLower(strings.Map(asciiOnly, b)) &&
		!strings.ContainsFunc(a+b, func(r rune) bool { return r >= 0x80 })
}

func asciiOnly(r rune) rune {
	if r >= 0x80 {
		return -1
	}
	return r
}

// refUnitOf is unitOf written out: every spelling of c listed, then the
// shortest that s starts with (c as is wins over an escape that starts
// with c, which only test keys such as "%x" have).
func refUnitOf(s string, c byte) int {
	best := 0
	for _, sp := range refSpellingsOf[c] {
		if strings.HasPrefix(s, sp) && (best == 0 || len(sp) < best) {
			best = len(sp)
		}
	}
	return best
}

// refSpellingsOf is refSpellings of every byte.
var refSpellingsOf = func() (t [256][]string) {
	for c := range t {
		t[c] = refSpellings(byte(c))
	}
	return t
}()

// refSpellings lists each way a byte c (a letter in either case) is
// written: as is, %XX, \xXX, \u00XX, a JSON escape, an HTML reference.
func refSpellings(c byte) []string {
	vs := []byte{c}
	if u, l := byte(unicode.ToUpper(rune(c))), byte(unicode.ToLower(rune(c))); c < 0x80 && u != l {
		vs = append(vs, u^l^c)
	}
	var out []string
	for _, v := range vs {
		out = append(out, string(v))
		for _, h := range hexCasings(fmt.Sprintf("%02x", v)) {
			out = append(out, "%"+h, `\x`+h, `\u00`+h)
		}
		if v == '/' {
			out = append(out, `\/`)
		}
		d := strconv.Itoa(int(v))
		for z := 0; len(d)+z <= 7; z++ {
			out = append(out, "&#"+strings.Repeat("0", z)+d+";")
		}
		for _, h := range hexCasings(strconv.FormatInt(int64(v), 16)) {
			for z := 0; len(h)+z <= 7; z++ {
				out = append(out, "&#x"+strings.Repeat("0", z)+h+";", "&#X"+strings.Repeat("0", z)+h+";")
			}
		}
	}
	names := map[byte][]string{'.': {"&period;"}, '_': {"&lowbar;", "&UnderBar;"}, '+': {"&plus;"}, '/': {"&sol;"}, '=': {"&equals;"}, ':': {"&colon;"}}
	return append(out, names[c]...)
}

// hexCasings is every spelling of hex digits h with its letters in
// either case.
func hexCasings(h string) []string {
	out := []string{""}
	for _, r := range h {
		var next []string
		for _, p := range out {
			next = append(next, p+string(r))
			if r >= 'a' && r <= 'f' {
				next = append(next, p+strings.ToUpper(string(r)))
			}
		}
		out = next
	}
	return out
}

// refPageIndex is NewPage's index loop as first written.
func refPageIndex(doc string) ([]int32, int) {
	index := make([]int32, 0, len(doc)/pageStride+1)
	n := 0
	for i := range doc {
		if n%pageStride == 0 {
			index = append(index, int32(i))
		}
		n++
	}
	return index, n
}

// refCanonicalHost is canonicalHost as first written: every host through
// the WHATWG parser.
func refCanonicalHost(h string) string {
	in := h
	if strings.Contains(h, ":") {
		in = "[" + h + "]"
	}
	p, err := host.Parse(in)
	switch {
	case err != nil:
		return h
	case p.IsAddr():
		return p.Addr().String()
	}
	return p.Name()
}

// refMarker is Hit.Marker as first written, joining parts.
func refMarker(h Hit) string {
	parts := make([]string, 0, 3)
	if h.Rerank != nil {
		parts = append(parts, "rerank "+strconv.FormatFloat(*h.Rerank, 'f', 1, 64))
	}
	if h.Authority != nil {
		a := *h.Authority
		if a == -1 {
			parts = append(parts, "authority unknown")
		} else {
			parts = append(parts, "authority "+strconv.FormatFloat(a, 'f', -1, 64))
		}
	}
	if h.Site != "" {
		parts = append(parts, h.Site)
	}
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, " · ") + "]"
}

// refProviderContent is Hit.ProviderContent as first written.
func refProviderContent(h Hit) string {
	m := refMarker(h)
	switch {
	case m == "":
		return h.Text
	case h.Text == "":
		return m
	}
	return m + "\n" + h.Text
}
