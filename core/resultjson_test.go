package core_test

import (
	"encoding/json"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// wireSearch and wireHit are the search JSON's shape, for json.Marshal to
// write the reference the hand-written encoder is held to.
type wireSearch struct {
	Query   string      `json:"query"`
	Results []wireHit   `json:"results"`
	Text    string      `json:"text"`
	Cached  bool        `json:"cached"`
	Summary string      `json:"summary,omitempty"`
	Dropped int         `json:"dropped,omitempty"`
	Notes   []string    `json:"notes,omitempty"`
	Usage   *core.Usage `json:"usage,omitempty"`
}

type wireHit struct {
	URL       string   `json:"url"`
	Title     string   `json:"title"`
	Text      string   `json:"text"`
	Rerank    *float64 `json:"rerank,omitempty"`
	Authority *float64 `json:"authority,omitempty"`
	Site      string   `json:"site,omitempty"`
	Date      string   `json:"date,omitempty"`
	Published *int64   `json:"published,omitempty"`
	Marker    string   `json:"marker,omitempty"`
	FoundBy   string   `json:"foundBy,omitempty"`
}

func wireOf(r *core.SearchResult) wireSearch {
	w := wireSearch{Query: r.Query, Text: r.Text(), Cached: r.Cached, Summary: r.Summary, Dropped: r.Dropped, Notes: r.Notes, Usage: r.Usage}
	if r.Hits != nil {
		w.Results = make([]wireHit, len(r.Hits))
	}
	for i, h := range r.Hits {
		w.Results[i] = wireHit{URL: h.URL, Title: h.Title, Text: h.Text, Rerank: h.Rerank, Authority: h.Authority,
			Site: h.Site, Date: h.Date, Marker: h.Marker(), FoundBy: h.FoundBy}
		if ms, ok := h.PublishedMs(); ok {
			w.Results[i].Published = &ms
		}
	}
	return w
}

func FuzzSearchResultJSON(f *testing.F) {
	f.Add("golang <&>", "https://go.dev/?a=1&b=2", "Go \u2028 title", "text\x00\xff", 2.4, 1e-7, int64(1705276800000), "example.com", "2024-01-15", "go", 3, "summary", "note", uint16(0x1ff))
	f.Add("", "", "", "", 0.0, math.Inf(1), int64(0), "", "", "", 0, "", "", uint16(0))
	f.Add("q", "u", "t", "x", math.NaN(), 1e21, int64(-1), "s", "d", "", -2, "", "n", uint16(0x55))
	f.Fuzz(func(t *testing.T, query, url, title, text string, rerank, authority float64, published int64, site, date, foundBy string, dropped int, summary, note string, mask uint16) {
		hit := core.Hit{URL: url, Title: title, Text: text, Site: site, Date: date, FoundBy: foundBy}
		if mask&1 != 0 {
			hit.Rerank = &rerank
		}
		if mask&2 != 0 {
			hit.Authority = &authority
		}
		if mask&4 != 0 {
			hit.Published = published
		}
		r := core.SearchResult{Query: query, Cached: mask&8 != 0, Summary: summary, Dropped: dropped}
		switch mask >> 4 & 3 {
		case 1:
			r.Hits = []core.Hit{}
		case 2:
			r.Hits = []core.Hit{hit}
		case 3:
			r.Hits = []core.Hit{hit, {URL: title}, hit}
		}
		if mask&64 != 0 {
			r.Notes = []string{note, summary}
		}
		if mask&128 != 0 {
			r.Usage = &core.Usage{InputTokens: published, OutputTokens: int64(dropped), ServerToolUse: core.ServerToolUse{WebSearchRequests: 2}, Requests: 1}
		}
		want, wantErr := json.Marshal(wireOf(&r))
		got, err := r.AppendJSON(nil)
		if wantErr != nil {
			var uv *json.UnsupportedValueError
			require.ErrorAs(t, wantErr, &uv)
			require.EqualError(t, err, wantErr.Error())
			return
		}
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
		// encoding/json writes the same bytes, and reads them back.
		marshalled, err := json.Marshal(r)
		require.NoError(t, err)
		require.Equal(t, string(got), string(marshalled))
		var back core.SearchResult
		require.NoError(t, json.Unmarshal(got, &back))
		// The JSON is lossless: decoding it gives the result back (the shared
		// cache stores results so), but for invalid UTF-8, written as U+FFFD.
		for _, s := range []string{query, url, title, text, site, date, foundBy, summary, note} {
			if !utf8.ValidString(s) {
				return
			}
		}
		require.Equal(t, r, back)
	})
}

func FuzzFetchResultJSON(f *testing.F) {
	f.Add("https://e.x/<a>", "Title & more", "# text\n\u2029\xff", 16000, true, 0, 16000, 40000, false)
	f.Add("", "", "", 0, false, 0, 0, 0, true)
	f.Fuzz(func(t *testing.T, url, title, text string, chars int, truncated bool, offset, next, total int, cached bool) {
		r := core.FetchResult{URL: url, Title: title, Text: text, Chars: chars, Truncated: truncated, Offset: offset, NextOffset: next, TotalChars: total, Cached: cached}
		type wire core.FetchResult // the same tags, without MarshalJSON
		want, err := json.Marshal(wire(r))
		require.NoError(t, err)
		require.Equal(t, string(want), string(r.AppendJSON(nil)))
		var back core.FetchResult
		require.NoError(t, json.Unmarshal(r.AppendJSON(nil), &back))
		if !utf8.ValidString(url) || !utf8.ValidString(title) || !utf8.ValidString(text) {
			return // invalid UTF-8 is written as U+FFFD
		}
		require.Equal(t, r, back)
	})
}
