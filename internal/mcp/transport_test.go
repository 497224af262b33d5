package mcp

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// filterLines passes JSON-RPC messages on, answers everything else, and survives a line
// longer than the limit.
func TestFilterLines(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	in := strings.Join([]string{
		ping,
		"",
		"  \t",
		"not json",
		`{"id":"a","x":1}`,
		`[` + ping + `]`,
		`"` + strings.Repeat("x", MaxLineBytes) + `"`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\r",
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	}, "\n")
	pr, pw := io.Pipe()
	var errw bytes.Buffer
	go filterLines(strings.NewReader(in), pw, &errw)
	out, err := io.ReadAll(pr)
	require.NoError(t, err)
	require.Equal(t, ping+"\n"+`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n", string(out))
	require.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not JSON"}}
{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"invalid request: not a JSON-RPC 2.0 request, notification or response"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not supported; send one message per line"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the line is longer than 16 MiB"}}
`, errw.String())
}
