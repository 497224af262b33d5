package core

import (
	"strings"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/weburl"
	"github.com/stretchr/testify/require"
)

// resultKeyCases are URLs on both sides of weburl.PlainHTTP: written as
// dedupKey prints them, or not (case, escapes, userinfo, IP literals,
// characters the path escapes, a fragment, a lone "?").
var resultKeyCases = []string{
	"https://example.com/article/1",
	"https://example.com/article/1#part",
	"https://example.com/a?q=1&b=%20#x",
	"https://example.com?",
	"https://example.com/?#",
	"http://example.com:8080/a/b;c=d,e@f",
	"  https://example.com/x  ",
	"HTTPS://example.com/x",
	"https://Example.com/x",
	"https://example.com/a%2Fb",
	"https://example.com/a b",
	"https://example.com/a'b(c)!",
	"https://user:pass@example.com/",
	"https://[::1]:8080/x",
	"https://example.com/caf\u00e9",
	"https://example.com#frag",
	"https://example.com./x",
	"https://xn--caf-dma.example/x",
	"http://a.b/%",
	"https://example.com:/x?y#z#w",
}

// TestResultKey checks resultHostKey, with its fast path, against
// parseResultURL and dedupKey.
func TestResultKey(t *testing.T) {
	for _, raw := range resultKeyCases {
		checkResultKey(t, raw)
	}
	host, key, ok := plainURL("https://www.example.com:443/a?b#c")
	require.True(t, ok)
	require.Equal(t, "www.example.com", host)
	require.Equal(t, "https://www.example.com:443/a?b", key)
	for _, raw := range []string{"https://example.com:44a/", "https://example.com./", "https://1.2.3.4/", "https://a.b/#%41", "https://a.b/?x\x01", "http://a.b/c%20"} {
		_, _, ok := plainURL(raw)
		require.False(t, ok, "%q", raw)
	}
	hostname, ok := weburl.PlainHTTP("https://example.com:8080/a?b#B")
	require.True(t, ok)
	require.Equal(t, "example.com", hostname)
	_, ok = weburl.PlainHTTP("https://example.com/a?b#B%")
	require.False(t, ok)
	_, ok = weburl.PlainHTTP("https://example.com/a%20")
	require.False(t, ok)
}

// FuzzResultKey checks that processSearch's way to a result's host and
// dedup key (resultHostKey, with its fast path for URLs written as dedupKey
// prints them, which are not parsed) gives what resultURL and dedupKey
// give.
func FuzzResultKey(f *testing.F) {
	for _, raw := range resultKeyCases {
		f.Add(raw)
	}
	for _, raw := range []string{"http://a.b:80/x", "http://a.b:8a/x", "http://a.b:/x", "http://1.2.3.4/x", "http://a..b/", "http://a.b./", "http://a.b?x\x01", "http://a.b#%zz", "http://a.b#x\x01", "http:///x", "http://", "http://a.b#c?d\x01"} {
		f.Add(raw)
	}
	f.Fuzz(checkResultKey)
}

func checkResultKey(t *testing.T, raw string) {
	// u held another result's URL, as it does in processSearch's loop.
	var u weburl.URL
	require.True(t, u.Parse("https://user:pw@other.example/p%20q?r#s%21"))
	host, key, ok := resultHostKey(raw, &u)
	want, wantHost, wantOK := resultURL(raw)
	require.Equal(t, wantOK, ok, "%q", raw)
	if !ok {
		return
	}
	require.Equal(t, wantHost, host, "%q", raw)
	require.Equal(t, dedupKey(want), key, "%q", raw)
	if _, _, plain := plainURL(strings.TrimSpace(raw)); !plain {
		require.Equal(t, *want, u, "%q: parsed in place", raw)
	}
}
