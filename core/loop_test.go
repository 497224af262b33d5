package core_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// The sans-IO loop as a host drives it, with nothing but the exported API:
// Start, then Resume with each reply until the step is done.

const loopKey = "sk-0123456789abcdef0123456789abcdef"

// loopEnv is a host's Env with a fixed clock and neutral jitter.
func loopEnv() core.Env {
	return core.Env{Now: func() int64 { return 1_741_064_767_000 }, Random: func() float64 { return 0.5 }}
}

func response(status int, body string, header ...core.HeaderField) core.Reply {
	return core.Reply{Kind: core.ReplyResponse, Status: status, Body: []byte(body), Header: header}
}

const (
	searchBody = `{"results":[{"url":"https://go.dev/blog/","title":"The Go Blog","summary":"News from the Go team."}]}`
	fetchBody  = `{"title":"Effective Go","content":"Go is a new language."}`
)

func TestLoop(t *testing.T) {
	search := core.Operation{Kind: core.KindSearch, Query: "go blog", APIKey: loopKey}
	fetch := core.Operation{Kind: core.KindFetch, URL: "https://go.dev/doc/effective_go", APIKey: loopKey}
	tests := []struct {
		name    string
		op      core.Operation
		replies []core.Reply
		// wantDelays is each request's DelayMs, in order.
		wantDelays []int64
		wantURL    string
		// wantText is the result's text; wantCode and wantErr the error's.
		wantText string
		wantCode core.Code
		wantErr  string
	}{
		{
			name: "search answered", op: search,
			replies:    []core.Reply{response(200, searchBody)},
			wantDelays: []int64{0}, wantURL: "https://api.deepseek.com/v1/tools/search",
			wantText: "1. The Go Blog\nhttps://go.dev/blog/\nNews from the Go team.",
		},
		{
			name: "fetch answered", op: fetch,
			replies:    []core.Reply{response(200, fetchBody)},
			wantDelays: []int64{0}, wantURL: "https://api.deepseek.com/v1/tools/fetch",
			wantText: "# Effective Go\n\nGo is a new language.",
		},
		{
			name: "busy, then answered after Retry-After", op: fetch,
			replies:    []core.Reply{response(503, ``, core.HeaderField{Name: "Retry-After", Value: "3"}), response(200, fetchBody)},
			wantDelays: []int64{0, 3000}, wantURL: "https://api.deepseek.com/v1/tools/fetch",
			wantText: "# Effective Go\n\nGo is a new language.",
		},
		{
			name: "rate limited, then answered after backoff", op: search,
			replies:    []core.Reply{response(429, `{"error":{"message":"Rate Limit Reached"}}`), response(200, searchBody)},
			wantDelays: []int64{0, 500}, wantURL: "https://api.deepseek.com/v1/tools/search",
			wantText: "1. The Go Blog\nhttps://go.dev/blog/\nNews from the Go team.",
		},
		{
			name: "a network failure is not retried", op: search,
			replies:    []core.Reply{{Kind: core.ReplyNetwork, Message: "connection reset"}},
			wantDelays: []int64{0}, wantURL: "https://api.deepseek.com/v1/tools/search",
			wantCode: core.CodeNetwork, wantErr: "DeepSeek Search failed: network error: connection reset",
		},
		{
			name: "server errors until the attempts run out", op: search,
			replies:    []core.Reply{response(500, ``), response(502, ``), response(500, ``)},
			wantDelays: []int64{0, 500, 1000}, wantURL: "https://api.deepseek.com/v1/tools/search",
			wantCode: core.CodeAPI, wantErr: "DeepSeek Search failed: HTTP 500 (gave up after 3 attempts)",
		},
		{
			name: "a refused key is not retried", op: search,
			replies:    []core.Reply{response(401, `{"error":{"message":"Authentication Fails"}}`)},
			wantDelays: []int64{0}, wantURL: "https://api.deepseek.com/v1/tools/search",
			wantCode: core.CodeAPI, wantErr: "DeepSeek Search failed: HTTP 401: Authentication Fails (check the API key in DEEPSEEK_API_KEY)",
		},
		{
			name: "a redirect is not followed", op: fetch,
			replies:    []core.Reply{response(302, ``, core.HeaderField{Name: "Location", Value: "https://elsewhere.example/"})},
			wantDelays: []int64{0}, wantURL: "https://api.deepseek.com/v1/tools/fetch",
			wantCode: core.CodeRedirect,
		},
		{
			name: "a body over the cap", op: fetch,
			replies:    []core.Reply{{Kind: core.ReplyTooLarge}},
			wantDelays: []int64{0}, wantURL: "https://api.deepseek.com/v1/tools/fetch",
			wantCode: core.CodeTooLarge,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := core.NewEngine(loopEnv())
			var delays []int64
			step := eng.Start(tt.op)
			for _, reply := range tt.replies {
				require.False(t, step.Done, "done before the replies ran out: %v", step.Err)
				require.NotNil(t, step.Request)
				require.Equal(t, tt.wantURL, step.Request.URL)
				require.Equal(t, "POST", step.Request.Method)
				require.Equal(t, len(delays)+1, step.Request.Attempt)
				require.False(t, step.Request.FollowRedirects)
				delays = append(delays, step.Request.DelayMs)
				step = eng.Resume(step.Handle, reply)
			}
			require.True(t, step.Done, "not done after every reply")
			require.Nil(t, step.Request)
			require.Equal(t, tt.wantDelays, delays)
			require.Zero(t, eng.InFlight(), "a done step releases its handle")

			if tt.wantCode != "" {
				require.Nil(t, step.Result)
				require.NotNil(t, step.Err)
				require.Equal(t, tt.wantCode, step.Err.Code)
				if tt.wantErr != "" {
					require.EqualError(t, step.Err, tt.wantErr)
				}
				require.NotContains(t, step.Err.Error(), loopKey)
				return
			}
			require.Nil(t, step.Err)
			require.NotNil(t, step.Result)
			if tt.op.Kind == core.KindSearch {
				require.Nil(t, step.Result.Fetch)
				require.Equal(t, tt.wantText, step.Result.Search.Text())
			} else {
				require.Nil(t, step.Result.Search)
				require.Equal(t, tt.wantText, step.Result.Fetch.Text)
			}
		})
	}
}

// The key goes only in the Authorization header of requests to DeepSeek.
func TestLoopSendsKeyInHeader(t *testing.T) {
	step := core.NewEngine(loopEnv()).Start(core.Operation{Kind: core.KindSearch, Query: "go", APIKey: loopKey})
	require.NotNil(t, step.Request)
	var auth []string
	for _, h := range step.Request.Header {
		if strings.EqualFold(h.Name, "Authorization") {
			auth = append(auth, h.Value)
		}
	}
	require.Equal(t, []string{"Bearer " + loopKey}, auth)
	require.NotContains(t, step.Request.URL, loopKey)
	require.NotContains(t, string(step.Request.Body), loopKey)
}

// A host that stops (a user's interrupt, its own deadline) cancels; the
// handle is then finished, and resuming it is an error, not a panic.
func TestLoopCancelAndStaleHandle(t *testing.T) {
	eng := core.NewEngine(loopEnv())
	a := eng.Start(core.Operation{Kind: core.KindSearch, Query: "a", APIKey: loopKey})
	b := eng.Start(core.Operation{Kind: core.KindFetch, URL: "https://go.dev/", APIKey: loopKey})
	require.NotEqual(t, a.Handle, b.Handle)
	require.Equal(t, 2, eng.InFlight())

	c := eng.Cancel(a.Handle)
	require.True(t, c.Done)
	require.Equal(t, core.CodeCancelled, c.Err.Code)
	require.Equal(t, 1, eng.InFlight(), "cancelling one operation leaves the other")

	stale := eng.Resume(a.Handle, response(200, searchBody))
	require.True(t, stale.Done)
	require.Equal(t, core.CodeInternal, stale.Err.Code)

	done := eng.Resume(b.Handle, response(200, fetchBody))
	require.Nil(t, done.Err)
	require.Equal(t, "Effective Go", done.Result.Fetch.Title)
	require.Zero(t, eng.InFlight())
}

// Inputs a host passes through unchecked end at Start, before any request.
func TestLoopRefusesBeforeAnyRequest(t *testing.T) {
	tests := []struct {
		name string
		op   core.Operation
		want core.Code
	}{
		{"no key", core.Operation{Kind: core.KindSearch, Query: "go"}, core.CodeMissingKey},
		{"empty query", core.Operation{Kind: core.KindSearch, Query: "  ", APIKey: loopKey}, core.CodeInvalidInput},
		{"private address", core.Operation{Kind: core.KindFetch, URL: "http://10.0.0.1/", APIKey: loopKey}, core.CodeURLRefused},
		{"not an absolute URL", core.Operation{Kind: core.KindFetch, URL: "go.dev/doc", APIKey: loopKey}, core.CodeURLRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng := core.NewEngine(loopEnv())
			step := eng.Start(tt.op)
			require.True(t, step.Done)
			require.Nil(t, step.Request)
			require.NotNil(t, step.Err)
			require.Equal(t, tt.want, step.Err.Code, "%v", step.Err)
			require.Zero(t, eng.InFlight())
		})
	}
}
