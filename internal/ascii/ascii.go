// Package ascii holds the byte-level helpers the module's parsers and text
// passes share: hex digits, and reading and testing eight bytes at once
// for the eight-bytes-at-a-time (SWAR) scans of core, core/internal/wire
// and internal/jsonlite.
package ascii

// IsHex reports whether c is a hex digit.
func IsHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Unhex returns the value of the hex digit c (c must be one, see IsHex).
func Unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// Ones and Highs are the constants of the eight-bytes-at-a-time tests:
// every byte 0x01, and every byte's high bit.
const (
	Ones  = 0x0101010101010101
	Highs = 0x8080808080808080
)

// ZeroByteMask returns a mask with the high bit set where a byte of x is
// zero, and possibly in bytes above such a byte (where the subtraction
// borrowed), so ZeroByteMask(x) != 0 exactly when some byte is zero. x ^ c·Ones has a zero
// byte where x has c.
func ZeroByteMask(x uint64) uint64 { return (x - Ones) &^ x & Highs }

// BelowByteMask returns a mask with the high bit set where a byte of x is
// below n (at most 0x80), and possibly in bytes above such a byte:
// BelowByteMask(x, n) != 0 exactly when some byte is below n.
func BelowByteMask(x uint64, n byte) uint64 { return (x - Ones*uint64(n)) &^ x & Highs }

// Load8 reads the first eight bytes of s little-endian; the compiler makes
// it one load, also in WebAssembly (encoding/binary would add 100 KB to the
// module).
func Load8[T string | []byte](s T) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
