package core_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func TestSearchDropsInvalidURLs(t *testing.T) {
	body := resultsBody(t,
		item{URL: "https://ok.example/a"},
		item{},                             // missing
		item{URL: nil, Title: "no url"},    // missing
		item{URL: 42},                      // wrong type
		item{URL: "   "},                   // blank
		item{URL: "/relative/path"},        // relative
		item{URL: "//cdn.example/x"},       // scheme-relative
		item{URL: "ftp://files.example/x"}, // not http(s)
		item{URL: "javascript:alert(1)"},   // not http(s)
		item{URL: "mailto:a@b.example"},    // opaque
		item{URL: "http:opaque.example"},   // opaque http
		item{URL: "https://"},              // no host
		item{URL: "https://:443/x"},        // empty host name
		item{URL: "https://bad host/"},     // unparsable
		item{URL: "https://x/" + strings.Repeat("a", core.MaxURLChars)}, // too long
		item{URL: " HTTP://Ok.Example/b "},                              // upper-case scheme, trimmed
	)
	hits := searchHits(t, mustConfig(t, core.Options{}), body)
	require.Equal(t, []string{"https://ok.example/a", "HTTP://Ok.Example/b"}, hitURLs(hits))
}

func TestSearchNullFieldsInRawJSON(t *testing.T) {
	body := `{"results":[{"url":"https://a.example/","title":null,"snippet":null,"summary":null,"content":null,"rerank_score":null,"authority":null,"date":null,"site_name":null,"site_icon":null}]}`
	hits := searchHits(t, mustConfig(t, core.Options{}), body)
	require.Equal(t, []core.Hit{{URL: "https://a.example/"}}, hits)
	require.Equal(t, "", hits[0].Marker())
	// null authority is unknown, not 0: it passes minAuthority when unknown is allowed.
	hits = searchHits(t, mustConfig(t, core.Options{MinAuthority: 2}), body)
	require.Len(t, hits, 1)
	hits = searchHits(t, mustConfig(t, core.Options{MinAuthority: 2, AllowUnknownAuthority: boolPtr(false)}), body)
	require.Empty(t, hits)
}

func TestSearchWrongTypedFields(t *testing.T) {
	body := `{"results":[{"url":"https://a.example/","title":7,"snippet":["x"],"summary":{},"rerank_score":true,"authority":"high","date":20240101,"site_name":[]}]}`
	hits := searchHits(t, mustConfig(t, core.Options{}), body)
	require.Equal(t, []core.Hit{{URL: "https://a.example/"}}, hits)
}

func TestSearchNumbersAsStrings(t *testing.T) {
	body := `{"results":[{"url":"https://a.example/","rerank_score":"2.14","authority":"3"}]}`
	hits := searchHits(t, mustConfig(t, core.Options{}), body)
	require.Len(t, hits, 1)
	require.Equal(t, "[rerank 2.1 · authority 3]", hits[0].Marker())
}

func TestSearchDeduplicates(t *testing.T) {
	body := resultsBody(t,
		item{URL: "https://Go.Dev/doc#intro", Title: "first"},
		item{URL: "https://go.dev/doc", Title: "same without fragment"},
		item{URL: "HTTPS://GO.DEV/doc#other", Title: "same, upper-case scheme and host"},
		item{URL: "https://go.dev/Doc", Title: "path case differs"},
		item{URL: "http://go.dev/doc", Title: "scheme differs"},
		item{URL: "https://go.dev/doc?x=1", Title: "query differs"},
		item{URL: "https://go.dev/doc?x=1#f", Title: "same query, fragment"},
	)
	hits := searchHits(t, mustConfig(t, core.Options{}), body)
	require.Equal(t, []string{"https://Go.Dev/doc#intro", "https://go.dev/Doc", "http://go.dev/doc", "https://go.dev/doc?x=1"}, hitURLs(hits))
	require.Equal(t, "first", hits[0].Title)
}

func TestSearchDomainFilters(t *testing.T) {
	body := resultsBody(t,
		item{URL: "https://go.dev/a"},
		item{URL: "https://pkg.go.dev/b"},
		item{URL: "https://spam.example/c"},
		item{URL: "https://www.spam.example/d"},
		item{URL: "https://notspam.example/e"},
		item{URL: "https://GO.DEV./f"},
		item{URL: "https://golang.org/g"},
	)
	tests := []struct {
		name string
		opts core.Options
		want []string
	}{
		{"none", core.Options{}, []string{"https://go.dev/a", "https://pkg.go.dev/b", "https://spam.example/c", "https://www.spam.example/d", "https://notspam.example/e", "https://GO.DEV./f", "https://golang.org/g"}},
		{"blocked with subdomains", core.Options{BlockedDomains: []string{"spam.example"}}, []string{"https://go.dev/a", "https://pkg.go.dev/b", "https://notspam.example/e", "https://GO.DEV./f", "https://golang.org/g"}},
		{"include", core.Options{IncludeDomains: []string{"go.dev"}}, []string{"https://go.dev/a", "https://pkg.go.dev/b", "https://GO.DEV./f"}},
		{"include two", core.Options{IncludeDomains: []string{"golang.org", "notspam.example"}}, []string{"https://notspam.example/e", "https://golang.org/g"}},
		{"blocked wins over include", core.Options{IncludeDomains: []string{"go.dev"}, BlockedDomains: []string{"pkg.go.dev"}}, []string{"https://go.dev/a", "https://GO.DEV./f"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := searchHits(t, mustConfig(t, tt.opts), body)
			require.Equal(t, tt.want, hitURLs(hits))
		})
	}
}

func TestSearchThresholds(t *testing.T) {
	body := resultsBody(t,
		item{URL: "https://a.example/r3-a4", Rerank: 3, Authority: 4},
		item{URL: "https://a.example/r1.5-a3", Rerank: 1.5, Authority: 3},
		item{URL: "https://a.example/r1.49-a2", Rerank: 1.49, Authority: 2},
		item{URL: "https://a.example/r0-a0", Rerank: 0, Authority: 0},
		item{URL: "https://a.example/r2-unknown", Rerank: 2, Authority: -1},
		item{URL: "https://a.example/r2-missing", Rerank: 2},
		item{URL: "https://a.example/norerank-a4", Authority: 4},
	)
	all := []string{"r3-a4", "r1.5-a3", "r1.49-a2", "r0-a0", "r2-unknown", "r2-missing", "norerank-a4"}
	tests := []struct {
		name string
		opts core.Options
		want []string
	}{
		{"defaults keep all", core.Options{}, all},
		{"minRerank 1.5", core.Options{MinRerank: 1.5}, []string{"r3-a4", "r1.5-a3", "r2-unknown", "r2-missing"}},
		{"minAuthority 3 allows unknown", core.Options{MinAuthority: 3}, []string{"r3-a4", "r1.5-a3", "r2-unknown", "r2-missing", "norerank-a4"}},
		{"minAuthority 3 refuses unknown", core.Options{MinAuthority: 3, AllowUnknownAuthority: boolPtr(false)}, []string{"r3-a4", "r1.5-a3", "norerank-a4"}},
		{"allowUnknownAuthority false alone changes nothing", core.Options{AllowUnknownAuthority: boolPtr(false)}, all},
		{"both", core.Options{MinRerank: 2, MinAuthority: 4, AllowUnknownAuthority: boolPtr(false)}, []string{"r3-a4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := searchHits(t, mustConfig(t, tt.opts), body)
			var got []string
			for _, h := range hits {
				got = append(got, strings.TrimPrefix(h.URL, "https://a.example/"))
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestSearchMaxResults(t *testing.T) {
	var items []item
	for i := range 60 {
		items = append(items, item{URL: fmt.Sprintf("https://a.example/%d", i)})
	}
	body := resultsBody(t, items...)
	require.Len(t, searchHits(t, mustConfig(t, core.Options{}), body), 10)
	require.Len(t, searchHits(t, mustConfig(t, core.Options{MaxResults: 50}), body), 50)
	hits := searchHits(t, mustConfig(t, core.Options{MaxResults: 3}), body)
	require.Equal(t, []string{"https://a.example/0", "https://a.example/1", "https://a.example/2"}, hitURLs(hits))

	// The cap counts kept results, after filtering.
	items = []item{{URL: "https://x.example/0", Rerank: 0.1}, {URL: "https://x.example/1", Rerank: 2}, {URL: "https://x.example/2", Rerank: 2}, {URL: "https://x.example/3", Rerank: 2}}
	hits = searchHits(t, mustConfig(t, core.Options{MaxResults: 2, MinRerank: 1}), resultsBody(t, items...))
	require.Equal(t, []string{"https://x.example/1", "https://x.example/2"}, hitURLs(hits))
}

func TestSearchCountIsMaxResults(t *testing.T) {
	e := core.NewEngine(testEnv())
	s := e.Start(core.Operation{Kind: core.KindSearch, Query: "q", Config: mustConfig(t, core.Options{MaxResults: 37}), APIKey: testKey})
	require.JSONEq(t, `{"query":"q","count":37,"need_content":false}`, string(s.Request.Body))
	e.Cancel(s.Handle)
}

func TestSearchText(t *testing.T) {
	long := strings.Repeat("word ", 400) // 2000 code points
	tests := []struct {
		name string
		it   item
		opts core.Options
		want string
	}{
		{"summary preferred", item{Summary: "the summary", Snippet: "the snippet"}, core.Options{}, "the summary"},
		{"snippet when summary missing", item{Snippet: "the snippet"}, core.Options{}, "the snippet"},
		{"snippet when summary blank", item{Summary: " \n\t", Snippet: "the snippet"}, core.Options{}, "the snippet"},
		{"snippet when summary wrong type", item{Summary: 5, Snippet: "the snippet"}, core.Options{}, "the snippet"},
		{"neither", item{Title: "t"}, core.Options{}, ""},
		{"white space collapsed", item{Summary: "  a\n\n b\t\tc \u00a0 d\r\n"}, core.Options{}, "a b c d"},
		{"content never used", item{Content: "full page", Snippet: "snip"}, core.Options{}, "snip"},
		{"exactly the limit kept", item{Summary: strings.Repeat("é", 20)}, core.Options{MaxSummaryChars: 20}, strings.Repeat("é", 20)},
		{"cut with ellipsis inside the limit", item{Summary: strings.Repeat("é", 21)}, core.Options{MaxSummaryChars: 20}, strings.Repeat("é", 19) + "…"},
		{"cut CJK", item{Summary: strings.Repeat("语", 30)}, core.Options{MaxSummaryChars: 20}, strings.Repeat("语", 19) + "…"},
		{"cut emoji", item{Summary: strings.Repeat("😀", 30)}, core.Options{MaxSummaryChars: 20}, strings.Repeat("😀", 19) + "…"},
		{"no space before ellipsis", item{Summary: "aaaaaaaaaaaaaaaaaa bbbbbb"}, core.Options{MaxSummaryChars: 20}, "aaaaaaaaaaaaaaaaaa…"},
		{"default limit 1200", item{Summary: long}, core.Options{}, strings.TrimSpace(long[:1199]) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.it.URL = "https://a.example/"
			hits := searchHits(t, mustConfig(t, tt.opts), resultsBody(t, tt.it))
			require.Len(t, hits, 1)
			require.Equal(t, tt.want, hits[0].Text)
			max := tt.opts.MaxSummaryChars
			if max == 0 {
				max = core.DefaultMaxSummaryChars
			}
			require.LessOrEqual(t, utf8.RuneCountInString(hits[0].Text), max)
		})
	}
}

func TestSearchHitFields(t *testing.T) {
	body := resultsBody(t, item{
		URL: "  https://go.dev/blog/  ", Title: " The Go\n Blog ", Summary: "s", Rerank: 2.1, Authority: 3,
		Date: " 2024-05-01T10:20:30+02:00 ", SiteName: "  Go  Site ",
	})
	hits := searchHits(t, mustConfig(t, core.Options{}), body)
	require.Len(t, hits, 1)
	h := hits[0]
	require.Equal(t, "https://go.dev/blog/", h.URL)
	require.Equal(t, "The Go Blog", h.Title)
	require.Equal(t, "Go Site", h.Site)
	require.Equal(t, "2024-05-01T10:20:30+02:00", h.Date)
	require.Equal(t, 2.1, *h.Rerank)
	require.Equal(t, 3.0, *h.Authority)
	ms, ok := h.PublishedMs()
	require.True(t, ok)
	require.Equal(t, time.Date(2024, 5, 1, 8, 20, 30, 0, time.UTC).UnixMilli(), ms)
	require.Equal(t, int64(1714551630000), ms)
}

func TestSearchPublishedDate(t *testing.T) {
	tests := []struct {
		date string
		want int64 // epoch ms; 0 = does not parse
	}{
		{"2024-05-01T00:00:00Z", 1714521600000},
		{"2024-05-01T00:00:00.123Z", 1714521600123},
		{"2024-05-01T08:00:00+08:00", 1714521600000},
		{"2024-05-01T00:00:00", 1714521600000},
		{"2024-05-01 00:00:00", 1714521600000},
		{"2024-05-01 08:00:00+08:00", 1714521600000},
		{"2024-05-01", 1714521600000},
		{"yesterday", 0},
		{"01/05/2024", 0},
		{"", 0},
	}
	for _, tt := range tests {
		t.Run(tt.date, func(t *testing.T) {
			hits := searchHits(t, mustConfig(t, core.Options{}), resultsBody(t, item{URL: "https://a.example/", Date: tt.date}))
			require.Len(t, hits, 1)
			ms, ok := hits[0].PublishedMs()
			require.Equal(t, tt.want != 0, ok)
			require.Equal(t, tt.want, ms)
			require.Equal(t, tt.date, hits[0].Date)
		})
	}
}

func TestSearchEmptyIsSuccess(t *testing.T) {
	for _, body := range []string{`{"results":[]}`, `{}`, `{"results":null}`, `{"results":[{"title":"no url"}]}`, `{"results":[1,2]}`} {
		t.Run(body, func(t *testing.T) {
			s := search(t, mustConfig(t, core.Options{}), " go ", okReply(body))
			require.Nil(t, s.Err)
			require.Equal(t, &core.SearchResult{Query: "go", Hits: []core.Hit{}}, s.Result.Search)
			require.Equal(t, `No results found for "go".`, s.Result.Search.Text())
		})
	}
}

// A body that cannot be used is described in words a user can act on,
// with its first bytes, never with a JSON parser's internals.
func TestSearchMalformed(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{``, `DeepSeek Search failed: DeepSeek returned an empty response`},
		{" \n ", `DeepSeek Search failed: DeepSeek returned an empty response`},
		{`[]`, `DeepSeek Search failed: DeepSeek returned JSON that is not an object (first bytes: [])`},
		{"<html>\n<title>502 Bad Gateway</title>", `DeepSeek Search failed: DeepSeek returned a response that is not JSON (first bytes: <html> <title>502 Bad Gateway</title>)`},
		{`{"results":{}}`, `DeepSeek Search failed: DeepSeek returned "results" that is not a list (first bytes: {"results":{}})`},
		{`{"results":"x"}`, `DeepSeek Search failed: DeepSeek returned "results" that is not a list (first bytes: {"results":"x"})`},
		{`{"results":[`, `DeepSeek Search failed: DeepSeek returned JSON that breaks off after 12 bytes (the response was cut short; try again) (first bytes: {"results":[)`},
		{`null`, `DeepSeek Search failed: DeepSeek returned JSON that is not an object (first bytes: null)`},
		{`nul`, `DeepSeek Search failed: DeepSeek returned a response that is not JSON (first bytes: nul)`},
		{`[1,`, `DeepSeek Search failed: DeepSeek returned JSON that breaks off after 3 bytes (the response was cut short; try again) (first bytes: [1,)`},
		{`{"results":[]} x`, `DeepSeek Search failed: DeepSeek returned invalid JSON (at byte 16 of 16) (first bytes: {"results":[]} x)`},
		{`{"a":` + strings.Repeat("1", 100) + `x}`, `DeepSeek Search failed: DeepSeek returned invalid JSON (at byte 106 of 107) (first bytes: {"a":` + strings.Repeat("1", 55) + `…)`},
		{`{"results":[` + strings.Repeat(`{},`, 200) + `{}]}`, `DeepSeek Search failed: DeepSeek returned more than 200 results (it sends at most 50), so the response was not used`},
	} {
		t.Run(tt.body, func(t *testing.T) {
			s := search(t, mustConfig(t, core.Options{}), "go", okReply(tt.body))
			require.Nil(t, s.Result)
			require.ErrorIs(t, s.Err, core.ErrMalformed)
			require.EqualError(t, s.Err, tt.want)
		})
	}
	t.Run("a baseURL that is not DeepSeek is named", func(t *testing.T) {
		s := search(t, mustConfig(t, core.Options{BaseURL: "https://proxy.example/ds"}), "go", okReply(`<html>login</html>`))
		require.EqualError(t, s.Err, `DeepSeek Search failed: DeepSeek returned a response that is not JSON (first bytes: <html>login</html>); check that baseURL "https://proxy.example/ds" is DeepSeek's API`)
	})
	t.Run("the excerpt masks the key before it is cut", func(t *testing.T) {
		for off := 0; off <= 70; off++ {
			body := "<" + strings.Repeat("#", off) + testKey + strings.Repeat("#", 80)
			s := search(t, mustConfig(t, core.Options{}), "go", okReply(body))
			require.ErrorIs(t, s.Err, core.ErrMalformed)
			assertNoKeyPart(t, s.Err.Message)
		}
	})
}

func TestSearchResultQueryIsFinal(t *testing.T) {
	s := search(t, mustConfig(t, core.Options{IncludeDomains: []string{"go.dev"}}), " generics ", okReply(`{"results":[]}`))
	require.Equal(t, "generics site:go.dev", s.Result.Search.Query)
}

// Result hosts are compared in the form domain list entries are normalized
// to (WHATWG host parsing): Unicode names as Punycode, full-width dots,
// numeric IPv4 spellings (134744072 is 8.8.8.8).
func TestSearchDomainFiltersCanonicalHosts(t *testing.T) {
	body := resultsBody(t,
		item{URL: "https://www.BÜCHER.example/a"},
		item{URL: "https://xn--bcher-kva.example/b"},
		item{URL: "https://spam。example/c"},
		item{URL: "https://134744072/d"},
		item{URL: "https://[2606:4700::1111]:8443/e"},
		item{URL: "https://ok.example/f"},
	)
	tests := []struct {
		name string
		opts core.Options
		want []string
	}{
		{"blocked Unicode name", core.Options{BlockedDomains: []string{"bücher.example"}},
			[]string{"https://spam。example/c", "https://134744072/d", "https://[2606:4700::1111]:8443/e", "https://ok.example/f"}},
		{"blocked Punycode name", core.Options{BlockedDomains: []string{"xn--bcher-kva.example"}},
			[]string{"https://spam。example/c", "https://134744072/d", "https://[2606:4700::1111]:8443/e", "https://ok.example/f"}},
		{"blocked full-width dot", core.Options{BlockedDomains: []string{"spam.example"}},
			[]string{"https://www.BÜCHER.example/a", "https://xn--bcher-kva.example/b", "https://134744072/d", "https://[2606:4700::1111]:8443/e", "https://ok.example/f"}},
		{"blocked addresses", core.Options{BlockedDomains: []string{"8.8.8.8", "2606:4700::1111"}},
			[]string{"https://www.BÜCHER.example/a", "https://xn--bcher-kva.example/b", "https://spam。example/c", "https://ok.example/f"}},
		{"include Unicode name", core.Options{IncludeDomains: []string{"BÜCHER.example"}},
			[]string{"https://www.BÜCHER.example/a", "https://xn--bcher-kva.example/b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := searchHits(t, mustConfig(t, tt.opts), body)
			require.Equal(t, tt.want, hitURLs(hits))
		})
	}
}
