//go:build wasip1

package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func search(t *testing.T, query string, body []byte) map[string]any {
	env := []byte(`{"v":1,"kind":"search","options":{},"apiKey":"sk-test","input":{"query":"` + query + `"}}`)
	s := reply(t, start(hostBuffer(t, env), uint32(len(env))))
	if s["step"] == "done" {
		return s
	}
	require.Equal(t, "http", s["step"], "%v", s)
	meta := []byte(`{"v":1,"kind":"response","status":200,"headers":{"content-type":"application/json","retry-after":"1"}}`)
	h := uint32(s["handle"].(float64))
	return reply(t, resume(h, hostBuffer(t, meta), uint32(len(meta)), hostBuffer(t, body), uint32(len(body))))
}

// TestSpareBuffers checks that input buffers are used again, and that what
// a call left behind (a cached answer) views none of them: overwriting the
// buffers of a search, then asking it again, gives the same results.
func TestSpareBuffers(t *testing.T) {
	body := []byte(`{"results":[{"url":"https://example.com/a","title":"Title A","summary":"Summary A","site_name":"example.com"},` +
		`{"url":"https://example.org/b#x","title":"Title B","summary":"Summary \u00e9 B","date":"2024-01-15T00:00:00Z"}]}`)
	first := search(t, "spare buffers", body)
	require.Equal(t, "done", first["step"], "%v", first)
	result := first["result"].(map[string]any)
	require.Equal(t, false, result["cached"])
	require.Len(t, result["results"], 2)

	// The next buffer comes from spare, and so does the next call's.
	ptr := alloc(16)
	require.NotZero(t, ptr)
	free(ptr)
	require.NotEqual(t, [len(spare)][]byte{}, spare)
	for range 8 {
		other := bytes.Repeat([]byte("x"), len(body))
		copy(other, `{"results":[]}`+"          ")
		search(t, "other query", other)
		for _, b := range spare {
			clear(b[:cap(b)])
		}
	}

	again := search(t, "spare buffers", body)
	require.Equal(t, "done", again["step"])
	cached := again["result"].(map[string]any)
	require.Equal(t, true, cached["cached"])
	cached["cached"] = false
	require.Equal(t, result, cached)
}
