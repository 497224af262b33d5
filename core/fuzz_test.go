package core

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/weburl"
)

// FuzzProcessSearch feeds arbitrary response bodies through the engine
// (Start, then Resume with a 200) and checks what reaches the model.
func FuzzProcessSearch(f *testing.F) {
	for _, s := range []string{
		`{"results":[]}`,
		`{"results":[{"url":"https://go.dev/","title":"Go","summary":"s","rerank_score":2.1,"authority":3,"date":"2024-05-01T00:00:00Z","site_name":"Go"}]}`,
		`{"results":[{"url":"https://Go.dev/#a"},{"url":"HTTPS://go.DEV/#b"},{"url":"http:x"},{"url":"/rel"},{"url":null}]}`,
		`{"results":[{"url":"https://a.example/","summary":"` + strings.Repeat("语 ", 900) + `"}]}`,
		`{"results":[{"url":"https://spam.example/"},{"url":"https://x.go.dev/","authority":-1,"rerank_score":"1.5"}]}`,
		`{"results":{}}`,
		`[]`,
		``,
	} {
		f.Add([]byte(s), uint8(10), uint16(1200))
	}
	f.Fuzz(func(t *testing.T, body []byte, maxResults uint8, maxSummary uint16) {
		cfg := mustConfig(t, Options{
			MaxResults:      1 + int(maxResults)%50,
			MaxSummaryChars: 20 + int(maxSummary)%2000,
			BlockedDomains:  []string{"spam.example"},
			MinAuthority:    float64(maxResults % 3),
		})
		e := NewEngine(testEnv())
		s := e.Start(Operation{Kind: KindSearch, Query: "fuzz", Config: cfg, APIKey: testKey})
		s = e.Resume(s.Handle, okReply(string(body)))
		require.True(t, s.Done)
		require.Nil(t, s.Request)
		require.Zero(t, e.InFlight())
		if s.Err != nil {
			require.Equal(t, CodeMalformed, s.Err.Code)
			require.Nil(t, s.Result)
			return
		}
		hits := s.Result.Search.Hits
		require.LessOrEqual(t, len(hits), cfg.MaxResults)
		keys := map[string]bool{}
		for _, h := range hits {
			u, err := url.Parse(h.URL)
			require.NoError(t, err, h.URL)
			require.True(t, u.Scheme == "http" || u.Scheme == "https", h.URL)
			require.NotEmpty(t, u.Hostname(), h.URL)
			require.Empty(t, u.Opaque, h.URL)
			require.True(t, u.IsAbs(), h.URL)
			w, ok := weburl.Parse(h.URL)
			require.True(t, ok, h.URL)
			k := dedupKey(w)
			require.False(t, keys[k], "duplicate %s", h.URL)
			keys[k] = true
			require.False(t, matchDomain(strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), "spam.example"), h.URL)
			require.LessOrEqual(t, utf8.RuneCountInString(h.Text), cfg.MaxSummaryChars)
			for _, f := range []string{h.Text, h.Title, h.Site} {
				require.Equal(t, strings.TrimSpace(f), f)
				require.NotContains(t, f, "  ")
				require.NotContains(t, f, "\n")
				require.True(t, utf8.ValidString(f))
			}
			if h.Authority != nil && *h.Authority != -1 && cfg.MinAuthority > 0 {
				require.GreaterOrEqual(t, *h.Authority, cfg.MinAuthority)
			}
		}
	})
}

// FuzzBuildQuery: accepted queries fit DeepSeek's limit and start with the
// trimmed query; refused ones are invalid input.
func FuzzBuildQuery(f *testing.F) {
	f.Add("golang generics", "", "")
	f.Add("  语言 after:2024-01-01 ", "zh,en", "go.dev")
	f.Add(strings.Repeat("😀", 128), "", "")
	f.Add(strings.Repeat("a", 120), "en", "example.com")
	f.Add(" \t\n", "", "")
	f.Add("\xff\xfe", "", "")
	f.Fuzz(func(t *testing.T, q, lang, domain string) {
		o := Options{Language: lang}
		if domain != "" {
			o.IncludeDomains = []string{domain}
			o.BlockedDomains = []string{"x." + domain}
		}
		cfg, _, err := NewConfig(o)
		if err != nil {
			cfg = nil
		}
		// The oracle: the trimmed query, then the operators in SPEC order.
		tq := strings.TrimSpace(q)
		want := tq
		if cfg != nil {
			for _, d := range cfg.IncludeDomains {
				want += " site:" + d
			}
			for _, d := range cfg.BlockedDomains {
				want += " -site:" + d
			}
			if cfg.Language != "" {
				want += " lang:" + cfg.Language
			}
		}
		got, err := BuildQuery(q, cfg)
		if tq == "" || utf8.RuneCountInString(want) > MaxQueryChars {
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, CodeInvalidInput, e.Code)
			require.Empty(t, got)
			return
		}
		require.NoError(t, err)
		require.Equal(t, want, got)
		require.LessOrEqual(t, utf8.RuneCountInString(got), MaxQueryChars)
		require.True(t, strings.HasPrefix(got, tq))
	})
}

// FuzzParseRetryAfter: any value gives a delay in [0, 10 s]; delay-seconds
// are exact up to 10 and capped above.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "1", "10", "11", "007", " 5 ", "-1", "1.5", "Tue, 04 Mar 2025 05:06:10 GMT",
		"Tuesday, 04-Mar-25 05:06:12 GMT", "Tue Mar  4 05:06:09 2025", strings.Repeat("9", 80), ""} {
		f.Add(s, pinnedNow.Unix(), false) // the clock in Unix seconds
	}
	f.Add("Tue, 04 Mar 2025 05:06:10 GMT", int64(0), true)
	f.Fuzz(func(t *testing.T, v string, nowUnix int64, zeroNow bool) {
		now := func() int64 { return nowUnix % (1 << 40) * 1000 }
		if zeroNow {
			now = nil
		}
		d, ok := ParseRetryAfter(v, now)
		require.GreaterOrEqual(t, d, int64(0))
		require.LessOrEqual(t, d, int64(MaxRetryAfterMs))
		if !ok {
			require.Zero(t, d)
		}
		tv := strings.TrimSpace(v)
		if tv != "" && strings.Trim(tv, "0123456789") == "" {
			require.True(t, ok, "%q", v)
			n, err := strconv.ParseInt(tv, 10, 64)
			if err == nil && n <= 10 {
				require.Equal(t, n*1000, d, "%q", v)
			} else {
				require.Equal(t, int64(MaxRetryAfterMs), d, "%q", v)
			}
		}
		if zeroNow && (tv == "" || tv[0] < '0' || tv[0] > '9') {
			require.False(t, ok, "a date needs a clock: %q", v)
		}
	})
}

// FuzzFormatFetch: every part of a page, from any offset, fits the limit,
// counts its code points, never breaks valid UTF-8, and is the document from
// its offset up to the cut, then the continue line naming the next offset.
func FuzzFormatFetch(f *testing.F) {
	f.Add("Go", "# Go\n\nbody", 200, 0)
	f.Add("", strings.Repeat("语", 300), 200, 17)
	f.Add("T", strings.Repeat("😀", 30)+"\r\n\r\n", 21, 3)
	f.Add("Title", "text", 0, 0)
	f.Add("  ", "\n\n# x\r\n", 5, 1)
	f.Add("\xff", "a\xffb\xc3", 3, 2)
	f.Add("", strings.Repeat("e\u0301", 400), 200, 99)
	f.Fuzz(func(t *testing.T, title, content string, maxChars, offset int) {
		max := maxChars % 3000
		p := NewPage(title, content)
		if p.Chars() > 0 {
			offset = (offset%p.Chars() + p.Chars()) % p.Chars()
		} else {
			offset = 0
		}
		r, err := p.Part(offset, max, "")
		require.NoError(t, err)
		if offset == 0 {
			require.Equal(t, FormatFetch(title, content, max), r)
		}
		if max <= 0 {
			max = DefaultFetchMaxChars
		}
		require.Equal(t, utf8.RuneCountInString(r.Text), r.Chars)
		require.LessOrEqual(t, r.Chars, max)
		if utf8.ValidString(title) && utf8.ValidString(content) {
			require.True(t, utf8.ValidString(r.Text))
		}
		rest := p.doc[p.byteAt(offset):]
		require.Equal(t, p.Chars()-offset > max, r.Truncated)
		if !r.Truncated {
			require.Equal(t, rest, r.Text)
			require.Zero(t, r.NextOffset)
			return
		}
		require.Greater(t, r.NextOffset, offset)
		kept := p.doc[p.byteAt(offset):p.byteAt(r.NextOffset)]
		line := fmt.Sprintf("[content truncated: showing %s–%s of %s characters; call deepseek_fetch with offset %d for more]",
			thousands(offset), thousands(r.NextOffset), thousands(p.Chars()), r.NextOffset)
		switch {
		case strings.HasSuffix(r.Text, line):
			head := strings.TrimSuffix(strings.TrimSuffix(r.Text, line), "\n")
			require.Equal(t, strings.TrimRightFunc(kept, unicode.IsSpace), head)
		case strings.HasSuffix(r.Text, truncationMarker):
			require.Less(t, max, 130)
			head := strings.TrimSuffix(strings.TrimSuffix(r.Text, truncationMarker), "\n")
			require.Equal(t, strings.TrimRightFunc(kept, unicode.IsSpace), head)
		default:
			require.LessOrEqual(t, max, utf8.RuneCountInString(truncationMarker)+1)
			require.Equal(t, kept, r.Text)
		}
	})
}
