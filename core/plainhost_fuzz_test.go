package core

import (
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/host"
	"github.com/stretchr/testify/require"
)

// FuzzPlainHostParse checks what CheckFetchURL's fast path relies on: a
// plain host is host.Parse's answer unchanged, a name and not an address.
func FuzzPlainHostParse(f *testing.F) {
	for _, s := range []string{"example.com", "a-b.c0", "xn--zz.example", "1.2.3.a", "a.0x1", "a..b", "a.", "A.com", "123", "-.a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !plainHost(s) {
			return
		}
		h, err := host.Parse(s)
		require.NoError(t, err, "%q", s)
		require.False(t, h.IsAddr(), "%q", s)
		require.Equal(t, s, h.Name(), "%q", s)
	})
}
