package mcp

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzCheck feeds arbitrary lines to the stdio filter: it never panics, it passes on only
// what the SDK decodes as one message, and every error it answers with is a JSON-RPC error
// response.
func FuzzCheck(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`garbage`, `[]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"id":"x"}`, `{"id":{"a":1}}`, `null`, `1`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"method":"ping"}{"x":1}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) == 0 {
			return
		}
		code, msg := check([]byte(line), false)
		if code == 0 {
			if _, err := jsonrpc.DecodeMessage([]byte(line)); err != nil {
				t.Fatalf("passed on %q, which the SDK cannot decode: %v", line, err)
			}
			return
		}
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		out := errorResponse([]byte(line), code, msg)
		if err := json.Unmarshal(out, &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error.Code != code || resp.Error.Message != msg || len(resp.ID) == 0 {
			t.Fatalf("error response %q for %q", out, line)
		}
		if out[len(out)-1] != '\n' {
			t.Fatal("the response does not end its line")
		}
	})
}
