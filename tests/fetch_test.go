package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

func fetchJSON(t testing.TB, title, content string) string {
	b, err := json.Marshal(map[string]string{"title": title, "content": content})
	require.NoError(t, err)
	return string(b)
}

func TestFetch(t *testing.T) {
	const page = "https://example.com/docs/intro?x=1#top"
	tests := []struct {
		name, title, content string
		max                  int
		want                 string
		truncated            bool
	}{
		{
			name: "title heading added", title: "Example Domain",
			content: "This domain is for use in illustrative examples.\r\n\r\nMore text.\n\n",
			want:    "# Example Domain\n\nThis domain is for use in illustrative examples.\n\nMore text.",
		},
		{
			name: "content already opens with the title", title: "Example  Domain",
			content: "\n\n#   example domain  \n\nBody.",
			want:    "#   example domain  \n\nBody.",
		},
		{
			name: "empty title", title: "",
			content: "Just content.",
			want:    "Just content.",
		},
		{
			name: "a different heading keeps the title", title: "Guide",
			content: "# Introduction\nText.",
			want:    "# Guide\n\n# Introduction\nText.",
		},
		{
			name: "cut to fetchMaxChars with the continue line, never splitting a code point", title: "T",
			content: strings.Repeat("é", 300), max: 200,
			// 200 = 101 code points kept + "\n" + the line (98).
			want:      "# T\n\n" + strings.Repeat("é", 96) + "\n[content truncated: showing 0–101 of 305 characters; call deepseek_fetch with offset 101 for more]",
			truncated: true,
		},
		{
			name: "exactly fetchMaxChars is not cut", title: "T",
			content: strings.Repeat("界", 195), max: 200,
			want: "# T\n\n" + strings.Repeat("界", 195),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, reply(200, fetchJSON(t, tt.title, tt.content)))
			var opts json.RawMessage
			if tt.max != 0 {
				opts = e.opts("fetchMaxChars", tt.max)
			}
			res := result[core.FetchResult](t, e.fetch(page, opts))
			require.Equal(t, tt.want, res.Text)
			require.Equal(t, len([]rune(tt.want)), res.Chars)
			require.Equal(t, tt.truncated, res.Truncated)
			require.Equal(t, page, res.URL)
			if tt.max != 0 {
				require.LessOrEqual(t, res.Chars, tt.max)
			}

			reqs := e.srv.requests()
			require.Len(t, reqs, 1)
			require.Equal(t, "/v1/tools/fetch", reqs[0].Path)
			require.JSONEq(t, `{"url":"`+page+`"}`, string(reqs[0].Body))
			require.Equal(t, "Bearer "+testKey, reqs[0].Header.Get("Authorization"))
		})
	}
}

func TestFetchGolden(t *testing.T) {
	e := newEnv(t, reply(200, fetchJSON(t, "Example Domain", "This domain is for use in illustrative examples in documents.\n\n[More information...](https://www.iana.org/domains/example)")))
	s := e.fetch("https://example.com/", nil)
	res := result[core.FetchResult](t, s)
	golden(t, "fetch", "A fetch through the module (fetch_test.go).", [][2]string{{"result.json", indent(t, s.Result)}, {"text", res.Text}})
}

func TestFetchFailures(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		code, msg string
	}{
		{"empty content", 200, `{"title":"T","content":"  \n "}`, "no_content",
			"DeepSeek Fetch failed: no readable content at https://example.com/page"},
		{"missing content", 200, `{"title":"T"}`, "no_content", ""},
		{"404 without a message", 404, ``, "api",
			"DeepSeek Fetch failed: HTTP 404: DeepSeek could not retrieve the page"},
		{"404 with a message", 404, `{"error":{"message":"Page not found"}}`, "api",
			"DeepSeek Fetch failed: HTTP 404: Page not found"},
		{"raw error body", 400, "  bad\n\nrequest  ", "api", "DeepSeek Fetch failed: HTTP 400: bad request"},
		{"malformed", 200, `<html>`, "malformed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, reply(tt.status, tt.body))
			failure(t, e.fetch("https://example.com/page", nil), tt.code, tt.msg)
			require.Len(t, e.srv.requests(), 1)
		})
	}
}

// URLs refused locally: no request is made (SPEC §3.1–3.4).
func TestFetchRefused(t *testing.T) {
	tests := []struct {
		name, url, format string
		opts              []any
		code              string
	}{
		{"format text", "https://example.com/", "text", nil, "invalid_input"},
		{"format html", "https://example.com/", "html", nil, "invalid_input"},
		{"not http", "ftp://example.com/file", "", nil, "url_refused"},
		{"relative", "/docs", "", nil, "url_refused"},
		{"loopback", "http://127.0.0.1/admin", "", nil, "url_refused"},
		{"short loopback", "http://127.1/", "", nil, "url_refused"},
		{"localhost", "http://localhost:8080/", "", nil, "url_refused"},
		{"metadata service", "http://169.254.169.254/latest/meta-data/", "", nil, "url_refused"},
		{"RFC 1918", "https://10.0.0.8/", "", nil, "url_refused"},
		{"mapped loopback", "http://[::ffff:127.0.0.1]/", "", nil, "url_refused"},
		{"decimal loopback", "http://2130706433/", "", nil, "url_refused"},
		{"hex loopback", "http://0x7f.0.0.1/", "", nil, "url_refused"},
		{".local name", "http://printer.local/", "", nil, "url_refused"},
		{"single label", "http://intranet/", "", nil, "url_refused"},
		{"blocked domain", "https://docs.example.com/", "", []any{"blockedDomains", []string{"example.com"}}, "url_refused"},
		{"outside allowedDomains", "https://example.org/", "", []any{"allowedDomains", []string{"example.com"}}, "url_refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, reply(200, fetchJSON(t, "T", "c")))
			steps := e.run(e.start(abi.KindFetch, abi.FetchInput{URL: tt.url, Format: tt.format}, e.opts(tt.opts...)))
			require.Equal(t, 1, len(steps), "no request may be made; got %s", steps[len(steps)-1].Raw)
			err := failure(t, steps[0].Step, tt.code, "")
			require.True(t, strings.HasPrefix(err.Message, "DeepSeek Fetch"), err.Message)
			if tt.format != "" {
				require.Contains(t, err.Message, "Markdown only")
			}
			require.Empty(t, e.srv.requests())
		})
	}
	t.Run("allowed subdomain passes", func(t *testing.T) {
		e := newEnv(t, reply(200, fetchJSON(t, "T", "c")))
		result[core.FetchResult](t, e.fetch("https://docs.example.com/x", e.opts("allowedDomains", []string{"example.com"})))
	})
	t.Run("markdown format passes", func(t *testing.T) {
		e := newEnv(t, reply(200, fetchJSON(t, "T", "c")))
		steps := e.run(e.start(abi.KindFetch, abi.FetchInput{URL: "https://example.com/", Format: "markdown"}, nil))
		result[core.FetchResult](t, steps[len(steps)-1].Step)
	})
}
