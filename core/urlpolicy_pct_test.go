package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// Percent-encoded hosts are decoded the way Node's URL (WHATWG) decodes
// them, the policy is applied to what they mean, and the URL is sent in
// the spelling a WHATWG parser serializes.
func TestPercentEncodedHosts(t *testing.T) {
	for _, tt := range []struct {
		raw, send, err string
		blocked        []string
	}{
		{raw: "https://ex%61mple.com/", send: "https://example.com/"},
		{raw: "https://example.com%2e/", send: "https://example.com./"},
		{raw: "https://example.com%2E/", send: "https://example.com./"},
		{raw: "https://EX%41MPLE.com:8443/a%20b?q=%41#f", send: "https://example.com:8443/a%20b?q=%41#f"},
		{raw: "https://%65xample.com", send: "https://example.com"},
		{raw: "https://%38.8.8.8/", send: "https://8.8.8.8/"},
		{raw: "https://%E4%BE%8B%E3%81%88.jp/", send: "https://xn--r8jz45g.jp/"},
		{raw: "https://go.dev/a%2Fb", send: "https://go.dev/a%2Fb"}, // no % in the host: sent as given
		{raw: "http://loc%61lhost/", err: `url refused: host "loc%61lhost" is the local machine` + pn},
		{raw: "https://%31%32%37.0.0.1/", err: `url refused: host "%31%32%37.0.0.1" is the loopback address 127.0.0.1` + pn},
		{raw: "https://ex%61mple.com%2e%2e/", err: `url refused: host "ex%61mple.com%2e%2e" is not a valid host: it has an empty label (two dots in a row, or a leading dot)`},
		{raw: "https://ex%2fample.com/", err: `url refused: host "ex%2fample.com" is not a valid host: it contains the character '/', which is not allowed in a host`},
		{raw: "https://ex%61mple.com/", blocked: []string{"example.com"}, err: `url refused: host "example.com" is in blockedDomains ("example.com")`},
	} {
		t.Run(tt.raw, func(t *testing.T) {
			s := core.NewEngine(testEnv()).Start(core.Operation{Kind: core.KindFetch, URL: tt.raw, APIKey: testKey, Config: mustConfig(t, core.Options{BlockedDomains: tt.blocked})})
			if tt.err != "" {
				require.Nil(t, s.Request)
				require.EqualError(t, s.Err, "DeepSeek Fetch: "+tt.err)
				return
			}
			require.Nil(t, s.Err)
			require.Equal(t, `{"url":"`+tt.send+`"}`, string(s.Request.Body))
			u, err := checkedURL(tt.raw, nil, nil)
			require.NoError(t, err)
			require.Equal(t, tt.send, u.String())
		})
	}
}
