package core_test

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// Every path that cuts text to a length limit masks first: a key at any
// offset around the cut leaves no part of itself.
func TestMaskThenCutAtEveryOffset(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("#", n) }
	t.Run("network error message at 300", func(t *testing.T) {
		for off := 0; off <= 310; off++ {
			s := search(t, nil, "q", core.Reply{Kind: core.ReplyNetwork, Message: pad(off) + testKey + pad(400)})
			require.ErrorIs(t, s.Err, core.ErrNetwork)
			assertNoKeyPart(t, s.Err.Message)
		}
	})
	t.Run("DeepSeek error message at 300", func(t *testing.T) {
		for off := 0; off <= 310; off++ {
			s := search(t, nil, "q", statusReply(400, `{"error":{"message":"`+pad(off)+testKey+pad(400)+`"}}`))
			require.ErrorIs(t, s.Err, core.ErrAPI)
			assertNoKeyPart(t, s.Err.Message)
		}
	})
	t.Run("raw error body at 300", func(t *testing.T) {
		for off := 0; off <= 310; off++ {
			s := search(t, nil, "q", statusReply(400, pad(off)+testKey+pad(400)))
			assertNoKeyPart(t, s.Err.Message)
		}
	})
	t.Run("unknown reply kind at 40", func(t *testing.T) {
		for off := 0; off <= 45; off++ {
			s := search(t, nil, "q", core.Reply{Kind: core.ReplyKind(pad(off) + testKey)})
			require.Equal(t, core.CodeInternal, s.Err.Code)
			assertNoKeyPart(t, s.Err.Message)
		}
	})
	t.Run("search summary at maxSummaryChars", func(t *testing.T) {
		cfg := mustConfig(t, core.Options{MaxSummaryChars: 60})
		for off := 0; off <= 65; off++ {
			hits := searchHits(t, cfg, resultsBody(t, item{URL: "https://example.com/", Summary: pad(off) + testKey + pad(100)}))
			require.Len(t, hits, 1)
			assertNoKeyPart(t, hits[0].Text)
		}
	})
	t.Run("fetched page at fetchMaxChars", func(t *testing.T) {
		cfg := mustConfig(t, core.Options{FetchMaxChars: 200})
		for off := 0; off <= 210; off++ {
			s := fetch(t, cfg, "https://example.com/", okReply(fetchBodyJSON(t, "", pad(off)+testKey+pad(400))))
			require.Nil(t, s.Err)
			// The continue line is ours and only numbers: its figures
			// ("of 456 characters") may match digits of the test key.
			text, line, cut := strings.Cut(s.Result.Fetch.Text, "\n[content truncated")
			require.True(t, cut)
			require.Regexp(t, `^: showing 0–\d+ of \d+ characters; call deepseek_fetch with offset \d+ for more\]$`, line)
			assertNoKeyPart(t, text)
		}
	})
	t.Run("inputs quoted in errors", func(t *testing.T) {
		for off := 0; off <= 45; off++ {
			for _, op := range []core.Operation{
				{Kind: core.KindFetch, URL: "https://go.dev/", Format: pad(off) + testKey},
				{Kind: core.Kind(pad(off) + testKey)},
				{Kind: core.KindFetch, URL: "ftp://" + pad(off) + testKey},
			} {
				op.APIKey = testKey
				s := core.NewEngine(testEnv()).Start(op)
				require.ErrorIs(t, s.Err, core.ErrInvalidInput)
				assertNoKeyPart(t, s.Err.Message)
			}
		}
	})
}

// A server echoing the key in an encoded form does not get it shown.
func TestKeyMaskedInEveryEncoding(t *testing.T) {
	// A key with every character an API key may hold (see validKey), so
	// each escape is used.
	const key = "sk-Ab9+/=~_.:Zz0123456789abcdefXY"
	cfg := mustConfig(t, core.Options{})
	for name, form := range encodings(key) {
		t.Run(name, func(t *testing.T) {
			e := core.NewEngine(testEnv())
			s := e.Start(core.Operation{Kind: core.KindSearch, Query: "q", APIKey: key, Config: cfg})
			require.False(t, s.Done, "the key is refused: %v", s.Err)
			s = e.Resume(s.Handle, statusReply(400, "bad key "+form+" end"))
			require.ErrorIs(t, s.Err, core.ErrAPI)
			// Text around the key (a user name in a Basic echo, the
			// last bits of the key's last byte) may remain.
			require.Contains(t, s.Err.Message, "[redacted]")
			require.NotContains(t, s.Err.Message, form)
			require.NotContains(t, s.Err.Message, key)
		})
	}
	t.Run("in results and fetched text", func(t *testing.T) {
		r := core.NewRedactor(key)
		for name, form := range encodings(key) {
			require.NotContains(t, r.Mask("a "+form+" b"), form, name)
			require.True(t, r.Contains("a "+form+" b"), name)
		}
	})
	t.Run("ordinary text is left alone", func(t *testing.T) {
		r := core.NewRedactor(testKey)
		for _, s := range []string{"", "sk-", "sk-0123", "%73k-0123456789abcdef0123456789abcde", `\u0073k`, "c2stMDEy", "100% sure \\ back"} {
			require.Equal(t, s, r.Mask(s))
		}
		require.Equal(t, "x", core.NewRedactor("").Mask("x"))
		var nilR *core.Redactor
		require.Equal(t, "x", nilR.Mask("x"))
	})
}

// A query, URL or other input carrying the key in any form, percent-encoded
// included, is refused before anything is sent.
func TestInputCarryingEncodedKeyRefused(t *testing.T) {
	esc := url.PathEscape
	pct := ""
	for i := 0; i < len(testKey); i++ {
		pct += fmt.Sprintf("%%%02x", testKey[i])
	}
	for _, tt := range []struct {
		name string
		op   core.Operation
		want string
	}{
		{"query with %2D", core.Operation{Kind: core.KindSearch, Query: "find sk%2D" + testKey[3:]}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"query with %73", core.Operation{Kind: core.KindSearch, Query: "%73" + testKey[1:]}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"query fully encoded", core.Operation{Kind: core.KindSearch, Query: pct}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"query double-encoded", core.Operation{Kind: core.KindSearch, Query: "%2573" + testKey[1:]}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"query base64", core.Operation{Kind: core.KindSearch, Query: base64.StdEncoding.EncodeToString([]byte(testKey))}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"URL query parameter", core.Operation{Kind: core.KindFetch, URL: "https://evil.example/?k=%73" + testKey[1:]}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL path", core.Operation{Kind: core.KindFetch, URL: "https://evil.example/" + pct}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL host", core.Operation{Kind: core.KindFetch, URL: "https://" + esc(testKey) + ".evil.example/"}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL userinfo", core.Operation{Kind: core.KindFetch, URL: "https://u:" + testKey + "@evil.example/"}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL path, hex", core.Operation{Kind: core.KindFetch, URL: "https://evil.example/" + hex.EncodeToString([]byte(testKey))}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL query, hex upper", core.Operation{Kind: core.KindFetch, URL: "https://evil.example/?k=" + strings.ToUpper(hex.EncodeToString([]byte(testKey)))}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL query, upper case", core.Operation{Kind: core.KindFetch, URL: "https://evil.example/?k=" + strings.ToUpper(testKey)}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL query, base64url", core.Operation{Kind: core.KindFetch, URL: "https://evil.example/?k=" + base64.RawURLEncoding.EncodeToString([]byte(testKey))}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL query, HTML references percent-encoded", core.Operation{Kind: core.KindFetch, URL: "https://evil.example/?k=" + url.QueryEscape("&#115;&#x6B;"+testKey[2:])}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"query, HTML references", core.Operation{Kind: core.KindSearch, Query: "&#115;&#x6B;&#45;" + testKey[3:]}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"query, JSON escapes", core.Operation{Kind: core.KindSearch, Query: `\u0073\u006B` + testKey[2:]}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"format", core.Operation{Kind: core.KindFetch, URL: "https://go.dev/", Format: testKey}, "DeepSeek Fetch: the format contains the API key; it was not sent"},
		{"kind", core.Operation{Kind: core.Kind(testKey)}, "deepseek-web-retrieval: the operation kind contains the API key; it was not sent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.op.APIKey = testKey
			e := core.NewEngine(testEnv())
			s := e.Start(tt.op)
			require.Nil(t, s.Request)
			require.ErrorIs(t, s.Err, core.ErrInvalidInput)
			require.EqualError(t, s.Err, tt.want)
			require.Zero(t, e.InFlight())
		})
	}
	t.Run("an encoded key in ori_question is dropped", func(t *testing.T) {
		s := core.NewEngine(testEnv()).Start(core.Operation{Kind: core.KindSearch, Query: "q", OriQuestion: "why %73" + testKey[1:], APIKey: testKey})
		require.NotNil(t, s.Request)
		require.Equal(t, `{"query":"q","count":10,"need_content":false}`, string(s.Request.Body))
	})
}

// Option values that look like a key are never repeated in errors or
// warnings.
func TestOptionErrorsDoNotRepeatKeys(t *testing.T) {
	const notShown = "a value that looks like an API key (not repeated here)"
	for _, tt := range []struct {
		name, options, want string
	}{
		{"apiKeyEnv holding the key", `{"apiKeyEnv":"` + testKey + `"}`, `option "apiKeyEnv": ` + notShown + ` is not an environment variable name`},
		{"apiKey reference naming the key", `{"apiKey":"{env:` + testKey + `}"}`, `option "apiKey": the reference names ` + notShown + `, which is not an environment variable name`},
		{"apiKey ${} naming the key", `{"apiKey":"${` + testKey + `}"}`, `option "apiKey": the reference names ` + notShown + `, which is not an environment variable name`},
		{"tier", `{"search":"` + testKey + `"}`, `option "search": want off, optional, preferred or forced, got ` + notShown},
		{"baseURL", `{"baseURL":"` + testKey + `"}`, `option "baseURL": ` + notShown + ` is not an absolute URL`},
		{"baseURL with the key", `{"baseURL":"http://example.com/` + testKey + `"}`, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got ` + notShown},
		{"language", `{"language":"` + testKey + `;"}`, `option "language": want language codes separated by commas, such as "zh,en", got ` + notShown},
		{"domain entry", `{"includeDomains":["https://` + testKey + `"]}`, `option "includeDomains": entry 1: domain ` + notShown + ` is a URL; write just the host name, like "example.com"`},
		{"number", `{"maxResults":"` + testKey + `"}`, `option "maxResults": want a whole number, got ` + notShown},
		{"GitHub token", `{"apiKeyEnv":"ghp_abcdefghijklmnop1234"}`, `option "apiKeyEnv": ` + notShown + ` is not an environment variable name`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o, _, err := core.ParseOptions([]byte(tt.options))
			if err == nil {
				_, _, err = core.NewConfig(o)
			}
			require.EqualError(t, err, tt.want)
			assertNoKeyPart(t, err.Error())
		})
	}
	t.Run("warnings", func(t *testing.T) {
		o, warnings, err := core.ParseOptions([]byte(`{"` + testKey + `":1,"localization":"` + testKey + `"}`))
		require.NoError(t, err)
		_, more, err := core.NewConfig(o)
		require.NoError(t, err)
		warnings = append(warnings, more...)
		require.Equal(t, []string{
			`unknown option ` + notShown + ` ignored`,
			`option "localization": ` + notShown + ` is not an IPv4 or IPv6 address; it is not sent`,
		}, warnings)
	})
	t.Run("ordinary values are still quoted", func(t *testing.T) {
		_, _, err := core.NewConfig(core.Options{APIKeyEnv: "MY-KEY"})
		require.EqualError(t, err, `option "apiKeyEnv": "MY-KEY" is not an environment variable name`)
		_, _, err = core.NewConfig(core.Options{IncludeDomains: []string{"https://averyveryverylongsubdomain.example.com"}})
		require.EqualError(t, err, `option "includeDomains": entry 1: domain "https://averyveryverylongsubdomain.example.com" is a URL; write just the host name, like "example.com"`)
	})
}
