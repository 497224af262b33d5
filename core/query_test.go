package core_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func TestBuildQuery(t *testing.T) {
	tests := []struct {
		name string
		q    string
		opts core.Options
		want string
	}{
		{name: "trimmed", q: "  golang generics \n", want: "golang generics"},
		{name: "inner space kept", q: "a  b", want: "a  b"},
		{name: "operators in order", q: "go", opts: core.Options{IncludeDomains: []string{"go.dev", "pkg.go.dev"}, BlockedDomains: []string{"spam.example", "w3schools.com"}, Language: "zh,en"},
			want: "go site:go.dev site:pkg.go.dev -site:spam.example -site:w3schools.com lang:zh,en"},
		{name: "only blocked", q: "go", opts: core.Options{BlockedDomains: []string{"spam.example"}}, want: "go -site:spam.example"},
		{name: "only language", q: "go", opts: core.Options{Language: "en"}, want: "go lang:en"},
		{name: "after and before pass through", q: "go release after:2024-01-01 before:2025-01-01", want: "go release after:2024-01-01 before:2025-01-01"},
		{name: "model operators kept", q: "site:go.dev generics", opts: core.Options{Language: "en"}, want: "site:go.dev generics lang:en"},
		{name: "128 ASCII", q: strings.Repeat("a", 128), want: strings.Repeat("a", 128)},
		{name: "128 CJK (384 bytes)", q: strings.Repeat("语", 128), want: strings.Repeat("语", 128)},
		{name: "128 emoji (512 bytes)", q: strings.Repeat("😀", 128), want: strings.Repeat("😀", 128)},
		{name: "exactly 128 with operators", q: strings.Repeat("字", 128-len(" site:go.dev")), opts: core.Options{IncludeDomains: []string{"go.dev"}},
			want: strings.Repeat("字", 128-len(" site:go.dev")) + " site:go.dev"},
		{name: "surrounding space not counted", q: "   " + strings.Repeat("a", 128) + "   ", want: strings.Repeat("a", 128)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := core.BuildQuery(tt.q, mustConfig(t, tt.opts))
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestBuildQueryNilConfigIsDefault(t *testing.T) {
	got, err := core.BuildQuery(" x ", nil)
	require.NoError(t, err)
	require.Equal(t, "x", got)
}

func TestBuildQueryErrors(t *testing.T) {
	tests := []struct {
		name string
		q    string
		opts core.Options
		want string
	}{
		{name: "empty", q: "", want: "DeepSeek Search: the query is empty"},
		{name: "blank", q: " \t\n ", want: "DeepSeek Search: the query is empty"},
		{name: "blank with operators", q: " ", opts: core.Options{IncludeDomains: []string{"go.dev"}}, want: "DeepSeek Search: the query is empty"},
		{name: "129 ASCII", q: strings.Repeat("a", 129),
			want: "DeepSeek Search: the query is 129 characters long; DeepSeek accepts at most 128. Shorten the query"},
		{name: "129 CJK", q: strings.Repeat("语", 129),
			want: "DeepSeek Search: the query is 129 characters long; DeepSeek accepts at most 128. Shorten the query"},
		{name: "200 emoji", q: strings.Repeat("😀", 200),
			want: "DeepSeek Search: the query is 200 characters long; DeepSeek accepts at most 128. Shorten the query"},
		{name: "ZWJ emoji counts code points", q: strings.Repeat("👩‍💻", 43), // 3 code points each
			want: "DeepSeek Search: the query is 129 characters long; DeepSeek accepts at most 128. Shorten the query"},
		{name: "over with operators names both lengths", q: strings.Repeat("字", 120), opts: core.Options{IncludeDomains: []string{"go.dev"}, Language: "zh"},
			want: "DeepSeek Search: the query is 140 characters long with the configured site:/lang: operators (120 without them); DeepSeek accepts at most 128. Shorten the query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := core.BuildQuery(tt.q, mustConfig(t, tt.opts))
			require.EqualError(t, err, tt.want)
			require.Empty(t, got)
			require.True(t, errors.Is(err, core.ErrInvalidInput))
			var e *core.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, core.CodeInvalidInput, e.Code)
		})
	}
}

// A query the builder refuses never becomes a request.
func TestSearchQueryErrorsMakeNoRequest(t *testing.T) {
	e := core.NewEngine(testEnv())
	for _, q := range []string{"", "   ", strings.Repeat("语", 129)} {
		s := e.Start(core.Operation{Kind: core.KindSearch, Query: q, APIKey: testKey})
		require.True(t, s.Done)
		require.Nil(t, s.Request)
		require.Zero(t, s.Handle)
		require.ErrorIs(t, s.Err, core.ErrInvalidInput)
	}
	require.Zero(t, e.InFlight())
}
