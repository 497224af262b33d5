package core

import (
	"errors"
	"fmt"
	"math/rand"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckFetchURLAccepts(t *testing.T) {
	tests := []struct {
		raw      string
		wantHost string // url.URL.Hostname()
	}{
		{"https://example.com/a?b#c", "example.com"},
		{"http://example.com", "example.com"},
		{"HTTPS://EXAMPLE.com/", "EXAMPLE.com"},
		{"https://EXAMPLE.com.", "EXAMPLE.com."},
		{"https://example.com:8443/x", "example.com"},
		{"https://example.com:/x", "example.com"},
		{"http://93.184.216.34/", "93.184.216.34"},
		{"http://8.8.8.8:80/dns", "8.8.8.8"},
		{"https://[2606:4700::1111]/", "2606:4700::1111"},
		{"https://[2606:4700::1111]:443/", "2606:4700::1111"},
		{"https://[::ffff:93.184.216.34]/", "::ffff:93.184.216.34"},
		{"https://[64:ff9b::5db8:d822]/", "64:ff9b::5db8:d822"},
		{"https://[2002:5db8:d822::1]/", "2002:5db8:d822::1"},
		{"https://münchen.de/", "münchen.de"},
		{"https://xn--mnchen-3ya.de/", "xn--mnchen-3ya.de"},
		{"https://example.com/path with space", "example.com"},
		{"https://example.com/a@b?c=@d#@e", "example.com"},
		{"https://example.com/a\\b", "example.com"},
		{"https://127.0.0.1.nip.io/", "127.0.0.1.nip.io"}, // a public name; no DNS lookup is made
		{"https://localhost.example.com/", "localhost.example.com"},
		{"https://local.example.com/", "local.example.com"},
		{"https://example.localhost.com/", "example.localhost.com"},
		{"https://" + strings.Repeat("a", 8192-len("https://.com")) + ".com", strings.Repeat("a", 8192-len("https://.com")) + ".com"},
	}
	for _, tt := range tests {
		t.Run(clipEntry(tt.raw), func(t *testing.T) {
			u, err := checkedURL(tt.raw, nil, nil)
			require.NoError(t, err)
			require.Equal(t, tt.wantHost, u.Hostname())
		})
	}
}

func TestCheckFetchURLRefuses(t *testing.T) {
	tests := []struct {
		raw     string
		wantErr string // the whole message
	}{
		// Loopback in every spelling (SPEC §3.1).
		{"http://127.0.0.1/", `url refused: host "127.0.0.1" is the loopback address 127.0.0.1` + pn},
		{"http://127.1/", `url refused: host "127.1" is the loopback address 127.0.0.1` + pn},
		{"http://0x7f.0.0.1/", `url refused: host "0x7f.0.0.1" is the loopback address 127.0.0.1` + pn},
		{"http://2130706433/", `url refused: host "2130706433" is the loopback address 127.0.0.1` + pn},
		{"http://0177.0.0.1/", `url refused: host "0177.0.0.1" is the loopback address 127.0.0.1` + pn},
		{"http://0x7f000001/", `url refused: host "0x7f000001" is the loopback address 127.0.0.1` + pn},
		{"http://127.0.0.1./", `url refused: host "127.0.0.1." is the loopback address 127.0.0.1` + pn},
		{"http://127.0.0.2/", `url refused: host "127.0.0.2" is a loopback address 127.0.0.2` + pn},
		{"http://%31%32%37.0.0.1/", `url refused: host "%31%32%37.0.0.1" is the loopback address 127.0.0.1` + pn},
		{"http://127%2E0%2E0%2E1/", `url refused: host "127%2E0%2E0%2E1" is the loopback address 127.0.0.1` + pn},
		{"http://127。0。0。1/", `url refused: host "127。0。0。1" is the loopback address 127.0.0.1` + pn},
		{"http://127．0．0．1/", `url refused: host "127．0．0．1" is the loopback address 127.0.0.1` + pn},
		{"http://127｡0｡0｡1/", `url refused: host "127｡0｡0｡1" is the loopback address 127.0.0.1` + pn},
		{"http://１２７.０.０.１/", `url refused: host "１２７.０.０.１" is the loopback address 127.0.0.1` + pn},
		{"http://１２７．０．０．１/", `url refused: host "１２７．０．０．１" is the loopback address 127.0.0.1` + pn},
		{"http://[::1]/", `url refused: host "[::1]" is the loopback address ::1` + pn},
		{"http://[0:0:0:0:0:0:0:1]:8080/", `url refused: host "[0:0:0:0:0:0:0:1]" is the loopback address ::1` + pn},
		{"http://[::ffff:127.0.0.1]/", `url refused: host "[::ffff:127.0.0.1]" is an IPv4-mapped address ::ffff:127.0.0.1 that embeds the loopback address 127.0.0.1` + pn},
		{"http://[::ffff:7f00:1]/", `url refused: host "[::ffff:7f00:1]" is an IPv4-mapped address ::ffff:127.0.0.1 that embeds the loopback address 127.0.0.1` + pn},
		{"http://[::127.0.0.1]/", `url refused: host "[::127.0.0.1]" is an IPv4-compatible address ::7f00:1 that embeds the loopback address 127.0.0.1` + pn},
		{"http://[64:ff9b::7f00:1]/", `url refused: host "[64:ff9b::7f00:1]" is a NAT64 address 64:ff9b::7f00:1 that embeds the loopback address 127.0.0.1` + pn},
		{"http://[64:ff9b::127.0.0.1]/", `url refused: host "[64:ff9b::127.0.0.1]" is a NAT64 address 64:ff9b::7f00:1 that embeds the loopback address 127.0.0.1` + pn},
		{"http://[2002:7f00:1::]/", `url refused: host "[2002:7f00:1::]" is a 6to4 address 2002:7f00:1:: that embeds the loopback address 127.0.0.1` + pn},
		// Other non-global IPv4.
		{"http://0.0.0.0/", `url refused: host "0.0.0.0" is the unspecified address 0.0.0.0` + pn},
		{"http://0/", `url refused: host "0" is the unspecified address 0.0.0.0` + pn},
		{"http://0x/", `url refused: host "0x" is the unspecified address 0.0.0.0` + pn},
		{"http://0.1.2.3/", `url refused: host "0.1.2.3" is a "this network" address 0.1.2.3` + pn},
		{"http://10.0.0.1/", `url refused: host "10.0.0.1" is a private-network (RFC 1918) address 10.0.0.1` + pn},
		{"http://172.16.0.1/", `url refused: host "172.16.0.1" is a private-network (RFC 1918) address 172.16.0.1` + pn},
		{"http://172.31.255.255/", `url refused: host "172.31.255.255" is a private-network (RFC 1918) address 172.31.255.255` + pn},
		{"http://192.168.1.1/", `url refused: host "192.168.1.1" is a private-network (RFC 1918) address 192.168.1.1` + pn},
		{"http://3232235777/", `url refused: host "3232235777" is a private-network (RFC 1918) address 192.168.1.1` + pn},
		{"http://100.64.0.1/", `url refused: host "100.64.0.1" is a carrier-grade NAT (shared) address 100.64.0.1` + pn},
		{"http://169.254.169.254/latest/meta-data/", `url refused: host "169.254.169.254" is the link-local cloud metadata address 169.254.169.254` + pn},
		{"http://169.254.1.1/", `url refused: host "169.254.1.1" is a link-local address 169.254.1.1` + pn},
		{"http://192.0.0.1/", `url refused: host "192.0.0.1" is an IETF protocol assignment address 192.0.0.1` + pn},
		{"http://192.0.2.1/", `url refused: host "192.0.2.1" is a documentation address 192.0.2.1` + pn},
		{"http://192.88.99.1/", `url refused: host "192.88.99.1" is a 6to4 relay anycast address 192.88.99.1` + pn},
		{"http://198.18.0.1/", `url refused: host "198.18.0.1" is a benchmarking address 198.18.0.1` + pn},
		{"http://198.19.255.255/", `url refused: host "198.19.255.255" is a benchmarking address 198.19.255.255` + pn},
		{"http://198.51.100.1/", `url refused: host "198.51.100.1" is a documentation address 198.51.100.1` + pn},
		{"http://203.0.113.1/", `url refused: host "203.0.113.1" is a documentation address 203.0.113.1` + pn},
		{"http://224.0.0.1/", `url refused: host "224.0.0.1" is a multicast address 224.0.0.1` + pn},
		{"http://239.255.255.250/", `url refused: host "239.255.255.250" is a multicast address 239.255.255.250` + pn},
		{"http://240.0.0.1/", `url refused: host "240.0.0.1" is a reserved address 240.0.0.1` + pn},
		{"http://255.255.255.255/", `url refused: host "255.255.255.255" is the broadcast address 255.255.255.255` + pn},
		{"http://4294967295/", `url refused: host "4294967295" is the broadcast address 255.255.255.255` + pn},
		// Other non-global IPv6.
		{"http://[::]/", `url refused: host "[::]" is the unspecified address ::` + pn},
		{"http://[::ffff:10.0.0.1]/", `url refused: host "[::ffff:10.0.0.1]" is an IPv4-mapped address ::ffff:10.0.0.1 that embeds a private-network (RFC 1918) address 10.0.0.1` + pn},
		{"http://[::ffff:a9fe:a9fe]/", `url refused: host "[::ffff:a9fe:a9fe]" is an IPv4-mapped address ::ffff:169.254.169.254 that embeds the link-local cloud metadata address 169.254.169.254` + pn},
		{"http://[::ffff:0:0]/", `url refused: host "[::ffff:0:0]" is an IPv4-mapped address ::ffff:0.0.0.0 that embeds the unspecified address 0.0.0.0` + pn},
		{"http://[64:ff9b:1::1]/", `url refused: host "[64:ff9b:1::1]" is a local-use NAT64 address 64:ff9b:1::1` + pn},
		{"http://[100::1]/", `url refused: host "[100::1]" is a discard-only address 100::1` + pn},
		{"http://[2001::1]/", `url refused: host "[2001::1]" is a Teredo address 2001::1` + pn},
		{"http://[2001:db8::1]/", `url refused: host "[2001:db8::1]" is a documentation address 2001:db8::1` + pn},
		{"http://[2001:10::1]/", `url refused: host "[2001:10::1]" is an IETF protocol assignment address 2001:10::1` + pn},
		{"http://[2002:c0a8:101::]/", `url refused: host "[2002:c0a8:101::]" is a 6to4 address 2002:c0a8:101:: that embeds a private-network (RFC 1918) address 192.168.1.1` + pn},
		{"http://[fc00::1]/", `url refused: host "[fc00::1]" is a unique local (private) address fc00::1` + pn},
		{"http://[fd00::1]/", `url refused: host "[fd00::1]" is a unique local (private) address fd00::1` + pn},
		{"http://[fe80::1]/", `url refused: host "[fe80::1]" is a link-local address fe80::1` + pn},
		{"http://[febf::1]/", `url refused: host "[febf::1]" is a link-local address febf::1` + pn},
		{"http://[fec0::1]/", `url refused: host "[fec0::1]" is a site-local address fec0::1` + pn},
		{"http://[ff02::1]/", `url refused: host "[ff02::1]" is a multicast address ff02::1` + pn},
		{"http://[1::1]/", `url refused: host "[1::1]" is a reserved address 1::1 (outside the global unicast range 2000::/3)` + pn},
		{"http://[::1:0:0:1]/", `url refused: host "[::1:0:0:1]" is a reserved address ::1:0:0:1 (outside the global unicast range 2000::/3)` + pn},
		{"http://[4000::1]/", `url refused: host "[4000::1]" is a reserved address 4000::1 (outside the global unicast range 2000::/3)` + pn},
		// Local names.
		{"http://localhost/", `url refused: host "localhost" is the local machine` + pn},
		{"http://LOCALHOST./", `url refused: host "LOCALHOST." is the local machine` + pn},
		{"http://localhost:3000/", `url refused: host "localhost" is the local machine` + pn},
		{"http://ｌｏｃａｌｈｏｓｔ/", `url refused: host "ｌｏｃａｌｈｏｓｔ" is the local machine` + pn},
		{"http://loc%61lhost/", `url refused: host "loc%61lhost" is the local machine` + pn},
		{"http://loc\u00ADalhost/", `url refused: host "loc\u00adalhost" is the local machine` + pn},
		{"http://foo.localhost/", `url refused: host "foo.localhost" is under .localhost, which always means the local machine` + pn},
		{"http://a.b.LOCALHOST./", `url refused: host "a.b.LOCALHOST." is under .localhost, which always means the local machine` + pn},
		{"http://printer.local/", `url refused: host "printer.local" is a .local name, which only resolves on a local network`},
		{"http://printer.local./", `url refused: host "printer.local." is a .local name, which only resolves on a local network`},
		{"http://db.internal/", `url refused: host "db.internal" is a .internal name, which only resolves on a local network`},
		{"http://metadata.google.internal/", `url refused: host "metadata.google.internal" is a .internal name, which only resolves on a local network`},
		{"http://nas.lan/", `url refused: host "nas.lan" is a .lan name, which only resolves on a local network`},
		{"http://x.home.arpa/", `url refused: host "x.home.arpa" is a .home.arpa name, which only resolves on a local network`},
		{"http://home.arpa/", `url refused: host "home.arpa" is a .home.arpa name, which only resolves on a local network`},
		{"http://intranet/", `url refused: host "intranet" is a single-label name, which only resolves on a local network`},
		{"http://intranet./", `url refused: host "intranet." is a single-label name, which only resolves on a local network`},
		{"http://com/", `url refused: host "com" is a single-label name, which only resolves on a local network`},
		{"http://例え/", `url refused: host "例え" is a single-label name, which only resolves on a local network`},
		// Structure.
		{"ftp://example.com/", `url refused: only http:// and https:// URLs can be fetched (got "ftp")`},
		{"file:///etc/passwd", `url refused: only http:// and https:// URLs can be fetched (got "file")`},
		{"javascript:alert(1)", `url refused: only http:// and https:// URLs can be fetched (got "javascript")`},
		{"data:text/html,hi", `url refused: only http:// and https:// URLs can be fetched (got "data")`},
		{"HtTp:example.com", `url refused: the URL must start with http:// (two forward slashes)`},
		{"http:/example.com", `url refused: the URL must start with http:// (two forward slashes)`},
		{"https:\\\\example.com", `url refused: the URL must start with https:// (two forward slashes)`},
		{"example.com", `url refused: the URL is not absolute; it must start with http:// or https://`},
		{"//example.com/", `url refused: the URL is not absolute; it must start with http:// or https://`},
		{"/relative/path", `url refused: the URL is not absolute; it must start with http:// or https://`},
		{"1http://example.com", `url refused: the URL is not absolute; it must start with http:// or https://`},
		{"", `url refused: the URL is empty`},
		{"http://", `url refused: the URL has no host`},
		{"http:///example.com", `url refused: the URL has no host`},
		{"http://:80/", `url refused: the URL has no host`},
		{"http://?x", `url refused: the URL has no host`},
		{"http://user@example.com", `url refused: URLs with a user name or password are not fetched`},
		{"http://user:pass@example.com/", `url refused: URLs with a user name or password are not fetched`},
		{"http://:@example.com", `url refused: URLs with a user name or password are not fetched`},
		{"http://@example.com", `url refused: URLs with a user name or password are not fetched`},
		{"http://example.com@127.0.0.1/", `url refused: URLs with a user name or password are not fetched`},
		{"http://evil.com\\@127.0.0.1/", `url refused: the URL has a backslash before its path; browsers read it as "/", so the host is ambiguous`},
		{"http://127.0.0.1\\.evil.com/", `url refused: the URL has a backslash before its path; browsers read it as "/", so the host is ambiguous`},
		{"http://127.0.0.\t1/", `url refused: the URL contains a control character such as a tab or newline`},
		{"http://exa\nmple.com/", `url refused: the URL contains a control character such as a tab or newline`},
		{"https://example.com/\r\n", `url refused: the URL contains a control character such as a tab or newline`},
		{"https://example.com/\x00", `url refused: the URL contains a control character such as a tab or newline`},
		{"https://example.com/\u0085", `url refused: the URL contains a control character such as a tab or newline`},
		{" https://example.com/", `url refused: the URL starts or ends with spaces`},
		{"https://example.com/ ", `url refused: the URL starts or ends with spaces`},
		{"https://example.com/\xff", `url refused: the URL is not valid UTF-8`},
		{"http://example.com:99999/", `url refused: host "example.com" has an invalid port (a port is a number from 0 to 65535)`},
		{"http://example.com:80:80/", `url refused: host "example.com" has an invalid port (a port is a number from 0 to 65535)`},
		{"http://example.com:x/", `url refused: host "example.com" has an invalid port (a port is a number from 0 to 65535)`},
		{"http://[::1]x/", `url refused: host "[::1]x" is not a valid host: the IPv6 address is missing its closing "]"`},
		{"http://[fe80::1%25eth0]/", `url refused: host "[fe80::1%25eth0]" is not a valid host: the IPv6 address has an invalid character`},
		{"http://exa mple.com/", `url refused: host "exa mple.com" is not a valid host: it contains the character ' ', which is not allowed in a host`},
		{"http://a..b/", `url refused: host "a..b" is not a valid host: it has an empty label (two dots in a row, or a leading dot)`},
		{"http://1.2.3.4../", `url refused: host "1.2.3.4.." is not a valid host: it has an empty label (two dots in a row, or a leading dot)`},
		{"http://256.0.0.1/", `url refused: host "256.0.0.1" is not a valid host: an IPv4 part before the last is over 255`},
		{"http://1.2.3.4.5/", `url refused: host "1.2.3.4.5" is not a valid host: the IPv4 address has more than four parts`},
		{"http://4294967296/", `url refused: host "4294967296" is not a valid host: the IPv4 address is out of range`},
		{"http://foo.09/", `url refused: host "foo.09" is not a valid host: it ends in a number, so it is an IPv4 address, but a part is not a number`},
		{"http://127.0.0.𝟏/", `url refused: host "127.0.0.𝟏" is not a valid host: it contains U+1D7CF, which this parser does not map to ASCII`},
		{"http://localhoſt/", `url refused: host "localhoſt" is not a valid host: it contains U+017F, which this parser does not map to ASCII`},
		{"https://" + strings.Repeat("a", 9000), `url refused: the URL is 9,008 characters long (the limit is 8,192)`},
		{"https://example.com/" + strings.Repeat("é", 8173), `url refused: the URL is 8,193 characters long (the limit is 8,192)`},
	}
	for _, tt := range tests {
		t.Run(clipEntry(tt.raw), func(t *testing.T) {
			u, err := checkedURL(tt.raw, nil, nil)
			require.Error(t, err)
			require.Nil(t, u)
			require.ErrorIs(t, err, ErrURLRefused)
			require.Equal(t, tt.wantErr, err.Error())
		})
	}
}

func TestCheckFetchURLDomainLists(t *testing.T) {
	norm := func(list ...string) []string {
		var out []string
		for _, d := range list {
			n, err := normalizeDomain(d)
			require.NoError(t, err)
			out = append(out, n)
		}
		return out
	}
	tests := []struct {
		raw              string
		allowed, blocked []string
		wantErr          string // "" means accepted
	}{
		{"https://example.com/", nil, norm("example.com"), `url refused: host "example.com" is in blockedDomains ("example.com")`},
		{"https://docs.example.com/", nil, norm("*.example.com"), `url refused: host "docs.example.com" is in blockedDomains ("example.com")`},
		{"https://DOCS.Example.com./x", nil, norm("example.com"), `url refused: host "docs.example.com" is in blockedDomains ("example.com")`},
		{"https://ｄｏｃｓ．example.com/", nil, norm("example.com"), `url refused: host "docs.example.com" is in blockedDomains ("example.com")`},
		{"https://notexample.com/", nil, norm("example.com"), ""},
		{"https://example.org/", nil, norm("example.com"), ""},
		{"https://例え.jp/", nil, norm("例え.jp"), `url refused: host "xn--r8jz45g.jp" is in blockedDomains ("xn--r8jz45g.jp")`},
		{"https://93.184.216.34/", nil, norm("93.184.216.34"), `url refused: host "93.184.216.34" is in blockedDomains ("93.184.216.34")`},
		{"https://1572395042/", nil, norm("93.184.216.34"), `url refused: host "93.184.216.34" is in blockedDomains ("93.184.216.34")`},
		{"https://93.184.216.34/", nil, norm("216.34"), ""},
		{"https://[2606:4700::1111]/", nil, norm("2606:4700:0::1111"), `url refused: host "2606:4700::1111" is in blockedDomains ("2606:4700::1111")`},
		{"https://x.org/", norm("example.com"), nil, `url refused: host "x.org" is not in allowedDomains`},
		{"https://example.com/", norm("example.com"), nil, ""},
		{"https://a.b.example.com/", norm("example.com", "example.org"), nil, ""},
		{"https://example.org/", norm("example.com", "example.org"), nil, ""},
		{"https://badexample.com/", norm("example.com"), nil, `url refused: host "badexample.com" is not in allowedDomains`},
		{"https://93.184.216.34/", norm("example.com"), nil, `url refused: host "93.184.216.34" is not in allowedDomains`},
		{"https://docs.example.com/", norm("example.com"), norm("docs.example.com"), `url refused: host "docs.example.com" is in blockedDomains ("docs.example.com")`},
		{"https://www.example.com/", norm("example.com"), norm("docs.example.com"), ""},
		// The private-host rule comes first and cannot be allowed away.
		{"http://localhost/", norm("localhost"), nil, `url refused: host "localhost" is the local machine` + pn},
		{"http://127.0.0.1/", norm("127.0.0.1"), nil, `url refused: host "127.0.0.1" is the loopback address 127.0.0.1` + pn},
		{"http://printer.local/", norm("local"), nil, `url refused: host "printer.local" is a .local name, which only resolves on a local network`},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			u, err := checkedURL(tt.raw, tt.allowed, tt.blocked)
			if tt.wantErr == "" {
				require.NoError(t, err)
				require.NotNil(t, u)
				return
			}
			require.ErrorIs(t, err, ErrURLRefused)
			require.Equal(t, tt.wantErr, err.Error())
		})
	}
}

// TestCheckFetchURLNoSecretsInErrors checks that messages never carry the
// path, query or fragment, and that long hosts are clipped.
func TestCheckFetchURLNoSecretsInErrors(t *testing.T) {
	for _, raw := range []string{
		"http://127.0.0.1/secret-path?token=SECRET#SECRET",
		"http://localhost/?token=SECRET",
		"http://intranet/SECRET",
		"ftp://example.com/SECRET",
		"http://user:SECRET@example.com/",
		"http://example.com:99999/SECRET",
		"http://ex%41mple.org/SECRET",
		"https://x.org/SECRET?SECRET",
		"http://a..b/SECRET",
		"https://example.com/SECRET\n",
		"https://example.com/" + strings.Repeat("SECRET", 2000),
	} {
		_, err := CheckFetchURL(raw, []string{"example.com"}, nil)
		require.Error(t, err, raw)
		require.NotContains(t, err.Error(), "SECRET", raw)
	}
	long := strings.Repeat("a", 500) + ".local"
	_, err := CheckFetchURL("http://"+long+"/", nil, nil)
	require.ErrorIs(t, err, ErrURLRefused)
	require.Equal(t, `url refused: host "`+strings.Repeat("a", 100)+`…" is a .local name, which only resolves on a local network`, err.Error())
}

// privateV4Oracle says whether a (IPv4) is not globally routable, written
// independently of privateAddr: net/netip's predicates plus the IANA
// special-purpose blocks netip does not know.
func privateV4Oracle(a netip.Addr) bool {
	if !a.Is4() {
		panic("not IPv4")
	}
	if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	b := a.As4()
	switch {
	case b[0] == 0, b[0] >= 224: // this network, multicast, reserved, broadcast
		return true
	case b[0] == 100 && b[1]&0xc0 == 64: // 100.64/10
		return true
	case b[0] == 192 && b[1] == 0 && (b[2] == 0 || b[2] == 2):
		return true
	case b[0] == 192 && b[1] == 88 && b[2] == 99:
		return true
	case b[0] == 198 && b[1]&0xfe == 18:
		return true
	case b[0] == 198 && b[1] == 51 && b[2] == 100, b[0] == 203 && b[1] == 0 && b[2] == 113:
		return true
	}
	return false
}

// spellIPv4 writes v in one of many WHATWG spellings chosen by sel, using r
// for the free choices (radix per part, padding, case, separators).
func spellIPv4(v uint32, sel uint8, r *rand.Rand) string {
	b := [4]uint32{v >> 24, v >> 16 & 0xff, v >> 8 & 0xff, v & 0xff}
	part := func(n uint32) string {
		switch r.Intn(4) {
		case 0:
			return "0" + strings.Repeat("0", r.Intn(3)) + strconv.FormatUint(uint64(n), 8)
		case 1:
			h := strconv.FormatUint(uint64(n), 16)
			if r.Intn(2) == 0 {
				h = strings.ToUpper(h)
			}
			return []string{"0x", "0X"}[r.Intn(2)] + strings.Repeat("0", r.Intn(3)) + h
		default:
			return strconv.FormatUint(uint64(n), 10)
		}
	}
	ip := netip.AddrFrom4([4]byte{byte(b[0]), byte(b[1]), byte(b[2]), byte(b[3])})
	v6 := func(prefix string) string { // prefix + the IPv4 address as two hex pieces or dotted
		if r.Intn(2) == 0 {
			return "[" + prefix + ip.String() + "]"
		}
		return fmt.Sprintf("[%s%x:%x]", prefix, v>>16, v&0xffff)
	}
	switch sel % 14 {
	case 0:
		return ip.String()
	case 1:
		return strconv.FormatUint(uint64(v), 10)
	case 2:
		return part(v)
	case 3:
		return part(b[0]) + "." + part(v&0xffffff)
	case 4:
		return part(b[0]) + "." + part(b[1]) + "." + part(v&0xffff)
	case 5:
		return part(b[0]) + "." + part(b[1]) + "." + part(b[2]) + "." + part(b[3]) + []string{"", "."}[r.Intn(2)]
	case 6: // percent-encoded
		var sb strings.Builder
		for _, c := range []byte(ip.String()) {
			if r.Intn(2) == 0 {
				fmt.Fprintf(&sb, "%%%02X", c)
			} else {
				sb.WriteByte(c)
			}
		}
		return sb.String()
	case 7: // full-width digits and dots
		var sb strings.Builder
		for _, c := range part(b[0]) + "." + part(b[1]) + "." + part(b[2]) + "." + part(b[3]) {
			switch {
			case c == '.':
				sb.WriteString([]string{"。", "．", "｡", "."}[r.Intn(4)])
			case r.Intn(2) == 0:
				sb.WriteRune(c - 0x21 + 0xFF01)
			default:
				sb.WriteRune(c)
			}
		}
		return sb.String()
	case 8:
		return v6("::ffff:")
	case 9:
		return v6("0:0:0:0:0:FFFF:")
	case 10:
		return v6("::")
	case 11:
		return v6("64:ff9b::")
	case 12:
		return fmt.Sprintf("[2002:%x:%x::%x]", v>>16, v&0xffff, r.Intn(0x10000))
	default:
		return v6("64:FF9B:0:0:0:0:")
	}
}

// TestPrivateSpellings renders random IPv4 addresses, biased towards the
// special blocks, in every spelling and checks that private ones are
// refused and public ones accepted in each.
func TestPrivateSpellings(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	bases := []uint32{0x00000000, 0x0a000000, 0x64400000, 0x7f000000, 0xa9fe0000, 0xac100000, 0xc0000000, 0xc0000200, 0xc0586300, 0xc0a80000, 0xc6120000, 0xc6336400, 0xcb007100, 0xe0000000, 0xf0000000, 0xffffff00}
	private, public := 0, 0
	n := 6000
	if testing.Short() {
		n = 1000
	}
	for i := 0; i < n; i++ {
		v := r.Uint32()
		if i%2 == 0 {
			v = bases[r.Intn(len(bases))] | v&0x1ffff>>uint(r.Intn(17))
		}
		for sel := uint8(0); sel < 14; sel++ {
			checkSpelling(t, v, sel, r)
		}
		if privateV4Oracle(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})) {
			private++
		} else {
			public++
		}
	}
	t.Logf("%d private and %d public addresses, 14 spellings each", private, public)
	require.Greater(t, private, n/4)
	require.Greater(t, public, n/4)
}

func checkSpelling(t *testing.T, v uint32, sel uint8, r *rand.Rand) {
	t.Helper()
	sel %= 14
	a := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	h := spellIPv4(v, sel, r)
	raw := "http://" + h + "/"
	_, err := CheckFetchURL(raw, nil, nil)
	if privateV4Oracle(a) {
		if err == nil {
			t.Fatalf("%s (%v, private) was accepted", raw, a)
		}
		named := strings.Contains(err.Error(), a.String()) || sel == 10 && v <= 1 // [::] and [::1] get their own message
		if !errors.Is(err, ErrURLRefused) || !named {
			t.Fatalf("%s (%v): want a refusal naming the address, got %v", raw, a, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s (%v, public) was refused: %v", raw, a, err)
	}
}

func ExampleCheckFetchURL() {
	_, err := CheckFetchURL("http://0x7f.1/admin", nil, nil)
	fmt.Println(err)
	_, err = CheckFetchURL("https://docs.example.com/x", nil, []string{"example.com"})
	fmt.Println(err)
	send, err := CheckFetchURL("https://ex%61mple.org/a?b", nil, nil)
	fmt.Println(send, err)
	// Output:
	// url refused: host "0x7f.1" is the loopback address 127.0.0.1; private and local addresses never leave this machine
	// url refused: host "docs.example.com" is in blockedDomains ("example.com")
	// https://example.org/a?b <nil>
}
