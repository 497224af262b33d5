package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
)

// stdio is a server on the stdio transport, driven through pipes as an MCP
// host drives the binary.
type stdio struct {
	in  *io.PipeWriter
	out *bufio.Reader
	// written counts the lines the server has taken from in.
	written atomic.Int64
}

const initialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func serveStdio(t *testing.T, options string) *stdio {
	t.Helper()
	var o core.Options
	if options != "" {
		require.NoError(t, json.Unmarshal([]byte(options), &o))
	}
	cfg, _, err := core.NewConfig(o)
	require.NoError(t, err)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = mcp.Serve(ctx, mcp.Options{Config: cfg, Getenv: func(string) string { return testKey }},
			&mcp.StdioTransport{Reader: inR, Writer: outW})
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		go io.Copy(io.Discard, outR)
		<-done
		outW.Close() // ends the io.Copy above
	})
	return &stdio{in: inW, out: bufio.NewReader(outR)}
}

func (s *stdio) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(s.in, line+"\n")
	require.NoError(t, err)
	s.written.Add(1)
}

// read returns the server's next line, failing after 10 s without one.
func (s *stdio) read(t *testing.T) string {
	t.Helper()
	type got struct {
		line string
		err  error
	}
	ch := make(chan got, 1)
	go func() {
		line, err := s.out.ReadString('\n')
		ch <- got{line, err}
	}()
	select {
	case g := <-ch:
		require.NoError(t, g.err)
		return strings.TrimSuffix(g.line, "\n")
	case <-time.After(10 * time.Second):
		require.FailNow(t, "no answer within 10 s")
		return ""
	}
}

func (s *stdio) initialize(t *testing.T) {
	s.send(t, initialize)
	require.Contains(t, s.read(t), `"id":"init","result"`)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// A client that writes without reading its answers: once 64 calls wait
// for their answers to be read, the server stops reading, so the client's
// writes block instead of the server's memory growing. Reading then gets
// every answer. (Before, the server read all 5,000 requests at once.)
func TestBackpressureWhenAnswersAreNotRead(t *testing.T) {
	const n = 5000
	s := serveStdio(t, "")
	s.initialize(t)
	go func() {
		for i := range n {
			if _, err := io.WriteString(s.in, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"ping"}`+"\n"); err != nil {
				return
			}
			s.written.Add(1)
		}
	}()
	// Wait until the writer stalls.
	last := int64(-1)
	for w := s.written.Load(); w != last && w < n; w = s.written.Load() {
		last = w
		time.Sleep(300 * time.Millisecond)
	}
	stalled := s.written.Load()
	t.Logf("the server stopped reading after %d requests", stalled)
	require.Less(t, stalled, int64(2000), "the server kept reading while its answers were not read")
	seen := map[int]bool{}
	for range n {
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(s.read(t)), &m))
		require.Equal(t, "{}", string(m.Result))
		require.False(t, seen[m.ID], "id %d answered twice", m.ID)
		seen[m.ID] = true
	}
	require.Len(t, seen, n)
}

// Ids are answered as sent: a number the SDK would read as another number
// is refused with its own id, never answered as a different call.
func TestIDsEchoedExactly(t *testing.T) {
	s := serveStdio(t, "")
	s.initialize(t)
	refused := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"invalid request: the id ` + id +
			` is not a whole number from -9007199254740991 to 9007199254740991 written without a fraction or exponent; use such a number or a string"}}`
	}
	for _, tc := range []struct{ id, want string }{
		{`1.5`, refused(`1.5`)},
		{`1e30`, refused(`1e30`)},
		{`1.0`, refused(`1.0`)},
		{`-0`, refused(`-0`)},
		{`9007199254740993`, refused(`9007199254740993`)},
		{`100`, `{"jsonrpc":"2.0","id":100,"result":{}}`},
		{`100.5`, refused(`100.5`)},
		{`-7`, `{"jsonrpc":"2.0","id":-7,"result":{}}`},
		{`9007199254740991`, `{"jsonrpc":"2.0","id":9007199254740991,"result":{}}`},
		{`"1.5"`, `{"jsonrpc":"2.0","id":"1.5","result":{}}`},
	} {
		s.send(t, `{"jsonrpc":"2.0","id":`+tc.id+`,"method":"ping"}`)
		require.Equal(t, tc.want, s.read(t), "id %s", tc.id)
	}
}

// A call before initialize is answered with a JSON-RPC code, not 0.
func TestCallBeforeInitialize(t *testing.T) {
	s := serveStdio(t, "")
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"server not initialized: \"tools/list\" was sent before initialize; send initialize, then notifications/initialized, first"}}`, s.read(t))
	s.initialize(t)
	s.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{}}`, s.read(t))
}

// A call that reuses the id of a call in flight is refused on its own
// (null id, as it cannot be told apart); the first call is answered once.
func TestDuplicateIDInFlight(t *testing.T) {
	d := deepseektest.New(t, testKey)
	release := make(chan struct{})
	d.Fetch = func(w http.ResponseWriter, r *http.Request) {
		<-release
		deepseektest.WriteJSON(w, 200, fetchAnswer)
	}
	s := serveStdio(t, `{"baseURL":"`+d.URL+`"}`)
	s.initialize(t)
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"deepseek_fetch","arguments":{"url":"https://go.dev/"}}}`
	s.send(t, call)
	<-d.Arrived
	s.send(t, call)
	require.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the id 7 belongs to a call still in flight; use a new id for each call"}}`, s.read(t))
	close(release)
	line := s.read(t)
	require.Contains(t, line, `"id":7,"result"`)
	require.Contains(t, line, "Effective Go is a guide.")
}

// Fifty identical fetches at once reach DeepSeek as one request; each
// call gets the page.
func TestIdenticalCallsShareOneRequest(t *testing.T) {
	const n = 50
	d := deepseektest.New(t, testKey)
	var reqs atomic.Int64
	d.Fetch = func(w http.ResponseWriter, r *http.Request) {
		reqs.Add(1)
		time.Sleep(300 * time.Millisecond)
		deepseektest.WriteJSON(w, 200, fetchAnswer)
	}
	s := serveStdio(t, `{"baseURL":"`+d.URL+`","cacheTTL":0}`)
	s.initialize(t)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range n {
			s.send(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/call","params":{"name":"deepseek_fetch","arguments":{"url":"https://go.dev/"}}}`)
		}
	})
	for range n {
		var m struct {
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(s.read(t)), &m))
		require.False(t, m.Result.IsError)
		require.Equal(t, fetchText, m.Result.Content[0].Text)
	}
	wg.Wait()
	require.Equal(t, int64(1), reqs.Load())
}
