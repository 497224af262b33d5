package httpdriver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A key split across writes is masked: lines are masked whole.
func TestMaskingWriterSplitWrites(t *testing.T) {
	const key = "sk-0123456789abcdef0123456789abcdef"
	line := "echo " + key + " and %73" + key[1:] + " done\nsecond " + key
	for cut := 0; cut <= len(line); cut++ {
		var out strings.Builder
		w := NewMaskingWriter(&out, key)
		n, err := w.Write([]byte(line[:cut]))
		require.NoError(t, err)
		require.Equal(t, cut, n)
		_, err = w.Write([]byte(line[cut:]))
		require.NoError(t, err)
		require.NoError(t, w.Flush())
		require.Equal(t, "echo [redacted] and [redacted] done\nsecond [redacted]", out.String())
	}
}
