//go:build wasip1

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPausedTurnKeepsItsBlocks holds the Messages backend to what input
// buffer reuse asks of the module: nothing kept after a call may view its
// input. A paused turn keeps the assistant's blocks as received and sends
// them again with every continuation; the third request must carry the
// first answer's block intact although the second answer was written into
// the first one's buffer.
func TestPausedTurnKeepsItsBlocks(t *testing.T) {
	paused := func(query string) []byte {
		return []byte(`{"type":"message","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{"query":"` + query + `"}}],"stop_reason":"pause_turn"}`)
	}
	first := strings.Repeat("first ", 200)
	second := strings.Repeat("second ", 100) // shorter: its body fits in the first's buffer
	meta := []byte(`{"v":1,"kind":"response","status":200,"headers":{"content-type":"application/json"}}`)

	env := []byte(`{"v":1,"kind":"search","options":{"searchBackend":"messages"},"apiKey":"sk-test","input":{"query":"paused"}}`)
	s := reply(t, start(hostBuffer(t, env), uint32(len(env))))
	for _, query := range []string{first, second} {
		require.Equal(t, "http", s["step"], "%v", s)
		h := uint32(s["handle"].(float64))
		body := paused(query)
		s = reply(t, resume(h, hostBuffer(t, meta), uint32(len(meta)), hostBuffer(t, body), uint32(len(body))))
	}
	require.Equal(t, "http", s["step"], "%v", s)

	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	request := s["request"].(map[string]any)
	require.NoError(t, json.Unmarshal([]byte(request["body"].(string)), &req))
	require.Len(t, req.Messages, 2)
	var blocks []struct {
		Input struct {
			Query string `json:"query"`
		} `json:"input"`
	}
	require.NoError(t, json.Unmarshal(req.Messages[1].Content, &blocks))
	require.Len(t, blocks, 2)
	require.Equal(t, first, blocks[0].Input.Query)
	require.Equal(t, second, blocks[1].Input.Query)
}
