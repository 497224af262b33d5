package httpdriver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/httpdriver"
)

// fakeDeepSeek starts a stand-in for api.deepseek.com that answers a search
// and a fetch for the key "sk-example" and refuses other keys. A real
// program leaves Options.BaseURL empty and talks to DeepSeek.
func fakeDeepSeek() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-example" {
			http.Error(w, `{"error":{"message":"Authentication Fails"}}`, http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/v1/tools/search":
			io.WriteString(w, `{"results":[{"url":"https://go.dev/doc/effective_go","title":"Effective Go",`+
				`"summary":"Tips for writing clear, idiomatic Go code.","rerank_score":1.8,"site_name":"go.dev"}]}`)
		case "/v1/tools/fetch":
			io.WriteString(w, `{"title":"Effective Go","content":"Go is a new language.\nThis document gives tips."}`)
		default:
			http.NotFound(w, r)
		}
	}))
}

// Run performs one operation's requests, retries included, and returns its
// last step: a result, or an error that names what went wrong. A fetch the
// URL policy refuses ends before any request.
func ExampleRun() {
	srv := fakeDeepSeek()
	defer srv.Close()

	cfg, _, err := core.NewConfig(core.Options{BaseURL: srv.URL})
	if err != nil {
		panic(err)
	}
	eng := core.NewEngine(core.Env{Now: func() int64 { return time.Now().UnixMilli() }})
	client := httpdriver.NewClient()
	ctx := context.Background()

	for _, op := range []core.Operation{
		{Kind: core.KindSearch, Query: "effective go", Config: cfg, APIKey: "sk-example"},
		{Kind: core.KindFetch, URL: "https://go.dev/doc/effective_go", Config: cfg, APIKey: "sk-example"},
		{Kind: core.KindFetch, URL: "http://192.168.1.1/admin", Config: cfg, APIKey: "sk-example"},
		{Kind: core.KindSearch, Query: "effective go", Config: cfg, APIKey: "sk-wrong"},
	} {
		step := httpdriver.Run(ctx, client, eng, op)
		switch {
		case step.Err != nil:
			fmt.Printf("error (%s): %s\n", step.Err.Code, step.Err)
		case step.Result.Search != nil:
			fmt.Println(step.Result.Search.Text())
		default:
			fmt.Println(step.Result.Fetch.Text)
		}
	}
	// Output:
	// 1. Effective Go
	// https://go.dev/doc/effective_go
	// [rerank 1.8 · go.dev]
	// Tips for writing clear, idiomatic Go code.
	// # Effective Go
	//
	// Go is a new language.
	// This document gives tips.
	// error (url_refused): DeepSeek Fetch: url refused: host "192.168.1.1" is a private-network (RFC 1918) address 192.168.1.1; private and local addresses never leave this machine
	// error (api): DeepSeek Search failed: HTTP 401: Authentication Fails (check the API key in DEEPSEEK_API_KEY)
}

// A Driver serves many calls on one engine: it waits while the engine is
// busy and shares identical calls in flight. Progress hears about each
// retry; here DeepSeek is busy once and asks for a retry after a second.
func ExampleDriver_Run() {
	var answered atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !answered.Swap(true) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error":{"message":"Server is busy"}}`, http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{"title":"Effective Go","content":"Go is a new language."}`)
	}))
	defer srv.Close()

	cfg, _, err := core.NewConfig(core.Options{BaseURL: srv.URL})
	if err != nil {
		panic(err)
	}
	d := &httpdriver.Driver{
		Engine: core.NewEngine(core.Env{Now: func() int64 { return time.Now().UnixMilli() }}),
		Client: httpdriver.NewClient(),
	}
	progress := func(next *core.Request, last core.Reply) {
		fmt.Printf("HTTP %d; attempt %d in %d ms\n", last.Status, next.Attempt, next.DelayMs)
	}
	step := d.Run(context.Background(), core.Operation{
		Kind: core.KindFetch, URL: "https://go.dev/doc/effective_go", Config: cfg, APIKey: "sk-example",
	}, progress)
	if step.Err != nil {
		panic(step.Err)
	}
	fmt.Println(step.Result.Fetch.Title, step.Result.Fetch.Chars, step.Result.Fetch.Truncated)
	// Output:
	// HTTP 503; attempt 2 in 1000 ms
	// Effective Go 37 false
}
