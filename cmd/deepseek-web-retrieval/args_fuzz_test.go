package main

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseDecimal holds parseDecimalInt to strconv.ParseInt in base 10 and
// parseDecimalFloat to strconv.ParseFloat restricted to decimal spellings:
// no base prefix, Inf, NaN or underscore is ever read as a number.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "010", "+7", "-7", "0x10", "0X10", "0b11", "0o7", "-0x1", "1_0", "1e3", "1.5", ".5", "0x1p4", "Inf", "nan", "", "+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseDecimalInt(s)
		want, werr := strconv.ParseInt(s, 10, 0)
		if (err == nil) != (werr == nil) || err == nil && int64(n) != want {
			t.Fatalf("parseDecimalInt(%q) = %d, %v; strconv %d, %v", s, n, err, want, werr)
		}
		x, err := parseDecimalFloat(s)
		decimal := strings.Trim(s, "0123456789.eE+-") == "" && !hasBasePrefix(s)
		wx, werr := strconv.ParseFloat(s, 64)
		if wantOK := decimal && werr == nil; (err == nil) != wantOK || err == nil && x != wx {
			t.Fatalf("parseDecimalFloat(%q) = %v, %v; strconv %v, %v", s, x, err, wx, werr)
		}
		if err == nil && (strings.ContainsAny(s, "xXpP_") || hasBasePrefix(s)) {
			t.Fatalf("parseDecimalFloat(%q) read a non-decimal spelling", s)
		}
	})
}
