package core

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// maskEveryOffset is Mask without next: matchAt at every offset, the
// ground truth next's skipping (strides and pairs) must not change.
func maskEveryOffset(r *Redactor, s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if n := r.matchAt(s, i); n > 0 {
			b.WriteString(s[last:i])
			b.WriteString(keyMask)
			i += n - 1
			last = i + 1
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// strideKeys have shortest forms of every length around next's stride
// limit (four bytes), and real key shapes.
var strideKeys = []string{"ab", "abc", "abcd", "sk-b", "sk-bench", "sk-0123456789abcdef0123456789abcdef", "a/b+c=d:e~f", "ZZZZZZZZZZZZ"}

// TestMaskStrides masks the key, in each form encodings lists, at every
// offset of prose, and checks Mask against maskEveryOffset.
func TestMaskStrides(t *testing.T) {
	prose := "Effective Go gives tips for writing clear, idiomatic Go code: 2024-01-15, %7 \\x \\u00 sk-"
	for _, key := range strideKeys {
		r := NewRedactor(key)
		if len(key) >= 4 {
			require.NotNil(t, r.inner, key)
		}
		for name, enc := range encodings(key) {
			for at := 0; at <= len(prose); at += 3 {
				s := prose[:at] + enc + prose[at:] + enc
				require.Equal(t, maskEveryOffset(r, s), r.Mask(s), "%s, %s at %d", key, name, at)
			}
		}
	}
	r := NewRedactor("sk-bench")
	require.Equal(t, 7, r.stride)
	require.Equal(t, "a [redacted] b [redacted]", r.Mask("a %73k-bench b c2stYmVuY2g="))
}

// FuzzMaskStrides checks Mask against maskEveryOffset for arbitrary text
// around a form of the key.
func FuzzMaskStrides(f *testing.F) {
	for i, key := range strideKeys {
		for _, enc := range encodings(key) {
			f.Add(uint8(i), "tips for "+enc[:len(enc)/2], enc[len(enc)/2:]+" Go %2", uint8(1))
		}
	}
	f.Fuzz(func(t *testing.T, k uint8, a, b string, times uint8) {
		key := strideKeys[int(k)%len(strideKeys)]
		r := NewRedactor(key)
		for _, s := range []string{a + b, a + key + b, strings.Repeat(a+key[:len(key)/2], int(times%8)) + b} {
			require.Equal(t, maskEveryOffset(r, s), r.Mask(s), "key %q, text %q", key, s)
		}
	})
}
