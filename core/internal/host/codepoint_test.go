package host

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCodePoint checks codePoint against the fmt verb it replaced.
func TestCodePoint(t *testing.T) {
	for _, r := range []rune{0, 'a', 0x7f, 0x17f, 0x212a, 0xfffd, 0x1d7cf, 0x10ffff} {
		require.Equal(t, fmt.Sprintf("%U", r), codePoint(r))
	}
	require.Equal(t, "U+017F", codePoint('ſ'))
}
