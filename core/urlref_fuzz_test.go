package core

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// urlSeeds are inputs where URL parsers commonly disagree: backslashes,
// tabs and newlines, percent-encoding, IPv6 literals with zones, userinfo
// with "@", empty hosts, ports out of range, non-ASCII hosts, "//" paths
// and "?"/"#" in odd places.
var urlSeeds = []string{
	"", " ", "https://example.com/a?b#c", "http://example.com", "HTTPS://EXAMPLE.com/", "https://EXAMPLE.com.",
	"http://evil.com\\@127.0.0.1/", "http://example.com\\x/", "https://example.com/a\\b", "http:\\\\example.com/",
	"http://127.0.0.\t1/", "http://example.com/\n", " https://example.com/", "https://example.com/ ",
	"https://ex%61mple.com/", "https://example.com%2e/", "https://ex%61mple.org:1/%41", "http://loc%61lhost/",
	"https://ex%C3%A9.com/", "https://ex%c3%a9.com/", "https://ex%zz.com/", "https://example.com/%zz",
	"https://example.com/a%2fb", "https://example.com/a b", "https://example.com/#%zz", "https://example.com/?%zz",
	"http://[fe80::1%25en0]/", "http://[2606:4700::1111%25en0]/", "http://[2606:4700::1111%en0]/",
	"https://[2606:4700::1111]:443/", "https://[2606:4700::1111]x/", "https://[2606:4700::1111/",
	"https://[93.184.216.34]/", "https://[::ffff:93.184.216.34]/", "http://[::1]/",
	"http://user@example.com", "http://:@example.com", "http://u:p@ss@example.org/", "https://@example.org/",
	"https://u@x@example.org/", "https://example.org@evil.com/", "https://x/@example.org",
	"http://", "http:///example.com/", "https:///", "http://:80/", "http://[]/", "http://.",
	"http://example.com:65535", "http://example.com:65536/", "http://example.com:99999999999999999999/",
	"http://example.com:-1/", "http://example.com:8a/", "http://example.com:80:80/", "http://example.com::80/",
	"https://münchen.de/", "https://xn--mnchen-3ya.de/", "https://例え.jp/", "https://ｅｘａｍｐｌｅ．ｏｒｇ/",
	"https://example.org。/", "https://exa\u00admple.org/", "https://exa mple.org/", "https://a{b}.org/",
	"https://a|b.org/", "https://a^b.org/", "https://a`b.org/", "https://a~b.org/", "https://a_b.org/",
	"https://example.org//a//b", "https://example.org//", "https:example.org", "https:/example.org",
	"https://example.org?", "https://example.org#", "https://example.org?#", "https://example.org#?",
	"https://example.org/??", "https://example.org/?a?b", "https://example.org/#a#b", "https://example.org?a#b?c",
	"ftp://example.org/", "javascript:alert(1)", "mailto:a@example.org", "//example.org/", "/x", "x",
	"http://93.184.216.34/", "http://1572395042/", "http://0x7f.1/", "https://example.org/\u00e9?\u00e9#\u00e9",
	"https://example.org/\xff", "https://ex\xffample.org/", "https://example.org/\u0085", "http://example.com/*",
}

// FuzzURLPolicyMatchesNetURL checks that CheckFetchURL decides, words its
// refusals and spells the URL to send exactly as it did when net/url split
// URLs for it (checkURLNetURL), with and without domain lists.
func FuzzURLPolicyMatchesNetURL(f *testing.F) {
	for _, s := range urlSeeds {
		f.Add(s)
	}
	lists := []struct{ allowed, blocked []string }{
		{nil, nil},
		{nil, []string{"example.com"}},
		{[]string{"example.org", "93.184.216.34", "2606:4700::1111"}, []string{"bad.example.org"}},
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, l := range lists {
			send, err := CheckFetchURL(raw, l.allowed, l.blocked)
			wantSend, _, wantErr := checkURLNetURL(raw, l.allowed, l.blocked)
			if wantErr != nil {
				require.Error(t, err, "%q: accepted, net/url version refused: %v", raw, wantErr)
				require.Equal(t, wantErr.Error(), err.Error(), "%q", raw)
				require.True(t, errors.Is(err, ErrURLRefused), "%q", raw)
				require.Empty(t, send)
				continue
			}
			require.NoError(t, err, "%q", raw)
			require.Equal(t, wantSend, send, "%q", raw)
		}
	})
}

// FuzzResultURLMatchesNetURL checks that search result URLs are accepted,
// keyed for de-duplication and read for their host exactly as they were
// with net/url, and that the fetch cache keys a page the same way.
func FuzzResultURLMatchesNetURL(f *testing.F) {
	for _, s := range urlSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, h, ok := resultURL(raw)
		wantU, wantH, wantOK := resultURLNetURL(raw)
		require.Equal(t, wantOK, ok, "%q", raw)
		if ok {
			require.Equal(t, wantH, h, "%q: host", raw)
			require.Equal(t, dedupKeyNetURL(wantU), dedupKey(u), "%q: dedup key", raw)
		}
		o := &operation{url: raw, request: Request{URL: "https://api.example/v1/tools/fetch"}}
		require.Equal(t, "fetch https://api.example/v1/tools/fetch "+fetchPageKeyNetURL(raw), fetchKey(o).String(), "%q: fetch key", raw)
	})
}

// FuzzBaseURLMatchesNetURL checks baseURL validation against the net/url
// version: same URL kept, same message.
func FuzzBaseURLMatchesNetURL(f *testing.F) {
	for _, s := range append(urlSeeds, "https://api.deepseek.com/", "http://localhost:8080/v1/", "http://127.0.0.2/",
		"http://[::1]:9/x/", "http://evil.localhost:18080", "http://localhost.:1", "http://LOCALHOST/", "http://[::1%25lo]/", "https://user@api.example/", "https://api.example/?x", "https://api.example/#x",
		"http://api.example/", "ftp://a:1:2/", "ftp://a:b:2/", "https://api.example/a%2Fb/", " https://api.example ") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := checkBaseURL(s)
		want, wantErr := checkBaseURLNetURL(s)
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error(), "%q", s)
			return
		}
		require.NoError(t, err, "%q", s)
		require.Equal(t, want, got, "%q", s)
		// Plain http goes only to localhost or a loopback literal.
		if strings.HasPrefix(got, "http://") {
			u, err := url.Parse(got)
			require.NoError(t, err, "%q", s)
			h := u.Hostname()
			a, aerr := netip.ParseAddr(h)
			require.True(t, strings.ToLower(h) == "localhost" || aerr == nil && a.Zone() == "" && a.Unmap().IsLoopback(),
				"plain http to %q accepted: %q", h, s)
		}
	})
}

// TestURLSeedsMatchNetURL runs the seeds through all three comparisons, so
// that `go test` checks them without -fuzz.
func TestURLSeedsMatchNetURL(t *testing.T) {
	for _, raw := range urlSeeds {
		send, err := CheckFetchURL(raw, nil, []string{"example.com"})
		wantSend, _, wantErr := checkURLNetURL(raw, nil, []string{"example.com"})
		require.Equal(t, wantSend, send, "%q", raw)
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err), "%q", raw)

		u, h, ok := resultURL(raw)
		wantU, wantH, wantOK := resultURLNetURL(raw)
		require.Equal(t, wantOK, ok, "%q", raw)
		if ok {
			require.Equal(t, wantH, h, "%q", raw)
			require.Equal(t, dedupKeyNetURL(wantU), dedupKey(u), "%q", raw)
		}

		base, err := checkBaseURL(raw)
		wantBase, wantErr := checkBaseURLNetURL(raw)
		require.Equal(t, wantBase, base, "%q", raw)
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err), "%q", raw)
	}
}

// TestFetchURLTricky spells out what the policy does with inputs where
// URL parsers disagree; each verdict also matches the net/url version.
func TestFetchURLTricky(t *testing.T) {
	tests := []struct {
		raw     string
		send    string // "" when refused
		wantErr string
	}{
		{"http://evil.com\\@127.0.0.1/", "", `url refused: the URL has a backslash before its path; browsers read it as "/", so the host is ambiguous`},
		{"https://example.org/a\\b", "https://example.org/a\\b", ""},
		{"http://127.0.0.\t1/", "", "url refused: the URL contains a control character such as a tab or newline"},
		{"https://example.org/\n", "", "url refused: the URL contains a control character such as a tab or newline"},
		{"https://ex%61mple.org/%41", "https://example.org/%41", ""},
		{"https://example.org/%zz", "", "url refused: the URL is malformed"},
		{"https://example.org/#%zz", "", "url refused: the URL is malformed"},
		{"https://example.org/?%zz", "https://example.org/?%zz", ""},
		{"https://[2606:4700::1111%25en0]/", "", `url refused: host "[2606:4700::1111%25en0]" is not a valid host: the IPv6 address has an invalid character`},
		{"https://[2606:4700::1111]:443/", "https://[2606:4700::1111]:443/", ""},
		{"https://u:p@ss@example.org/", "", "url refused: URLs with a user name or password are not fetched"},
		{"https://@example.org/", "", "url refused: URLs with a user name or password are not fetched"},
		{"https:///example.org/", "", "url refused: the URL has no host"},
		{"https://example.org:65536/", "", `url refused: host "example.org" has an invalid port (a port is a number from 0 to 65535)`},
		{"https://münchen.de/", "https://münchen.de/", ""},
		{"https://a{b}.org/", "", `url refused: the URL is malformed`},
		{"https://example.org//a//b", "https://example.org//a//b", ""},
		{"https://example.org?#", "https://example.org?#", ""},
		{"https:example.org", "", "url refused: the URL must start with https:// (two forward slashes)"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			send, err := CheckFetchURL(tt.raw, nil, nil)
			wantSend, _, wantErr := checkURLNetURL(tt.raw, nil, nil)
			require.Equal(t, wantSend, send)
			require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err))
			require.Equal(t, tt.send, send)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.wantErr)
			require.ErrorIs(t, err, ErrURLRefused)
		})
	}
}

// TestResultURLTricky spells out how result URLs are read and keyed.
func TestResultURLTricky(t *testing.T) {
	tests := []struct {
		raw, host, key string // key "" when the URL is dropped
	}{
		{"HTTPS://Example.COM./A?b#c", "example.com", "https://example.com./A?b"},
		{"https://u:p@ss@Example.com/", "example.com", "https://u:p%40ss@example.com/"},
		{"https://ÉXAMPLE.com/é", "xn--xample-9ua.com", "https://%C3%A9xample.com/%C3%A9"},
		{"https://ex%C3%A9.com/a%2Fb", "xn--ex-cja.com", "https://ex%C3%A9.com/a%2Fb"},
		{"https://[2606:4700:0::1111]:443/", "2606:4700::1111", "https://[2606:4700:0::1111]:443/"},
		{"https://[fe80::1%25EN0]/", "fe80::1%en0", "https://[fe80::1%25en0]/"},
		{"https://example.com/a b?c d#e f", "example.com", "https://example.com/a%20b?c d"},
		{"  https://example.com  ", "example.com", "https://example.com"},
		{"https://ex%61mple.com/", "", ""},
		{"https://example.com/%zz", "", ""},
		{"https:example.com", "", ""},
		{"https:///x", "", ""},
		{"ftp://example.com/", "", ""},
		{"https://.", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			u, h, ok := resultURL(tt.raw)
			wantU, wantH, wantOK := resultURLNetURL(tt.raw)
			require.Equal(t, wantOK, ok)
			require.Equal(t, tt.key != "", ok)
			if !ok {
				return
			}
			require.Equal(t, wantH, h)
			require.Equal(t, tt.host, h)
			require.Equal(t, dedupKeyNetURL(wantU), dedupKey(u))
			require.Equal(t, tt.key, dedupKey(u))
		})
	}
}

// TestSearchKeyText checks the search cache key's text against the
// fmt.Sprintf it replaced, for options away from the defaults.
func TestSearchKeyText(t *testing.T) {
	yes := true
	for _, opts := range []Options{
		{},
		{MinRerank: 1.5, MinAuthority: 2, MaxResults: 7, MaxSummaryChars: 300, IncludeDomains: []string{"go.dev", "pkg.go.dev"}, BlockedDomains: []string{"spam.example"}},
		{MinRerank: 0.25, AllowUnknownAuthority: &yes},
	} {
		cfg := mustConfig(t, opts)
		o, err := prepare(Operation{Kind: KindSearch, Query: "wasi", Config: cfg, APIKey: testKey})
		require.Nil(t, err)
		c := o.cfg
		want := fmt.Sprintf("search %s %s maxResults=%d messagesSummary=%t minRerank=%g minAuthority=%g allowUnknownAuthority=%t maxSummaryChars=%d includeDomains=%s blockedDomains=%s",
			o.request.URL, o.request.Body, c.MaxResults, c.Messages.Summary, c.MinRerank, c.MinAuthority, c.AllowUnknownAuthority, c.MaxSummaryChars,
			strings.Join(c.IncludeDomains, ","), strings.Join(c.BlockedDomains, ","))
		require.Equal(t, want, searchKey(o).String())
	}
}

// BenchmarkResultURL reads and keys ten search result URLs, with package
// weburl (new) and with net/url (netURL), for the figures in the report.
func BenchmarkResultURL(b *testing.B) {
	urls := make([]string, 10)
	for i := range urls {
		urls[i] = "https://example.com/article/" + strconv.Itoa(i) + "?utm_source=x#top"
	}
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, raw := range urls {
				u, _, _ := resultURL(raw)
				_ = dedupKey(u)
			}
		}
	})
	b.Run("netURL", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, raw := range urls {
				u, _, _ := resultURLNetURL(raw)
				_ = dedupKeyNetURL(u)
			}
		}
	})
}
