package main

// Policy tests through the built binary: plain http only to a literal loopback, decimal
// numbers, network errors that name the host.

import (
	"net"
	"net/http"
	"net/http/httptest"
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
