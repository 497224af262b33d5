package core_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func searchStep(query string, urls ...string) core.Step {
	r := &core.SearchResult{Query: query}
	for _, u := range urls {
		r.Hits = append(r.Hits, core.Hit{URL: u, Title: "T " + u, Text: "about " + u})
	}
	return core.Step{Done: true, Result: &core.Result{Search: r}}
}

// MergeSearches takes each query's first hit, then each one's second,
// leaves out a URL already listed, marks each hit with its query, and
// says which query failed.
func TestMergeSearches(t *testing.T) {
	failed := core.Step{Done: true, Err: &core.Error{Code: core.CodeAPI, Status: 500, Message: "DeepSeek Search failed: HTTP 500: boom"}}
	r, err := core.MergeSearches([]string{"go generics", "go errors", "go fuzz"}, []core.Step{
		searchStep("go generics", "https://a.example/", "https://b.example/", "https://c.example/"),
		searchStep("go errors", "https://b.example/", "https://d.example/"),
		failed,
	})
	require.Nil(t, err)
	require.Equal(t, "go generics | go errors | go fuzz", r.Search.Query)
	require.Equal(t, `1. T https://a.example/
https://a.example/
found by "go generics"
about https://a.example/

2. T https://b.example/
https://b.example/
found by "go errors"
about https://b.example/

3. T https://d.example/
https://d.example/
found by "go errors"
about https://d.example/

4. T https://c.example/
https://c.example/
found by "go generics"
about https://c.example/

The search for "go fuzz" failed: DeepSeek Search failed: HTTP 500: boom`, r.Search.Text())

	_, err = core.MergeSearches([]string{"a", "b"}, []core.Step{failed, failed})
	require.Equal(t, failed.Err, err, "all failed: the first error")
}

// JoinFetches puts each page under a line naming it, in order, a failed
// one's error in its place; all failing is the first error.
func TestJoinFetches(t *testing.T) {
	page := func(text string) core.Step {
		return core.Step{Done: true, Result: &core.Result{Fetch: &core.FetchResult{Text: text}}}
	}
	refused := core.Step{Done: true, Err: &core.Error{Code: core.CodeURLRefused, Message: "DeepSeek Fetch refused http://10.0.0.1/: a private address"}}
	text, err := core.JoinFetches([]string{"https://a.example/", "http://10.0.0.1/", "https://c.example/"}, []core.Step{page("# A\n\nalpha"), refused, page("# C\n\ngamma")})
	require.Nil(t, err)
	require.Equal(t, "=== Page 1 of 3: https://a.example/ ===\n\n# A\n\nalpha\n\n"+
		"=== Page 2 of 3: http://10.0.0.1/ ===\n\nDeepSeek Fetch refused http://10.0.0.1/: a private address\n\n"+
		"=== Page 3 of 3: https://c.example/ ===\n\n# C\n\ngamma", text)
	_, err = core.JoinFetches([]string{"http://10.0.0.1/"}, []core.Step{refused})
	require.Equal(t, refused.Err, err)
}

func TestBatchConfig(t *testing.T) {
	cfg, _, err := core.NewConfig(core.Options{FetchMaxChars: 50000})
	require.NoError(t, err)
	require.Same(t, cfg, core.BatchConfig(cfg, 1))
	require.Equal(t, 30000, core.BatchConfig(cfg, 2).FetchMaxChars)
	require.Equal(t, 12000, core.BatchConfig(cfg, 5).FetchMaxChars)
	require.Equal(t, 50000, cfg.FetchMaxChars, "the call's config is not changed")
}
