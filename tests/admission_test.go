package tests

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

// The plugin's module bounds the calls it runs at once: beyond maxCalls a
// start is refused with code "busy" and a sentence, nothing sent; once a
// call ends, the next starts.
func TestModuleAdmission(t *testing.T) {
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"title":"Page","content":"c"}`)
	})
	opts := e.opts("maxCalls", 2)
	start := func(n int) Reply {
		r, err := e.m.Start(e.ctx, e.start(abi.KindFetch, abi.FetchInput{URL: fmt.Sprintf("https://example.com/%d", n)}, opts))
		require.NoError(t, err)
		return r
	}
	a, b := start(1), start(2)
	require.Equal(t, abi.StepHTTP, a.Step.Step)
	require.Equal(t, abi.StepHTTP, b.Step.Step)
	c := start(3)
	require.Equal(t, abi.StepDone, c.Step.Step)
	require.Equal(t, &abi.Error{Code: "busy", Message: "DeepSeek Fetch could not start: 2 calls are already in flight in this process (maxCalls 2)"}, c.Step.Error)
	_, err := e.m.Cancel(e.ctx, a.Step.Handle)
	require.NoError(t, err)
	require.Equal(t, abi.StepHTTP, start(3).Step.Step)
}
