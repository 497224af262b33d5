//go:build wasip1

package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// The wasip1 tests and benchmarks call the module's exports as a host
// does: write the input into a buffer from alloc, call, read the reply.

// hostBuffer writes b into a buffer from alloc, as a host does.
func hostBuffer(tb testing.TB, b []byte) uint32 {
	ptr := alloc(uint32(len(b)))
	require.NotZero(tb, ptr)
	copy(buffers[ptr], b)
	return ptr
}

// replyBytes is the reply of start or resume, packed into their result
// (emit's out).
func replyBytes(packed uint64) []byte { return out[:uint32(packed)] }

// reply decodes a packed reply of start or resume.
func reply(t *testing.T, packed uint64) map[string]any {
	b := replyBytes(packed)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return m
}
