package weburl

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// netURL parses raw with net/url and returns what Parse must return.
func netURL(raw string) (*URL, bool) {
	n, err := url.Parse(raw)
	if err != nil {
		return nil, false
	}
	u := &URL{
		Scheme: n.Scheme, Opaque: n.Opaque, Host: n.Host, Path: n.Path, RawPath: n.RawPath,
		RawQuery: n.RawQuery, ForceQuery: n.ForceQuery, Fragment: n.Fragment,
		RawFragment: n.RawFragment, OmitHost: n.OmitHost,
	}
	if n.User != nil {
		p, set := n.User.Password()
		u.User = &Userinfo{Username: n.User.Username(), Password: p, PasswordSet: set}
	}
	return u, true
}

// requireSame checks that Parse reads raw as net/url does, and that
// Hostname, EscapedPath, EscapedFragment and String agree too.
func requireSame(t *testing.T, raw string) {
	t.Helper()
	got, ok := Parse(raw)
	want, wantOK := netURL(raw)
	require.Equal(t, wantOK, ok, "%q: ok", raw)
	if !ok {
		return
	}
	require.Equal(t, want, got, "%q", raw)
	n, _ := url.Parse(raw)
	require.Equal(t, n.Hostname(), got.Hostname(), "%q: Hostname", raw)
	require.Equal(t, n.EscapedPath(), got.EscapedPath(), "%q: EscapedPath", raw)
	require.Equal(t, n.EscapedFragment(), got.EscapedFragment(), "%q: EscapedFragment", raw)
	require.Equal(t, n.String(), got.String(), "%q: String", raw)
	if n.User != nil {
		require.Equal(t, n.User.String(), got.User.String(), "%q: Userinfo.String", raw)
	}
	// The changes dedup keys make (lower-case scheme and host, no
	// fragment) print the same too.
	n.Host, got.Host = "Ä"+n.Host+"É", "Ä"+got.Host+"É"
	n.Fragment, n.RawFragment, got.Fragment, got.RawFragment = "", "", "", ""
	require.Equal(t, n.String(), got.String(), "%q: String after edits", raw)
}

// seeds are inputs where URL parsers commonly disagree.
var seeds = []string{
	"", "*", ":", ":foo", "http:", "http://", "http:///", "http:////x", "https://example.com",
	"https://example.com/a?b#c", "HTTPS://EXAMPLE.com.", "https://example.com:8443/x",
	"https://example.com:/x", "https://example.com:80:80/", "ftp://a:1:2/", "ftp://a:b:2/",
	"http://[::1]/", "http://[::1]:80/", "http://[::1]x/", "http://[::1]:8x/", "http://[fe80::1%25en0]/",
	"http://[fe80::1%en0]/", "http://[fe80::1%25%65n0]/", "http://[fe80::1%25%00]/", "http://[fe80::1%25 ]/",
	"http://[fe80::1%25%20]/", "http://[1.2.3.4]/", "http://[::ffff:1.2.3.4]/", "http://a[::1]/",
	"http://[::1/", "http://]/", "http://user@example.com/", "http://user:pass@example.com/",
	"http://u:p@ss@example.com/", "http://:@example.com/", "http://@example.com/", "http://u%40x@example.com/",
	"http://u%zz@example.com/", "http://u^@example.com/", "http://üser@example.com/",
	"http://ex%61mple.com/", "http://ex%C3%A9.com/", "http://ex%c3%a9.COM/", "http://%25/", "http://a%2/",
	"http://exa mple.com/", "http://a{b}.com/", "http://a<b>.com/", `http://a"b.com/`, "http://a\\b.com/",
	"http://a|b/", "http://münchen.de/Ä?ö#ü", "http://example.com/a b", "http://example.com/a%20b",
	"http://example.com/a%2fb", "http://example.com/a%2Fb", "http://example.com/%zz", "http://example.com/%",
	"http://example.com/a?%zz", "http://example.com/#%zz", "http://example.com/#a%20b", "http://example.com/#a b",
	"http://example.com/#a'b!c", "http://example.com/#%41", "http://example.com/?", "http://example.com/??",
	"http://example.com/?a?", "http://example.com/#", "http://example.com/?#", "http://example.com/#?",
	"http://example.com//a//b", "http:/a/b", "http:a/b", "mailto:x@y", "//example.com/x", "///x",
	"/a:b", "a:b", "./a:b", "a/b:c", "1http://x/", "h+t.t-p://x/", "http://example.com/a\tb",
	"http://example.com/\x7f", "http://example.com/\x80", "http://ex\xffample.com/", "http://x/[]",
	"http://x/a;b,c=d&e$f+g", "http://x/é", "http://x/*", "http:*", "http://x:99999999999999/",
	"http://x/%2a", "http://x/a%3Fb", "http://x/a%3fb", "http://%C3%A9:80/", "http://[::1%25x]:1/",
	"http://x@y@z/", "http://x/@", "http://x?@y/", "http://x#@y/", "http://x%2F/", "http://x.%E3%80%82/",
}

func TestParseMatchesNetURL(t *testing.T) {
	for _, raw := range seeds {
		t.Run(raw, func(t *testing.T) { requireSame(t, raw) })
	}
}

// TestParse spells out a few readings, so that a change in net/url shows
// up as a readable failure rather than only as a fuzz difference.
func TestParse(t *testing.T) {
	tests := []struct {
		raw              string
		ok               bool
		host, path, frag string
		str              string
	}{
		{"HTTP://User@Ex%C3%A9.com:8080/a%2Fb%20c?q=%zz#f%20g", true, "Ex\u00e9.com:8080", "/a/b c", "f g", "http://User@Ex%C3%A9.com:8080/a%2Fb%20c?q=%zz#f%20g"},
		{"http://[fe80::1%25en0]:80/", true, "[fe80::1%en0]:80", "/", "", "http://[fe80::1%25en0]:80/"},
		{"http://ex%61mple.com/", false, "", "", "", ""},
		{"http://a:1:2/", false, "", "", "", ""},
		{"http://a b/", false, "", "", "", ""},
		{"http://x/%zz", false, "", "", "", ""},
		{"http://x/#%zz", false, "", "", "", ""},
		{"http://[1.2.3.4]/", false, "", "", "", ""},
		{"http://x/\n", false, "", "", "", ""},
		{"http://u:p@ss@x/?", true, "x", "/", "", "http://u:p%40ss@x/?"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			u, ok := Parse(tt.raw)
			require.Equal(t, tt.ok, ok)
			if !ok {
				require.Nil(t, u)
				return
			}
			require.Equal(t, tt.host, u.Host)
			require.Equal(t, tt.path, u.Path)
			require.Equal(t, tt.frag, u.Fragment)
			require.Equal(t, tt.str, u.String())
		})
	}
}

// FuzzParseMatchesNetURL checks that Parse fails exactly when
// net/url.Parse fails and otherwise reads and prints the URL the same way.
func FuzzParseMatchesNetURL(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(requireSame)
}
