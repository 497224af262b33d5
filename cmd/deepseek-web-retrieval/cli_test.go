package main

// Black-box tests of search and fetch through the built binary: output, exit codes, signals
// and the proxy environment, against an httptest server playing DeepSeek that echoes the key
// wherever it can.

import (
	"bufio"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/clitest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

// cliBin is the binary TestMain builds.
var cliBin string

func TestMain(m *testing.M) { clitest.Main(m, ".", &cliBin) }

const cliKey = "sk-clitest0123456789abcdef"

// newMock plays DeepSeek for the CLI's key (internal/deepseektest).
func newMock(t *testing.T) *deepseektest.Server { return deepseektest.New(t, cliKey) }

// searchAnswer has a duplicate, a result without a URL, nulls, and the key echoed in a
// summary (it must not reach the output).
var searchAnswer = map[string]any{"results": []any{
	map[string]any{
		"url": "https://go.dev/doc/effective_go", "title": "Effective Go",
		"snippet": "unused", "summary": "Effective Go gives   tips\nfor writing clear, idiomatic Go code.",
		"content": "never shown", "rerank_score": 2.44, "authority": 4, "date": "2024-01-15T08:00:00Z",
		"site_name": "Go Documentation",
	},
	map[string]any{"url": "https://GO.dev/doc/effective_go#top", "title": "Duplicate", "summary": "dropped"},
	map[string]any{"title": "No URL", "summary": "dropped"},
	map[string]any{
		"url": "https://example.com/go-tips", "title": nil, "snippet": "Some Go tips.", "summary": nil,
		"rerank_score": nil, "authority": -1, "date": nil, "site_name": nil,
	},
}}

const searchText = "1. Effective Go\n" +
	"https://go.dev/doc/effective_go\n" +
	"[rerank 2.4 · authority 4 · Go Documentation] · published 2024-01-15\n" +
	"Effective Go gives tips for writing clear, idiomatic Go code.\n" +
	"\n" +
	"2. https://example.com/go-tips\n" +
	"https://example.com/go-tips\n" +
	"[authority unknown]\n" +
	"Some Go tips.\n"

var fetchAnswer = map[string]any{"title": "Effective Go", "content": "Effective Go is a guide.\n\n## Introduction\n\nGo is a new language."}

const fetchText = "# Effective Go\n\nEffective Go is a guide.\n\n## Introduction\n\nGo is a new language.\n"

type result struct {
	code           int
	stdout, stderr string
}

// baseEnv is a clean environment: no proxies, no caller variables, the key set.
func baseEnv(t *testing.T) []string {
	return []string{"HOME=" + t.TempDir(), "DEEPSEEK_API_KEY=" + cliKey, "LANG=C.UTF-8"}
}

// runBin runs the binary and checks what every run must satisfy: the key is never printed,
// and nothing looks like a Go stack trace.
func runBin(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(cliBin, args...)
	cmd.Env = env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %v: %v", args, err)
	}
	r := result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
	checkOutput(t, r)
	return r
}

func checkOutput(t *testing.T, r result) {
	t.Helper()
	require.NotContains(t, r.stdout+r.stderr, cliKey, "the key was printed")
	require.NotContains(t, r.stdout+r.stderr, "goroutine ", "a stack trace was printed")
	require.NotContains(t, r.stdout+r.stderr, "panic:")
}

func TestCLISearchText(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	r := runBin(t, baseEnv(t), "search", "--base-url", m.URL, "  go idioms ")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, searchText, r.stdout)
	require.Empty(t, r.stderr)
	seen := m.Requests()
	require.Len(t, seen, 1)
	require.Equal(t, "Bearer "+cliKey, seen[0].Auth)
	require.Contains(t, seen[0].UserAgent, "deepseek-web-retrieval")
	require.Equal(t, map[string]any{"query": "go idioms", "count": float64(10), "need_content": false}, seen[0].Body)
}

func TestCLISearchFlagsReachTheRequest(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	r := runBin(t, baseEnv(t), "search", "--base-url", m.URL, "--max-results", "1", "--blocked-domains", "pinterest.com",
		"--language", "zh,en", "--question", "How do I write idiomatic Go?", "go idioms")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, strings.SplitN(searchText, "\n\n", 2)[0]+"\n", r.stdout)
	require.Equal(t, map[string]any{
		"query": "go idioms -site:pinterest.com lang:zh,en", "count": float64(1), "need_content": false,
		"ori_question": "How do I write idiomatic Go?",
	}, m.Requests()[0].Body)
}

func TestCLISearchJSON(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	r := runBin(t, baseEnv(t), "search", "--json", "--base-url", m.URL, "go idioms")
	require.Equal(t, 0, r.code, r.stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, map[string]any{
		"query": "go idioms", "cached": false,
		"results": []any{
			map[string]any{
				"url": "https://go.dev/doc/effective_go", "title": "Effective Go",
				"text":   "Effective Go gives tips for writing clear, idiomatic Go code.",
				"rerank": 2.44, "authority": float64(4), "site": "Go Documentation",
				"date": "2024-01-15T08:00:00Z", "published": float64(time.Date(2024, 1, 15, 8, 0, 0, 0, time.UTC).UnixMilli()),
				"marker": "[rerank 2.4 · authority 4 · Go Documentation]",
			},
			map[string]any{
				"url": "https://example.com/go-tips", "title": "", "text": "Some Go tips.",
				"authority": float64(-1), "marker": "[authority unknown]",
			},
		},
		"text": strings.TrimSuffix(searchText, "\n"),
	}, got)
}

func TestCLIFetch(t *testing.T) {
	m := newMock(t)
	m.Fetch = deepseektest.Answer(200, fetchAnswer)
	const url = "https://go.dev/doc/effective_go"
	r := runBin(t, baseEnv(t), "fetch", "--base-url", m.URL, url)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, fetchText, r.stdout)
	require.Empty(t, r.stderr)
	require.Equal(t, map[string]any{"url": url}, m.Requests()[0].Body)

	r = runBin(t, baseEnv(t), "fetch", "--json", "--format", "markdown", "--base-url", m.URL, url)
	require.Equal(t, 0, r.code, r.stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	text := strings.TrimSuffix(fetchText, "\n")
	require.Equal(t, map[string]any{
		"url": url, "title": "Effective Go", "text": text, "chars": float64(len([]rune(text))), "truncated": false,
		"offset": float64(0), "totalChars": float64(len([]rune(text))), "cached": false,
	}, got)

}

func TestCLIFetchTruncated(t *testing.T) {
	m := newMock(t)
	m.Fetch = deepseektest.Answer(200, map[string]any{"title": "Long", "content": strings.Repeat("Löng line of text.\n", 100)})
	r := runBin(t, baseEnv(t), "fetch", "--fetch-max-chars", "200", "--base-url", m.URL, "https://go.dev/long")
	require.Equal(t, 0, r.code, r.stderr)
	text := strings.TrimSuffix(r.stdout, "\n")
	require.True(t, strings.HasPrefix(text, "# Long\n\nLöng line of text.\n"), text)
	require.True(t, strings.HasSuffix(text, "\n[content truncated: showing 0–107 of 1,907 characters; run again with --offset 107 for more]"), text)
	require.LessOrEqual(t, len([]rune(text)), 200)

	// --offset reads on: one request per run, the title only in the first part.
	r = runBin(t, baseEnv(t), "fetch", "--fetch-max-chars", "200", "--offset", "107", "--base-url", m.URL, "https://go.dev/long")
	require.Equal(t, 0, r.code, r.stderr)
	require.True(t, strings.HasPrefix(r.stdout, " line of text.\nLöng line of text.\n"), r.stdout)
	require.True(t, strings.HasSuffix(r.stdout, "\n[content truncated: showing 107–212 of 1,907 characters; run again with --offset 212 for more]\n"), r.stdout)
	r = runBin(t, baseEnv(t), "fetch", "--fetch-max-chars", "200", "--offset", "1907", "--base-url", m.URL, "https://go.dev/long")
	require.Equal(t, 2, r.code)
	require.Equal(t, "deepseek-web-retrieval fetch: DeepSeek Fetch: offset 1907 is the end of the page: it has 1,907 characters and nothing follows\n", r.stderr)
	r = runBin(t, baseEnv(t), "fetch", "--offset", "-5", "--base-url", m.URL, "https://go.dev/long")
	require.Equal(t, 2, r.code)
	require.Equal(t, "deepseek-web-retrieval fetch: DeepSeek Fetch: offset -5 is negative; use 0 for the start of the page\n", r.stderr)
	require.Len(t, m.Requests(), 3, "a negative offset sends nothing")

	r = runBin(t, baseEnv(t), "fetch", "--json", "--fetch-max-chars", "200", "--base-url", m.URL, "https://go.dev/long")
	require.Equal(t, 0, r.code, r.stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	require.Equal(t, true, got["truncated"])
	require.Equal(t, text, got["text"])
	require.Equal(t, float64(len([]rune(text))), got["chars"])
	require.Equal(t, float64(107), got["nextOffset"])
	require.Equal(t, float64(1907), got["totalChars"])
	require.Equal(t, false, got["cached"], "one request per run: never from a cache")
}

func TestCLIUsageAndInputErrors(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	m.Fetch = deepseektest.Answer(200, fetchAnswer)
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"search without a query", []string{"search"}, "deepseek-web-retrieval search: missing the QUERY argument\n"},
		{"search with two arguments", []string{"search", "go", "idioms"}, `want one QUERY, got 2 arguments ("go" "idioms"); quote a query of several words: deepseek-web-retrieval search "go idioms"`},
		{"fetch without a URL", []string{"fetch"}, "deepseek-web-retrieval fetch: missing the URL argument\n"},
		{"max-results out of range", []string{"search", "--max-results", "0", "go"}, "--max-results"},
		{"max-results not a number", []string{"search", "--max-results", "ten", "go"}, "--max-results"},
		{"unknown flag", []string{"search", "--nope", "go"}, "--nope"},
		{"timeout out of range", []string{"fetch", "--timeout-ms", "10", "https://go.dev/"}, "--timeout-ms"},
		{"empty query", []string{"search", "   "}, "deepseek-web-retrieval search: "},
		{"query over 128 code points", []string{"search", strings.Repeat("é", 129)}, "129"},
		{"private URL", []string{"fetch", "http://127.1/"}, "deepseek-web-retrieval fetch: "},
		{"metadata address", []string{"fetch", "http://169.254.169.254/latest/meta-data/"}, "deepseek-web-retrieval fetch: "},
		{"format text", []string{"fetch", "--format", "text", "https://go.dev/"}, "Markdown only"},
		{"format html", []string{"fetch", "--format", "html", "https://go.dev/"}, "Markdown only"},
		{"query holding the key", []string{"search", "leak " + cliKey}, "contains the API key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(m.Requests())
			args := append(append([]string{}, tc.args[0], "--base-url", m.URL), tc.args[1:]...)
			r := runBin(t, baseEnv(t), args...)
			require.Equal(t, exitUsage, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			require.Empty(t, r.stdout)
			require.Contains(t, r.stderr, tc.stderr)
			require.Len(t, m.Requests(), before, "a request was sent")
		})
	}
}

func TestCLIURLRefusedNamesTheReason(t *testing.T) {
	r := runBin(t, baseEnv(t), "fetch", "http://127.1/")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "url refused")
	require.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line:\n%s", r.stderr)
}

func TestCLIMissingKey(t *testing.T) {
	m := newMock(t)
	env := []string{"HOME=" + t.TempDir()}
	r := runBin(t, env, "search", "--base-url", m.URL, "go")
	require.Equal(t, exitMissingKey, r.code)
	require.Empty(t, r.stdout)
	require.Equal(t, "deepseek-web-retrieval search: DeepSeek API key not found: set the DEEPSEEK_API_KEY environment variable\n", r.stderr)

	r = runBin(t, append(env, "DEEPSEEK_API_KEY="), "fetch", "--api-key-env", "MY_DS_KEY", "--base-url", m.URL, "https://go.dev/")
	require.Equal(t, exitMissingKey, r.code)
	require.Equal(t, "deepseek-web-retrieval fetch: DeepSeek API key not found: set the MY_DS_KEY environment variable\n", r.stderr)
	require.Empty(t, m.Requests())
}

func TestCLIDeepSeekErrors(t *testing.T) {
	t.Run("402", func(t *testing.T) {
		m := newMock(t)
		m.Search = deepseektest.Answer(402, deepseektest.APIError("Insufficient Balance"))
		r := runBin(t, baseEnv(t), "search", "--base-url", m.URL, "go")
		require.Equal(t, exitAPI, r.code)
		require.Empty(t, r.stdout)
		require.Equal(t, "deepseek-web-retrieval search: DeepSeek Search failed: HTTP 402: Insufficient Balance\n", r.stderr)
		require.Len(t, m.Requests(), 1, "402 is not retried")
	})
	t.Run("500 echoing the key, no retries", func(t *testing.T) {
		m := newMock(t)
		m.Fetch = deepseektest.Answer(500, deepseektest.APIError("internal error for key "+cliKey))
		r := runBin(t, baseEnv(t), "fetch", "--max-retries", "0", "--base-url", m.URL, "https://go.dev/")
		require.Equal(t, exitAPI, r.code)
		require.Contains(t, r.stderr, "deepseek-web-retrieval fetch: DeepSeek Fetch failed: HTTP 500: internal error for key ")
		require.Len(t, m.Requests(), 1)
	})
	t.Run("500 after one retry", func(t *testing.T) {
		m := newMock(t)
		m.Search = deepseektest.Answer(500, deepseektest.APIError("busy"))
		r := runBin(t, baseEnv(t), "search", "--max-retries", "1", "--base-url", m.URL, "go")
		require.Equal(t, exitAPI, r.code)
		require.Contains(t, r.stderr, "DeepSeek Search failed: HTTP 500: busy")
		require.Len(t, m.Requests(), 2)
	})
	t.Run("401 echoing a wrong key", func(t *testing.T) {
		m := newMock(t)
		env := []string{"HOME=" + t.TempDir(), "DEEPSEEK_API_KEY=sk-wrong-key-for-this-test"}
		r := runBin(t, env, "search", "--base-url", m.URL, "go")
		require.Equal(t, exitAPI, r.code)
		require.NotContains(t, r.stderr, "sk-wrong-key-for-this-test")
		require.Contains(t, r.stderr, "DeepSeek Search failed: HTTP 401: Authentication Fails")
	})
	t.Run("network error", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		closed := "http://" + l.Addr().String()
		require.NoError(t, l.Close())
		r := runBin(t, baseEnv(t), "fetch", "--max-retries", "0", "--base-url", closed, "https://go.dev/")
		require.Equal(t, exitAPI, r.code)
		require.Contains(t, r.stderr, "deepseek-web-retrieval fetch: DeepSeek Fetch failed")
	})
}

func TestCLIHelpShowsAnExample(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"search", "--help"}, {"fetch", "--help"}, {"init", "--help"}, {"uninstall", "--help"},
		{"help", "search"}, {"search", "-h"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := runBin(t, baseEnv(t), args...)
			require.Equal(t, 0, r.code, r.stderr)
			require.Regexp(t, `(?m)^Examples?:\n  (export DEEPSEEK_API_KEY|deepseek-web-retrieval )`, r.stdout)
			require.Empty(t, r.stderr)
		})
	}
}

func TestCLIInterrupt(t *testing.T) {
	m := newMock(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	m.Search = func(w http.ResponseWriter, r *http.Request) {
		select { // stall until the client goes away
		case <-r.Context().Done():
		case <-release:
		}
	}
	cmd := exec.Command(cliBin, "search", "--base-url", m.URL, "go")
	cmd.Env = baseEnv(t)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	select {
	case <-m.Arrived:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the search never reached the mock")
	}
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("no exit within 5 s of SIGINT")
	}
	require.Less(t, time.Since(start), 2*time.Second, "exit was not prompt")
	r := result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
	checkOutput(t, r)
	require.Equal(t, exitInterrupted, r.code, r.stderr)
	require.Empty(t, r.stdout)
	require.Equal(t, "deepseek-web-retrieval search: DeepSeek Search cancelled\n", r.stderr)
}

// connectProxy is an HTTP proxy that answers CONNECT by tunnelling to target, whatever
// host was asked for, and records what was asked.
func connectProxy(t *testing.T, target string) (url string, asked func() []string) {
	var mu sync.Mutex
	var hosts []string
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				mu.Lock()
				hosts = append(hosts, req.Method+" "+req.Host)
				mu.Unlock()
				if req.Method != http.MethodConnect {
					fmt.Fprint(c, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
					return
				}
				up, err := net.Dial("tcp", target)
				if err != nil {
					fmt.Fprint(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
					return
				}
				defer up.Close()
				fmt.Fprint(c, "HTTP/1.1 200 Connection established\r\n\r\n")
				go func() { _, _ = io.Copy(up, br) }()
				_, _ = io.Copy(c, up)
			}(c)
		}
	}()
	return "http://" + l.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), hosts...)
	}
}

func TestCLIHonoursProxyEnvironment(t *testing.T) {
	// DeepSeek over TLS at a name that does not resolve here; only the proxy knows the way.
	m := deepseektest.NewTLS(t, cliKey)
	m.Search = deepseektest.Answer(200, searchAnswer)
	certFile := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: m.Certificate().Raw}), 0o644))
	proxyURL, asked := connectProxy(t, m.Listener.Addr().String())
	// httptest's certificate is valid for example.com; the proxy tunnels that name to the mock.
	const base = "https://example.com"

	t.Run("HTTPS_PROXY routes the request", func(t *testing.T) {
		env := append(baseEnv(t), "SSL_CERT_FILE="+certFile, "HTTPS_PROXY="+proxyURL)
		r := runBin(t, env, "search", "--base-url", base, "--max-retries", "0", "go idioms")
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, searchText, r.stdout)
		require.Equal(t, []string{"CONNECT example.com:443"}, asked())
		require.Equal(t, "Bearer "+cliKey, m.Requests()[0].Auth)
	})
	t.Run("https_proxy (lower case) too", func(t *testing.T) {
		env := append(baseEnv(t), "SSL_CERT_FILE="+certFile, "https_proxy="+proxyURL)
		r := runBin(t, env, "search", "--base-url", base, "--max-retries", "0", "go idioms")
		require.Equal(t, 0, r.code, r.stderr)
		require.Len(t, asked(), 2)
	})
	t.Run("NO_PROXY bypasses it", func(t *testing.T) {
		// Direct to example.com:1 fails one way or another (no route, no DNS): what matters
		// is that the proxy is never asked.
		env := append(baseEnv(t), "SSL_CERT_FILE="+certFile, "HTTPS_PROXY="+proxyURL, "NO_PROXY=example.com")
		r := runBin(t, env, "search", "--base-url", base+":1", "--max-retries", "0", "--timeout-ms", "3000", "go idioms")
		require.Equal(t, exitAPI, r.code, r.stderr)
		require.Len(t, asked(), 2, "the proxy was used despite NO_PROXY")
	})
	t.Run("loopback is never proxied", func(t *testing.T) {
		plain := newMock(t)
		plain.Search = deepseektest.Answer(200, searchAnswer)
		env := append(baseEnv(t), "HTTP_PROXY=http://127.0.0.1:1", "HTTPS_PROXY=http://127.0.0.1:1")
		r := runBin(t, env, "search", "--base-url", plain.URL, "--max-retries", "0", "go idioms")
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, searchText, r.stdout)
	})
}
