package main

// The MCP server as hosts run it: the built binary spawned over stdio and driven by raw
// JSON-RPC lines at each protocol revision, against the httptest DeepSeek of cli_test.go.
// Every line the server writes to stdout must be a JSON-RPC message.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

// protocolRevisions are the MCP revisions the server must negotiate.
var protocolRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// rpcServer is one running `deepseek-web-retrieval mcp`.
type rpcServer struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *strings.Builder
	msgs   chan map[string]any // every stdout line, decoded
	mu     sync.Mutex
	stdout []string
	bad    []string // stdout lines that are not JSON-RPC
	exited chan struct{}
	held   []map[string]any // messages read while waiting for another
}

func startMCP(t testing.TB, env []string, args ...string) *rpcServer {
	t.Helper()
	s := &rpcServer{t: t, cmd: exec.Command(cliBin, append([]string{"mcp"}, args...)...), stderr: &strings.Builder{},
		msgs: make(chan map[string]any, 100), exited: make(chan struct{})}
	s.cmd.Env = env
	s.cmd.Stderr = s.stderr
	var err error
	s.stdin, err = s.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			line := sc.Text()
			var m map[string]any
			s.mu.Lock()
			s.stdout = append(s.stdout, line)
			if json.Unmarshal([]byte(line), &m) != nil || m["jsonrpc"] != "2.0" {
				s.bad = append(s.bad, line)
			}
			s.mu.Unlock()
			if m != nil {
				s.msgs <- m
			}
		}
		close(s.msgs)
	}()
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		require.Empty(t, s.bad, "stdout lines that are not JSON-RPC")
		all := strings.Join(s.stdout, "\n") + s.stderr.String()
		require.NotContains(t, all, cliKey, "the key was printed")
		require.NotContains(t, all, "panic:")
	})
	return s
}

func (s *rpcServer) send(line string) {
	s.t.Helper()
	_, err := io.WriteString(s.stdin, line+"\n")
	require.NoError(s.t, err)
}

func (s *rpcServer) sendJSON(v any) {
	s.t.Helper()
	b, err := json.Marshal(v)
	require.NoError(s.t, err)
	s.send(string(b))
}

// next returns the next message matching keep, holding the others for later.
func (s *rpcServer) next(keep func(map[string]any) bool) map[string]any {
	s.t.Helper()
	for i, m := range s.held {
		if keep(m) {
			s.held = append(s.held[:i], s.held[i+1:]...)
			return m
		}
	}
	timeout := time.After(60 * time.Second) // a hang detector: calls wait on a busy machine
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				s.t.Fatalf("the server closed stdout; stderr:\n%s", s.stderr.String())
			}
			if keep(m) {
				return m
			}
			s.held = append(s.held, m)
		case <-timeout:
			s.t.Fatalf("no answer in 60 s; stderr:\n%s", s.stderr.String())
		}
	}
}

// response waits for the response to id.
func (s *rpcServer) response(id any) map[string]any {
	s.t.Helper()
	want, _ := json.Marshal(id)
	return s.next(func(m map[string]any) bool {
		got, _ := json.Marshal(m["id"])
		_, isCall := m["method"]
		return string(got) == string(want) && !isCall
	})
}

func (s *rpcServer) call(id any, method string, params any) map[string]any {
	s.t.Helper()
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return s.response(id)
}

func (s *rpcServer) initialize(version string) map[string]any {
	s.t.Helper()
	r := s.call(0, "initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw-driver", "version": "1"}})
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return r
}

// toolText returns a tools/call response's text and isError.
func toolText(t testing.TB, resp map[string]any) (string, bool) {
	t.Helper()
	res, ok := resp["result"].(map[string]any)
	require.True(t, ok, "not a result: %v", resp)
	content := res["content"].([]any)
	require.Len(t, content, 1)
	c := content[0].(map[string]any)
	require.Equal(t, "text", c["type"])
	_, hasStructured := res["structuredContent"]
	require.False(t, hasStructured, "structuredContent would replace the text in Codex and Claude Code")
	isErr, _ := res["isError"].(bool)
	return c["text"].(string), isErr
}

// closeAndWait closes stdin and returns the exit code and how long the exit took.
func (s *rpcServer) closeAndWait() (int, time.Duration) {
	s.t.Helper()
	start := time.Now()
	require.NoError(s.t, s.stdin.Close())
	return s.wait(start)
}

func (s *rpcServer) wait(start time.Time) (int, time.Duration) {
	s.t.Helper()
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		s.t.Fatal("the server did not exit")
	}
	return s.cmd.ProcessState.ExitCode(), time.Since(start)
}

func TestMCPProtocolRevisions(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	m.Fetch = deepseektest.Answer(200, fetchAnswer)
	for _, version := range protocolRevisions {
		t.Run(version, func(t *testing.T) {
			s := startMCP(t, baseEnv(t), "--base-url", m.URL, "--fetch", "preferred")
			init := s.initialize(version)
			res := init["result"].(map[string]any)
			require.Equal(t, version, res["protocolVersion"])
			require.Equal(t, "deepseek-web-retrieval", res["serverInfo"].(map[string]any)["name"])
			require.Contains(t, res["capabilities"], "tools")

			list := s.call(1, "tools/list", map[string]any{})
			var names []string
			for _, tool := range list["result"].(map[string]any)["tools"].([]any) {
				tool := tool.(map[string]any)
				names = append(names, tool["name"].(string))
				require.Equal(t, "object", tool["inputSchema"].(map[string]any)["type"])
			}
			require.ElementsMatch(t, []string{"deepseek_search", "deepseek_fetch"}, names)

			text, isErr := toolText(t, s.call("search-1", "tools/call", map[string]any{"name": "deepseek_search", "arguments": map[string]any{"query": "go idioms"}}))
			require.False(t, isErr)
			require.Equal(t, strings.TrimSuffix(searchText, "\n"), text)

			text, isErr = toolText(t, s.call(2, "tools/call", map[string]any{"name": "deepseek_fetch", "arguments": map[string]any{"url": "https://go.dev/doc/effective_go"}}))
			require.False(t, isErr)
			require.Equal(t, strings.TrimSuffix(fetchText, "\n"), text)

			text, isErr = toolText(t, s.call(3, "tools/call", map[string]any{"name": "deepseek_fetch", "arguments": map[string]any{"url": "http://127.1/"}}))
			require.True(t, isErr)
			require.Equal(t, `DeepSeek Fetch: url refused: host "127.1" is the loopback address 127.0.0.1; private and local addresses never leave this machine`, text)

			// Protocol errors: an unknown tool, an unknown method, a line that is not JSON, a
			// JSON value that is not a message, a batch. The server answers each and keeps serving.
			e := s.call(4, "tools/call", map[string]any{"name": "nope", "arguments": map[string]any{}})["error"].(map[string]any)
			require.Equal(t, float64(-32602), e["code"])
			require.Equal(t, `unknown tool "nope"`, e["message"])
			require.Equal(t, float64(-32601), s.call(5, "no/such/method", map[string]any{})["error"].(map[string]any)["code"])
			s.send(`this is not JSON`)
			require.Equal(t, map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": float64(-32700), "message": "parse error: the line is not JSON"}},
				s.next(func(m map[string]any) bool { return m["id"] == nil }))
			s.send(`{"id":6,"hello":"world"}`)
			require.Equal(t, float64(-32600), s.response(6)["error"].(map[string]any)["code"])
			s.send(`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`)
			require.Equal(t, float64(-32600), s.next(func(m map[string]any) bool { return m["id"] == nil })["error"].(map[string]any)["code"])
			require.Equal(t, map[string]any{}, s.call(8, "ping", nil)["result"])

			code, took := s.closeAndWait()
			require.Equal(t, 0, code, s.stderr.String())
			require.Less(t, took, 5*time.Second) // a bound for loaded machines; BenchmarkMCPShutdown measures it
			require.Equal(t, "deepseek-web-retrieval mcp: serving deepseek_search (preferred) and deepseek_fetch (preferred) on stdio; the key is read from $DEEPSEEK_API_KEY at each call\n", s.stderr.String())
		})
	}
}

// The server starts and lists its tools without a key; each call says which variable to set.
func TestMCPWithoutKey(t *testing.T) {
	m := newMock(t)
	s := startMCP(t, []string{"HOME=" + t.TempDir()}, "--base-url", m.URL, "--api-key-env", "MY_DS_KEY")
	s.initialize("2025-06-18")
	require.Len(t, s.call(1, "tools/list", map[string]any{})["result"].(map[string]any)["tools"], 2)
	text, isErr := toolText(t, s.call(2, "tools/call", map[string]any{"name": "deepseek_search", "arguments": map[string]any{"query": "go"}}))
	require.True(t, isErr)
	require.Equal(t, "DeepSeek API key not found: set the MY_DS_KEY environment variable", text)
	require.Empty(t, m.Requests())
	code, _ := s.closeAndWait()
	require.Equal(t, 0, code)
}

// blockingMock answers nothing until the request is aborted; aborted receives one value per
// aborted request.
func blockingMock(t *testing.T) (m *deepseektest.Server, aborted chan struct{}) {
	m = newMock(t)
	aborted = make(chan struct{}, 10)
	m.Fetch = func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			aborted <- struct{}{}
		case <-time.After(20 * time.Second):
		}
	}
	return m, aborted
}

func startFetch(t *testing.T, s *rpcServer, m *deepseektest.Server, id any) {
	t.Helper()
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "deepseek_fetch", "arguments": map[string]any{"url": "https://go.dev/slow"}}})
	select {
	case <-m.Arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the request did not reach DeepSeek")
	}
}

func TestMCPCancelledAbortsTheRequest(t *testing.T) {
	m, aborted := blockingMock(t)
	s := startMCP(t, baseEnv(t), "--base-url", m.URL)
	s.initialize("2025-03-26")
	startFetch(t, s, m, 1)
	start := time.Now()
	s.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 1, "reason": "user"}})
	select {
	case <-aborted:
	case <-time.After(5 * time.Second):
		t.Fatal("the request was not aborted")
	}
	require.Less(t, time.Since(start), 5*time.Second) // the mock would hold it 20 s
	// Still serving, and the cancelled call gets no answer (the spec's SHOULD; clients log
	// an answer to an id they dropped).
	require.Equal(t, map[string]any{}, s.call(2, "ping", nil)["result"])
	code, _ := s.closeAndWait()
	require.Equal(t, 0, code)
	for _, line := range s.stdout {
		require.NotContains(t, line, `"id":1,`, "the cancelled call was answered")
	}
}

// EOF, SIGTERM and SIGINT each end the server with exit 0 within a second, aborting the call
// in flight.
func TestMCPShutdown(t *testing.T) {
	for _, how := range []string{"eof", "SIGTERM", "SIGINT"} {
		t.Run(how, func(t *testing.T) {
			m, aborted := blockingMock(t)
			s := startMCP(t, baseEnv(t), "--base-url", m.URL)
			s.initialize("2025-11-25")
			startFetch(t, s, m, 1)
			var code int
			var took time.Duration
			switch how {
			case "eof":
				code, took = s.closeAndWait()
			case "SIGTERM", "SIGINT":
				sig := map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT}[how]
				start := time.Now()
				require.NoError(t, s.cmd.Process.Signal(sig))
				code, took = s.wait(start)
			}
			require.Equal(t, 0, code, s.stderr.String())
			require.Less(t, took, 5*time.Second) // the mock would hold it 20 s; BenchmarkMCPShutdown measures it
			select {
			case <-aborted:
			case <-time.After(2 * time.Second):
				t.Fatal("the request in flight was not aborted")
			}
		})
	}
}

func TestMCPOptionsFromFlagsAndEnvironment(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	tests := []struct {
		name  string
		env   []string
		args  []string
		tools []string
		count float64
	}{
		{"defaults", nil, nil, []string{"deepseek_search", "deepseek_fetch"}, 10},
		{"variables", []string{"DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS=3", "DEEPSEEK_WEB_RETRIEVAL_FETCH=off"}, nil, []string{"deepseek_search"}, 3},
		{"flags win", []string{"DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS=3", "DEEPSEEK_WEB_RETRIEVAL_FETCH=off"}, []string{"--max-results", "7", "--fetch", "optional"}, []string{"deepseek_search", "deepseek_fetch"}, 7},
		{"blank variable ignored", []string{"DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS="}, nil, []string{"deepseek_search", "deepseek_fetch"}, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(m.Requests())
			s := startMCP(t, append(baseEnv(t), tc.env...), append([]string{"--base-url", m.URL}, tc.args...)...)
			s.initialize("2025-06-18")
			var names []string
			for _, tool := range s.call(1, "tools/list", map[string]any{})["result"].(map[string]any)["tools"].([]any) {
				names = append(names, tool.(map[string]any)["name"].(string))
			}
			require.ElementsMatch(t, tc.tools, names)
			_, isErr := toolText(t, s.call(2, "tools/call", map[string]any{"name": "deepseek_search", "arguments": map[string]any{"query": "go", "question": "how?"}}))
			require.False(t, isErr)
			seen := m.Requests()
			require.Len(t, seen, before+1)
			require.Equal(t, map[string]any{"query": "go", "count": tc.count, "need_content": false, "ori_question": "how?"}, seen[before].Body)
			code, _ := s.closeAndWait()
			require.Equal(t, 0, code)
		})
	}
}

func TestMCPWarnsAboutUnknownVariables(t *testing.T) {
	s := startMCP(t, append(baseEnv(t), "DEEPSEEK_WEB_RETRIEVAL_MAX_RESULT=3"))
	s.initialize("2025-06-18")
	code, _ := s.closeAndWait()
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(s.stderr.String(), "deepseek-web-retrieval mcp: warning: DEEPSEEK_WEB_RETRIEVAL_MAX_RESULT is not an option variable; ignored\n"), s.stderr.String())
}

// Invalid options stop the server at start: exit 2, the reason on stderr, nothing on stdout.
func TestMCPInvalidOptions(t *testing.T) {
	tests := []struct {
		name   string
		env    []string
		args   []string
		stderr string
	}{
		{"flag out of range", nil, []string{"--max-results", "0"}, "deepseek-web-retrieval mcp: --max-results: "},
		{"flag not a number", nil, []string{"--timeout-ms", "soon"}, `deepseek-web-retrieval mcp: invalid value "soon" for flag --timeout-ms: want a whole number`},
		{"bad tier", nil, []string{"--search", "always"}, `deepseek-web-retrieval mcp: --search: want off, optional, preferred or forced, got "always"`},
		{"unknown flag", nil, []string{"--nope"}, "deepseek-web-retrieval mcp: flag provided but not defined: --nope"},
		{"an argument", nil, []string{"wasi"}, `deepseek-web-retrieval mcp: takes no arguments, got "wasi"`},
		{"variable out of range", []string{"DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS=99"}, nil, "deepseek-web-retrieval mcp: DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS: "},
		{"variable not a number", []string{"DEEPSEEK_WEB_RETRIEVAL_MAX_RETRIES=many"}, nil, "deepseek-web-retrieval mcp: DEEPSEEK_WEB_RETRIEVAL_MAX_RETRIES: want a whole number"},
		{"variable bad tier", []string{"DEEPSEEK_WEB_RETRIEVAL_FETCH=sometimes"}, nil, `deepseek-web-retrieval mcp: DEEPSEEK_WEB_RETRIEVAL_FETCH: want off, optional, preferred or forced, got "sometimes"`},
		{"http base URL", nil, []string{"--base-url", "http://api.deepseek.com"}, "deepseek-web-retrieval mcp: --base-url: "},
		{"max calls 0", nil, []string{"--max-calls", "0"}, "deepseek-web-retrieval mcp: --max-calls: want a whole number from 1 to 256, got 0\n"},
		{"held below 16 MiB", nil, []string{"--max-held-mb", "8"}, "deepseek-web-retrieval mcp: --max-held-mb: want a whole number from 16 to 1024, got 8\n"},
		{"Messages request over 64 MiB", []string{"DEEPSEEK_WEB_RETRIEVAL_MESSAGES_MAX_REQUEST_MB=65"}, nil, "deepseek-web-retrieval mcp: DEEPSEEK_WEB_RETRIEVAL_MESSAGES_MAX_REQUEST_MB: want a whole number from 1 to 64, got 65\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runBin(t, append(baseEnv(t), tc.env...), append([]string{"mcp"}, tc.args...)...)
			require.Equal(t, exitUsage, r.code, r.stderr)
			require.Empty(t, r.stdout)
			require.True(t, strings.HasPrefix(r.stderr, tc.stderr), "stderr:\n%s", r.stderr)
		})
	}
}

func TestMCPHelp(t *testing.T) {
	r := runBin(t, baseEnv(t), "help", "mcp")
	require.Equal(t, 0, r.code)
	require.True(t, strings.HasPrefix(r.stdout, "Usage: deepseek-web-retrieval mcp [--search TIER] [--fetch TIER] [--api-key-env NAME] [option flags]\n"), r.stdout)
	require.Contains(t, r.stdout, "DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS=5")
	r = runBin(t, baseEnv(t), "--help")
	require.Contains(t, r.stdout, fmt.Sprintf("  %-10s %s\n", "mcp", "serve deepseek_search and deepseek_fetch to MCP hosts over stdio"))
}

// forced cannot be made real by an MCP server: it is served as preferred, and the server says so.
func TestMCPForcedSaysWhatItCannotDo(t *testing.T) {
	s := startMCP(t, baseEnv(t), "--search", "forced", "--fetch", "forced")
	s.initialize("2025-06-18")
	for _, tool := range s.call(1, "tools/list", map[string]any{})["result"].(map[string]any)["tools"].([]any) {
		require.Contains(t, tool.(map[string]any)["description"], " Prefer this tool over the host's built-in ")
	}
	code, _ := s.closeAndWait()
	require.Equal(t, 0, code)
	require.Equal(t, "deepseek-web-retrieval mcp: note: --search forced works like preferred: an MCP server cannot switch off the host's own web search tool; switch it off in the host's config (see docs/hosts.md)\n"+
		"deepseek-web-retrieval mcp: note: --fetch forced works like preferred: an MCP server cannot switch off the host's own web fetch tool; switch it off in the host's config (see docs/hosts.md)\n"+
		"deepseek-web-retrieval mcp: serving deepseek_search (forced) and deepseek_fetch (forced) on stdio; the key is read from $DEEPSEEK_API_KEY at each call\n", s.stderr.String())
}

// The server's page and search caches: a repeated search costs no second
// request by default; --cache-ttl 0 (or its variable) turns the memory
// caches off, and then the machine's shared cache behind them answers,
// unless --disk-cache-max-mb 0 turns that off too.
func TestMCPCacheOptions(t *testing.T) {
	m := newMock(t)
	m.Search = deepseektest.Answer(200, searchAnswer)
	for _, tc := range []struct {
		name     string
		env      []string
		args     []string
		requests int
	}{
		{"default", nil, nil, 1},
		{"shared cache behind", nil, []string{"--cache-ttl", "0"}, 1},
		{"flag", nil, []string{"--cache-ttl", "0", "--disk-cache-max-mb", "0"}, 2},
		{"variable", []string{"DEEPSEEK_WEB_RETRIEVAL_CACHE_MAX_MB=0", "DEEPSEEK_WEB_RETRIEVAL_DISK_CACHE_MAX_MB=0"}, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(m.Requests())
			s := startMCP(t, append(baseEnv(t), tc.env...), append([]string{"--base-url", m.URL}, tc.args...)...)
			s.initialize("2025-06-18")
			for i := range 2 {
				text, isErr := toolText(t, s.call(i+1, "tools/call", map[string]any{"name": "deepseek_search", "arguments": map[string]any{"query": "go idioms"}}))
				require.False(t, isErr)
				require.Equal(t, strings.TrimSuffix(searchText, "\n"), text, "a cached answer reads the same")
			}
			require.Len(t, m.Requests(), before+tc.requests)
			code, _ := s.closeAndWait()
			require.Equal(t, 0, code)
		})
	}
	s := startMCP(t, baseEnv(t), "--cache-max-mb", "65")
	code, _ := s.wait(time.Now())
	require.Equal(t, exitUsage, code)
	require.Contains(t, s.stderr.String(), "--cache-max-mb: want a whole number from 0 to 64, got 65")
}

// The MCP server's soft memory limit follows its options: cacheMaxMB +
// 1.5 × maxHeldMB + 32 MiB, unless GOMEMLIMIT is set.
func TestMCPMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for _, tc := range []struct {
		o    core.Options
		want int64
	}{
		{core.Options{}, 192 << 20},
		{core.Options{MaxHeldMB: 128, CacheMaxMB: new(0)}, 224 << 20},
	} {
		cfg, _, err := core.NewConfig(tc.o)
		require.NoError(t, err)
		require.Equal(t, tc.want, setMemoryLimit(cfg, func(string) string { return "" }))
		require.Equal(t, tc.want, debug.SetMemoryLimit(-1))
	}
	before := debug.SetMemoryLimit(-1)
	cfg, _, _ := core.NewConfig(core.Options{})
	require.Equal(t, before, setMemoryLimit(cfg, func(name string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[name] }))
}
