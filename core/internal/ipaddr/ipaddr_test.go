package ipaddr

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// The reference for everything here is net/netip: the tests convert an
// Addr to a netip.Addr and compare.

// toNetip is the netip.Addr that a stands for.
func toNetip(a Addr) netip.Addr {
	switch {
	case a.Is4():
		b := a.As16()
		return netip.AddrFrom4([4]byte(b[12:]))
	case a.Is6():
		return netip.AddrFrom16(a.As16()).WithZone(a.Zone())
	}
	return netip.Addr{}
}

// samples are realistic and edge inputs: they seed the fuzz targets and
// make up the table test.
var samples = []string{
	"", ".", ":", "::", ":::", "%", "%eth0", "::%", "::%eth0", "1", "a",
	"0.0.0.0", "1.2.3.4", "255.255.255.255", "256.1.1.1", "1.2.3", "1.2.3.4.5",
	"1.2.3.", ".1.2.3", "1..2.3", "01.2.3.4", "1.2.3.04", "00.1.2.3", "1.2.3.0",
	"1.2.3.4%x", "1.2.3.4:80", "1.2.3.4 ", " 1.2.3.4", "1.2.3.-4", "1.2.3.2555",
	"127.0.0.1", "0x7f.0.0.1", "10.0.0.1", "192.168.1.1",
	"::1", "::", "1::", "1::2", "::ffff:1.2.3.4", "::FFFF:1.2.3.4", "::ffff:7f00:1",
	"::1.2.3.4", "64:ff9b::1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4",
	"1:2:3:4:5:1.2.3.4", "1:2:3:4:5::1.2.3.4", "::1:2:3:4:5:6:1.2.3.4",
	"::ffff:01.2.3.4", "::ffff:1.2.3", "::ffff:1.2.3.4.5", "::ffff:256.2.3.4",
	"::1.2.3.4%eth0", "::ffff:1.2.3.4%x", "fe80::1%eth0", "fe80::1%", "fe80::1%%",
	"fe80::1%a%b", "fe80::1%25eth0", "fe80::1%eth0/64", "%::1",
	"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7::",
	"::1:2:3:4:5:6:7", "1::2::3", "1:::2", ":1::", "1::2:", "12345::", "0000::0001",
	"2001:DB8::1", "2001:db8:0:0:1:0:0:1", "2001:0:0:1:0:0:0:1", "2001:db8::0:1",
	"2001:db8:85a3::8a2e:370:7334", "fc00::", "ff02::1", "1:0:0:0:0:0:0:0",
	"0:0:0:0:0:0:0:1", "0:0:1:0:0:0:0:0", "1:0:1:0:1:0:1:0", "g::1", "::g",
	"1.2.3.4::", "::1.2.3.4::", "::1.2.3.4:1", "[::1]", "::1]",
}

func TestParseMatchesNetip(t *testing.T) {
	for _, s := range samples {
		a, ok := Parse(s)
		want, err := netip.ParseAddr(s)
		require.Equal(t, err == nil, ok, "%q: netip error %v", s, err)
		require.Equal(t, want, toNetip(a), s)
		require.Equal(t, want.String(), a.String(), s)
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		is4      bool
		zone     string
	}{
		{"192.0.2.1", "192.0.2.1", true, ""},
		{"2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1", false, ""},
		{"::FFFF:7F00:1", "::ffff:127.0.0.1", false, ""},
		{"0:0:0:0:0:0:0:0", "::", false, ""},
		{"fe80::1%eth0", "fe80::1%eth0", false, "eth0"},
		{"1:0:0:2:0:0:0:3", "1:0:0:2::3", false, ""},
		{"1:0:2:0:3:0:4:0", "1:0:2:0:3:0:4:0", false, ""},
	} {
		a, ok := Parse(tt.in)
		require.True(t, ok, tt.in)
		require.Equal(t, tt.want, a.String())
		require.Equal(t, tt.is4, a.Is4(), tt.in)
		require.Equal(t, !tt.is4, a.Is6(), tt.in)
		require.Equal(t, tt.zone, a.Zone(), tt.in)
	}
	for _, in := range []string{"", "1.2.3", "01.2.3.4", "1.2.3.4%x", "::1%", "1::2::3", "1:2:3:4:5:6:7:8:9", "::1.2.3.4.5", "12345::"} {
		_, ok := Parse(in)
		require.False(t, ok, in)
	}
	require.Equal(t, "invalid IP", Addr{}.String())
	require.False(t, Addr{}.IsValid())
}

func TestFromAndPredicates(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "127.255.0.9", "128.0.0.1", "::1", "::2", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::127.0.0.1", "fe80::1%lo"} {
		a, ok := Parse(s)
		require.True(t, ok, s)
		n := netip.MustParseAddr(s)
		require.Equal(t, n.IsLoopback(), a.IsLoopback(), s)
		require.Equal(t, n.Is4In6(), a.Is4In6(), s)
		require.Equal(t, n.Unmap(), toNetip(a.Unmap()), s)
		require.Equal(t, n.As16(), a.As16(), s)
	}
	require.Equal(t, "10.1.2.3", From4([4]byte{10, 1, 2, 3}).String())
	require.Equal(t, "::ffff:10.1.2.3", From16([16]byte{10: 0xff, 11: 0xff, 12: 10, 13: 1, 14: 2, 15: 3}).String())
	require.False(t, Addr{}.IsLoopback())
}

var prefixSamples = []string{
	"10.0.0.0/8", "0.0.0.0/0", "255.255.255.255/32", "1.2.3.4/33", "1.2.3.4/08",
	"1.2.3.4/+8", "1.2.3.4/-1", "1.2.3.4/", "1.2.3.4", "/8", "1.2.3.4/8/8",
	"::/0", "::/128", "::/129", "2001:db8::/32", "2001::/23", "::ffff:0:0/96",
	"fe80::%eth0/10", "fe80::%a/b/10", "10.1.2.3/8", "::/0128", "1.2.3.4/1000",
}

func TestParsePrefixMatchesNetip(t *testing.T) {
	for _, s := range prefixSamples {
		p, ok := parsePrefix(s)
		want, err := netip.ParsePrefix(s)
		require.Equal(t, err == nil, ok, "%q: netip error %v", s, err)
		if ok {
			require.Equal(t, want.Addr(), toNetip(p.addr), s)
			require.Equal(t, want.Bits(), p.bits, s)
		}
	}
	require.Panics(t, func() { MustParsePrefix("10.0.0.0/33") })
	require.Equal(t, MustParsePrefix("10.0.0.0/8"), Prefix{addr: From4([4]byte{10}), bits: 8})
}

func TestContains(t *testing.T) {
	for _, tt := range []struct {
		prefix, addr string
		want         bool
	}{
		{"10.0.0.0/8", "10.255.1.2", true},
		{"10.0.0.0/8", "11.0.0.0", false},
		{"100.64.0.0/10", "100.127.255.255", true},
		{"100.64.0.0/10", "100.128.0.0", false},
		{"0.0.0.0/0", "1.2.3.4", true},
		{"0.0.0.0/0", "::ffff:1.2.3.4", false},
		{"::ffff:0:0/96", "::ffff:1.2.3.4", true},
		{"::ffff:0:0/96", "1.2.3.4", false},
		{"fe80::/10", "fe80::1%eth0", false},
		{"fe80::/10", "febf::1", true},
		{"fe80::/10", "fec0::1", false},
		{"2001::/23", "2001:1ff::", true},
		{"2001::/23", "2001:200::", false},
		{"10.1.2.3/8", "10.9.9.9", true},
		{"::1/128", "::1", true},
		{"::1/128", "::2", false},
	} {
		a, ok := Parse(tt.addr)
		require.True(t, ok, tt.addr)
		require.Equal(t, tt.want, MustParsePrefix(tt.prefix).Contains(a), "%s in %s", tt.addr, tt.prefix)
		require.Equal(t, netip.MustParsePrefix(tt.prefix).Contains(netip.MustParseAddr(tt.addr)), tt.want, "netip: %s in %s", tt.addr, tt.prefix)
	}
	require.False(t, Prefix{}.Contains(From4([4]byte{})))
	require.False(t, MustParsePrefix("0.0.0.0/0").Contains(Addr{}))
}

// FuzzParse holds Parse and String to netip.ParseAddr and Addr.String on
// arbitrary input.
func FuzzParse(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := Parse(s)
		want, err := netip.ParseAddr(s)
		if ok != (err == nil) {
			t.Fatalf("Parse(%q) ok=%v, netip error %v", s, ok, err)
		}
		if got := toNetip(a); got != want {
			t.Fatalf("Parse(%q) = %v, netip %v", s, got, want)
		}
		if a.String() != want.String() {
			t.Fatalf("Parse(%q).String() = %q, netip %q", s, a.String(), want.String())
		}
		if a.Is4() != want.Is4() || a.Is6() != want.Is6() || a.Is4In6() != want.Is4In6() ||
			a.IsLoopback() != want.IsLoopback() || a.Zone() != want.Zone() || toNetip(a.Unmap()) != want.Unmap() {
			t.Fatalf("Parse(%q): predicates differ from netip", s)
		}
		if ok {
			if b, ok2 := Parse(a.String()); !ok2 || b != a {
				t.Fatalf("Parse(%q).String() = %q does not parse back", s, a.String())
			}
		}
	})
}

// FuzzPrefix holds parsePrefix to netip.ParsePrefix, and Contains to
// netip.Prefix.Contains, for an arbitrary prefix string and an address
// given as 16 bytes, a family and a zone.
func FuzzPrefix(f *testing.F) {
	addrs := [][]byte{
		{10, 1, 2, 3}, {100, 64, 0, 1}, {0, 0, 0, 0}, {255, 255, 255, 255},
		{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 2, 3},
		{0xfe, 0x80, 15: 1}, {0x20, 0x01, 0x01, 0xff, 15: 9}, {15: 1},
	}
	for i, p := range prefixSamples {
		a := addrs[i%len(addrs)]
		f.Add(p, a, "")
		f.Add(p, a, "eth0")
	}
	f.Fuzz(func(t *testing.T, ps string, raw []byte, zone string) {
		p, ok := parsePrefix(ps)
		want, err := netip.ParsePrefix(ps)
		if ok != (err == nil) {
			t.Fatalf("parsePrefix(%q) ok=%v, netip error %v", ps, ok, err)
		}
		if ok && (toNetip(p.addr) != want.Addr() || p.bits != want.Bits()) {
			t.Fatalf("parsePrefix(%q) = %v/%d, netip %v", ps, toNetip(p.addr), p.bits, want)
		}
		var a Addr
		var n netip.Addr
		switch len(raw) {
		case 4:
			a, n = From4([4]byte(raw)), netip.AddrFrom4([4]byte(raw))
		case 16:
			a, n = From16([16]byte(raw)), netip.AddrFrom16([16]byte(raw))
			a.zone, n = zone, n.WithZone(zone)
		}
		if got, want := p.Contains(a), want.Contains(n); got != want {
			t.Fatalf("%q contains %v: %v, netip %v", ps, n, got, want)
		}
		if a.IsValid() && a.String() != n.String() {
			t.Fatalf("String of %v: %q", n, a.String())
		}
	})
}
