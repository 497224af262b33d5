package rpcid

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/require"
)

func TestRefusal(t *testing.T) {
	const why = " is not a whole number from -9007199254740991 to 9007199254740991 written without a fraction or exponent; use such a number or a string"
	for _, tc := range []struct{ msg, id, text string }{
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `1.5`, "invalid request: the id 1.5" + why},
		{`{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}`, `18446744073709551615`, "invalid request: the id 18446744073709551615" + why},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, `9007199254740993`, "invalid request: the id 9007199254740993" + why},
		{`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, `1e3`, "invalid request: the id 1e3" + why},
		{`{"jsonrpc":"2.0","id":-0,"method":"ping"}`, `-0`, "invalid request: the id -0" + why},
		{`{"jsonrpc":"2.0","id":01,"method":"ping"}`, "", ""}, // not JSON: the SDK's to answer
		{`{"jsonrpc":"2.0","id":1234567890123456789012345678901234567890123,"method":"ping"}`, `1234567890123456789012345678901234567890123`,
			"invalid request: the id 1234567890123456789012345678901234567890…" + why},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "", ""},
		{`{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`, "", ""},
		{`{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}`, "", ""},
		{`{"jsonrpc":"2.0","id":0,"method":"ping"}`, "", ""},
		{`{"jsonrpc":"2.0","id":"1.5","method":"ping"}`, "", ""},
		{`{"jsonrpc":"2.0","id":1.5,"result":{}}`, "", ""}, // a response: not ours to refuse
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", ""},
		{`garbage`, "", ""},
	} {
		id, text := Refusal([]byte(tc.msg))
		require.Equal(t, tc.id, string(id), tc.msg)
		require.Equal(t, tc.text, text, tc.msg)
	}
}

func TestErrorLine(t *testing.T) {
	require.Equal(t, `{"jsonrpc":"2.0","id":1.5,"error":{"code":-32600,"message":"m"}}`+"\n", string(ErrorLine(json.RawMessage(`1.5`), CodeInvalidRequest, "m")))
	require.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"m"}}`+"\n", string(ErrorLine(nil, -32000, "m")))
}

// FuzzRefusal: a call Refusal lets through is answered by the SDK under
// exactly its id; one it refuses gets an error line that echoes the id
// byte for byte.
func FuzzRefusal(f *testing.F) {
	for _, id := range []string{`1`, `1.5`, `-0`, `0`, `1e3`, `9007199254740993`, `18446744073709551615`, `-9007199254740991`, `"x"`, `null`, `{}`} {
		f.Add(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		id, text := Refusal([]byte(msg))
		if text != "" {
			var line struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(ErrorLine(id, CodeInvalidRequest, text), &line); err != nil || string(line.ID) != string(id) {
				t.Fatalf("the error line for %q does not echo %s: %v", msg, id, err)
			}
			return
		}
		m, err := jsonrpc.DecodeMessage([]byte(msg))
		if err != nil {
			return
		}
		req, ok := m.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			return
		}
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(msg), &probe) != nil || len(probe.ID) == 0 {
			return
		}
		if c := probe.ID[0]; c != '-' && (c < '0' || c > '9') {
			return
		}
		out, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(out, &answer)
		if string(answer.ID) != string(probe.ID) {
			t.Fatalf("id %s would be answered as %s", probe.ID, answer.ID)
		}
	})
}
