package host

import (
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/ipaddr/ipaddrtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAddr(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		// IPv4, every WHATWG spelling of 127.0.0.1.
		{"127.0.0.1", "127.0.0.1"},
		{"127.0.0.1.", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0x7f.0.0.1", "127.0.0.1"},
		{"0X7F.0.0.1", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"00000177.0.0.1", "127.0.0.1"},
		{"0x0000007f.0.0.1", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"127.0.0x0.01", "127.0.0.1"},
		{"%31%32%37.0.0.1", "127.0.0.1"},
		{"127%2e0%2E0%2e1", "127.0.0.1"},
		{"127。0。0。1", "127.0.0.1"},
		{"127．0．0．1", "127.0.0.1"},
		{"127｡0｡0｡1", "127.0.0.1"},
		{"１２７.０.０.１", "127.0.0.1"},
		{"０ｘ７Ｆ.1", "127.0.0.1"},
		{"%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1", "127.0.0.1"}, // percent-encoded full-width digits
		{"12\u00AD7.0.0.1", "127.0.0.1"},                   // soft hyphen is ignored
		{"127.0.0.1\uFEFF", "127.0.0.1"},                   // byte order mark is ignored
		// Other addresses.
		{"0", "0.0.0.0"},
		{"0x", "0.0.0.0"},
		{"0.0.0.0", "0.0.0.0"},
		{"4294967295", "255.255.255.255"},
		{"0xffffffff", "255.255.255.255"},
		{"255.255.255.255", "255.255.255.255"},
		{"169.254.169.254", "169.254.169.254"},
		{"0251.0376.0251.0376", "169.254.169.254"},
		{"93.184.216.34", "93.184.216.34"},
		{"1.2.3", "1.2.0.3"},
		{"1.65535", "1.0.255.255"},
		{"1.2.65535", "1.2.255.255"},
		// IPv6.
		{"[::1]", "::1"},
		{"[::]", "::"},
		{"[0:0:0:0:0:0:0:1]", "::1"},
		{"[::ffff:127.0.0.1]", "::ffff:127.0.0.1"},
		{"[::FFFF:7F00:1]", "::ffff:127.0.0.1"},
		{"[::127.0.0.1]", "::7f00:1"},
		{"[64:ff9b::7f00:1]", "64:ff9b::7f00:1"},
		{"[64:ff9b::127.0.0.1]", "64:ff9b::7f00:1"},
		{"[2002:7f00:1::]", "2002:7f00:1::"},
		{"[fe80::1]", "fe80::1"},
		{"[2606:4700::1111]", "2606:4700::1111"},
		{"[1:2:3:4:5:6:7:8]", "1:2:3:4:5:6:7:8"},
		{"[1:2:3:4:5:6:1.2.3.4]", "1:2:3:4:5:6:102:304"},
		{"[1::]", "1::"},
		{"[::1:2:3:4:5:6:7]", "0:1:2:3:4:5:6:7"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			h, err := Parse(tt.in)
			require.NoError(t, err)
			require.True(t, h.IsAddr())
			require.Equal(t, netip.MustParseAddr(tt.want), ipaddrtest.Netip(h.Addr()))
			require.Empty(t, h.Name())
		})
	}
}

func TestParseName(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"example.com", "example.com"},
		{"EXAMPLE.com.", "example.com"},
		{"LOCALHOST.", "localhost"},
		{"ｅｘａｍｐｌｅ．ｃｏｍ", "example.com"},
		{"ＬＯＣＡＬＨＯＳＴ", "localhost"},
		{"%6c%6F%63alhost", "localhost"},
		{"loc\u00ADalhost", "localhost"},
		{"loc\u200Balhost", "localhost"},
		{"a\uFE0Fb.com", "ab.com"},
		{"münchen.de", "xn--mnchen-3ya.de"},
		{"MÜNCHEN.DE", "xn--mnchen-3ya.de"},
		{"bücher.example", "xn--bcher-kva.example"},
		{"例え.jp", "xn--r8jz45g.jp"},
		{"例え。jp", "xn--r8jz45g.jp"},
		{"%E4%BE%8B%E3%81%88.jp", "xn--r8jz45g.jp"},
		{"xn--r8jz45g.jp", "xn--r8jz45g.jp"},
		{"faß.de", "xn--fa-hia.de"},
		{"FAẞ.de", "fass.de"},
		{"İstanbul.tr", "xn--istanbul-o0e.tr"},
		{"١٢٧.٠.٠.١", "xn--9hbcp.xn--8hb.xn--8hb.xn--9hb"}, // Arabic-Indic digits are not ASCII digits
		{"127.0.0.1.example", "127.0.0.1.example"},
		{"1.2.3.4.nip.io", "1.2.3.4.nip.io"},
		{"0x1g", "0x1g"},
		{"1e1", "1e1"},
		{"a_b-c.example", "a_b-c.example"},
		{"intranet", "intranet"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			h, err := Parse(tt.in)
			require.NoError(t, err)
			require.False(t, h.IsAddr())
			require.False(t, h.Addr().IsValid())
			require.Equal(t, tt.want, h.Name())
			require.Equal(t, tt.want, h.String())
		})
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string
	}{
		{"", "invalid host: the host is empty"},
		{"\u00AD", "invalid host: the host is empty"},
		{".", "empty label"},
		{"a..b", "empty label"},
		{".example.com", "empty label"},
		{"example.com..", "empty label"},
		{"1.2.3.4..", "empty label"},
		{"a b", `the character ' '`},
		{"a/b", `the character '/'`},
		{"a%2fb", `the character '/'`},
		{"a%zz", `the character '%'`},
		{"a%", `the character '%'`},
		{"a%00b", `the character '\x00'`},
		{"a\tb", `the character '\t'`},
		{"a@b", `the character '@'`},
		{"a:b", `the character ':'`},
		{"a\\b", `the character '\\'`},
		{"a|b", `the character '|'`},
		{"a^b", `the character '^'`},
		{"a\x7fb", `the character '\x7f'`},
		{"a／b", `the character '/'`}, // full-width solidus maps to '/'
		{"a％41", `the character '%'`},
		{"%ff.com", "not valid UTF-8"},
		{"a\xffb.com", "not valid UTF-8"},
		{"a\uFFFDb.com", "U+FFFD"},
		{"ſ.example", "U+017F"},         // long s, maps to "s"
		{"localhoſt", "U+017F"},         //
		{"𝟏𝟐𝟕.0.0.1", "U+1D7CF"},        // mathematical digits
		{"127.0.0.𝟏", "U+1D7CF"},        //
		{"①②⑦.0.0.1", "U+2460"},         // circled digits
		{"127.0.0.¹", "U+00B9"},         // superscript one
		{"ⅼocalhost", "U+217C"},         // small roman numeral fifty
		{"ﬁle.local", "U+FB01"},         // ligature
		{"\u212Aelvin.com", "U+212A"},   // Kelvin sign
		{"ᵃ.com", "U+1D43"},             // modifier letter
		{"x\u2024y", "U+2024"},          // one dot leader
		{"x\uFE52y", "U+FE52"},          // small full stop
		{"x\u200Dy", "U+200D"},          // zero width joiner
		{"x\u2000y", "U+2000"},          // en quad
		{"x\U0001FBF1y", "U+1FBF1"},     // segmented digit one
		{"x😀y.com", "U+1F600"},          // symbols are not mapped
		{"256.0.0.1", "over 255"},       // non-last part > 255
		{"1.2.3.256", "out of range"},   // last part > 255
		{"1.2.65536", "out of range"},   //
		{"4294967296", "out of range"},  //
		{"0x100000000", "out of range"}, //
		{"99999999999999999999999", "out of range"},
		{"1.2.3.4.5", "more than four parts"},
		{"1.2.3.09", "not a number"},
		{"a.0x", "not a number"},
		{"foo.1", "not a number"},
		{"0x7g.1", "not a number"},
		{"[::1", "closing"},
		{"[]", "too few pieces"},
		{"[:1]", `single ":"`},
		{"[1:]", `single ":"`},
		{"[::1::]", `more than one "::"`},
		{"[1:2:3:4:5:6:7:8:9]", "too many pieces"},
		{"[1:2:3:4:5:6:7]", "too few pieces"},
		{"[::1%25eth0]", "invalid character"},
		{"[::1%eth0]", "invalid character"},
		{"[fe80::1%251]", "invalid character"},
		{"[12345::]", "invalid character"},
		{"[::1.2.3]", "fewer than four parts"},
		{"[::1.2.3.4.5]", "invalid embedded IPv4"},
		{"[::01.2.3.4]", "leading zero"},
		{"[::256.0.0.1]", "over 255"},
		{"[1:2:3:4:5:6:7:1.2.3.4]", "no room"},
		{"[::.1.2.3]", "empty IPv4 part"},
		{"[::ffff:%31.0.0.1]", "invalid character"},
		{"[%3A%3A1]", "invalid character"},
		{"[::1]x", "invalid host"}, // '[' and ']' are forbidden in names
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			h, err := Parse(tt.in)
			require.Error(t, err, "got %v", h)
			require.Contains(t, err.Error(), tt.wantErr)
			var he *Error
			require.True(t, errors.As(err, &he))
			require.Equal(t, Host{}, h)
		})
	}
}

func TestParseFullWidthMapped(t *testing.T) {
	h, err := Parse("ｌocalhost")
	require.NoError(t, err)
	require.Equal(t, "localhost", h.Name())
}

func TestHostString(t *testing.T) {
	for in, want := range map[string]string{
		"Example.COM.":      "example.com",
		"127.1":             "127.0.0.1",
		"[::1]":             "[::1]",
		"[::ffff:7f00:1]":   "[::ffff:127.0.0.1]",
		"[2606:4700::1111]": "[2606:4700::1111]",
	} {
		h, err := Parse(in)
		require.NoError(t, err)
		require.Equal(t, want, h.String())
		again, err := Parse(h.String())
		require.NoError(t, err)
		require.Equal(t, h, again)
	}
	require.Equal(t, "", Host{}.String())
	require.False(t, Host{}.IsAddr())
}

func TestPunycodeVectors(t *testing.T) {
	// RFC 3492 §7.1 samples (lower-cased input) and common names.
	for in, want := range map[string]string{
		"ü":         "xn--tda",
		"münchen":   "xn--mnchen-3ya",
		"他们为什么不说中文": "xn--ihqwcrb4cv8a8dqg056pqjye",
		"почемужеонинеговорятпорусски": "xn--b1abfaaepdrnnbgefbadotcwatmq2g4l",
		"3年b組金八先生": "xn--3b-ww4c5e180e575a65lsy2b",
	} {
		got, err := punycode(in)
		require.NoError(t, err)
		require.Equal(t, want, got, in)
	}
}

func TestEndsInNumber(t *testing.T) {
	for in, want := range map[string]bool{
		"1.2.3.4":      true,
		"1.2.3.4.":     true,
		"example.com":  false,
		"example.0x":   true,
		"example.0x1f": true,
		"example.09":   true,
		"example.1e":   false,
		"1.":           true,
		".":            false,
		"a.":           false,
		"1.2.3.4..":    false,
	} {
		require.Equal(t, want, endsInNumber(in), in)
	}
}

// TestCompatRangesCover spot-checks that code points browsers map to ASCII
// are rejected rather than treated as part of a name.
func TestCompatRangesCover(t *testing.T) {
	for _, r := range []rune{
		0x00AA, 0x00B2, 0x00B3, 0x00B9, 0x00BA, 0x0132, 0x0133, 0x017F, 0x01C7,
		0x01CA, 0x01F1, 0x02B0, 0x02E1, 0x1D43, 0x1D5B, 0x2071, 0x207F, 0x2090,
		0x2102, 0x210A, 0x2113, 0x212A, 0x212F, 0x2139, 0x2160, 0x217C, 0x24D0,
		0x2C7C, 0xA7F2, 0xFB00, 0xFB01, 0xFB06, 0x1D400, 0x1D7CE, 0x1D7FF,
		0x1F130, 0x1FBF0, 0x1FBF9,
	} {
		_, err := Parse("x" + string(r) + "y.com")
		require.Error(t, err, "%U", r)
	}
}

// TestWHATWGConformance compares Parse with the WHATWG URL parser of Node
// (testdata/whatwg_hosts.jsonl, made by running new URL("http://"+in+"/")
// over generated spellings of addresses and names). Parse may reject what
// WHATWG accepts (it is stricter, see the package comment) and may accept
// a name WHATWG rejects, but it must never read an address differently, or
// read as a name what WHATWG reads as an address.
func TestWHATWGConformance(t *testing.T) {
	data, err := os.ReadFile("testdata/whatwg_hosts.jsonl")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")[1:]
	require.Greater(t, len(lines), 1000)
	var agree, stricter, lenient int
	for _, line := range lines {
		var c struct {
			In     string  `json:"in"`
			WHATWG *string `json:"whatwg"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &c), line)
		h, err := Parse(c.In)
		var want netip.Addr
		wantAddr := false
		if c.WHATWG != nil {
			a, perr := netip.ParseAddr(strings.Trim(*c.WHATWG, "[]"))
			want, wantAddr = a, perr == nil
		}
		switch {
		case err != nil && c.WHATWG == nil:
			agree++
		case err != nil:
			stricter++ // rejecting is always safe
		case c.WHATWG == nil:
			assert.False(t, h.IsAddr(), "%q: WHATWG rejects, Parse reads address %v", c.In, h.Addr())
			lenient++
		case wantAddr:
			assert.True(t, h.IsAddr(), "%q: WHATWG reads %s, Parse reads name %q", c.In, *c.WHATWG, h.Name())
			assert.Equal(t, want, ipaddrtest.Netip(h.Addr()), c.In)
			agree++
		default:
			assert.False(t, h.IsAddr(), "%q: WHATWG reads name %s, Parse reads %v", c.In, *c.WHATWG, h.Addr())
			wantName := strings.TrimSuffix(*c.WHATWG, ".")
			if isASCII(c.In) || h.Name() == wantName {
				assert.Equal(t, wantName, h.Name(), c.In)
				agree++
			} else {
				lenient++ // non-ASCII names: no NFC or full IDNA table here
			}
		}
	}
	t.Logf("%d cases: %d agree, %d rejected here only, %d names accepted or spelled differently here", len(lines), agree, stricter, lenient)
}
