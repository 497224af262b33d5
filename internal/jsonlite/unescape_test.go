package jsonlite

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
)

// asciiNoBackslash is true exactly for eight ASCII bytes without a backslash.
func TestASCII8(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			require.Equal(t, c < 0x80 && c != '\\', asciiNoBackslash(ascii.Load8(b)), "byte %#x at %d", c, pos)
			b[(pos+3)%8] = '\\'
			require.False(t, asciiNoBackslash(ascii.Load8(b)), "backslash with %#x at %d", c, pos)
		}
	}
}

// UnescapeString decodes any valid JSON string's text as encoding/json does.
func FuzzUnescapeEquivalence(f *testing.F) {
	for _, s := range []string{`a`, `\n\t\"\\\/`, `\u00e9\u4e2d\ud83d\ude00`, `\ud800x`, "\xff\xfe", "é中😀", `\u0000`, "ab\xc3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		text := append(append([]byte{'"'}, raw...), '"')
		var want string
		if json.Unmarshal(text, &want) != nil {
			return
		}
		if got := UnescapeString(raw); got != want {
			t.Fatalf("UnescapeString(%q) = %q, want %q", raw, got, want)
		}
	})
}
