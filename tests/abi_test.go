package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

func TestABIVersion(t *testing.T) {
	m := newModule(t)
	v, err := m.ABIVersion(t.Context())
	require.NoError(t, err)
	require.Equal(t, uint32(abi.Version), v)
}

// Malformed calls are answered with an "abi" error step, never a trap, and
// the same instance goes on serving.
func TestMalformedCalls(t *testing.T) {
	e := newEnv(t, reply(200, okSearch))
	ctx := e.ctx
	alloc := func(n uint32) uint32 {
		res, err := e.m.Call(ctx, "alloc", uint64(n))
		require.NoError(t, err)
		require.NotZero(t, res[0])
		return uint32(res[0])
	}
	write := func(b []byte) uint32 {
		p := alloc(uint32(len(b)))
		require.True(t, e.m.mod.Memory().Write(p, b))
		return p
	}
	startJSON := func(s string) []byte {
		p := write([]byte(s))
		out, err := e.m.CallPacked(ctx, "start", uint64(p), uint64(len(s)))
		require.NoError(t, err)
		return out
	}
	valid := string(mustJSON(t, e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil)))
	live, err := e.m.Start(ctx, e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil))
	require.NoError(t, err)

	tests := []struct {
		name string
		call func() []byte
		msg  string // a part of the message
	}{
		{"start: pointer never allocated", func() []byte {
			out, err := e.m.CallPacked(ctx, "start", 12345, 10)
			require.NoError(t, err)
			return out
		}, "no buffer was allocated at 12345"},
		{"start: pointer outside memory", func() []byte {
			out, err := e.m.CallPacked(ctx, "start", 0xfffffff0, 0xffff)
			require.NoError(t, err)
			return out
		}, "no buffer was allocated"},
		{"start: length beyond the buffer", func() []byte {
			p := write([]byte(valid))
			out, err := e.m.CallPacked(ctx, "start", uint64(p), uint64(len(valid)+100))
			require.NoError(t, err)
			return out
		}, "exceeds"},
		{"start: buffer used twice", func() []byte {
			p := write([]byte(valid))
			first, err := e.m.CallPacked(ctx, "start", uint64(p), uint64(len(valid)))
			require.NoError(t, err)
			var s abi.Step
			require.NoError(t, json.Unmarshal(first, &s))
			_, err = e.m.Cancel(ctx, s.Handle)
			require.NoError(t, err)
			out, err := e.m.CallPacked(ctx, "start", uint64(p), uint64(len(valid)))
			require.NoError(t, err)
			return out
		}, "no buffer was allocated"},
		{"start: freed buffer", func() []byte {
			p := write([]byte(valid))
			_, err := e.m.Call(ctx, "free", uint64(p))
			require.NoError(t, err)
			out, err := e.m.CallPacked(ctx, "start", uint64(p), uint64(len(valid)))
			require.NoError(t, err)
			return out
		}, "no buffer was allocated"},
		{"start: invalid JSON", func() []byte { return startJSON(`{"v":1,"kind":`) }, "invalid JSON"},
		{"start: not JSON", func() []byte { return startJSON("\x00\xff garbage") }, "invalid JSON"},
		{"start: wrong v", func() []byte { return startJSON(`{"v":2,"kind":"search","input":{"query":"q"}}`) }, "unsupported ABI version 2"},
		{"start: missing v", func() []byte { return startJSON(`{"kind":"search","input":{"query":"q"}}`) }, "unsupported ABI version 0"},
		{"start: unknown kind", func() []byte { return startJSON(`{"v":1,"kind":"search2","input":{"query":"q"}}`) }, `unknown kind "search2"`},
		{"start: missing input", func() []byte { return startJSON(`{"v":1,"kind":"search"}`) }, "missing input"},
		{"start: input of the wrong shape", func() []byte { return startJSON(`{"v":1,"kind":"fetch","input":{"url":42}}`) }, "invalid input"},
		{"resume: meta pointer never allocated", func() []byte {
			out, err := e.m.CallPacked(ctx, "resume", uint64(live.Handle), 999, 5, 0, 0)
			require.NoError(t, err)
			return out
		}, "no buffer was allocated at 999"},
		{"resume: body length beyond the buffer", func() []byte {
			meta := []byte(`{"v":1,"kind":"response","status":200}`)
			mp, bp := write(meta), write([]byte(okSearch))
			out, err := e.m.CallPacked(ctx, "resume", uint64(live.Handle), uint64(mp), uint64(len(meta)), uint64(bp), uint64(len(okSearch)+1))
			require.NoError(t, err)
			return out
		}, "exceeds"},
		{"resume: invalid JSON", func() []byte {
			meta := []byte(`{"v":1,`)
			mp := write(meta)
			out, err := e.m.CallPacked(ctx, "resume", uint64(live.Handle), uint64(mp), uint64(len(meta)), 0, 0)
			require.NoError(t, err)
			return out
		}, "invalid JSON"},
		{"resume: wrong v", func() []byte {
			meta := []byte(`{"v":7,"kind":"response","status":200}`)
			mp := write(meta)
			out, err := e.m.CallPacked(ctx, "resume", uint64(live.Handle), uint64(mp), uint64(len(meta)), 0, 0)
			require.NoError(t, err)
			return out
		}, "unsupported ABI version 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := tt.call()
			var s abi.Step
			require.NoError(t, json.Unmarshal(out, &s), "%s", out)
			require.Equal(t, abi.Version, s.V)
			failure(t, s, abi.CodeABI, "")
			require.True(t, strings.HasPrefix(s.Error.Message, "deepseek-web-retrieval ABI: "), s.Error.Message)
			require.Contains(t, s.Error.Message, tt.msg)
		})
	}

	// alloc refuses what it cannot give.
	res, err := e.m.Call(ctx, "alloc", 64<<20+1)
	require.NoError(t, err)
	require.Zero(t, res[0])
	// free of a pointer that was never allocated is harmless.
	_, err = e.m.Call(ctx, "free", 4242)
	require.NoError(t, err)

	// The operation started before the malformed calls is intact (a failed
	// resume does not end it), and the instance serves a normal search.
	n, err := e.m.InFlight(ctx)
	require.NoError(t, err)
	require.Equal(t, uint32(1), n)
	rep, body := e.b.Do(ctx, live.Request)
	r, err := e.m.Resume(ctx, live.Handle, rep, body)
	require.NoError(t, err)
	require.Len(t, result[searchJSON](t, r.Step).Results, 1)
	res2 := result[searchJSON](t, e.search("golang", nil))
	require.Equal(t, "go.dev", strings.Split(res2.Results[0].URL, "/")[2])
	require.NotContains(t, e.m.Output.String(), "panic")
}

// An unknown handle and an unknown reply kind are answered, not trapped.
func TestUnknownHandle(t *testing.T) {
	e := newEnv(t, reply(200, okSearch))
	r, err := e.m.Resume(e.ctx, 777, abi.Reply{Kind: "response", Status: 200}, []byte(okSearch))
	require.NoError(t, err)
	failure(t, r.Step, "internal", "deepseek-web-retrieval: operation 777 is not in flight")
	c, err := e.m.Cancel(e.ctx, 778)
	require.NoError(t, err)
	failure(t, c.Step, "cancelled", "")

	live, err := e.m.Start(e.ctx, e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil))
	require.NoError(t, err)
	r, err = e.m.Resume(e.ctx, live.Handle, abi.Reply{Kind: "teleported"}, nil)
	require.NoError(t, err)
	failure(t, r.Step, "internal", `deepseek-web-retrieval: the host reported an unknown reply kind "teleported"`)
	n, _ := e.m.InFlight(e.ctx)
	require.Zero(t, n)
}

// 50 operations in flight in one instance at once, resumed in shuffled
// order: each gets its own answer.
func TestInterleaved(t *testing.T) {
	const ops = 50
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		var in struct{ Query, URL string }
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &in)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/tools/search":
			fmt.Fprintf(w, `{"results":[{"url":"https://example.com/%s","title":"About %s","summary":"S %s"}]}`, in.Query, in.Query, in.Query)
		case "/v1/tools/fetch":
			fmt.Fprintf(w, `{"title":"Page","content":"Content of %s"}`, in.URL)
		}
	})
	type op struct {
		i    int
		step Reply
	}
	var pending []op
	for i := range ops {
		var s abi.Start
		if i%3 == 2 {
			// Fifty at once: over the default admission limits.
			s = e.start(abi.KindFetch, abi.FetchInput{URL: fmt.Sprintf("https://example.com/page/%d", i)}, e.opts("maxCalls", 64, "maxHeldMB", 1024))
		} else {
			s = e.start(abi.KindSearch, abi.SearchInput{Query: fmt.Sprintf("q%d", i)}, e.opts("maxResults", 1+i%5, "maxCalls", 64, "maxHeldMB", 1024))
		}
		r, err := e.m.Start(e.ctx, s)
		require.NoError(t, err)
		require.Equal(t, abi.StepHTTP, r.Step.Step)
		pending = append(pending, op{i, r})
	}
	n, err := e.m.InFlight(e.ctx)
	require.NoError(t, err)
	require.Equal(t, uint32(ops), n)
	handles := map[uint32]bool{}
	for _, p := range pending {
		require.False(t, handles[p.step.Handle], "handle %d reused", p.step.Handle)
		handles[p.step.Handle] = true
	}

	// The requests run concurrently; the resumes go one at a time, shuffled.
	type done struct {
		rep  abi.Reply
		body []byte
	}
	replies := make([]done, ops)
	var wg sync.WaitGroup
	for k, p := range pending {
		wg.Go(func() {
			rep, body := e.b.Do(e.ctx, p.step.Request)
			replies[k] = done{rep, body}
		})
	}
	wg.Wait()
	order := rand.New(rand.NewPCG(1, 2)).Perm(ops)
	for _, k := range order {
		p := pending[k]
		r, err := e.m.Resume(e.ctx, p.step.Handle, replies[k].rep, replies[k].body)
		require.NoError(t, err)
		require.Equal(t, p.step.Handle, r.Handle)
		checkStepsKey(t, []Reply{p.step, r}, testKey)
		if p.i%3 == 2 {
			res := result[core.FetchResult](t, r.Step)
			want := fmt.Sprintf("https://example.com/page/%d", p.i)
			require.Equal(t, want, res.URL)
			require.Equal(t, "# Page\n\nContent of "+want, res.Text)
		} else {
			res := result[searchJSON](t, r.Step)
			q := fmt.Sprintf("q%d", p.i)
			require.Equal(t, q, res.Query)
			require.Len(t, res.Results, 1)
			require.Equal(t, "https://example.com/"+q, res.Results[0].URL)
		}
	}
	n, err = e.m.InFlight(e.ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Len(t, e.srv.requests(), ops)
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
