package core

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every path that cuts text to a length limit masks first: a key at any
// offset around the cut leaves no part of itself (issue 9, item 7).
func TestMaskThenCutAtEveryOffset(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("#", n) }
	t.Run("network error message at 300", func(t *testing.T) {
		for off := 0; off <= 310; off++ {
			s := search(t, nil, "q", Reply{Kind: ReplyNetwork, Message: pad(off) + testKey + pad(400)})
			require.ErrorIs(t, s.Err, ErrNetwork)
			assertNoKeyPart(t, s.Err.Message)
		}
	})
	t.Run("DeepSeek error message at 300", func(t *testing.T) {
		for off := 0; off <= 310; off++ {
			s := search(t, nil, "q", statusReply(400, `{"error":{"message":"`+pad(off)+testKey+pad(400)+`"}}`))
			require.ErrorIs(t, s.Err, ErrAPI)
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
			s := search(t, nil, "q", Reply{Kind: ReplyKind(pad(off) + testKey)})
			require.Equal(t, CodeInternal, s.Err.Code)
			assertNoKeyPart(t, s.Err.Message)
		}
	})
	t.Run("search summary at maxSummaryChars", func(t *testing.T) {
		cfg := mustConfig(t, Options{MaxSummaryChars: 60})
		for off := 0; off <= 65; off++ {
			hits := searchHits(t, cfg, resultsBody(t, item{URL: "https://example.com/", Summary: pad(off) + testKey + pad(100)}))
			require.Len(t, hits, 1)
			assertNoKeyPart(t, hits[0].Text)
		}
	})
	t.Run("fetched page at fetchMaxChars", func(t *testing.T) {
		cfg := mustConfig(t, Options{FetchMaxChars: 200})
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
			for _, op := range []Operation{
				{Kind: KindFetch, URL: "https://go.dev/", Format: pad(off) + testKey},
				{Kind: Kind(pad(off) + testKey)},
				{Kind: KindFetch, URL: "ftp://" + pad(off) + testKey},
			} {
				op.APIKey = testKey
				s := NewEngine(testEnv()).Start(op)
				require.ErrorIs(t, s.Err, ErrInvalidInput)
				assertNoKeyPart(t, s.Err.Message)
			}
		}
	})
}

// encodings returns the forms of key a server may echo.
func encodings(key string) map[string]string {
	pct, hexu, hexU, hexx, dec, decPadded, hexRef, hexRefUpper, named := "", "", "", "", "", "", "", "", ""
	for i := 0; i < len(key); i++ {
		pct += fmt.Sprintf("%%%02X", key[i])
		hexu += fmt.Sprintf(`\u%04x`, key[i])
		hexU += fmt.Sprintf(`\u%04X`, key[i])
		hexx += fmt.Sprintf(`\x%02x`, key[i])
		dec += fmt.Sprintf("&#%d;", key[i])
		decPadded += fmt.Sprintf("&#%07d;", key[i])
		hexRef += fmt.Sprintf("&#x%x;", key[i])
		hexRefUpper += fmt.Sprintf("&#X%04X;", key[i])
		switch key[i] {
		case '.':
			named += "&period;"
		case '_':
			named += "&lowbar;"
		case '+':
			named += "&plus;"
		case '/':
			named += "&sol;"
		case '=':
			named += "&equals;"
		case ':':
			named += "&colon;"
		default:
			named += key[i : i+1]
		}
	}
	mixed := []byte(key)
	for i := range mixed {
		if i%2 == 0 {
			mixed[i] = strings.ToUpper(key[i : i+1])[0]
		}
	}
	return map[string]string{
		"as is":                      key,
		"JSON-escaped slash":         strings.ReplaceAll(key, "/", `\/`),
		"percent-encoded":            pct,
		"percent-encoded, lower":     strings.ToLower(pct),
		"query-escaped":              url.QueryEscape(key),
		"first letter encoded":       "%73" + key[1:],
		"u-escaped":                  hexu,
		"u-escaped, upper hex":       hexU,
		"x-escaped":                  hexx,
		"base64":                     base64.StdEncoding.EncodeToString([]byte(key)),
		"base64 unpadded":            base64.RawStdEncoding.EncodeToString([]byte(key)),
		"base64url":                  base64.URLEncoding.EncodeToString([]byte(key)),
		"base64url unpadded":         base64.RawURLEncoding.EncodeToString([]byte(key)),
		"basic auth, offset 1":       base64.StdEncoding.EncodeToString([]byte("u:" + key)),
		"basic auth, offset 2":       base64.StdEncoding.EncodeToString([]byte("us:" + key)),
		"basic auth, offset 0":       base64.StdEncoding.EncodeToString([]byte("usr:" + key)),
		"base64url after a prefix":   base64.RawURLEncoding.EncodeToString([]byte("token=" + key)),
		"hex":                        hex.EncodeToString([]byte(key)),
		"hex, upper":                 strings.ToUpper(hex.EncodeToString([]byte(key))),
		"hex of the key upper-cased": hex.EncodeToString([]byte(strings.ToUpper(key))),
		"upper case":                 strings.ToUpper(key),
		"lower case":                 strings.ToLower(key),
		"mixed case":                 string(mixed),
		"HTML decimal":               dec,
		"HTML decimal, zero-padded":  decPadded,
		"HTML hex":                   hexRef,
		"HTML hex, upper":            hexRefUpper,
		"HTML named":                 named,
		"percent-encoded upper case": url.PathEscape(strings.ToUpper(key)),
	}
}

// A server echoing the key in an encoded form does not get it shown
// (issue 9, item 8).
func TestKeyMaskedInEveryEncoding(t *testing.T) {
	// A key with every character validKey allows, so each escape is used.
	const key = "sk-Ab9+/=~_.:Zz0123456789abcdefXY"
	require.True(t, validKey(key))
	cfg := mustConfig(t, Options{})
	for name, form := range encodings(key) {
		t.Run(name, func(t *testing.T) {
			e := NewEngine(testEnv())
			s := e.Start(Operation{Kind: KindSearch, Query: "q", APIKey: key, Config: cfg})
			s = e.Resume(s.Handle, statusReply(400, "bad key "+form+" end"))
			require.ErrorIs(t, s.Err, ErrAPI)
			// Text around the key (a user name in a Basic echo, the
			// last bits of the key's last byte) may remain.
			require.Contains(t, s.Err.Message, "[redacted]")
			require.NotContains(t, s.Err.Message, form)
			require.NotContains(t, s.Err.Message, key)
		})
	}
	t.Run("in results and fetched text", func(t *testing.T) {
		r := NewRedactor(key)
		for name, form := range encodings(key) {
			require.NotContains(t, r.Mask("a "+form+" b"), form, name)
			require.True(t, r.Contains("a "+form+" b"), name)
		}
	})
	t.Run("ordinary text is left alone", func(t *testing.T) {
		r := NewRedactor(testKey)
		for _, s := range []string{"", "sk-", "sk-0123", "%73k-0123456789abcdef0123456789abcde", `\u0073k`, "c2stMDEy", "100% sure \\ back"} {
			require.Equal(t, s, r.Mask(s))
		}
		require.Equal(t, "x", NewRedactor("").Mask("x"))
		var nilR *Redactor
		require.Equal(t, "x", nilR.Mask("x"))
	})
}

// A query, URL or other input carrying the key in any form, percent-encoded
// included, is refused before anything is sent (issue 9, item 9).
func TestInputCarryingEncodedKeyRefused(t *testing.T) {
	esc := url.PathEscape
	pct := ""
	for i := 0; i < len(testKey); i++ {
		pct += fmt.Sprintf("%%%02x", testKey[i])
	}
	for _, tt := range []struct {
		name string
		op   Operation
		want string
	}{
		{"query with %2D", Operation{Kind: KindSearch, Query: "find sk%2D" + testKey[3:]}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"query with %73", Operation{Kind: KindSearch, Query: "%73" + testKey[1:]}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"query fully encoded", Operation{Kind: KindSearch, Query: pct}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"query double-encoded", Operation{Kind: KindSearch, Query: "%2573" + testKey[1:]}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"query base64", Operation{Kind: KindSearch, Query: base64.StdEncoding.EncodeToString([]byte(testKey))}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"URL query parameter", Operation{Kind: KindFetch, URL: "https://evil.example/?k=%73" + testKey[1:]}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL path", Operation{Kind: KindFetch, URL: "https://evil.example/" + pct}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL host", Operation{Kind: KindFetch, URL: "https://" + esc(testKey) + ".evil.example/"}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL userinfo", Operation{Kind: KindFetch, URL: "https://u:" + testKey + "@evil.example/"}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL path, hex", Operation{Kind: KindFetch, URL: "https://evil.example/" + hex.EncodeToString([]byte(testKey))}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL query, hex upper", Operation{Kind: KindFetch, URL: "https://evil.example/?k=" + strings.ToUpper(hex.EncodeToString([]byte(testKey)))}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL query, upper case", Operation{Kind: KindFetch, URL: "https://evil.example/?k=" + strings.ToUpper(testKey)}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL query, base64url", Operation{Kind: KindFetch, URL: "https://evil.example/?k=" + base64.RawURLEncoding.EncodeToString([]byte(testKey))}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"URL query, HTML references percent-encoded", Operation{Kind: KindFetch, URL: "https://evil.example/?k=" + url.QueryEscape("&#115;&#x6B;"+testKey[2:])}, "DeepSeek Fetch: the URL contains the API key; it was not sent"},
		{"query, HTML references", Operation{Kind: KindSearch, Query: "&#115;&#x6B;&#45;" + testKey[3:]}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"query, JSON escapes", Operation{Kind: KindSearch, Query: `\u0073\u006B` + testKey[2:]}, "DeepSeek Search: the query contains the API key; it was not sent"},
		{"format", Operation{Kind: KindFetch, URL: "https://go.dev/", Format: testKey}, "DeepSeek Fetch: the format contains the API key; it was not sent"},
		{"kind", Operation{Kind: Kind(testKey)}, "deepseek-web-retrieval: the operation kind contains the API key; it was not sent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.op.APIKey = testKey
			e := NewEngine(testEnv())
			s := e.Start(tt.op)
			require.Nil(t, s.Request)
			require.ErrorIs(t, s.Err, ErrInvalidInput)
			require.EqualError(t, s.Err, tt.want)
			require.Zero(t, e.InFlight())
		})
	}
	t.Run("an encoded key in ori_question is dropped", func(t *testing.T) {
		s := NewEngine(testEnv()).Start(Operation{Kind: KindSearch, Query: "q", OriQuestion: "why %73" + testKey[1:], APIKey: testKey})
		require.NotNil(t, s.Request)
		require.Equal(t, `{"query":"q","count":10,"need_content":false}`, string(s.Request.Body))
	})
}

// Option values that look like a key are never repeated in errors or
// warnings (issue 9, item 10).
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
			o, _, err := ParseOptions([]byte(tt.options))
			if err == nil {
				_, _, err = NewConfig(o)
			}
			require.EqualError(t, err, tt.want)
			assertNoKeyPart(t, err.Error())
		})
	}
	t.Run("warnings", func(t *testing.T) {
		o, warnings, err := ParseOptions([]byte(`{"` + testKey + `":1,"localization":"` + testKey + `"}`))
		require.NoError(t, err)
		_, more, err := NewConfig(o)
		require.NoError(t, err)
		warnings = append(warnings, more...)
		require.Equal(t, []string{
			`unknown option ` + notShown + ` ignored`,
			`option "localization": ` + notShown + ` is not an IPv4 or IPv6 address; it is not sent`,
		}, warnings)
	})
	t.Run("ordinary values are still quoted", func(t *testing.T) {
		_, _, err := NewConfig(Options{APIKeyEnv: "MY-KEY"})
		require.EqualError(t, err, `option "apiKeyEnv": "MY-KEY" is not an environment variable name`)
		_, _, err = NewConfig(Options{IncludeDomains: []string{"https://averyveryverylongsubdomain.example.com"}})
		require.EqualError(t, err, `option "includeDomains": entry 1: domain "https://averyveryverylongsubdomain.example.com" is a URL; write just the host name, like "example.com"`)
	})
}
