package core_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func TestLimitOptions(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		want    core.Limits
		wantErr string
	}{
		{"defaults", `{}`, core.Limits{MaxCalls: 16, MaxHeldBytes: 64 << 20, MessagesMaxRequestBytes: 8 << 20}, ""},
		{"set", `{"maxCalls":2,"maxHeldMB":16,"messagesMaxRequestMB":1}`, core.Limits{MaxCalls: 2, MaxHeldBytes: 16 << 20, MessagesMaxRequestBytes: 1 << 20}, ""},
		{"largest", `{"maxCalls":256,"maxHeldMB":1024,"messagesMaxRequestMB":64}`, core.Limits{MaxCalls: 256, MaxHeldBytes: 1024 << 20, MessagesMaxRequestBytes: 64 << 20}, ""},
		{"maxCalls 0", `{"maxCalls":0}`, core.Limits{}, `option "maxCalls": want a whole number from 1 to 256, got 0`},
		{"maxCalls 257", `{"maxCalls":257}`, core.Limits{}, `option "maxCalls": want a whole number from 1 to 256, got 257`},
		{"maxHeldMB 15", `{"maxHeldMB":15}`, core.Limits{}, `option "maxHeldMB": want a whole number from 16 to 1024, got 15`},
		{"maxHeldMB fraction", `{"maxHeldMB":16.5}`, core.Limits{}, `option "maxHeldMB": want a whole number, got 16.5`},
		{"messagesMaxRequestMB 65", `{"messagesMaxRequestMB":65}`, core.Limits{}, `option "messagesMaxRequestMB": want a whole number from 1 to 64, got 65`},
		{"messagesMaxRequestMB string", `{"messagesMaxRequestMB":"8"}`, core.Limits{}, `option "messagesMaxRequestMB": want a whole number, got "8"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, warnings, err := core.ParseOptions([]byte(tc.json))
			if err == nil {
				require.Empty(t, warnings)
				var cfg *core.Config
				cfg, _, err = core.NewConfig(o)
				if err == nil {
					require.Empty(t, tc.wantErr)
					require.Equal(t, tc.want, cfg.Limits)
					return
				}
			}
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

// A call beyond maxCalls is refused as busy, nothing sent; when one ends,
// Released fires and the call starts.
func TestAdmissionMaxCalls(t *testing.T) {
	e := core.NewEngine(testEnv())
	cfg := mustConfig(t, core.Options{MaxCalls: 2})
	fetch := func(n int) core.Step {
		return e.Start(core.Operation{Kind: core.KindFetch, URL: fmt.Sprintf("https://go.dev/%d", n), Config: cfg, APIKey: testKey})
	}
	a, b := fetch(1), fetch(2)
	require.NotNil(t, a.Request)
	require.NotNil(t, b.Request)
	released := e.Released()
	c := fetch(3)
	require.Equal(t, core.Step{Done: true, Err: &core.Error{Code: core.CodeBusy, Message: "DeepSeek Fetch could not start: 2 calls are already in flight in this process (maxCalls 2)"}}, c)
	require.ErrorIs(t, c.Err, core.ErrBusy)
	require.Equal(t, 2, e.InFlight())
	select {
	case <-released:
		t.Fatal("released before any call ended")
	default:
	}
	e.Resume(a.Handle, okReply(`{"title":"T","content":"c"}`))
	<-released // closed by the release
	require.NotNil(t, fetch(3).Request)
	// A cancel releases too.
	released = e.Released()
	e.Cancel(b.Handle)
	<-released
	require.Equal(t, 1, e.InFlight())
}

// The requests and responses of the calls in flight are bounded by
// maxHeldMB: a fetch counts its body and twice the 5 MiB response cap, so
// 16 MiB holds one, and one call always runs however large.
func TestAdmissionHeldBytes(t *testing.T) {
	e := core.NewEngine(testEnv())
	cfg := mustConfig(t, core.Options{MaxHeldMB: 16})
	a := e.Start(core.Operation{Kind: core.KindFetch, URL: "https://go.dev/a", Config: cfg, APIKey: testKey})
	require.NotNil(t, a.Request)
	need := int64(len(a.Request.Body)) + 2*core.MaxResponseBytes
	require.Equal(t, need, e.Held())
	b := e.Start(core.Operation{Kind: core.KindSearch, Query: "q", Config: cfg, APIKey: testKey})
	require.ErrorIs(t, b.Err, core.ErrBusy)
	require.Equal(t, "DeepSeek Search could not start: the calls in flight hold 10.0 MiB of requests and responses, and this one may need 10.0 MiB more (maxHeldMB 16)", b.Err.Message)
	e.Resume(a.Handle, okReply(`{"title":"T","content":"c"}`))
	require.Zero(t, e.Held())

	// Messages searches count their continuations' cap twice.
	mcfg := messagesConfig(t, core.Options{MaxHeldMB: 16, MessagesMaxRequestMB: 64})
	m := e.Start(core.Operation{Kind: core.KindSearch, Query: "q", Config: mcfg, APIKey: testKey})
	require.NotNil(t, m.Request, "alone, it runs although it may need more than maxHeldMB")
	require.Equal(t, int64(2*64<<20+2*core.MaxResponseBytes), e.Held())
	e.Cancel(m.Handle)
	require.Zero(t, e.Held())
}

// The cache answers without admission: a cached page is served when the
// engine is at its limits.
func TestAdmissionCacheHit(t *testing.T) {
	e := core.NewEngine(testEnv())
	cfg := mustConfig(t, core.Options{MaxCalls: 1})
	_, s := drive(t, e, core.Operation{Kind: core.KindFetch, URL: "https://go.dev/", Config: cfg, APIKey: testKey}, okReply(`{"title":"T","content":"c"}`))
	require.Nil(t, s.Err)
	busy := e.Start(core.Operation{Kind: core.KindFetch, URL: "https://go.dev/other", Config: cfg, APIKey: testKey})
	require.NotNil(t, busy.Request)
	s = e.Start(core.Operation{Kind: core.KindFetch, URL: "https://go.dev/", Config: cfg, APIKey: testKey})
	require.True(t, s.Done)
	require.Nil(t, s.Err)
	require.True(t, s.Result.Fetch.Cached)
}

func TestWaitedTooLong(t *testing.T) {
	err := core.WaitedTooLong(&core.Error{Code: core.CodeBusy, Message: "DeepSeek Fetch could not start: 2 calls are already in flight in this process (maxCalls 2)"}, 30000)
	require.Equal(t, &core.Error{Code: core.CodeBusy, Message: "DeepSeek Fetch could not start: 2 calls are already in flight in this process (maxCalls 2), and none finished within 30000 ms; try again later or raise the limit"}, err)
	require.Equal(t, core.Step{Done: true, Err: &core.Error{Code: core.CodeCancelled, Message: "DeepSeek Fetch cancelled"}}, core.Cancelled(core.Operation{Kind: core.KindFetch}))
}

// A paused turn resends everything so far; the continuation that would
// pass messagesMaxRequestMB is never built or sent, and the call fails
// saying why.
func TestMessagesContinuationCap(t *testing.T) {
	cfg := messagesConfig(t, core.Options{MessagesMaxRequestMB: 1})
	block := strings.Repeat("A", 600_000)
	paused := okReply(`{"type":"message","content":[{"type":"server_tool_use","id":"s","name":"web_search","input":{"query":"q"}},` +
		`{"type":"web_search_tool_result","tool_use_id":"s","content":[{"type":"web_search_result","url":"https://example.com/","title":"T","encrypted_content":"` + block + `"}]}],"stop_reason":"pause_turn"}`)
	reqs, s := drive(t, core.NewEngine(testEnv()), core.Operation{Kind: core.KindSearch, Query: "q", Config: cfg, APIKey: testKey}, paused, paused, paused, paused)
	require.Equal(t, 2, len(reqs), "the third request would have been over 1 MiB")
	require.Less(t, len(reqs[1].Body), 1<<20)
	require.Greater(t, len(reqs[1].Body), 600_000)
	require.Equal(t, &core.Error{Code: core.CodeTooLarge, Message: "DeepSeek Messages search failed: DeepSeek paused its turn 2 times, and continuing it would resend 1.1 MiB (everything so far), over messagesMaxRequestMB (1 MiB); the turn was not continued"}, s.Err)
}

// Identical operations share a WorkKey; anything that changes the answer
// (the part of a page, an option, the key) makes another.
func TestWorkKey(t *testing.T) {
	e := core.NewEngine(testEnv())
	cfg := mustConfig(t, core.Options{})
	fetch := core.Operation{Kind: core.KindFetch, URL: "https://go.dev/doc", Config: cfg, APIKey: testKey}
	search := core.Operation{Kind: core.KindSearch, Query: "go", Config: cfg, APIKey: testKey}
	key := func(op core.Operation) core.WorkKey {
		k, ok := e.WorkKey(op)
		require.True(t, ok)
		return k
	}
	require.Equal(t, key(fetch), key(fetch))
	same := fetch
	same.URL = "HTTPS://GO.DEV/doc#intro"
	require.Equal(t, key(fetch), key(same))
	require.Equal(t, key(search), key(search))
	for _, change := range []func(*core.Operation){
		func(o *core.Operation) { o.Offset = 100 },
		func(o *core.Operation) { o.Config = mustConfig(t, core.Options{FetchMaxChars: 500}) },
		func(o *core.Operation) { o.ContinueHint = "more at {offset}" },
		func(o *core.Operation) { o.APIKey = testKey + "0" },
		func(o *core.Operation) { o.URL = "https://go.dev/other" },
	} {
		other := fetch
		change(&other)
		require.NotEqual(t, key(fetch), key(other))
	}
	for _, change := range []func(*core.Operation){
		func(o *core.Operation) { o.Query = "go 1.26" },
		func(o *core.Operation) { o.OriQuestion = "what is new" },
		func(o *core.Operation) { o.Config = mustConfig(t, core.Options{MaxResults: 3}) },
		func(o *core.Operation) { o.Config = mustConfig(t, core.Options{MinRerank: 1}) },
		func(o *core.Operation) { o.Kind = core.KindFetch; o.URL = "https://go.dev/" },
	} {
		other := search
		change(&other)
		require.NotEqual(t, key(search), key(other))
	}
	_, ok := e.WorkKey(core.Operation{Kind: core.KindFetch, URL: "http://127.0.0.1/", APIKey: testKey})
	require.False(t, ok, "a refused URL")
	_, ok = e.WorkKey(core.Operation{Kind: core.KindSearch, Query: "q"})
	require.False(t, ok, "no key")
	require.NotContains(t, fmt.Sprintf("%v %+v", key(fetch), key(fetch)), testKey)
}

// A WorkKey's Identity is the same in another engine (another process) and
// differs wherever the key does, except for the credential; it never holds
// the key.
func TestWorkKeyIdentity(t *testing.T) {
	cfg := mustConfig(t, core.Options{})
	fetch := core.Operation{Kind: core.KindFetch, URL: "https://go.dev/doc", Config: cfg, APIKey: testKey}
	search := core.Operation{Kind: core.KindSearch, Query: "go", Config: cfg, APIKey: testKey}
	id := func(e *core.Engine, op core.Operation) string {
		k, ok := e.WorkKey(op)
		require.True(t, ok)
		return string(k.Identity())
	}
	a, b := core.NewEngine(testEnv()), core.NewEngine(testEnv())
	for _, op := range []core.Operation{fetch, search} {
		require.Equal(t, id(a, op), id(b, op))
		require.NotContains(t, id(a, op), testKey)
	}
	seen := map[string]bool{id(a, fetch): true, id(a, search): true}
	for _, change := range []func(*core.Operation){
		func(o *core.Operation) { o.Offset = 100 },
		func(o *core.Operation) { o.Config = mustConfig(t, core.Options{FetchMaxChars: 500}) },
		func(o *core.Operation) { o.ContinueHint = "more at {offset}" },
		func(o *core.Operation) { o.URL = "https://go.dev/other" },
	} {
		other := fetch
		change(&other)
		require.False(t, seen[id(a, other)])
		seen[id(a, other)] = true
	}
	other := fetch
	other.APIKey = testKey + "0"
	require.Equal(t, id(a, fetch), id(a, other), "the credential is the caller's to add")
}
