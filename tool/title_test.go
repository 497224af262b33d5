package tool_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tool"
)

func TestTitle(t *testing.T) {
	long := strings.Repeat("a", 100)
	for _, tt := range []struct{ name, tool, subject, want string }{
		{"fetch https", "deepseek_fetch", "https://go.dev/doc/go1.26", "deepseek_fetch go.dev/doc/go1.26"},
		{"fetch http upper-case scheme", "deepseek_fetch", "HTTP://example.com/a/", "deepseek_fetch example.com/a/"},
		{"fetch root slash dropped", "deepseek_fetch", "https://example.com/", "deepseek_fetch example.com"},
		{"fetch query kept", "deepseek_fetch", "https://example.com/?q=1", "deepseek_fetch example.com/?q=1"},
		{"search", "deepseek_search", "wasi preview 2 status", "deepseek_search wasi preview 2 status"},
		{"search white space and controls", "deepseek_search", " go\n\tgenerics\x00 ", "deepseek_search go generics"},
		{"search scheme kept", "deepseek_search", "https://go.dev", "deepseek_search https://go.dev"},
		{"long subject cut", "deepseek_search", long, "deepseek_search " + strings.Repeat("a", 79) + "…"},
		{"exactly the limit", "deepseek_search", long[:80], "deepseek_search " + long[:80]},
		{"empty subject", "deepseek_fetch", "", "deepseek_fetch"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tool.Title(tt.tool, tt.subject))
		})
	}
}

func FuzzTitle(f *testing.F) {
	for _, s := range []string{"https://go.dev/doc/go1.26", "HTTP://x/", "go\n\tgenerics", strings.Repeat("é", 90), "\xff\xfe", ""} {
		f.Add("deepseek_fetch", s)
		f.Add("deepseek_search", s)
	}
	f.Fuzz(func(t *testing.T, name, subject string) {
		if name != tool.FetchName && name != tool.SearchName {
			return
		}
		got := tool.Title(name, subject)
		require.True(t, got == name || strings.HasPrefix(got, name+" "), got)
		rest := strings.TrimPrefix(strings.TrimPrefix(got, name), " ")
		require.LessOrEqual(t, utf8.RuneCountInString(rest), 80)
		require.True(t, utf8.ValidString(got))
		for _, r := range rest {
			require.False(t, unicode.IsControl(r), "control character %U in %q", r, got)
		}
		require.Equal(t, rest, strings.TrimSpace(rest))
		require.NotContains(t, rest, "  ")
	})
}
