package core

import (
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

// TestResultKey checks resultKey, with its fast path, against dedupKey.
func TestResultKey(t *testing.T) {
	for _, raw := range resultKeyCases {
		checkResultKey(t, raw)
	}
	var u weburl.URL
	_, ok := parseResultURL("https://example.com/a#b", &u)
	require.True(t, ok)
	require.Equal(t, "https://example.com/a", resultKey("https://example.com/a#b", &u))
	require.True(t, weburl.PlainHTTP("https://example.com/a#B%"))
	require.False(t, weburl.PlainHTTP("https://example.com/a%20"))
}

// FuzzResultKey checks that processSearch's way to a result's dedup key
// (parseResultURL, then resultKey with its fast path for URLs written as
// dedupKey prints them) gives what resultURL and dedupKey give.
func FuzzResultKey(f *testing.F) {
	for _, raw := range resultKeyCases {
		f.Add(raw)
	}
	f.Fuzz(checkResultKey)
}

func checkResultKey(t *testing.T, raw string) {
	// u held another result's URL, as it does in processSearch's loop.
	var u weburl.URL
	require.True(t, u.Parse("https://user:pw@other.example/p%20q?r#s%21"))
	host, ok := parseResultURL(raw, &u)
	want, wantHost, wantOK := resultURL(raw)
	require.Equal(t, wantOK, ok, "%q", raw)
	if !ok {
		return
	}
	require.Equal(t, wantHost, host, "%q", raw)
	require.Equal(t, *want, u, "%q: parsed in place", raw)
	require.Equal(t, dedupKey(want), resultKey(raw, &u), "%q", raw)
}
