package tool_test

import (
	"fmt"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tool"
)

// A host adapter validates a tool call's raw input with ParseBatch: one
// operation per query or page, and a sentence naming what is wrong.
func ExampleParseBatch() {
	cfg, _, err := core.NewConfig(core.Options{})
	if err != nil {
		panic(err)
	}
	for _, args := range []string{
		`{"query": "go generics"}`,
		`{"queries": ["go generics", "rust traits", "go generics"]}`,
		`{"url": "", "urls": ["https://go.dev/", "https://rust-lang.org/"], "offset": 0}`,
		`{"query": "go", "queries": ["rust"]}`,
	} {
		name := tool.SearchName
		if args[2] == 'u' {
			name = tool.FetchName
		}
		ops, err := tool.ParseBatch(name, []byte(args), cfg)
		if err != nil {
			fmt.Println("refused:", err)
			continue
		}
		var parts []string
		for _, op := range ops {
			parts = append(parts, fmt.Sprintf("%s %q", op.Kind, op.Query+op.URL))
		}
		fmt.Println(strings.Join(parts, ", "))
	}
	// Output:
	// search "go generics"
	// search "go generics", search "rust traits"
	// fetch "https://go.dev/", fetch "https://rust-lang.org/"
	// refused: deepseek_search: give "query" or "queries", not both
}

// Join is the one output of a call of several pages: each page under a
// line naming it, a failed one with its sentence in its place.
func ExampleJoin() {
	ops := []core.Operation{{Kind: core.KindFetch, URL: "https://go.dev/"}, {Kind: core.KindFetch, URL: "http://10.0.0.1/"}}
	steps := []core.Step{
		{Done: true, Result: &core.Result{Fetch: &core.FetchResult{URL: "https://go.dev/", Text: "# The Go Programming Language"}}},
		{Done: true, Err: &core.Error{Code: core.CodeURLRefused, Message: "DeepSeek Fetch: url refused: 10.0.0.1 is a private address"}},
	}
	out, err := tool.Join(ops, steps)
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Title)
	fmt.Println(out.Content)
	// Output:
	// deepseek_fetch go.dev, 10.0.0.1
	// === Page 1 of 2: https://go.dev/ ===
	//
	// # The Go Programming Language
	//
	// === Page 2 of 2: http://10.0.0.1/ ===
	//
	// DeepSeek Fetch: url refused: 10.0.0.1 is a private address
}
