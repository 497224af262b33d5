package ascii

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// IsHex and Unhex agree with strconv on every byte.
func TestHex(t *testing.T) {
	for c := range 256 {
		v, err := strconv.ParseUint(string(rune(c)), 16, 8)
		require.Equal(t, err == nil, IsHex(byte(c)), "byte %#x", c)
		if err == nil {
			require.Equal(t, byte(v), Unhex(byte(c)), "byte %#x", c)
		}
	}
}

// Load8 reads a string and a byte slice the same, little-endian.
func TestLoad8(t *testing.T) {
	require.Equal(t, uint64(0x6867666564636261), Load8("abcdefgh"))
	require.Equal(t, uint64(0x6867666564636261), Load8([]byte("abcdefghij")))
}
