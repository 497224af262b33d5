package core_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func TestFormatFetch(t *testing.T) {
	tests := []struct {
		name, title, content string
		max                  int
		want                 string
		truncated            bool
		next, total          int // 0 total: the length of want
	}{
		{name: "title heading added", title: "Go", content: "Body text.", max: 1000, want: "# Go\n\nBody text."},
		{name: "empty title", title: "", content: "Body text.", max: 1000, want: "Body text."},
		{name: "blank title", title: " \n ", content: "Body text.", max: 1000, want: "Body text."},
		{name: "title collapsed", title: " The\n Go  Blog ", content: "x", max: 1000, want: "# The Go Blog\n\nx"},
		{name: "existing heading kept", title: "Go", content: "# Go\n\nBody.", max: 1000, want: "# Go\n\nBody."},
		{name: "existing heading case-insensitive", title: "The Go Blog", content: "#   the go BLOG  \nBody.", max: 1000, want: "#   the go BLOG  \nBody."},
		{name: "existing heading after blank lines", title: "Go", content: "\n\n  \n# Go\nBody.", max: 1000, want: "  \n# Go\nBody."},
		{name: "level-2 heading is not the title", title: "Go", content: "## Go\nBody.", max: 1000, want: "# Go\n\n## Go\nBody."},
		{name: "other heading", title: "Go", content: "# Rust\nBody.", max: 1000, want: "# Go\n\n# Rust\nBody."},
		{name: "heading not first line", title: "Go", content: "intro\n# Go", max: 1000, want: "# Go\n\nintro\n# Go"},
		{name: "CRLF normalised", title: "T", content: "a\r\nb\r\n\r\nc\r\n", max: 1000, want: "# T\n\na\nb\n\nc"},
		{name: "CRLF heading recognised", title: "T", content: "# T\r\nbody", max: 1000, want: "# T\nbody"},
		{name: "trailing white space trimmed", title: "", content: "body \n\n\t ", max: 1000, want: "body"},
		{name: "exactly the limit", title: "", content: strings.Repeat("a", 200), max: 200, want: strings.Repeat("a", 200)},
		{name: "title counts toward the limit", title: "T", content: strings.Repeat("a", 195), max: 200, want: "# T\n\n" + strings.Repeat("a", 195)},
		// The continue line counts inside the limit, measured at its longest
		// (end = offset + limit): here 98 code points, so 200 keeps 101.
		{name: "cut with continue line inside the limit", title: "T", content: strings.Repeat("a", 196), max: 200,
			want: "# T\n\n" + strings.Repeat("a", 96) + "\n[content truncated: showing 0–101 of 201 characters; call deepseek_fetch with offset 101 for more]", truncated: true, next: 101, total: 201},
		{name: "cut trims white space before the line", title: "", content: strings.Repeat("a", 95) + "          " + strings.Repeat("b", 100), max: 200,
			want: strings.Repeat("a", 95) + "\n[content truncated: showing 0–101 of 205 characters; call deepseek_fetch with offset 101 for more]", truncated: true, next: 101, total: 205},
		{name: "cut CJK never splits", title: "", content: strings.Repeat("语", 300), max: 200,
			want: strings.Repeat("语", 101) + "\n[content truncated: showing 0–101 of 300 characters; call deepseek_fetch with offset 101 for more]", truncated: true, next: 101, total: 300},
		{name: "cut astral (surrogate pairs in UTF-16) never splits", title: "", content: strings.Repeat("😀", 300), max: 200,
			want: strings.Repeat("😀", 101) + "\n[content truncated: showing 0–101 of 300 characters; call deepseek_fetch with offset 101 for more]", truncated: true, next: 101, total: 300},
		{name: "multi-byte at the boundary", title: "", content: strings.Repeat("a", 100) + "é😀语" + strings.Repeat("z", 150), max: 200,
			want: strings.Repeat("a", 100) + "é\n[content truncated: showing 0–101 of 253 characters; call deepseek_fetch with offset 101 for more]", truncated: true, next: 101, total: 253},
		{name: "combining mark stays with its letter", title: "", content: strings.Repeat("a", 100) + "e\u0301" + strings.Repeat("z", 150), max: 200,
			want: strings.Repeat("a", 100) + "\n[content truncated: showing 0–100 of 252 characters; call deepseek_fetch with offset 100 for more]", truncated: true, next: 100, total: 252},
		{name: "zero-width joiner sequence stays whole", title: "", content: strings.Repeat("a", 99) + "👩\u200d💻" + strings.Repeat("z", 150), max: 200,
			want: strings.Repeat("a", 99) + "\n[content truncated: showing 0–99 of 252 characters; call deepseek_fetch with offset 99 for more]", truncated: true, next: 99, total: 252},
		{name: "limit too small for any marker", title: "", content: strings.Repeat("é", 50), max: 10,
			want: strings.Repeat("é", 10), truncated: true, next: 10, total: 50},
		{name: "limit exactly the short marker and newline", title: "", content: strings.Repeat("x", 50), max: 20,
			want: strings.Repeat("x", 20), truncated: true, next: 20, total: 50},
		{name: "limit too small for the continue line: short marker", title: "", content: strings.Repeat("x", 50), max: 21,
			want: "x\n[content truncated]", truncated: true, next: 1, total: 50},
		{name: "default limit", title: "", content: strings.Repeat("a", 16001), max: 0,
			want: strings.Repeat("a", 15893) + "\n[content truncated: showing 0–15,893 of 16,001 characters; call deepseek_fetch with offset 15893 for more]", truncated: true, next: 15893, total: 16001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := core.FormatFetch(tt.title, tt.content, tt.max)
			require.Equal(t, tt.want, r.Text)
			require.Equal(t, tt.truncated, r.Truncated)
			require.Equal(t, tt.next, r.NextOffset)
			total := tt.total
			if total == 0 {
				total = utf8.RuneCountInString(tt.want)
			}
			require.Equal(t, total, r.TotalChars)
			require.Zero(t, r.Offset)
			require.Equal(t, utf8.RuneCountInString(r.Text), r.Chars)
			max := tt.max
			if max <= 0 {
				max = core.DefaultFetchMaxChars
			}
			require.LessOrEqual(t, r.Chars, max)
			require.True(t, utf8.ValidString(r.Text))
			require.Equal(t, strings.Join(strings.Fields(tt.title), " "), r.Title)
		})
	}
}

func TestFetchThroughEngine(t *testing.T) {
	cfg := mustConfig(t, core.Options{FetchMaxChars: 200})
	s := fetch(t, cfg, " https://go.dev/doc/ ", okReply(fetchBodyJSON(t, "Documentation", strings.Repeat("语", 250))))
	require.Nil(t, s.Err)
	require.Nil(t, s.Result.Search)
	r := s.Result.Fetch
	require.Equal(t, "https://go.dev/doc/", r.URL)
	require.Equal(t, "Documentation", r.Title)
	require.True(t, r.Truncated)
	require.Equal(t, 200, r.Chars)
	require.Equal(t, "# Documentation\n\n"+strings.Repeat("语", 84)+"\n[content truncated: showing 0–101 of 267 characters; call deepseek_fetch with offset 101 for more]", r.Text)
	require.Equal(t, 101, r.NextOffset)
	require.Equal(t, 267, r.TotalChars)

	s = fetch(t, nil, "https://go.dev/", okReply(`{"title":"Go","content":"# go\n\nHello"}`))
	require.Nil(t, s.Err)
	require.Equal(t, &core.FetchResult{URL: "https://go.dev/", Title: "Go", Text: "# go\n\nHello", Chars: 11, TotalChars: 11}, s.Result.Fetch)
}

func TestFetchRequest(t *testing.T) {
	e := core.NewEngine(testEnv())
	s := e.Start(core.Operation{Kind: core.KindFetch, URL: "https://go.dev/doc/?a=1&b=<2>", Format: "Markdown", APIKey: testKey})
	require.False(t, s.Done)
	require.Equal(t, "https://api.deepseek.com/v1/tools/fetch", s.Request.URL)
	require.Equal(t, `{"url":"https://go.dev/doc/?a=1\u0026b=\u003c2\u003e"}`, string(s.Request.Body))
	require.JSONEq(t, `{"url":"https://go.dev/doc/?a=1&b=<2>"}`, string(s.Request.Body))
	e.Cancel(s.Handle)
}

func TestFetchFormats(t *testing.T) {
	for _, f := range []string{"", "markdown", "Markdown", " MARKDOWN "} {
		t.Run("accepted "+f, func(t *testing.T) {
			s := core.NewEngine(testEnv()).Start(core.Operation{Kind: core.KindFetch, URL: "https://go.dev/", Format: f, APIKey: testKey})
			require.False(t, s.Done)
			require.NotNil(t, s.Request)
		})
	}
	tests := []struct{ format, want string }{
		{"text", `DeepSeek Fetch: format "text" is not available; DeepSeek Fetch returns Markdown only (use "markdown" or leave format out)`},
		{"html", `DeepSeek Fetch: format "html" is not available; DeepSeek Fetch returns Markdown only (use "markdown" or leave format out)`},
		{" HTML ", `DeepSeek Fetch: format "html" is not available; DeepSeek Fetch returns Markdown only (use "markdown" or leave format out)`},
		{"pdf", `DeepSeek Fetch: unknown format "pdf"; DeepSeek Fetch returns Markdown only (use "markdown" or leave format out)`},
	}
	for _, tt := range tests {
		t.Run("rejected "+tt.format, func(t *testing.T) {
			e := core.NewEngine(testEnv())
			s := e.Start(core.Operation{Kind: core.KindFetch, URL: "https://go.dev/", Format: tt.format, APIKey: testKey})
			require.True(t, s.Done)
			require.Nil(t, s.Request)
			require.EqualError(t, s.Err, tt.want)
			require.ErrorIs(t, s.Err, core.ErrInvalidInput)
			require.Zero(t, e.InFlight())
		})
	}
}

func TestFetchEmptyURL(t *testing.T) {
	s := core.NewEngine(testEnv()).Start(core.Operation{Kind: core.KindFetch, URL: "  ", APIKey: testKey})
	require.True(t, s.Done)
	require.EqualError(t, s.Err, "DeepSeek Fetch: the URL is empty")
	require.ErrorIs(t, s.Err, core.ErrInvalidInput)
}

// The URL policy itself is tested in urlpolicy_test.go; here only that the
// engine applies it before any request and reports its codes.
func TestFetchURLPolicyApplied(t *testing.T) {
	e := core.NewEngine(testEnv())
	for _, u := range []string{"http://localhost/", "http://127.0.0.1/admin", "http://169.254.169.254/latest/meta-data"} {
		s := e.Start(core.Operation{Kind: core.KindFetch, URL: u, APIKey: testKey})
		require.True(t, s.Done, u)
		require.Nil(t, s.Request)
		require.ErrorIs(t, s.Err, core.ErrURLRefused)
		require.Equal(t, core.CodeURLRefused, s.Err.Code)
		require.True(t, strings.HasPrefix(s.Err.Message, "DeepSeek Fetch: "), s.Err.Message)
	}
	for _, u := range []string{"ftp://go.dev/", "go.dev/doc", "/relative"} {
		s := e.Start(core.Operation{Kind: core.KindFetch, URL: u, APIKey: testKey})
		require.True(t, s.Done, u)
		require.Nil(t, s.Request)
		require.NotNil(t, s.Err)
		require.Contains(t, []core.Code{core.CodeInvalidInput, core.CodeURLRefused}, s.Err.Code)
	}
	cfg := mustConfig(t, core.Options{BlockedDomains: []string{"spam.example"}, AllowedDomains: []string{"go.dev"}})
	for _, u := range []string{"https://spam.example/", "https://www.spam.example/x", "https://golang.org/"} {
		s := e.Start(core.Operation{Kind: core.KindFetch, URL: u, Config: cfg, APIKey: testKey})
		require.True(t, s.Done, u)
		require.Equal(t, core.CodeURLRefused, s.Err.Code, u)
	}
	s := e.Start(core.Operation{Kind: core.KindFetch, URL: "https://pkg.go.dev/net", Config: cfg, APIKey: testKey})
	require.False(t, s.Done)
	e.Cancel(s.Handle)
	require.Zero(t, e.InFlight())
}

func TestFetchNoContent(t *testing.T) {
	for _, body := range []string{`{"title":"T","content":""}`, `{"title":"T","content":" \n\t "}`, `{"title":"T"}`, `{"content":null}`, `{"content":5}`} {
		t.Run(body, func(t *testing.T) {
			s := fetch(t, nil, "https://go.dev/x", okReply(body))
			require.Nil(t, s.Result)
			require.ErrorIs(t, s.Err, core.ErrNoContent)
			require.EqualError(t, s.Err, "DeepSeek Fetch failed: no readable content at https://go.dev/x")
		})
	}
}

func TestFetchMalformed(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{``, `DeepSeek Fetch failed: DeepSeek returned an empty response`},
		{`[]`, `DeepSeek Fetch failed: DeepSeek returned JSON that is not an object (first bytes: [])`},
		{`"content"`, `DeepSeek Fetch failed: DeepSeek returned JSON that is not an object (first bytes: "content")`},
		{`<html>`, `DeepSeek Fetch failed: DeepSeek returned a response that is not JSON (first bytes: <html>)`},
		{`{"content":`, `DeepSeek Fetch failed: DeepSeek returned JSON that breaks off after 11 bytes (the response was cut short; try again) (first bytes: {"content":)`},
		{`{"content":"a\qb"}`, `DeepSeek Fetch failed: DeepSeek returned invalid JSON (at byte 15 of 18) (first bytes: {"content":"a\qb"})`},
		{`{"content":"x"}` + "\x00", `DeepSeek Fetch failed: DeepSeek returned invalid JSON (at byte 16 of 16) (first bytes: {"content":"x"})`},
	} {
		t.Run(tt.body, func(t *testing.T) {
			s := fetch(t, nil, "https://go.dev/x", okReply(tt.body))
			require.ErrorIs(t, s.Err, core.ErrMalformed)
			require.EqualError(t, s.Err, tt.want)
		})
	}
}

func TestFetch404(t *testing.T) {
	s := fetch(t, nil, "https://go.dev/x", statusReply(404, ``))
	require.EqualError(t, s.Err, "DeepSeek Fetch failed: HTTP 404: DeepSeek could not retrieve the page")
	require.Equal(t, 404, s.Err.Status)
	s = fetch(t, nil, "https://go.dev/x", statusReply(404, `{"error":{"message":"Page not reachable"}}`))
	require.EqualError(t, s.Err, "DeepSeek Fetch failed: HTTP 404: Page not reachable")
	s = search(t, nil, "q", statusReply(404, ``))
	require.EqualError(t, s.Err, "DeepSeek Search failed: HTTP 404")
}
