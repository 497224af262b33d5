package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

// A tool call of several queries or pages runs as a batch of parts, each
// with its own handle and admission; the part that ends last returns the
// call's output.

// pageOf answers a fetch with a page naming the URL asked for.
func pageOf(t testing.TB) handler {
	return func(w http.ResponseWriter, r *http.Request, _ int) {
		var in struct{ URL string }
		require.NoError(t, json.NewDecoder(r.Body).Decode(&in))
		reply(200, fetchJSON(t, "Page", "From "+in.URL+"."))(w, r, 0)
	}
}

// stepNames lists the steps' names.
func stepNames(steps []Reply) []string {
	var names []string
	for _, s := range steps {
		names = append(names, s.Step.Step)
	}
	return names
}

func toolStart(e *env, tool, args string, opts json.RawMessage) abi.Start {
	return e.start(abi.KindTool, abi.ToolInput{Tool: tool, Args: json.RawMessage(args)}, opts)
}

func TestToolBatch(t *testing.T) {
	type output struct {
		Content  string          `json:"content"`
		Title    string          `json:"title"`
		Metadata json.RawMessage `json:"metadata"`
	}
	t.Run("three pages with one place: each waits for the last to end, a refused one in its place", func(t *testing.T) {
		e := newEnv(t, pageOf(t))
		steps := e.run(toolStart(e, "deepseek_fetch", `{"url":"","urls":["https://a.example/","http://127.0.0.1/admin","https://b.example/"],"offset":0}`, e.opts("maxCalls", 1)))
		// The private URL is refused before anything is sent; b.example waits for a.example.
		require.Equal(t, []string{"batch", "batch", "done"}, stepNames(steps))
		require.Len(t, steps[0].Steps, 1)
		require.Len(t, steps[1].Steps, 1)
		res := result[output](t, steps[2].Step)
		require.Equal(t, "=== Page 1 of 3: https://a.example/ ===\n\n# Page\n\nFrom https://a.example/.\n\n"+
			"=== Page 2 of 3: http://127.0.0.1/admin ===\n\nDeepSeek Fetch: url refused: host \"127.0.0.1\" is the loopback address 127.0.0.1; private and local addresses never leave this machine\n\n"+
			"=== Page 3 of 3: https://b.example/ ===\n\n# Page\n\nFrom https://b.example/.", res.Content)
		require.Equal(t, "deepseek_fetch a.example, 127.0.0.1/admin, b.example", res.Title)
		require.JSONEq(t, `{"urls":["https://a.example/","http://127.0.0.1/admin","https://b.example/"],"failed":1,"cached":false}`, string(res.Metadata))
		require.Len(t, e.srv.requests(), 2)
		require.Equal(t, steps[0].Handle, steps[2].Handle, "the call's done step comes under the batch's handle")
		require.NotEqual(t, steps[0].Handle, steps[0].Steps[0].Handle)
	})
	t.Run("two queries: merged, each result marked with the query that found it", func(t *testing.T) {
		e := newEnv(t, reply(200, searchBody))
		steps := e.run(toolStart(e, "deepseek_search", `{"queries":["golang","go tips"]}`, e.opts("maxResults", 2)))
		require.Equal(t, []string{"batch", "pending", "done"}, stepNames(steps))
		res := result[output](t, steps[2].Step)
		require.Equal(t, "deepseek_search golang | go tips", res.Title)
		require.Equal(t, 2, strings.Count(res.Content, "\nfound by \"golang\""), res.Content)
		require.NotContains(t, res.Content, `found by "go tips"`)
		require.JSONEq(t, `{"query":"golang | go tips","results":2,"cached":false}`, string(res.Metadata))
		// Asked again, both come from the cache: done at once.
		steps = e.run(toolStart(e, "deepseek_search", `{"queries":["golang","go tips"]}`, e.opts("maxResults", 2)))
		require.Equal(t, []string{"done"}, stepNames(steps))
		require.Len(t, e.srv.requests(), 2)
	})
	t.Run("cancelled: every part, and what waited, ends cancelled", func(t *testing.T) {
		e := newEnv(t, pageOf(t))
		first, err := e.m.Start(e.ctx, toolStart(e, "deepseek_fetch", `{"urls":["https://a.example/","https://b.example/","https://c.example/"]}`, e.opts("maxCalls", 2)))
		require.NoError(t, err)
		require.Equal(t, abi.StepBatch, first.Step.Step)
		require.Len(t, first.Steps, 2)
		r, err := e.m.Cancel(e.ctx, first.Steps[0].Handle)
		require.NoError(t, err)
		require.Equal(t, abi.StepPending, r.Step.Step)
		r, err = e.m.Cancel(e.ctx, first.Steps[1].Handle)
		require.NoError(t, err)
		failure(t, r.Step, "cancelled", "DeepSeek Fetch cancelled")
		require.Equal(t, first.Handle, r.Handle)
		n, err := e.m.InFlight(e.ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		require.Empty(t, e.srv.requests())
	})
	t.Run("no place at all: the call is busy as a whole, so the host waits and asks again", func(t *testing.T) {
		e := newEnv(t, pageOf(t))
		held, err := e.m.Start(e.ctx, e.start(abi.KindFetch, abi.FetchInput{URL: "https://held.example/"}, e.opts("maxCalls", 1)))
		require.NoError(t, err)
		require.Equal(t, abi.StepHTTP, held.Step.Step)
		r, err := e.m.Start(e.ctx, toolStart(e, "deepseek_fetch", `{"urls":["https://a.example/","https://b.example/"]}`, e.opts("maxCalls", 1)))
		require.NoError(t, err)
		require.Equal(t, abi.StepDone, r.Step.Step)
		require.Equal(t, "busy", r.Error.Code)
		_, err = e.m.Cancel(e.ctx, held.Handle)
		require.NoError(t, err)
		steps := e.run(toolStart(e, "deepseek_fetch", `{"urls":["https://a.example/","https://b.example/"]}`, e.opts("maxCalls", 1)))
		require.Equal(t, []string{"batch", "batch", "done"}, stepNames(steps))
	})
}
