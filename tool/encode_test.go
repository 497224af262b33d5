package tool

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func config(t testing.TB, options string) *core.Config {
	o, _, err := core.ParseOptions([]byte(options))
	require.NoError(t, err, options)
	cfg, _, err := core.NewConfig(o)
	require.NoError(t, err, options)
	return cfg
}

// The schemas and descriptions are, for every tier and backend, what the
// encoding/json and fmt code wrote.
func TestSchemasAndDescriptions(t *testing.T) {
	tiers := []string{"off", "optional", "preferred", "forced"}
	extras := []string{``, `,"cacheTTL":0`, `,"maxResults":5,"fetchMaxChars":5000,"cacheTTL":7`,
		`,"searchBackend":"messages","messagesMaxUses":3`}
	require.Equal(t, string(refFetchSchema()), string(FetchSchema()))
	for _, search := range tiers {
		for _, fetch := range tiers {
			for _, extra := range extras {
				options := `{"search":"` + search + `","fetch":"` + fetch + `"` + extra + `}`
				t.Run(options, func(t *testing.T) {
					cfg := config(t, options)
					require.Equal(t, string(refSearchSchema(cfg)), string(SearchSchema(cfg)))
					for _, builtin := range []string{"websearch", "the host's built-in web search tool"} {
						require.Equal(t, refSearchDescription(cfg, builtin), SearchDescription(cfg, builtin))
						require.Equal(t, refFetchDescription(cfg, builtin), FetchDescription(cfg, builtin))
					}
				})
			}
		}
	}
}

func TestOutputOf(t *testing.T) {
	usage := &core.Usage{InputTokens: 7, Requests: 1}
	for _, tt := range []struct {
		name   string
		result core.Result
		want   Output
	}{
		{"fetch, cut", core.Result{Fetch: &core.FetchResult{URL: "https://go.dev/", Title: "Go", Text: "# Go", Chars: 4, Truncated: true, Offset: 0, NextOffset: 4, TotalChars: 9}},
			Output{Content: "# Go", Title: "deepseek_fetch go.dev", Metadata: FetchMetadata{URL: "https://go.dev/", Title: "Go", Chars: 4, ContentTruncated: true, NextOffset: 4, TotalChars: 9}}},
		{"fetch, cached last part", core.Result{Fetch: &core.FetchResult{URL: "http://a.example/x", Text: "b", Chars: 1, Offset: 8, TotalChars: 9, Cached: true}},
			Output{Content: "b", Title: "deepseek_fetch a.example/x", Metadata: FetchMetadata{URL: "http://a.example/x", Chars: 1, Offset: 8, TotalChars: 9, Cached: true}}},
		{"search, no hits", core.Result{Search: &core.SearchResult{Query: "golang", Hits: []core.Hit{}, Usage: usage}},
			Output{Content: (&core.SearchResult{Query: "golang"}).Text(), Title: "deepseek_search golang", Metadata: SearchMetadata{Query: "golang", Usage: usage}}},
		{"search, two hits", core.Result{Search: &core.SearchResult{Query: "go\ngenerics", Hits: []core.Hit{{URL: "https://a/", Title: "A"}, {URL: "https://b/"}}, Cached: true}},
			Output{Content: (&core.SearchResult{Query: "go\ngenerics", Hits: []core.Hit{{URL: "https://a/", Title: "A"}, {URL: "https://b/"}}}).Text(), Title: "deepseek_search go generics",
				Metadata: SearchMetadata{Query: "go\ngenerics", Results: 2, Cached: true}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, OutputOf(&tt.result))
		})
	}
}

func FuzzOutputJSON(f *testing.F) {
	f.Add("# page <&>\n\u2028", "deepseek_fetch example.com", "https://e.x/?a&b", "Title", 16000, 32000, int64(7), 0)
	f.Add("", "", "", "", 0, 0, int64(0), 3)
	f.Fuzz(func(t *testing.T, content, title, url, pageTitle string, chars, next int, tokens int64, shape int) {
		r := Output{Content: content, Title: title}
		switch shape % 5 {
		case 4, -4:
			r.Metadata = PagesMetadata{URLs: []string{url, pageTitle}, Failed: chars, Cached: next%2 == 0}
		case 1, -1:
			r.Metadata = FetchMetadata{URL: url, Title: pageTitle, Chars: chars, ContentTruncated: next > 0, Offset: chars - next, NextOffset: next, TotalChars: chars + next, Cached: tokens%2 == 0}
		case 2, -2:
			r.Metadata = SearchMetadata{Query: url, Results: chars, Cached: next%2 == 0}
		case 3, -3:
			r.Metadata = SearchMetadata{Query: pageTitle, Results: next, Usage: &core.Usage{InputTokens: tokens, OutputTokens: int64(chars), Requests: next}}
		}
		want, err := json.Marshal(r)
		require.NoError(t, err)
		require.Equal(t, string(want), string(r.AppendJSON(nil)))
	})
}

// Join merges a batch's searches and joins its pages, each failure in its
// place; it fails only when every part did.
func TestJoin(t *testing.T) {
	search := func(q string, urls ...string) core.Step {
		r := &core.SearchResult{Query: q, Cached: true}
		for _, u := range urls {
			r.Hits = append(r.Hits, core.Hit{URL: u, Title: u})
		}
		return core.Step{Done: true, Result: &core.Result{Search: r}}
	}
	page := func(url, text string, cached bool) core.Step {
		return core.Step{Done: true, Result: &core.Result{Fetch: &core.FetchResult{URL: url, Text: text, Cached: cached}}}
	}
	failed := core.Step{Done: true, Err: &core.Error{Code: core.CodeInvalidInput, Message: "refused"}}
	queries := []core.Operation{{Kind: core.KindSearch, Query: "go"}, {Kind: core.KindSearch, Query: "rust"}}
	pages := []core.Operation{{Kind: core.KindFetch, URL: "https://a.example/"}, {Kind: core.KindFetch, URL: "https://b.example/"}}

	out, err := Join(queries, []core.Step{search("go", "https://go.dev/", "https://x/"), search("rust", "https://x/", "https://rust-lang.org/")})
	require.Nil(t, err)
	require.Equal(t, "deepseek_search go | rust", out.Title)
	require.Equal(t, SearchMetadata{Query: "go | rust", Results: 3, Cached: true}, out.Metadata)
	require.Contains(t, out.Content, `found by "rust"`)

	out, err = Join(pages, []core.Step{page("https://a.example/", "# A", true), failed})
	require.Nil(t, err)
	require.Equal(t, "=== Page 1 of 2: https://a.example/ ===\n\n# A\n\n=== Page 2 of 2: https://b.example/ ===\n\nrefused", out.Content)
	require.Equal(t, "deepseek_fetch a.example, b.example", out.Title)
	require.Equal(t, PagesMetadata{URLs: []string{"https://a.example/", "https://b.example/"}, Failed: 1, Cached: true}, out.Metadata)

	_, err = Join(pages, []core.Step{failed, failed})
	require.Equal(t, failed.Err, err)
}
