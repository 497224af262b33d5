package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

// searchBody is a DeepSeek search response exercising SPEC §2.4–2.6:
// a duplicate (host case and fragment), results without a usable URL, a
// blocked-looking domain, unknown and missing authority, a bad date and a
// result with nothing but its URL.
const searchBody = `{"results": [
  {"url": "https://go.dev/doc/effective_go", "title": "Effective Go", "snippet": "ignored snippet",
   "summary": "Tips for   writing\n\tclear, idiomatic Go code.", "content": "FULL PAGE CONTENT",
   "rerank_score": 2.14, "authority": 3, "date": "2024-05-01T10:00:00Z", "site_name": "Go", "site_icon": "https://go.dev/favicon.ico"},
  {"url": "https://GO.DEV/doc/effective_go#introduction", "title": "Duplicate", "summary": "dup", "rerank_score": 3},
  {"url": "https://blog.example.org/post", "title": "A blog", "snippet": "Only a snippet.", "summary": "  ",
   "rerank_score": 1.2, "authority": -1},
  {"url": "ftp://files.example.org/x", "title": "FTP"},
  {"title": "No URL", "summary": "none"},
  {"url": "/relative/path", "title": "Relative"},
  {"url": "https://spam.example.com/x", "title": "Spam", "summary": "Spammy.", "rerank_score": 0.3, "authority": 1},
  {"url": "https://en.wikipedia.org/wiki/Go_(programming_language)", "title": "Go (programming language)",
   "summary": "Go is a programming language.", "authority": 4, "site_name": "Wikipedia", "date": "not a date"},
  {"url": "https://plain.example.net/"},
  "not an object"
]}`

func TestSearch(t *testing.T) {
	e := newEnv(t, reply(200, searchBody))
	s := e.search("  golang  ", nil)
	res := result[searchJSON](t, s)

	require.Equal(t, "golang", res.Query)
	require.Equal(t, strings.Join([]string{
		"1. Effective Go",
		"https://go.dev/doc/effective_go",
		"[rerank 2.1 · authority 3 · Go] · published 2024-05-01",
		"Tips for writing clear, idiomatic Go code.",
		"",
		"2. A blog",
		"https://blog.example.org/post",
		"[rerank 1.2 · authority unknown]",
		"Only a snippet.",
		"",
		"3. Spam",
		"https://spam.example.com/x",
		"[rerank 0.3 · authority 1]",
		"Spammy.",
		"",
		"4. Go (programming language)",
		"https://en.wikipedia.org/wiki/Go_(programming_language)",
		"[authority 4 · Wikipedia]",
		"Go is a programming language.",
		"",
		"5. https://plain.example.net/",
		"https://plain.example.net/",
	}, "\n"), res.Text)

	var urls, markers []string
	for _, h := range res.Results {
		urls = append(urls, h.URL)
		markers = append(markers, h.Marker)
		require.NotContains(t, h.Text, "FULL PAGE CONTENT")
	}
	require.Equal(t, []string{
		"https://go.dev/doc/effective_go",
		"https://blog.example.org/post",
		"https://spam.example.com/x",
		"https://en.wikipedia.org/wiki/Go_(programming_language)",
		"https://plain.example.net/",
	}, urls)
	require.Equal(t, []string{
		"[rerank 2.1 · authority 3 · Go]",
		"[rerank 1.2 · authority unknown]",
		"[rerank 0.3 · authority 1]",
		"[authority 4 · Wikipedia]",
		"",
	}, markers)
	first := res.Results[0]
	require.Equal(t, "Effective Go", first.Title)
	require.Equal(t, "Tips for writing clear, idiomatic Go code.", first.Text)
	require.Equal(t, "Go", first.Site)
	require.NotNil(t, first.Published)
	require.Equal(t, int64(1714557600000), *first.Published)
	require.Nil(t, res.Results[3].Published, "an unparsable date has no epoch")

	// The request DeepSeek received (SPEC §1, §2.3).
	reqs := e.srv.requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	require.Equal(t, "POST", r.Method)
	require.Equal(t, "/v1/tools/search", r.Path)
	require.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	require.Equal(t, "application/json", r.Header.Get("Accept"))
	require.Equal(t, "deepseek-web-retrieval/0.1.0", r.Header.Get("User-Agent"))
	require.JSONEq(t, `{"query":"golang","count":10,"need_content":false}`, string(r.Body))

	golden(t, "search", "A search through the module: the done step's result for searchBody (search_test.go).",
		[][2]string{{"result.json", indent(t, s.Result)}, {"text", res.Text}})
}

func TestSearchFilters(t *testing.T) {
	tests := []struct {
		name      string
		opts      []any
		wantQuery string
		wantURLs  []string
	}{
		{
			name:      "defaults",
			wantQuery: "golang",
			wantURLs:  []string{"go.dev", "blog.example.org", "spam.example.com", "en.wikipedia.org", "plain.example.net"},
		},
		{
			name:      "includeDomains keeps those domains and their subdomains",
			opts:      []any{"includeDomains", []string{"go.dev", "example.org"}},
			wantQuery: "golang site:go.dev site:example.org",
			wantURLs:  []string{"go.dev", "blog.example.org"},
		},
		{
			name:      "blockedDomains drops subdomains too",
			opts:      []any{"blockedDomains", []string{"example.com", "wikipedia.org"}},
			wantQuery: "golang -site:example.com -site:wikipedia.org",
			wantURLs:  []string{"go.dev", "blog.example.org", "plain.example.net"},
		},
		{
			name:      "operators in order with language",
			opts:      []any{"includeDomains", []string{"example.org", "example.com"}, "blockedDomains", []string{"spam.example.com"}, "language", "zh,en"},
			wantQuery: "golang site:example.org site:example.com -site:spam.example.com lang:zh,en",
			wantURLs:  []string{"blog.example.org"},
		},
		{
			name:      "minRerank drops low and missing scores",
			opts:      []any{"minRerank", 1.5},
			wantQuery: "golang",
			wantURLs:  []string{"go.dev"},
		},
		{
			name:      "minAuthority lets unknown authority pass by default",
			opts:      []any{"minAuthority", 3},
			wantQuery: "golang",
			wantURLs:  []string{"go.dev", "blog.example.org", "en.wikipedia.org", "plain.example.net"},
		},
		{
			name:      "minAuthority without unknown authority",
			opts:      []any{"minAuthority", 3, "allowUnknownAuthority", false},
			wantQuery: "golang",
			wantURLs:  []string{"go.dev", "en.wikipedia.org"},
		},
		{
			name:      "maxResults",
			opts:      []any{"maxResults", 2},
			wantQuery: "golang",
			wantURLs:  []string{"go.dev", "blog.example.org"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, reply(200, searchBody))
			res := result[searchJSON](t, e.search("golang", e.opts(tt.opts...)))
			var hosts []string
			for _, h := range res.Results {
				hosts = append(hosts, strings.SplitN(strings.TrimPrefix(h.URL, "https://"), "/", 2)[0])
			}
			require.Equal(t, tt.wantURLs, hosts)
			require.Equal(t, tt.wantQuery, res.Query)
			var body struct {
				Query string `json:"query"`
				Count int    `json:"count"`
			}
			require.NoError(t, json.Unmarshal(e.srv.requests()[0].Body, &body))
			require.Equal(t, tt.wantQuery, body.Query)
		})
	}
}

// SPEC §1: every result field may be missing or null; a null score or
// authority is a missing one, so it adds nothing to the marker.
func TestSearchNullFields(t *testing.T) {
	e := newEnv(t, reply(200, `{"results": [
	  {"url": "https://plain.example.net/", "title": null, "snippet": null, "summary": null, "rerank_score": null,
	   "authority": null, "date": null, "site_name": null, "site_icon": null, "content": null},
	  {"url": "https://a.example.net/", "title": "A", "rerank_score": null, "authority": null, "site_name": "A site"}
	]}`))
	res := result[searchJSON](t, e.search("golang", e.opts("minAuthority", 2)))
	require.Len(t, res.Results, 2, "null authority is unknown, which passes minAuthority by default")
	require.Nil(t, res.Results[0].Rerank)
	require.Nil(t, res.Results[0].Authority)
	require.Equal(t, "", res.Results[0].Marker)
	require.Equal(t, "[A site]", res.Results[1].Marker)
	require.Equal(t, "1. https://plain.example.net/\nhttps://plain.example.net/\n\n2. A\nhttps://a.example.net/\n[A site]", res.Text)
}

func TestSearchSummaryCut(t *testing.T) {
	e := newEnv(t, reply(200, searchBody))
	res := result[searchJSON](t, e.search("golang", e.opts("maxSummaryChars", 20)))
	require.Equal(t, "Tips for writing cl…", res.Results[0].Text)
	require.Equal(t, 20, len([]rune(res.Results[0].Text)))
}

func TestSearchEmpty(t *testing.T) {
	e := newEnv(t, reply(200, `{"results":[]}`))
	res := result[searchJSON](t, e.search("nothing at all", nil))
	require.Empty(t, res.Results)
	require.Equal(t, `No results found for "nothing at all".`, res.Text)
}

func TestSearchRequestFields(t *testing.T) {
	e := newEnv(t, reply(200, `{"results":[]}`))
	s := e.start(abi.KindSearch, abi.SearchInput{Query: "q", OriQuestion: "  what is   " + strings.Repeat("x", 200)},
		e.opts("maxResults", 50, "localization", "203.0.113.7"))
	e.run(s)
	var body map[string]any
	require.NoError(t, json.Unmarshal(e.srv.requests()[0].Body, &body))
	require.Equal(t, float64(50), body["count"])
	require.Equal(t, false, body["need_content"])
	require.Equal(t, "203.0.113.7", body["localization"])
	require.Equal(t, 128, len([]rune(body["ori_question"].(string))))
	require.True(t, strings.HasPrefix(body["ori_question"].(string), "what is   x"))

	// A blank question and an invalid localization are not sent.
	e = newEnv(t, reply(200, `{"results":[]}`))
	e.run(e.start(abi.KindSearch, abi.SearchInput{Query: "q", OriQuestion: "   "}, e.opts("localization", "not-an-ip")))
	body = nil
	require.NoError(t, json.Unmarshal(e.srv.requests()[0].Body, &body))
	require.NotContains(t, body, "ori_question")
	require.NotContains(t, body, "localization")
}

// Inputs refused before any request.
func TestSearchInvalidInput(t *testing.T) {
	long := strings.Repeat("a", 129)
	tests := []struct {
		name, query string
		opts        []any
		code, msg   string
	}{
		{"empty query", "   ", nil, "invalid_input", "DeepSeek Search: the query is empty"},
		{"query too long", long, nil, "invalid_input",
			"DeepSeek Search: the query is 129 characters long; DeepSeek accepts at most 128. Shorten the query"},
		{"too long with operators", strings.Repeat("é", 120), []any{"includeDomains", []string{"go.dev"}}, "invalid_input",
			"DeepSeek Search: the query is 132 characters long with the configured site:/lang: operators (120 without them); DeepSeek accepts at most 128. Shorten the query"},
		{"128 code points pass the length check", strings.Repeat("é", 128), nil, "", ""},
		{"invalid option", "q", []any{"maxResults", 100}, "invalid_input",
			`deepseek-web-retrieval: option "maxResults": want a whole number from 1 to 50, got 100`},
		{"http baseURL off loopback", "q", []any{"baseURL", "http://api.example.com"}, "invalid_input", ""},
		{"query carrying the key", "find " + testKey, nil, "invalid_input",
			"DeepSeek Search: the query contains the API key; it was not sent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, reply(200, `{"results":[]}`))
			steps := e.run(e.start(abi.KindSearch, abi.SearchInput{Query: tt.query}, e.opts(tt.opts...)))
			if tt.code == "" {
				require.Len(t, steps, 2)
				return
			}
			require.Equal(t, 1, len(steps), "no request may be made; got %s", steps[len(steps)-1].Raw)
			failure(t, steps[0].Step, tt.code, tt.msg)
			require.Empty(t, e.srv.requests())
		})
	}
}

func TestMissingKey(t *testing.T) {
	e := newEnv(t, reply(200, `{"results":[]}`))
	s := e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil)
	s.APIKey = ""
	steps := e.run(s)
	require.Len(t, steps, 1)
	failure(t, steps[0].Step, "missing_key", "DeepSeek API key not found: set the DEEPSEEK_API_KEY environment variable")

	s = e.start(abi.KindFetch, abi.FetchInput{URL: "https://example.com/"}, e.opts("apiKeyEnv", "MY_DEEPSEEK_KEY"))
	s.APIKey = "   "
	steps = e.run(s)
	failure(t, steps[0].Step, "missing_key", "DeepSeek API key not found: set the MY_DEEPSEEK_KEY environment variable")
	require.Empty(t, e.srv.requests())
}
