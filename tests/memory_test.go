package tests

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
	"github.com/stretchr/testify/require"
)

// The module keeps its heap near 80 MiB by hand (wasm/memory.go): with the
// page cache at its 64 MiB bound, Go's own pacing would let linear memory grow
// to about twice the live data (156 MB measured before there was a bound).
func TestFullPageCacheMemoryBounded(t *testing.T) {
	m := newModule(t)
	require.LessOrEqual(t, fillCache(t, m, 100), uint32(112<<20), "linear memory with the page cache full")
}

// idle collects garbage and nothing else: an operation in flight across it
// ends as it would have, and a cached page is served the same afterwards.
func TestIdleChangesNothingObservable(t *testing.T) {
	ctx := context.Background()
	m := newModule(t)
	body := []byte(`{"results":[{"url":"https://example.com/a","title":"A","snippet":"first"},{"url":"https://example.com/b","title":"B","summary":"second"}]}`)
	// The cache is off for the searches, so both reach their HTTP step.
	search := func(idle bool) json.RawMessage {
		r, err := m.Start(ctx, abi.Start{V: 1, Kind: abi.KindSearch, Options: json.RawMessage(`{"baseURL":"http://127.0.0.1:1","cacheTTL":0}`), APIKey: testKey,
			Input: json.RawMessage(`{"query":"idle"}`)})
		require.NoError(t, err)
		require.Equal(t, abi.StepHTTP, r.Step.Step)
		if idle {
			require.NoError(t, m.Idle(ctx))
		}
		r, err = m.Resume(ctx, r.Handle, abi.Reply{Kind: "response", Status: 200}, body)
		require.NoError(t, err)
		require.Nil(t, r.Error)
		return r.Result
	}
	cachedPage := func() json.RawMessage {
		r, err := m.Start(ctx, abi.Start{V: 1, Kind: abi.KindFetch, Options: json.RawMessage(`{"baseURL":"http://127.0.0.1:1"}`), APIKey: testKey,
			Input: json.RawMessage(`{"url":"https://example.com/1","offset":100}`)})
		require.NoError(t, err)
		require.Equal(t, abi.StepDone, r.Step.Step, "served from the cache")
		require.Nil(t, r.Error)
		return r.Result
	}

	fillCache(t, m, 3)
	page := cachedPage()
	want := search(false)
	require.NoError(t, m.Idle(ctx))
	require.Equal(t, want, search(true))
	require.NoError(t, m.Idle(ctx))
	require.Equal(t, page, cachedPage())
	left, err := m.InFlight(ctx)
	require.NoError(t, err)
	require.Zero(t, left)
}
