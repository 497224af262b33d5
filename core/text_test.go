package core

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"abc", 3, "abc"},
		{"abc", 2, "ab"},
		{"语言abc", 2, "语言"},
		{"😀😀😀", 2, "😀😀"},
		{"😀😀", 5, "😀😀"}, // 8 bytes, 2 code points
		{"é\xffé", 2, "é\xff"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, clip(tt.s, tt.n), "%q %d", tt.s, tt.n)
	}
}

func TestCollapse(t *testing.T) {
	require.Equal(t, "a b c", collapse(" \t a\u00a0\u2003b\n\x00\r\nc \u3000"))
	require.Equal(t, "", collapse(" \n\t"))
	require.Equal(t, "语 言", collapse("语\u3000言"))
}

func TestEllipsize(t *testing.T) {
	require.Equal(t, "abc", ellipsize("abc", 3))
	require.Equal(t, "ab…", ellipsize("abcd", 3))
	require.Equal(t, "a…", ellipsize("a bcd", 3))
	require.Equal(t, "语言…", ellipsize(strings.Repeat("语言", 5), 3))
}

func TestOpensWithHeading(t *testing.T) {
	require.False(t, opensWithHeading("", "T"))
	require.False(t, opensWithHeading("\n \n", "T"))
	require.True(t, opensWithHeading(" \n#  t ", "T"))
	require.False(t, opensWithHeading("#T", "T"))
}

func TestValidKey(t *testing.T) {
	require.True(t, validKey(testKey))
	require.False(t, validKey(""))
	require.False(t, validKey("sk-"+strings.Repeat("a", 1022)))
	require.True(t, validKey("sk-"+strings.Repeat("a", 1021)))
	require.True(t, validKey("AZaz09-_.~+/=:"))
	// Characters no real key has, which JSON, percent or %q encoding would
	// change (so an echo could slip past masking).
	for _, k := range []string{"sk a", "sk\ta", "sk\x00", "sk\x7f", "sk-é", `sk-"a`, `sk-\a`, "sk-%41", "sk-<a>", "sk-&a", "sk-'a", "${KEY"} {
		require.False(t, validKey(k), "%q", k)
	}
}

// collapseN bounded at n+1 code points gives ellipsize what the whole
// collapse would.
func TestCollapseNMatchesCollapse(t *testing.T) {
	parts := []string{"a", "é", " ", "\n\t ", "语", "x y", "\x00", "  "}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(20) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		for n := 2; n <= 12; n++ {
			require.Equal(t, ellipsize(collapse(s), n), ellipsize(collapseN(s, n+1), n), "%q at %d", s, n)
		}
	}
}
