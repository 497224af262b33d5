package core_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func f64(v float64) *float64 { return &v }

func TestHitMarker(t *testing.T) {
	tests := []struct {
		name string
		hit  core.Hit
		want string
	}{
		{"all three", core.Hit{Rerank: f64(2.1), Authority: f64(3), Site: "Site Name"}, "[rerank 2.1 · authority 3 · Site Name]"},
		{"unknown authority", core.Hit{Rerank: f64(1.5), Authority: f64(-1), Site: "Go"}, "[rerank 1.5 · authority unknown · Go]"},
		{"rerank one decimal", core.Hit{Rerank: f64(2.96)}, "[rerank 3.0]"},
		{"rerank zero", core.Hit{Rerank: f64(0)}, "[rerank 0.0]"},
		{"rerank whole", core.Hit{Rerank: f64(2)}, "[rerank 2.0]"},
		{"authority zero", core.Hit{Authority: f64(0)}, "[authority 0]"},
		{"authority four", core.Hit{Authority: f64(4)}, "[authority 4]"},
		{"site only", core.Hit{Site: "MDN Web Docs"}, "[MDN Web Docs]"},
		{"no rerank", core.Hit{Authority: f64(3), Site: "S"}, "[authority 3 · S]"},
		{"no authority", core.Hit{Rerank: f64(2.1), Site: "S"}, "[rerank 2.1 · S]"},
		{"no site", core.Hit{Rerank: f64(2.1), Authority: f64(-1)}, "[rerank 2.1 · authority unknown]"},
		{"none", core.Hit{URL: "https://a.example/", Title: "t", Text: "x"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.hit.Marker())
		})
	}
}

// The separator is U+00B7, spaced.
func TestHitMarkerSeparator(t *testing.T) {
	m := core.Hit{Rerank: f64(1), Authority: f64(1)}.Marker()
	require.Equal(t, "[rerank 1.0 \u00b7 authority 1]", m)
}

func TestHitProviderContent(t *testing.T) {
	require.Equal(t, "[rerank 2.1 · authority 3 · Go]\nsummary", core.Hit{Rerank: f64(2.1), Authority: f64(3), Site: "Go", Text: "summary"}.ProviderContent())
	require.Equal(t, "summary", core.Hit{Text: "summary"}.ProviderContent())
	require.Equal(t, "[Go]", core.Hit{Site: "Go"}.ProviderContent())
	require.Equal(t, "", core.Hit{}.ProviderContent())
}

func TestHitPublishedMs(t *testing.T) {
	ms, ok := core.Hit{}.PublishedMs()
	require.False(t, ok)
	require.Zero(t, ms)
	ms, ok = core.Hit{Published: 1500}.PublishedMs()
	require.True(t, ok)
	require.Equal(t, int64(1500), ms)
}

func TestSearchResultText(t *testing.T) {
	r := &core.SearchResult{Query: "go", Hits: []core.Hit{
		{URL: "https://go.dev/", Title: "Go", Text: "The Go language.", Rerank: f64(2.1), Authority: f64(3), Site: "Go",
			Published: time.Date(2024, 5, 1, 23, 0, 0, 0, time.FixedZone("X", -3*3600)).UnixMilli()},
		{URL: "https://a.example/", Text: "untitled"},
		{URL: "https://b.example/", Title: "Dated", Published: time.Date(2023, 1, 2, 0, 0, 0, 0, time.UTC).UnixMilli()},
		{URL: "https://c.example/", Title: "Bare"},
	}}
	want := "1. Go\nhttps://go.dev/\n[rerank 2.1 · authority 3 · Go] · published 2024-05-02\nThe Go language.\n\n" +
		"2. https://a.example/\nhttps://a.example/\nuntitled\n\n" +
		"3. Dated\nhttps://b.example/\npublished 2023-01-02\n\n" +
		"4. Bare\nhttps://c.example/"
	require.Equal(t, want, r.Text())
	require.Equal(t, `No results found for "q \"x\"".`, (&core.SearchResult{Query: `q "x"`}).Text())
}
