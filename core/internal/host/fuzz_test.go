package host

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzParseHost checks that Parse never panics, that a parsed host
// round-trips through String, and that a name never looks like an address.
// Seeds come from f.Add below and testdata/fuzz/FuzzParseHost.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{
		"example.com", "EXAMPLE.com.", "127.1", "0x7f.0.0.1", "2130706433",
		"0177.0.0.1", "%31%32%37.0.0.1", "127。0。0。1", "１２７．０．０．１",
		"[::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[64:ff9b::7f00:1]",
		"[2002:7f00:1::]", "[fe80::1%25eth0]", "münchen.de", "xn--mnchen-3ya.de",
		"loc\u00ADalhost", "localhoſt", "a..b", "1.2.3.4..", "0x", "4294967296",
		"[1:2:3:4:5:6:1.2.3.4]", "a%zz", "%ff", "ｌｏｃａｌｈｏｓｔ.", "FAẞ.de",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := Parse(s)
		if err != nil {
			if h != (Host{}) {
				t.Fatalf("Parse(%q) returned %#v with error %v", s, h, err)
			}
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Parse(%q) error %T is not *Error", s, err)
			}
			return
		}
		if h.IsAddr() == (h.Name() != "") {
			t.Fatalf("Parse(%q) = %#v: want exactly one of name and address", s, h)
		}
		again, err := Parse(h.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not parse again: %v", s, h.String(), err)
		}
		if again != h {
			t.Fatalf("Parse(%q) = %#v, but Parse(%q) = %#v", s, h, h.String(), again)
		}
		if h.IsAddr() {
			a := h.Addr()
			if a.Zone() != "" {
				t.Fatalf("Parse(%q) kept zone %q", s, a.Zone())
			}
			if a.Is6() != strings.HasPrefix(s, "[") {
				t.Fatalf("Parse(%q) = %v: IPv6 exactly when bracketed", s, a)
			}
			return
		}
		name := h.Name()
		for i := 0; i < len(name); i++ {
			c := name[i]
			if c >= 0x80 || 'A' <= c && c <= 'Z' || forbiddenDomain(rune(c)) {
				t.Fatalf("Parse(%q) = name %q with byte %q", s, name, c)
			}
		}
		if strings.HasSuffix(name, ".") || strings.Contains(name, "..") || strings.HasPrefix(name, ".") {
			t.Fatalf("Parse(%q) = name %q with an empty label", s, name)
		}
		if endsInNumber(name) {
			t.Fatalf("Parse(%q) = name %q that ends in a number", s, name)
		}
		if _, err := netip.ParseAddr(name); err == nil {
			t.Fatalf("Parse(%q) = name %q that netip reads as an address", s, name)
		}
		if _, ok := lenientIPv4(name); ok {
			t.Fatalf("Parse(%q) = name %q that inet_aton would read as an address", s, name)
		}
	})
}

// lenientIPv4 reads s the way inet_aton does (1–4 parts, each decimal, 0x
// hex or 0 octal, digits only), independently of parseIPv4.
func lenientIPv4(s string) (uint32, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return 0, false
	}
	var nums []uint64
	for _, p := range parts {
		base := uint64(10)
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			p, base = p[2:], 16
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		if p == "" {
			return 0, false
		}
		var v uint64
		for _, c := range p {
			d := uint64(strings.IndexRune("0123456789abcdef", c|0x20))
			if c|0x20 < '0' || d >= base || d == ^uint64(0) {
				return 0, false
			}
			v = v*base + d
			if v > 1<<32 {
				return 0, false
			}
		}
		nums = append(nums, v)
	}
	var v uint64
	for i, n := range nums {
		if i == len(nums)-1 {
			if n >= 1<<(8*(4-i)) {
				return 0, false
			}
			v += n
		} else {
			if n > 255 {
				return 0, false
			}
			v += n << (8 * (3 - i))
		}
	}
	return uint32(v), true
}

// FuzzPlain checks Parse's shortcut: a plain name is what the whole parse
// gives back, a name and not an address.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"example.com", "a-b.c0", "xn--zz.example", "1.2.3.a", "a.0x1", "a..b", "a.", "A.com", "123", "-.a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !ParsesUnchanged(s) {
			return
		}
		h, err := parse(s)
		if err != nil || h.IsAddr() || h.Name() != s {
			t.Fatalf("parse(%q) = %v, %v; ParsesUnchanged says it is the name itself", s, h, err)
		}
	})
}
