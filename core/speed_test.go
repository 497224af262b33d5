package core

import (
	"math/rand/v2"
	"strings"
	"testing"

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
