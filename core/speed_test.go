package core

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/stretchr/testify/require"
)

// collapseParts are the pieces random texts are made of: every kind of
// white space collapseN treats specially, ASCII, multi-byte code points,
// NUL and invalid UTF-8.
var collapseParts = []string{"a", "bc", "é", " ", "  ", "\n\t ", "\u00a0", "\u0085", "\u2003", "\u3000", "语", "x y", "\x00", "\xff", "\xe2\x82", "\uFFFD", "\v\f\r", "😀"}

func randomText(r *rand.Rand, parts []string, n int) string {
	var b strings.Builder
	for range r.IntN(n) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

func TestCollapseNMatchesReference(t *testing.T) {
	fixed := []string{"", " ", "a", " a ", "a  b", "a b", "a\tb", "\xff", "a \xff b", " \x00a\x00 ", "\u00a0x\u00a0", "héllo wörld", "a\u2003b"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		fixed = append(fixed, randomText(r, collapseParts, 24))
	}
	for _, s := range fixed {
		for _, n := range []int{-1, 0, 1, 2, 3, 5, 8, 13, 1000} {
			require.Equal(t, refCollapseN(s, n), collapseN(s, n), "%q at %d", s, n)
		}
		require.Equal(t, refCollapseN(s, -1), collapse(s), "%q", s)
		for n := -1; n < 30; n++ {
			require.Equal(t, refClip(s, n), clip(s, n), "clip %q at %d", s, n)
			require.Equal(t, refEllipsize(s, n), ellipsize(s, n), "ellipsize %q at %d", s, n)
		}
	}
}

func FuzzCollapseNEquivalence(f *testing.F) {
	for _, s := range []string{"", " a  b ", "a\xffb", "\u00a0\u0085x\x00y", "语 言\n\n😀"} {
		f.Add(s, 4)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n%64 - 1
		if got, want := collapseN(s, n), refCollapseN(s, n); got != want {
			t.Fatalf("collapseN(%q, %d) = %q, want %q", s, n, got, want)
		}
		if got, want := clip(s, n), refClip(s, n); got != want {
			t.Fatalf("clip(%q, %d) = %q, want %q", s, n, got, want)
		}
		if got, want := ellipsize(s, n), refEllipsize(s, n); got != want {
			t.Fatalf("ellipsize(%q, %d) = %q, want %q", s, n, got, want)
		}
		if n > 0 {
			if got, want := ellipsize(collapseN(s, n+1), n), refEllipsize(refCollapseN(s, n+1), n); got != want {
				t.Fatalf("ellipsize(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
	})
}

var sinkString string

func benchTexts() map[string]string {
	sum := strings.Repeat("Effective Go gives tips for writing clear, idiomatic Go code and explains the conventions of the language. ", 3)
	return map[string]string{
		"clean":   strings.TrimSpace(sum),
		"spaced":  strings.Repeat("A summary sentence with  some   white space.\n", 40),
		"unicode": strings.Repeat("Go — 简单、可靠、高效. 😀 ", 20),
	}
}

func BenchmarkCollapseN(b *testing.B) {
	for name, s := range benchTexts() {
		for _, impl := range []struct {
			name string
			f    func(string, int) string
		}{{"new", collapseN}, {"old", refCollapseN}} {
			b.Run(name+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				b.ReportAllocs()
				for b.Loop() {
					sinkString = ellipsize(impl.f(s, 301), 300)
				}
			})
		}
	}
}

func BenchmarkCollapseOnly(b *testing.B) {
	for name, s := range benchTexts() {
		for _, impl := range []struct {
			name string
			f    func(string, int) string
		}{{"new", collapseN}, {"old", refCollapseN}} {
			b.Run(name+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				b.ReportAllocs()
				for b.Loop() {
					sinkString = impl.f(s, 301)
				}
			})
		}
	}
}

// maskKeys are keys of every shape validKey allows: one and two
// characters, DeepSeek's, base64-like with / and =, a JWT-like token.
var maskKeys = []string{"s", "sk", "%x", testKey, "sk-Ab9+/=~_.:Zz0123456789abcdefXY", "/a/b", "ZXhhbXBsZQ==", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc"}

// maskParts builds texts around key: its encodings whole and cut, its
// characters, escapes' first bytes, and prose.
func maskParts(key string) []string {
	parts := []string{" ", "a", "s", "k", "sk", "-", "%", "\\", "\\u00", "%7", "x", "the task ", "100% ", "\xff", "é", "=", "/"}
	for _, form := range encodings(key) {
		parts = append(parts, form, form[:len(form)/2], form[len(form)/2:])
	}
	for i := 0; i < len(key); i++ {
		parts = append(parts, key[i:i+1], key[:i])
	}
	return parts
}

func TestMaskMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, key := range maskKeys {
		red := NewRedactor(key)
		parts := maskParts(key)
		for range 5000 {
			s := randomText(r, parts, 12)
			require.Equal(t, refMask(red, s), red.Mask(s), "key %q, text %q", key, s)
			require.Equal(t, refContains(red, s), red.Contains(s), "key %q, text %q", key, s)
		}
	}
}

func FuzzMaskEquivalence(f *testing.F) {
	for _, key := range maskKeys {
		for _, form := range encodings(key) {
			f.Add(key, "a "+form+" b")
		}
	}
	f.Fuzz(func(t *testing.T, key, s string) {
		if !validKey(key) {
			return
		}
		red := NewRedactor(key)
		if got, want := red.Mask(s), refMask(red, s); got != want {
			t.Fatalf("key %q: Mask(%q) = %q, want %q", key, s, got, want)
		}
		if got, want := red.Contains(s), refContains(red, s); got != want {
			t.Fatalf("key %q: Contains(%q) = %v, want %v", key, s, got, want)
		}
	})
}

func BenchmarkMask(b *testing.B) {
	red := NewRedactor(testKey)
	texts := benchTexts()
	texts["url"] = "https://example.com/search?q=effective%20go&page=2&sort=desc%2Casc"
	texts["page"] = strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. sk-short tasks ", 36)
	for name, s := range texts {
		for _, impl := range []struct {
			name string
			f    func(string) string
		}{{"new", red.Mask}, {"old", func(s string) string { return refMask(red, s) }}} {
			b.Run(name+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				b.ReportAllocs()
				for b.Loop() {
					sinkString = impl.f(s)
				}
			})
		}
	}
}

// keptByCollapse is true exactly for eight bytes collapseN keeps as they are.
func TestPlain8(t *testing.T) {
	ref := func(b string) bool {
		for k := 0; k < 8; k++ {
			switch c := b[k]; {
			case c < ' ' || c >= 0x80:
				return false
			case c == ' ' && (k == 7 || b[k+1] == ' '):
				return false
			}
		}
		return true
	}
	bytes := []byte{0, 1, '\t', '\n', 0x1f, ' ', '!', 'a', '~', 0x7f, 0x80, 0xc3, 0xff}
	r := rand.New(rand.NewPCG(7, 8))
	for range 200000 {
		var b [8]byte
		for k := range b {
			b[k] = bytes[r.IntN(len(bytes))]
			if r.IntN(3) > 0 {
				b[k] = 'a' + byte(r.IntN(26))
			}
		}
		require.Equal(t, ref(string(b[:])), keptByCollapse(ascii.Load8(string(b[:]))), "%q", b)
	}
}

func TestPageIndexMatchesReference(t *testing.T) {
	parts := []string{"a", "bcdefghij", strings.Repeat("x", 1017), strings.Repeat("y", 1023), "é", "语", "😀", "\xff", "\xe2\x82", " ", "\n"}
	r := rand.New(rand.NewPCG(9, 10))
	for range 3000 {
		doc := randomText(r, parts, 40)
		wantIndex, wantN := refPageIndex(doc)
		gotIndex, gotN := pageIndex(doc)
		require.Equal(t, wantN, gotN, "%q", doc)
		require.Equal(t, wantIndex, gotIndex, "%q", doc)
	}
}

func FuzzPageIndexEquivalence(f *testing.F) {
	f.Add("# T\n\nbody é 语 😀 \xff", 3)
	f.Fuzz(func(t *testing.T, s string, pad int) {
		// Padding moves s across index entries.
		doc := strings.Repeat("p", pad%3000+1000) + s
		wantIndex, wantN := refPageIndex(doc)
		gotIndex, gotN := pageIndex(doc)
		if wantN != gotN || !slices.Equal(wantIndex, gotIndex) {
			t.Fatalf("pageIndex(%q) = %v, %d; want %v, %d", doc, gotIndex, gotN, wantIndex, wantN)
		}
	})
}

func BenchmarkPageIndex(b *testing.B) {
	para := "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. "
	for name, doc := range map[string]string{"ascii4K": strings.Repeat(para, 40), "mixed64K": strings.Repeat("Go — 简单、可靠、高效. 😀 "+para, 500)} {
		for _, impl := range []struct {
			name string
			f    func(string) ([]int32, int)
		}{{"new", pageIndex}, {"old", refPageIndex}} {
			b.Run(name+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				for b.Loop() {
					impl.f(doc)
				}
			})
		}
	}
}

// BenchmarkProcessSearchStep is the search step's processing of the
// response: decode, mask, filter, collapse and cut.
func BenchmarkProcessSearchStep(b *testing.B) {
	body := deepseektest.StepSearchBody()
	cfg := mustConfig(b, Options{})
	red := NewRedactor("sk-bench")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := processSearch(body, "effective go", cfg, red.Mask)
		if err != nil || len(res.Hits) != 10 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodePageStep is the fetch step's processing of a 4 KiB
// response: decode, mask and build the page.
func BenchmarkDecodePageStep(b *testing.B) {
	para := "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. "
	body := []byte(`{"title":"Example page","content":"# Example page\n\n` + strings.Repeat(para, 40) + `"}`)
	cfg := mustConfig(b, Options{})
	red := NewRedactor("sk-bench")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodePage(body, "https://example.com/page", cfg, red.Mask); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCanonicalHostMatchesReference(t *testing.T) {
	parts := []string{"a", "z", "example", "com", ".", "..", "-", "0", "1", "9", "0x", "0x1f", "f", "xn--", "xn--mnchen-3ya", "A", "ü", "%2e", ":", "1.2.3.4", "127", "_", "。"}
	hosts := []string{"example.com", "go.dev", "a", "a.b", "a-b.c-d", "1.2.3.4", "1.2.3.com", "com.1", "a.0x1f", "a.0xg", "a.f", "a.08", "xn--mnchen-3ya.de", "Example.com", "a..b", ".a", "a.", "-a.b", "a.-b", "::1", "a_b.com"}
	r := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		hosts = append(hosts, randomText(r, parts, 8))
	}
	for _, h := range hosts {
		require.Equal(t, refCanonicalHost(h), canonicalHost(h), "%q", h)
	}
}

func FuzzCanonicalHostEquivalence(f *testing.F) {
	for _, h := range []string{"example.com", "a.0x1f", "1.2.3.4", "xn--mnchen-3ya.de", "a..b", "a.b.", "a.f1"} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, h string) {
		if got, want := canonicalHost(h), refCanonicalHost(h); got != want {
			t.Fatalf("canonicalHost(%q) = %q, want %q", h, got, want)
		}
	})
}

func BenchmarkCanonicalHost(b *testing.B) {
	for _, impl := range []struct {
		name string
		f    func(string) string
	}{{"new", canonicalHost}, {"old", refCanonicalHost}} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkString = impl.f("docs.example.com")
			}
		})
	}
}

func TestMarkerMatchesReference(t *testing.T) {
	nums := []*float64{nil}
	for _, v := range []float64{-1, 0, 1, 2.05, 2.15, 3.5, -0.0, 1e21, 123456789.125, 0.1 + 0.2} {
		nums = append(nums, &v)
	}
	for _, r := range nums {
		for _, a := range nums {
			for _, site := range []string{"", "Go", "a · b"} {
				for _, text := range []string{"", "text", "multi\nline"} {
					h := Hit{Rerank: r, Authority: a, Site: site, Text: text}
					require.Equal(t, refMarker(h), h.Marker(), "%+v", h)
					require.Equal(t, refProviderContent(h), h.ProviderContent(), "%+v", h)
				}
			}
		}
	}
}

func FuzzMarkerEquivalence(f *testing.F) {
	f.Add(2.4, 3.0, "example.com", "text", uint8(3))
	f.Fuzz(func(t *testing.T, r, a float64, site, text string, has uint8) {
		h := Hit{Site: site, Text: text}
		if has&1 != 0 {
			h.Rerank = &r
		}
		if has&2 != 0 {
			h.Authority = &a
		}
		if got, want := h.ProviderContent(), refProviderContent(h); got != want {
			t.Fatalf("%+v: ProviderContent = %q, want %q", h, got, want)
		}
		if got, want := h.Marker(), refMarker(h); got != want {
			t.Fatalf("%+v: Marker = %q, want %q", h, got, want)
		}
	})
}

func BenchmarkProviderContent(b *testing.B) {
	r, a := 2.4, 3.0
	h := Hit{Rerank: &r, Authority: &a, Site: "example.com", Text: strings.Repeat("Effective Go. ", 20)}
	for _, impl := range []struct {
		name string
		f    func(Hit) string
	}{{"new", Hit.ProviderContent}, {"old", refProviderContent}} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkString = impl.f(h)
			}
		})
	}
}

// FuzzHasByteEquivalence holds hasByte to strings.IndexByte, for any byte
// at any offset.
func FuzzHasByteEquivalence(f *testing.F) {
	f.Add("", byte('\r'))
	f.Add("line\r\nline", byte('\r'))
	f.Add("eight b.\rsixteen bytes, then \x8d\x0d\x00 more", byte('\r'))
	f.Add("\xff\xfe\x0c\x0e\x0d", byte('\r'))
	f.Add("no carriage returns in these thirty-two bytes..", byte(0))
	f.Fuzz(func(t *testing.T, s string, c byte) {
		require.Equal(t, strings.IndexByte(s, c) >= 0, hasByte(s, c), "%q %#x", s, c)
	})
}
