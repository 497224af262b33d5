package core

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzDecimalInt holds decimalInt to strconv.ParseInt in base 10 (which
// reads "010" as ten and refuses prefixes and underscores), within ±1e9.
func FuzzDecimalInt(f *testing.F) {
	for _, s := range []string{"0", "010", "+7", "-7", "0x10", "0b11", "0o7", "1_0", "1e3", "", "+", "-", "+-1", "1000000000", "1000000001", "٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := decimalInt(s)
		want, err := strconv.ParseInt(s, 10, 64)
		wantOK := err == nil && want >= -1e9 && want <= 1e9
		if ok != wantOK || ok && int64(got) != want {
			t.Fatalf("decimalInt(%q) = %d, %v; strconv %d, %v", s, got, ok, want, err)
		}
		if ok && strings.ContainsAny(s, "xXbBoO_") {
			t.Fatalf("decimalInt(%q) read a prefix or underscore", s)
		}
	})
}
