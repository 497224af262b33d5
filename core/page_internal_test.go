package core

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// White-box tests of Page: they compare the parts against the formatted
// document and its code point index, which are not exported.

// TestPageReadInParts follows NextOffset from 0 to the end: every part fits,
// and the parts, less the continue lines and the white space dropped before
// each cut, are the document.
func TestPageReadInParts(t *testing.T) {
	content := strings.Repeat("Ünïcödé 语言 😀 e\u0301 👩\u200d💻 line\r\n", 2000)
	p := NewPage("Title", content)
	var b strings.Builder
	offset, parts := 0, 0
	for {
		r, err := p.Part(offset, 1000, "")
		require.NoError(t, err)
		require.LessOrEqual(t, r.Chars, 1000)
		parts++
		if r.NextOffset == 0 {
			b.WriteString(r.Text)
			break
		}
		i := strings.LastIndex(r.Text, "\n[content truncated: ")
		if i < 0 {
			i = 0 // a part of white space only
		}
		b.WriteString(r.Text[:i])
		gap := p.doc[p.byteAt(offset)+i : p.byteAt(r.NextOffset)]
		require.Empty(t, strings.TrimSpace(gap), "only white space is dropped at a cut")
		b.WriteString(gap)
		require.Greater(t, r.NextOffset, offset)
		offset = r.NextOffset
	}
	require.Equal(t, p.doc, b.String())
	require.Equal(t, "# Title\n\n"+strings.TrimSpace(strings.ReplaceAll(content, "\r\n", "\n")), p.doc)
	require.Greater(t, parts, 50)
}

func TestPageIndex(t *testing.T) {
	p := NewPage("", strings.Repeat("é😀a", 5000))
	for _, n := range []int{0, 1, 1023, 1024, 1025, 4096, 14999, 15000} {
		want := len(string([]rune(p.doc)[:n]))
		require.Equal(t, want, p.byteAt(n), n)
	}
}
