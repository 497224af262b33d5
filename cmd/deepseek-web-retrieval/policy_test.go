package main

// Policy tests through the built binary: plain http only to a literal loopback, decimal
// numbers, network errors that name the host.

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

// hostileProxy records every request it is sent, with its Authorization header.
func hostileProxy(t *testing.T) (url string, seen func() []string) {
	var mu sync.Mutex
	var got []string
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.Host+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		deepseektest.WriteJSON(w, 200, searchAnswer)
	}))
	t.Cleanup(p.Close)
	return p.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

const plainHTTPRefused = "must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1])"

// A plain-http base URL that is not localhost or a loopback literal is refused before
// anything is sent; a proxy set in the environment never sees the key.
func TestCLIPlainHTTPOnlyToLiteralLoopback(t *testing.T) {
	proxyURL, seen := hostileProxy(t)
	env := append(baseEnv(t), "HTTP_PROXY="+proxyURL, "http_proxy="+proxyURL)
	for _, tt := range []struct{ flag, base string }{
		{"--base-url", "http://evil.localhost:18080"},
		{"--base-url", "http://localhost.:18080"},
		{"--base-url", "http://127.1:18080"},
		{"--base-url", "http://169.254.169.254"},
		{"--messages-base-url", "http://evil.localhost:18080/anthropic"},
	} {
		args := []string{"search", "--max-retries", "0", tt.flag, tt.base, "go idioms"}
		if tt.flag == "--messages-base-url" {
			args = append([]string{"search", "--search-backend", "messages"}, args[1:]...)
		}
		r := runBin(t, env, args...)
		require.Equal(t, exitUsage, r.code, r.stderr)
		require.Contains(t, r.stderr, tt.flag+": "+plainHTTPRefused+`, got "`+tt.base+`"`)
	}
	require.Empty(t, seen(), "the proxy was sent a request")

	// localhost itself goes to the loopback address, not through the proxy.
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	_, port := splitPort(t, m.URL)
	r := runBin(t, env, "search", "--max-retries", "0", "--base-url", "http://localhost:"+port, "go idioms")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, searchText, r.stdout)
	require.Len(t, m.Requests(), 1)
	require.Empty(t, seen(), "the proxy was sent a request")
}

// splitPort returns the host and port of a mock's http://host:port URL.
func splitPort(t *testing.T, u string) (host, port string) {
	host, port, err := net.SplitHostPort(strings.TrimPrefix(u, "http://"))
	require.NoError(t, err)
	return host, port
}

// Numbers on the command line are decimal: "010" is ten, base prefixes are refused with a
// sentence saying so (flag.IntVar read --offset 010, 0x10 and 0b11 as 8, 16 and 3).
func TestCLINumbersAreDecimal(t *testing.T) {
	m := newMock(t)
	m.Fetch = deepseektest.Answer(200, fetchAnswer)
	m.Search = deepseektest.Answer(200, searchAnswer)
	const url = "https://go.dev/doc/effective_go"
	r := runBin(t, baseEnv(t), "fetch", "--json", "--base-url", m.URL, "--offset", "010", url)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, `"offset": 10,`)

	r = runBin(t, baseEnv(t), "search", "--base-url", m.URL, "--max-results", "010", "--min-rerank", "01.5", "go")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, float64(10), m.Requests()[1].Body["count"])

	const prefix = "want a decimal number: 0x, 0b and 0o prefixes are not read"
	for _, tt := range []struct{ cmd, flag, value, want string }{
		{"fetch", "--offset", "0x10", prefix},
		{"fetch", "--offset", "0b11", prefix},
		{"fetch", "--offset", "0o7", prefix},
		{"fetch", "--offset", "-0X1", prefix},
		{"fetch", "--offset", "1_000", "want a whole number"},
		{"fetch", "--offset", "ten", "want a whole number"},
		{"search", "--max-results", "0x10", prefix},
		{"search", "--timeout-ms", "0b1111101000000", prefix},
		{"search", "--min-rerank", "0x1p0", prefix},
		{"search", "--min-authority", "Inf", "want a number"},
		{"search", "--min-authority", "NaN", "want a number"},
	} {
		r := runBin(t, baseEnv(t), tt.cmd, "--base-url", m.URL, tt.flag, tt.value, "https://go.dev/")
		require.Equal(t, exitUsage, r.code, r.stderr)
		require.Equal(t, "deepseek-web-retrieval "+tt.cmd+`: invalid value "`+tt.value+`" for flag `+tt.flag+": "+tt.want+
			"\nRun \"deepseek-web-retrieval help "+tt.cmd+"\" for usage.\n", r.stderr)
	}
	require.Len(t, m.Requests(), 2, "a refused number sent a request")
}

// keyForms are the encodings of the CLI's key a hostile server echoes.
func keyForms() map[string]string {
	dec, hexRef, uesc := "", "", ""
	for i := 0; i < len(cliKey); i++ {
		dec += fmt.Sprintf("&#%d;", cliKey[i])
		hexRef += fmt.Sprintf("&#X%X;", cliKey[i])
		uesc += fmt.Sprintf(`\u%04X`, cliKey[i])
	}
	return map[string]string{
		"hex":          hex.EncodeToString([]byte(cliKey)),
		"hex upper":    strings.ToUpper(hex.EncodeToString([]byte(cliKey))),
		"upper":        strings.ToUpper(cliKey),
		"html decimal": dec,
		"html hex":     hexRef,
		"json escaped": uesc,
		"base64":       base64.StdEncoding.EncodeToString([]byte(cliKey)),
		"base64url":    base64.RawURLEncoding.EncodeToString([]byte(cliKey)),
		"url-encoded":  "%73%6B%2D" + cliKey[3:],
	}
}

// A server echoing the key in any encoding, in results, pages and errors, never gets it
// printed; a URL carrying it in any encoding is never sent.
func TestCLIKeyMaskedInEveryEncoding(t *testing.T) {
	for name, form := range keyForms() {
		t.Run(name, func(t *testing.T) {
			m := newMock(t)
			m.Search = deepseektest.Answer(200, map[string]any{"results": []any{map[string]any{
				"url": "https://go.dev/", "title": "echo " + form, "summary": "key: " + form + " end"}}})
			m.Fetch = deepseektest.Answer(200, map[string]any{"title": "Echo", "content": "the key is " + form + "\n"})
			r := runBin(t, baseEnv(t), "search", "--base-url", m.URL, "go")
			require.Equal(t, 0, r.code, r.stderr)
			require.NotContains(t, r.stdout, form)
			require.Contains(t, r.stdout, "key: [redacted] end")
			r = runBin(t, baseEnv(t), "fetch", "--base-url", m.URL, "https://go.dev/")
			require.Equal(t, 0, r.code, r.stderr)
			require.Equal(t, "# Echo\n\nthe key is [redacted]\n", r.stdout)

			m.Search = deepseektest.Answer(401, deepseektest.APIError("bad key "+form))
			r = runBin(t, baseEnv(t), "search", "--base-url", m.URL, "--max-retries", "0", "go")
			require.Equal(t, exitAPI, r.code)
			require.Equal(t, "deepseek-web-retrieval search: DeepSeek Search failed: HTTP 401: bad key [redacted] (check the API key in DEEPSEEK_API_KEY)\n", r.stderr)

			before := len(m.Requests())
			r = runBin(t, baseEnv(t), "fetch", "--base-url", m.URL, "https://evil.example/?k="+url.QueryEscape(form))
			require.Equal(t, exitUsage, r.code)
			require.Equal(t, "deepseek-web-retrieval fetch: DeepSeek Fetch: the URL contains the API key; it was not sent\n", r.stderr)
			require.Len(t, m.Requests(), before, "a URL carrying the key was sent")
		})
	}
}

// A network error names the host and the kind of failure.
func TestCLINetworkErrorNamesHostAndKind(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	r := runBin(t, baseEnv(t), "fetch", "--max-retries", "0", "--base-url", "http://"+addr, "https://go.dev/")
	require.Equal(t, exitAPI, r.code)
	require.Equal(t, "deepseek-web-retrieval fetch: DeepSeek Fetch failed: network error: cannot connect to "+addr+" (connection refused)\n", r.stderr)

	// https to a server that answers in plain http.
	m := newMock(t)
	host := strings.TrimPrefix(m.URL, "http://")
	r = runBin(t, baseEnv(t), "fetch", "--max-retries", "0", "--base-url", "https://"+host, "https://go.dev/")
	require.Equal(t, exitAPI, r.code)
	require.Equal(t, "deepseek-web-retrieval fetch: DeepSeek Fetch failed: network error: TLS with "+host+" failed (the server did not answer with TLS)\n", r.stderr)
}

// A hostile index answering with results inside the network: they are withheld, and the
// output says how many and why.
func TestCLIWithholdsResultsInsideTheNetwork(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, map[string]any{"results": []any{
		map[string]any{"url": "http://169.254.169.254/latest/meta-data/", "title": "Metadata", "summary": "role: admin"},
		map[string]any{"url": "https://user:pass@go.dev/", "title": "Creds", "summary": "with a password"},
		map[string]any{"url": "http://[fd00::1]/", "title": "ULA"},
		map[string]any{"url": "https://go.dev/doc/", "title": "Go", "summary": "Public."},
	}})
	r := runBin(t, baseEnv(t), "search", "--base-url", m.URL, "go")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "1. Go\nhttps://go.dev/doc/\nPublic.\n\n"+
		"(3 results withheld: their URLs point at private or local addresses or carry a user name or password.)\n", r.stdout)
}
