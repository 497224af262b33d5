package core_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/httpdriver"
)

// Search and fetch from Go in a few lines: package httpdriver performs the
// engine's requests with net/http. The server here stands in for
// api.deepseek.com; a real program leaves BaseURL empty.
func Example_httpdriver() {
	deepseek := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/tools/search":
			io.WriteString(w, `{"results":[{"url":"https://go.dev/doc/","title":"Documentation","summary":"The Go programming language documentation."}]}`)
		case "/v1/tools/fetch":
			io.WriteString(w, `{"title":"Documentation","content":"Getting started: install Go."}`)
		}
	}))
	defer deepseek.Close()

	cfg, _, err := core.NewConfig(core.Options{BaseURL: deepseek.URL, MaxResults: 5})
	if err != nil {
		panic(err)
	}
	eng := core.NewEngine(core.Env{Now: func() int64 { return time.Now().UnixMilli() }})
	client := httpdriver.NewClient()
	ctx := context.Background()

	op := core.Operation{Kind: core.KindSearch, Query: "go docs", Config: cfg, APIKey: "sk-example"}
	if step := httpdriver.Run(ctx, client, eng, op); step.Err == nil {
		fmt.Println(step.Result.Search.Text())
	}
	op = core.Operation{Kind: core.KindFetch, URL: "https://go.dev/doc/", Config: cfg, APIKey: "sk-example"}
	if step := httpdriver.Run(ctx, client, eng, op); step.Err == nil {
		fmt.Println(step.Result.Fetch.Text)
	}
	// Output:
	// 1. Documentation
	// https://go.dev/doc/
	// The Go programming language documentation.
	// # Documentation
	//
	// Getting started: install Go.
}

// The sans-IO loop: the engine asks for requests, the host performs them and
// hands back replies. Here the "host" answers from a script.
func Example() {
	eng := core.NewEngine(core.Env{
		Now:    func() int64 { return time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC).UnixMilli() },
		Random: func() float64 { return 0.5 },
	})
	cfg, warnings, err := core.NewConfig(core.Options{MaxResults: 5, MinRerank: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println("warnings:", len(warnings))

	replies := []core.Reply{
		{Kind: core.ReplyResponse, Status: 503, Body: []byte(`{"error":{"message":"busy"}}`),
			Header: []core.HeaderField{{Name: "Retry-After", Value: "2"}}},
		{Kind: core.ReplyResponse, Status: 200, Body: []byte(`{"results":[
			{"url":"https://go.dev/blog/go1.26","title":"Go 1.26 is released","summary":"The Go team is happy to announce Go 1.26.",
			 "rerank_score":2.13,"authority":4,"date":"2026-02-10T00:00:00Z","site_name":"The Go Blog"},
			{"url":"https://go.dev/blog/go1.26#notes","title":"duplicate"},
			{"url":"https://example.com/low","title":"low score","rerank_score":0.4}]}`)},
	}
	step := eng.Start(core.Operation{Kind: core.KindSearch, Query: "go 1.26 release", Config: cfg, APIKey: "sk-example"})
	for i := 0; !step.Done; i++ {
		fmt.Printf("attempt %d: %s %s after %d ms\n", step.Request.Attempt, step.Request.Method, step.Request.URL, step.Request.DelayMs)
		step = eng.Resume(step.Handle, replies[i])
	}
	if step.Err != nil {
		fmt.Println("error:", step.Err)
		return
	}
	fmt.Println(step.Result.Search.Text())
	// Output:
	// warnings: 0
	// attempt 1: POST https://api.deepseek.com/v1/tools/search after 0 ms
	// attempt 2: POST https://api.deepseek.com/v1/tools/search after 2000 ms
	// 1. Go 1.26 is released
	// https://go.dev/blog/go1.26
	// [rerank 2.1 · authority 4 · The Go Blog] · published 2026-02-10
	// The Go team is happy to announce Go 1.26.
}

func ExampleNewEngine() {
	eng := core.NewEngine(core.Env{}) // the zero Env: no clock, no jitter
	step := eng.Start(core.Operation{Kind: core.KindFetch, URL: "https://go.dev/doc/", APIKey: "sk-example"})
	fmt.Println(step.Done, step.Request.URL, string(step.Request.Body))
	fmt.Println("in flight:", eng.InFlight())
	step = eng.Cancel(step.Handle)
	fmt.Println(step.Err, "/ in flight:", eng.InFlight())
	// Output:
	// false https://api.deepseek.com/v1/tools/fetch {"url":"https://go.dev/doc/"}
	// in flight: 1
	// DeepSeek Fetch cancelled / in flight: 0
}

func ExampleEngine_Start() {
	eng := core.NewEngine(core.Env{})
	// No key: the step is already done, and no request was made.
	step := eng.Start(core.Operation{Kind: core.KindSearch, Query: "golang"})
	fmt.Println(step.Done, step.Request == nil)
	fmt.Println(step.Err)
	// Output:
	// true true
	// DeepSeek API key not found: set the DEEPSEEK_API_KEY environment variable
}

func ExampleEngine_Resume() {
	eng := core.NewEngine(core.Env{})
	step := eng.Start(core.Operation{Kind: core.KindSearch, Query: "golang", APIKey: "sk-example"})
	step = eng.Resume(step.Handle, core.Reply{
		Kind:   core.ReplyResponse,
		Status: 402,
		Body:   []byte(`{"error":{"message":"Insufficient Balance"}}`),
	})
	fmt.Println(step.Done, step.Err.Code, step.Err.Status)
	fmt.Println(step.Err)
	// Output:
	// true api 402
	// DeepSeek Search failed: HTTP 402: Insufficient Balance
}

func ExampleFormatFetch() {
	r := core.FormatFetch("Effective Go", "Go is a new language.\r\nThis document gives tips.", 0)
	fmt.Println(r.Text)
	fmt.Println(r.Chars, r.Truncated)

	r = core.FormatFetch("", "abcdefghij klmnopqrstuvwxyz", 25)
	fmt.Printf("%q %d %v\n", r.Text, r.Chars, r.Truncated)
	// Output:
	// # Effective Go
	//
	// Go is a new language.
	// This document gives tips.
	// 63 false
	// "abcde\n[content truncated]" 25 true
}

func ExampleBuildQuery() {
	cfg, _, err := core.NewConfig(core.Options{
		IncludeDomains: []string{"go.dev"},
		BlockedDomains: []string{"w3schools.com"},
		Language:       "zh,en",
	})
	if err != nil {
		panic(err)
	}
	q, err := core.BuildQuery("  generics after:2024-01-01 ", cfg)
	fmt.Println(q, err)
	_, err = core.BuildQuery("   ", cfg)
	fmt.Println(err)
	// Output:
	// generics after:2024-01-01 site:go.dev -site:w3schools.com lang:zh,en <nil>
	// DeepSeek Search: the query is empty
}
