package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

// protocolVersions are the MCP versions the gateway serves over HTTP.
var protocolVersions = []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// newProtocol is the first version whose calls carry their own _meta
// (SEP-2575) and standard headers.
const newProtocol = "2026-07-28"

// rpc is one raw JSON-RPC POST to /mcp, as a host sends it.
type rpc struct {
	token, version string
	// id is the id as written in the body (`1`, `"a"`).
	id     string
	method string
	// tool and args make a tools/call; body, when set, is sent as is.
	tool string
	args map[string]any
	body string
}

// request builds the HTTP request of c to base (the server's URL).
func (c rpc) request(ctx context.Context, t *testing.T, base string) *http.Request {
	t.Helper()
	if c.version == "" {
		c.version = "2025-06-18"
	}
	if c.method == "" {
		c.method = "tools/call"
	}
	body := c.body
	if body == "" {
		params := map[string]any{}
		if c.tool != "" {
			params["name"], params["arguments"] = c.tool, c.args
		}
		if c.version >= newProtocol {
			params["_meta"] = map[string]any{
				"io.modelcontextprotocol/protocolVersion":    c.version,
				"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "1"},
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			}
		}
		p, err := json.Marshal(params)
		require.NoError(t, err)
		body = `{"jsonrpc":"2.0","id":` + c.id + `,"method":"` + c.method + `","params":` + string(p) + `}`
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", c.version)
	if c.version >= newProtocol {
		req.Header.Set("Mcp-Method", c.method)
		if c.tool != "" {
			req.Header.Set("Mcp-Name", c.tool)
		}
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req
}

// do sends c and returns the status and the JSON-RPC message answering
// it (the data of the first SSE event, or the JSON body).
func (c rpc) do(t *testing.T, base string) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(c.request(context.Background(), t, base))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return resp.StatusCode, data
		}
	}
	return resp.StatusCode, string(bytes.TrimSpace(b))
}

// toolText is the text and isError of a tools/call answer.
func toolText(t *testing.T, msg string) (string, bool) {
	t.Helper()
	var m struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	require.NoError(t, json.Unmarshal([]byte(msg), &m), msg)
	require.Len(t, m.Result.Content, 1, msg)
	return m.Result.Content[0].Text, m.Result.IsError
}

// auditLines are r's audit lines so far, decoded.
func (r *replica) auditLines(t *testing.T) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(r.audit.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		lines = append(lines, m)
	}
	return lines
}

// A client that disconnects mid-call cancels it, whatever protocol version
// it speaks: DeepSeek's request is cancelled, the audit line says
// "cancelled" and not billed, and the member's only in-flight slot is free
// for the next call. (Before, the call ran on to its end, holding the slot.)
func TestGatewayDisconnectCancelsTheCall(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			d := deepseektest.New(t, gwKey)
			cancelled, release := make(chan struct{}), make(chan struct{})
			t.Cleanup(func() { close(release) }) // before d closes
			var held atomic.Bool
			d.Fetch = func(w http.ResponseWriter, r *http.Request) {
				if held.CompareAndSwap(false, true) {
					select {
					case <-r.Context().Done():
						close(cancelled)
					case <-release:
					}
					return
				}
				deepseektest.WriteJSON(w, 200, fetchAnswer)
			}
			tokens, _, toks := newTokens(t, "alice")
			r := startReplica(t, d, tokens, nil, func(o *gateway.ServerOptions) { o.Limits.InFlight = 1 })

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			call := rpc{token: toks["alice"], version: version, id: "1", tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/slow"}}
			done := make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := http.DefaultClient.Do(call.request(ctx, t, r.srv.URL)); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			select {
			case <-d.Arrived:
			case <-time.After(10 * time.Second):
				require.FailNow(t, "the call did not reach DeepSeek")
			}
			cancel() // the client goes away
			<-done
			select {
			case <-cancelled:
			case <-time.After(10 * time.Second):
				require.FailNow(t, "DeepSeek's request was not cancelled when the client went away")
			}
			require.Eventually(t, func() bool { return len(r.auditLines(t)) == 1 }, 10*time.Second, 10*time.Millisecond)
			line := r.auditLines(t)[0]
			require.Equal(t, "cancelled", line["outcome"], line)
			require.Equal(t, false, line["billed"], line)

			next := rpc{token: toks["alice"], version: version, id: "2", tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/next"}}
			require.Eventually(t, func() bool {
				_, msg := next.do(t, r.srv.URL)
				text, isErr := toolText(t, msg)
				return !isErr && strings.Contains(text, "Effective Go is a guide.")
			}, 10*time.Second, 50*time.Millisecond, "the member's in-flight slot was not freed")
		})
	}
}
