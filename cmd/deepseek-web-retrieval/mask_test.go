package main

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

// A server that sends bytes after its response makes net/http log
// "Unsolicited response received on idle HTTP channel starting with …"
// through the standard logger, quoting those bytes. That line reaches
// stderr masked, never with the key.
func TestCLILibraryLogLinesAreMasked(t *testing.T) {
	m := newMock(t)
	m.Search = answerWithKeyAfterBody
	seen := 0
	for range 10 {
		r := runBin(t, baseEnv(t), "search", "--base-url", m.URL, "go") // checks the key is never printed
		require.Equal(t, 0, r.code, r.stderr)
		if strings.Contains(r.stderr, "Unsolicited response") {
			seen++
			require.Contains(t, r.stderr, `extra bytes [redacted] and [redacted]`)
		}
		if seen >= 2 {
			break
		}
	}
	require.Positive(t, seen, "net/http never logged the unsolicited bytes; the test no longer exercises the logger")
}

// Warnings and errors about options go through the same masking.
func TestCLIOptionValuesLikeKeysAreNotRepeated(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	r := runBin(t, baseEnv(t), "search", "--base-url", m.URL, "--api-key-env", cliKey, "go")
	require.Equal(t, exitUsage, r.code)
	require.Equal(t, "deepseek-web-retrieval search: --api-key-env: a value that looks like an API key (not repeated here) is not an environment variable name\nRun \"deepseek-web-retrieval help search\" for usage.\n", r.stderr)
	r = runBin(t, baseEnv(t), "search", "--base-url", m.URL, "--localization", cliKey, "go")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "deepseek-web-retrieval: warning: option \"localization\": a value that looks like an API key (not repeated here) is not an IPv4 or IPv6 address; it is not sent\n", r.stderr)
}

// A key pasted as a flag value is masked in the usage error that quotes it.
func TestCLIFlagValueKeyMasked(t *testing.T) {
	r := runBin(t, baseEnv(t), "search", "--max-results", cliKey, "go")
	require.Equal(t, exitUsage, r.code)
	require.Equal(t, "deepseek-web-retrieval search: invalid value \"[redacted]\" for flag --max-results: want a whole number\nRun \"deepseek-web-retrieval help search\" for usage.\n", r.stderr)
}

// The MCP server's stderr goes through the same masking, library log lines
// included: the server runs for hours, and hosts such as
// Claude Code save its stderr to a log file.
func TestMCPLibraryLogLinesAreMasked(t *testing.T) {
	m := newMock(t)
	m.Search = answerWithKeyAfterBody
	s := startMCP(t, baseEnv(t), "--base-url", m.URL) // its cleanup checks the key is never printed
	s.initialize("2025-06-18")
	for i := range 5 {
		_, isErr := toolText(t, s.call(i+1, "tools/call", map[string]any{"name": "deepseek_search", "arguments": map[string]any{"query": fmt.Sprintf("go %d", i)}}))
		require.False(t, isErr)
	}
	time.Sleep(200 * time.Millisecond) // net/http logs from its own goroutine
	code, _ := s.closeAndWait()
	require.Equal(t, 0, code)
	require.Contains(t, s.stderr.String(), "Unsolicited response", "net/http never logged the unsolicited bytes; the test no longer exercises the logger")
	require.Contains(t, s.stderr.String(), `extra bytes [redacted] and [redacted]`)
}

// answerWithKeyAfterBody answers an empty search, then sends bytes past the
// body that carry the key plain and base64-encoded: net/http logs them as
// an "Unsolicited response" through the standard logger.
func answerWithKeyAfterBody(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	body := `{"results":[]}`
	fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%sextra bytes %s and %s\n",
		len(body), body, cliKey, base64.StdEncoding.EncodeToString([]byte(cliKey)))
}
