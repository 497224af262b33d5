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

// Hex, upper case and HTML character references of the key are masked too,
// split across writes or not.
func TestMaskingWriterEncodedForms(t *testing.T) {
	const key = "sk-0123456789abcdef0123456789abcdef"
	hexKey := "736b2d30313233343536373839616263646566303132333435363738396162636465660a"
	line := "hex " + hexKey[:len(hexKey)-2] + " HEX " + strings.ToUpper(hexKey[:len(hexKey)-2]) +
		" upper " + strings.ToUpper(key) + " html &#115;&#X6B;&#45;" + key[3:] + "\n"
	for cut := 0; cut <= len(line); cut += 7 {
		var out strings.Builder
		w := NewMaskingWriter(&out, key)
		_, err := w.Write([]byte(line[:cut]))
		require.NoError(t, err)
		_, err = w.Write([]byte(line[cut:]))
		require.NoError(t, err)
		require.NoError(t, w.Flush())
		require.Equal(t, "hex [redacted] HEX [redacted] upper [redacted] html [redacted]\n", out.String())
	}
}
