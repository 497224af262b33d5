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

// FuzzByteMasks holds the eight-byte tests to a look at each byte: some
// byte is c, some byte is below n.
func FuzzByteMasks(f *testing.F) {
	f.Add(uint64(0x6867666564636261), byte('d'), byte(0x20))
	f.Add(uint64(0x0000000000000100), byte(0), byte(0x80))
	f.Add(uint64(0x8080808080808080), byte(0x80), byte(0x80))
	f.Add(uint64(0x1f7f80ff00200120), byte(0xff), byte(0x21))
	f.Fuzz(func(t *testing.T, x uint64, c, n byte) {
		n = min(n, 0x80)
		hasC, hasBelow := false, false
		for i := range 8 {
			b := byte(x >> (8 * i))
			hasC = hasC || b == c
			hasBelow = hasBelow || b < n
		}
		require.Equal(t, hasC, ZeroByteMask(x^Ones*uint64(c)) != 0, "%#x has %#x", x, c)
		require.Equal(t, hasBelow, BelowByteMask(x, n) != 0, "%#x below %#x", x, n)
	})
}
