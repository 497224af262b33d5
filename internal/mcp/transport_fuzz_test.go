package mcp

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzRejectLine feeds arbitrary lines to the stdio filter: it never panics, it passes on only
// what the SDK decodes as one message, and every error it answers with is a JSON-RPC error
// response.
func FuzzRejectLine(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`garbage`, `[]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"id":"x"}`, `{"id":{"a":1}}`, `null`, `1`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"method":"ping"}{"x":1}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":1e30,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0,"method":"ping"}`, `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`, `{"jsonrpc":"2.0","id":"\u0031","method":"ping"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) == 0 {
			return
		}
		code, msg := rejectLine([]byte(line), false)
		if code == 0 {
			m, err := jsonrpc.DecodeMessage([]byte(line))
			if err != nil {
				t.Fatalf("passed on %q, which the SDK cannot decode: %v", line, err)
			}
			// A call passed on is answered under exactly its id: the SDK's
			// answer carries the same number, digit for digit.
			if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
				var probe struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.Unmarshal([]byte(line), &probe)
				out, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
				if err != nil {
					t.Fatal(err)
				}
				var answer struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.Unmarshal(out, &answer)
				if c := probe.ID[0]; c == '-' || c >= '0' && c <= '9' {
					if string(answer.ID) != string(probe.ID) {
						t.Fatalf("id %s would be answered as %s", probe.ID, answer.ID)
					}
				} else {
					var sent, got any
					_ = json.Unmarshal(probe.ID, &sent)
					_ = json.Unmarshal(answer.ID, &got)
					if sent != got {
						t.Fatalf("id %s would be answered as %s", probe.ID, answer.ID)
					}
				}
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
