package core

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNormalizeDomain(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"example.com", "example.com"},
		{"  Example.COM  ", "example.com"},
		{"example.com.", "example.com"},
		{"*.example.com", "example.com"},
		{".example.com", "example.com"},
		{"*.Example.com.", "example.com"},
		{"com", "com"},
		{"ｅｘａｍｐｌｅ．ｃｏｍ", "example.com"},
		{"例え.jp", "xn--r8jz45g.jp"},
		{"xn--r8jz45g.jp", "xn--r8jz45g.jp"},
		{"münchen.de", "xn--mnchen-3ya.de"},
		{"sub_domain.example", "sub_domain.example"},
		{"93.184.216.34", "93.184.216.34"},
		{"127.1", "127.0.0.1"},
		{"2606:4700::1111", "2606:4700::1111"},
		{"[2606:4700:0::1111]", "2606:4700::1111"},
		{"2606:4700::ABCD", "2606:4700::abcd"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := normalizeDomain(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			again, err := normalizeDomain(got)
			require.NoError(t, err)
			require.Equal(t, got, again, "normalizeDomain is idempotent")
		})
	}
}

func TestNormalizeDomainErrors(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string
	}{
		{"", `domain "" is empty`},
		{"   ", `domain "   " is empty`},
		{"*.", `domain "*." has no name in it`},
		{".", `domain "." has no name in it`},
		{"https://example.com/", `domain "https://example.com/" is a URL; write just the host name, like "example.com"`},
		{"example.com/path", `domain "example.com/path" contains '/'; write just the host name, like "example.com"`},
		{"example.com:443", `domain "example.com:443" contains ':'`},
		{"user@example.com", `domain "user@example.com" contains '@'`},
		{"exa mple.com", `domain "exa mple.com" contains a space`},
		{"*example.com", `domain "*example.com" contains '*'`},
		{"a.*.example.com", `domain "a.*.example.com" contains '*'`},
		{"example.com?x", `contains '?'`},
		{"example.com#x", `contains '#'`},
		{"exa%41mple.com", `contains '%'`},
		{"a\\b.com", `contains '\\'`},
		{"a\tb.com", `contains a control character`},
		{"a..b", `domain "a..b" is not a valid host name: it has an empty label`},
		{"1.2.3.999", `domain "1.2.3.999" is not a valid host name: the IPv4 address is out of range`},
		{"ſ.com", `domain "ſ.com" is not a valid host name: it contains U+017F`},
		{"a／b.com", `domain "a／b.com" is not a valid host name: it contains the character '/'`},
		{"fe80::1%eth0", `has an IPv6 zone`},
		{strings.Repeat("a", 300) + "/", `domain "` + strings.Repeat("a", 100) + `…" contains '/'`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := normalizeDomain(tt.in)
			require.Error(t, err, "got %q", got)
			require.Contains(t, err.Error(), tt.wantErr)
			require.Empty(t, got)
		})
	}
}

func TestMatchDomain(t *testing.T) {
	tests := []struct {
		host, domain string
		want         bool
	}{
		{"example.com", "example.com", true},
		{"docs.example.com", "example.com", true},
		{"a.b.example.com", "example.com", true},
		{"example.com", "docs.example.com", false},
		{"badexample.com", "example.com", false},
		{"example.com.evil", "example.com", false},
		{"example.org", "example.com", false},
		{"x.com", "com", true},
		{"com", "x.com", false},
		{"", "example.com", false},
		{"example.com", "", false},
		{"93.184.216.34", "93.184.216.34", true},
		{"10.1.2.3", "2.3", false},
		{"10.1.2.3", "1.2.3", false},
		{"2606:4700::1111", "2606:4700::1111", true},
		{"2606:4700::1111", "1111", false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, matchDomain(tt.host, tt.domain), "matchDomain(%q, %q)", tt.host, tt.domain)
	}
}
