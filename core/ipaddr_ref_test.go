package core

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/ipaddr"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/ipaddr/ipaddrtest"
	"github.com/stretchr/testify/require"
)

// The core judged addresses with net/netip until the module dropped it
// (RATIONALE.md, "Why does the module carry its own JSON, URL and text
// code?"). The netip-based code is kept here as the reference that
// privateAddr and IsLoopbackHost must still match.

type netipRange struct {
	prefix netip.Prefix
	what   string
}

var (
	netipPrivateV4 = []netipRange{
		{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
		{netip.MustParsePrefix("169.254.169.254/32"), "the link-local cloud metadata address"},
		{netip.MustParsePrefix("127.0.0.1/32"), "the loopback address"},
		{netip.MustParsePrefix("0.0.0.0/32"), "the unspecified address"},
		{netip.MustParsePrefix("0.0.0.0/8"), "a \"this network\" address"},
		{netip.MustParsePrefix("10.0.0.0/8"), "a private-network (RFC 1918) address"},
		{netip.MustParsePrefix("100.64.0.0/10"), "a carrier-grade NAT (shared) address"},
		{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
		{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address"},
		{netip.MustParsePrefix("172.16.0.0/12"), "a private-network (RFC 1918) address"},
		{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol assignment address"},
		{netip.MustParsePrefix("192.0.2.0/24"), "a documentation address"},
		{netip.MustParsePrefix("192.88.99.0/24"), "a 6to4 relay anycast address"},
		{netip.MustParsePrefix("192.168.0.0/16"), "a private-network (RFC 1918) address"},
		{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
		{netip.MustParsePrefix("198.51.100.0/24"), "a documentation address"},
		{netip.MustParsePrefix("203.0.113.0/24"), "a documentation address"},
		{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
		{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	}
	netipPrivateV6 = []netipRange{
		{netip.MustParsePrefix("::/128"), "the unspecified address"},
		{netip.MustParsePrefix("::1/128"), "the loopback address"},
		{netip.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 address"},
		{netip.MustParsePrefix("100::/64"), "a discard-only address"},
		{netip.MustParsePrefix("2001::/32"), "a Teredo address"},
		{netip.MustParsePrefix("2001:db8::/32"), "a documentation address"},
		{netip.MustParsePrefix("2001::/23"), "an IETF protocol assignment address"},
		{netip.MustParsePrefix("3fff::/20"), "a documentation address"},
		{netip.MustParsePrefix("fc00::/7"), "a unique local (private) address"},
		{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
		{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
		{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
	}
	netipEmbedsV4 = []struct {
		prefix netip.Prefix
		what   string
		at     int
	}{
		{netip.MustParsePrefix("::ffff:0:0/96"), "an IPv4-mapped address", 12},
		{netip.MustParsePrefix("::/96"), "an IPv4-compatible address", 12},
		{netip.MustParsePrefix("64:ff9b::/96"), "a NAT64 address", 12},
		{netip.MustParsePrefix("2002::/16"), "a 6to4 address", 2},
	}
	netipGlobalUnicastV6 = netip.MustParsePrefix("2000::/3")
)

// privateAddrNetip is privateAddr as it was written with net/netip.
func privateAddrNetip(a netip.Addr) string {
	if a.Is4() {
		return privateV4AddrNetip(a)
	}
	for _, r := range netipPrivateV6[:2] {
		if r.prefix.Contains(a) {
			return r.what + " " + a.String()
		}
	}
	for _, e := range netipEmbedsV4 {
		if e.prefix.Contains(a) {
			b := a.As16()
			v4 := netip.AddrFrom4([4]byte(b[e.at : e.at+4]))
			if why := privateV4AddrNetip(v4); why != "" {
				return e.what + " " + a.String() + " that embeds " + why
			}
			return ""
		}
	}
	for _, r := range netipPrivateV6[2:] {
		if r.prefix.Contains(a) {
			return r.what + " " + a.String()
		}
	}
	if !netipGlobalUnicastV6.Contains(a) {
		return "a reserved address " + a.String() + " (outside the global unicast range 2000::/3)"
	}
	return ""
}

func privateV4AddrNetip(a netip.Addr) string {
	for _, r := range netipPrivateV4 {
		if r.prefix.Contains(a) {
			return r.what + " " + a.String()
		}
	}
	return ""
}

// isLoopbackHostNetip is IsLoopbackHost written with net/netip.
func isLoopbackHostNetip(h string) bool {
	if strings.ToLower(h) == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Zone() == "" && a.Unmap().IsLoopback()
}

func TestIPTablesMatchNetip(t *testing.T) {
	require.Len(t, privateV4, len(netipPrivateV4))
	require.Len(t, privateV6, len(netipPrivateV6))
	require.Len(t, embedsV4, len(netipEmbedsV4))
	for i, r := range privateV4 {
		require.Equal(t, netipPrivateV4[i].what, r.what)
	}
	for i, r := range privateV6 {
		require.Equal(t, netipPrivateV6[i].what, r.what)
	}
	for i, e := range embedsV4 {
		require.Equal(t, netipEmbedsV4[i].what, e.what)
		require.Equal(t, netipEmbedsV4[i].at, e.at)
	}
}

// ipSamples seed FuzzPrivateAddrMatchesNetip and make up its table test.
var ipSamples = []string{
	"1.2.3.4", "8.8.8.8", "127.0.0.1", "127.9.9.9", "0.0.0.0", "10.1.2.3", "100.64.0.1",
	"169.254.169.254", "172.31.255.255", "172.32.0.0", "192.0.0.1", "192.0.2.9", "192.88.99.1",
	"192.168.0.1", "198.19.255.255", "198.20.0.0", "198.51.100.7", "203.0.113.1", "224.0.0.1",
	"240.0.0.1", "255.255.255.255", "::", "::1", "::2", "::ffff:127.0.0.1", "::ffff:8.8.8.8",
	"::ffff:7f00:1", "::127.0.0.1", "::8.8.8.8", "64:ff9b::7f00:1", "64:ff9b::808:808",
	"64:ff9b:1::1", "100::1", "100:0:0:1::", "2001::1", "2001:db8::1", "2001:1ff::1", "2001:200::1",
	"2002:7f00:1::", "2002:808:808::", "2606:4700::1111", "3fff::1", "3fff:1000::", "fc00::1",
	"fd12::1", "fe80::1", "fec0::1", "ff02::1", "4000::1", "1::", "1000::", "fe80::1%eth0",
	"::ffff:10.0.0.1%x", "localhost", "LOCALHOST", "::FFFF:127.0.0.1", "0:0:0:0:0:0:0:1",
	"localhost.", "evil.localhost", "::1%lo", "127.0.0.1%lo", "127.1", "2130706433", "localhoſt",
}

func TestPrivateAddrMatchesNetip(t *testing.T) {
	for _, s := range ipSamples {
		a, ok := ipaddr.Parse(s)
		n, err := netip.ParseAddr(s)
		require.Equal(t, err == nil, ok, s)
		if ok {
			require.Equal(t, privateAddrNetip(n), privateAddr(a), s)
		}
		require.Equal(t, isLoopbackHostNetip(s), IsLoopbackHost(s), s)
	}
	require.Equal(t, "the loopback address 127.0.0.1", privateAddr(ipaddr.From4([4]byte{127, 0, 0, 1})))
	require.Equal(t, "an IPv4-mapped address ::ffff:10.0.0.1 that embeds a private-network (RFC 1918) address 10.0.0.1",
		privateAddr(ipaddr.From16([16]byte{10: 0xff, 11: 0xff, 12: 10, 15: 1})))
	require.Equal(t, "a reserved address 4000::1 (outside the global unicast range 2000::/3)",
		privateAddr(ipaddr.From16([16]byte{0: 0x40, 15: 1})))
}

// FuzzPrivateAddrMatchesNetip holds privateAddr to the netip version for an
// address given as text and one given as bytes (4 bytes IPv4, 16 IPv6), and
// IsLoopbackHost to the netip version for the text.
func FuzzPrivateAddrMatchesNetip(f *testing.F) {
	for i, s := range ipSamples {
		raw := []byte{byte(i), 0, 0, 1}
		if n, err := netip.ParseAddr(s); err == nil {
			b := n.As16()
			raw = b[:]
			if n.Is4() {
				raw = raw[12:]
			}
		}
		f.Add(s, raw)
	}
	f.Fuzz(func(t *testing.T, s string, raw []byte) {
		if a, ok := ipaddr.Parse(s); ok {
			if got, want := privateAddr(a), privateAddrNetip(ipaddrtest.Netip(a)); got != want {
				t.Fatalf("privateAddr(%q) = %q, netip version %q", s, got, want)
			}
		}
		if got, want := IsLoopbackHost(s), isLoopbackHostNetip(s); got != want {
			t.Fatalf("IsLoopbackHost(%q) = %v, netip version %v", s, got, want)
		}
		var a ipaddr.Addr
		var n netip.Addr
		switch len(raw) {
		case 4:
			a, n = ipaddr.From4([4]byte(raw)), netip.AddrFrom4([4]byte(raw))
		case 16:
			a, n = ipaddr.From16([16]byte(raw)), netip.AddrFrom16([16]byte(raw))
		default:
			return
		}
		if got, want := privateAddr(a), privateAddrNetip(n); got != want {
			t.Fatalf("privateAddr(%v) = %q, netip version %q", n, got, want)
		}
	})
}
