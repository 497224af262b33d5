package core

import (
	"math/rand"
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/host"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/ipaddr/ipaddrtest"
)

// FuzzCheckFetchURL checks CheckFetchURL against an independent oracle:
// whatever it accepts must be an http(s) URL without user info whose host,
// as net/url and as host.Parse read it, is neither a private address (by
// net/netip's predicates and the IANA special-purpose blocks) nor a local
// name, nor in the blocked list. Seeds: f.Add below and
// testdata/fuzz/FuzzCheckFetchURL.
func FuzzCheckFetchURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com/a?b#c", "http://93.184.216.34/", "https://[2606:4700::1111]/",
		"https://EXAMPLE.com.", "http://127.1/", "http://0x7f.0.0.1/", "http://2130706433/",
		"http://0177.0.0.1/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/",
		"http://%31%32%37.0.0.1/", "http://127。0。0。1/", "http://１２７．０．０．１/",
		"http://LOCALHOST./", "http://foo.localhost/", "http://printer.local/",
		"http://db.internal/", "http://nas.lan/", "http://x.home.arpa/", "http://intranet/",
		"http://169.254.169.254/", "http://[fe80::1]/", "http://[fd00::1]/",
		"http://[64:ff9b::7f00:1]/", "http://[::127.0.0.1]/", "http://[2002:7f00:1::]/",
		"http://100.64.0.1/", "http://0.0.0.0/", "http://0/", "http://255.255.255.255/",
		"http://224.0.0.1/", "http://[ff02::1]/", "http://user@example.com", "http://:@example.com",
		"http://evil.com\\@127.0.0.1/", "http://127.0.0.\t1/", "https://docs.example.com/",
		"HTTP://[::FFFF:A9FE:A9FE]:80/x", "http://example.com:65535", "http://[fe80::1%25en0]/",
		"https://ex%61mple.com/", "https://example.com%2e/", "https://ex%61mple.org:1/%41", "http://loc%61lhost/",
	} {
		f.Add(s)
	}
	blocked := []string{"example.com"}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := checkedURL(raw, nil, blocked)
		if err != nil {
			if u != nil {
				t.Fatalf("%q: URL returned with error %v", raw, err)
			}
			if !strings.HasPrefix(err.Error(), "url refused: ") {
				t.Fatalf("%q: error %q lacks the prefix", raw, err)
			}
			return
		}
		if utf8.RuneCountInString(raw) > MaxURLChars {
			t.Fatalf("%q: accepted a URL over the length limit", raw)
		}
		if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
			t.Fatalf("%q: accepted scheme %q", raw, u.Scheme)
		}
		if u.User != nil || u.Opaque != "" || u.Host == "" {
			t.Fatalf("%q: accepted user info, an opaque URL or no host", raw)
		}
		for _, r := range raw {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("%q: accepted a control character", raw)
			}
		}
		hn := u.Hostname()
		if a, err := netip.ParseAddr(hn); err == nil {
			if privateAddrOracle(a) {
				t.Fatalf("%q: accepted private address %v (net/url's reading)", raw, a)
			}
		}
		if strings.Contains(hn, ":") {
			hn = "[" + hn + "]"
		}
		h, err := host.Parse(hn)
		if err != nil {
			t.Fatalf("%q: accepted a host host.Parse rejects: %v", raw, err)
		}
		if h.IsAddr() {
			if privateAddrOracle(ipaddrtest.Netip(h.Addr())) {
				t.Fatalf("%q: accepted private address %v", raw, h.Addr())
			}
			return
		}
		name := h.Name()
		if why := localNameOracle(name); why != "" {
			t.Fatalf("%q: accepted %s name %q", raw, why, name)
		}
		if _, err := netip.ParseAddr(name); err == nil {
			t.Fatalf("%q: accepted name %q that is an address", raw, name)
		}
		if v, ok := atonOracle(name); ok {
			t.Fatalf("%q: accepted name %q that inet_aton reads as %v", raw, name, v)
		}
		if name == "example.com" || strings.HasSuffix(name, ".example.com") {
			t.Fatalf("%q: accepted blocked host %q", raw, name)
		}
	})
}

// FuzzPrivateSpelling renders an IPv4 address in the spelling sel picks
// (decimal, hex, octal, mixed parts, percent-encoded, full-width, IPv4-mapped,
// compatible, NAT64, 6to4) and checks that it is refused exactly when the
// address is private.
func FuzzPrivateSpelling(f *testing.F) {
	for _, v := range []uint32{0x7f000001, 0x0a000001, 0xa9fea9fe, 0x64400001, 0xc0a80101, 0, 0xffffffff, 0x5db8d822, 0x08080808, 0xe0000001} {
		for sel := uint8(0); sel < 14; sel++ {
			f.Add(v, sel, int64(v)^int64(sel))
		}
	}
	f.Fuzz(func(t *testing.T, v uint32, sel uint8, seed int64) {
		checkSpelling(t, v, sel, rand.New(rand.NewSource(seed)))
	})
}

// privateAddrOracle is an independent verdict on an address: IPv4 (also
// when mapped) by privateV4Oracle; IPv6 by net/netip's predicates, the
// documentation, Teredo, ORCHID and NAT64 blocks, and 2000::/3 as the only
// global unicast space, except the forms that carry IPv4 (compatible,
// NAT64, 6to4), which are judged by the IPv4 they carry.
func privateAddrOracle(a netip.Addr) bool {
	a = a.WithZone("")
	if a.Is4() || a.Is4In6() {
		return privateV4Oracle(a.Unmap())
	}
	b := a.As16()
	v4 := func(i int) netip.Addr { return netip.AddrFrom4([4]byte(b[i : i+4])) }
	zero := func(bs []byte) bool {
		for _, x := range bs {
			if x != 0 {
				return false
			}
		}
		return true
	}
	switch {
	case a.IsLoopback(), a.IsUnspecified():
		return true
	case zero(b[:12]): // ::a.b.c.d
		return privateV4Oracle(v4(12))
	case b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && zero(b[4:12]): // 64:ff9b::/96
		return privateV4Oracle(v4(12))
	case b[0] == 0x20 && b[1] == 0x02: // 2002::/16
		return privateV4Oracle(v4(2))
	}
	if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsMulticast() {
		return true
	}
	if b[0]&0xe0 != 0x20 { // outside 2000::/3
		return true
	}
	switch {
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8: // 2001:db8::/32
		return true
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3]&0xfe == 0: // 2001::/23
		return true
	case b[0] == 0x3f && b[1] == 0xff && b[2]&0xf0 == 0: // 3fff::/20
		return true
	}
	return false
}

// localNameOracle names the kind of local-only name, or returns "".
func localNameOracle(name string) string {
	labels := strings.Split(name, ".")
	last := labels[len(labels)-1]
	switch {
	case len(labels) == 1:
		return "a single-label"
	case last == "localhost" || last == "local" || last == "internal" || last == "lan":
		return "a ." + last
	case len(labels) >= 2 && last == "arpa" && labels[len(labels)-2] == "home":
		return "a .home.arpa"
	}
	return ""
}

// atonOracle reads s the way inet_aton does (1–4 parts, decimal, 0x hex or
// 0 octal), independently of host.Parse.
func atonOracle(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		base := uint64(10)
		if len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X") {
			p, base = p[2:], 16
		} else if len(p) > 1 && p[0] == '0' {
			p, base = p[1:], 8
		}
		if p == "" {
			return netip.Addr{}, false
		}
		var n uint64
		for _, c := range strings.ToLower(p) {
			d := uint64(strings.IndexRune("0123456789abcdef", c))
			if d >= base {
				return netip.Addr{}, false
			}
			if n = n*base + d; n > 1<<32 {
				return netip.Addr{}, false
			}
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - i))
		} else {
			if n >= 1<<(8*(4-i)) {
				return netip.Addr{}, false
			}
			v |= n
		}
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}
