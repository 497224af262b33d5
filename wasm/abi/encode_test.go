package abi

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func FuzzAppendSearchResult(f *testing.F) {
	f.Add("golang <&>", "https://go.dev/?a=1&b=2", "Go \u2028 title", "text\x00\xff", 2.4, 1e-7, int64(1705276800000), "example.com", "2024-01-15", "[rerank 2.4]", 3, "summary", "note", uint8(0xff))
	f.Add("", "", "", "", 0.0, math.Inf(1), int64(0), "", "", "", 0, "", "", uint8(0))
	f.Add("q", "u", "t", "x", math.NaN(), 1e21, int64(-1), "s", "d", "m", -2, "", "n", uint8(0x55))
	f.Fuzz(func(t *testing.T, query, url, title, text string, rerank, authority float64, published int64, site, date, marker string, dropped int, summary, note string, mask uint8) {
		hit := Hit{URL: url, Title: title, Text: text, Site: site, Date: date, Marker: marker}
		if mask&1 != 0 {
			hit.Rerank = &rerank
		}
		if mask&2 != 0 {
			hit.Authority = &authority
		}
		if mask&4 != 0 {
			hit.Published = &published
		}
		r := SearchResult{Query: query, Text: text + query, Cached: mask&8 != 0, Summary: summary, Dropped: dropped}
		switch mask >> 4 & 3 {
		case 1:
			r.Results = []Hit{}
		case 2:
			r.Results = []Hit{hit}
		case 3:
			r.Results = []Hit{hit, {URL: title}, hit}
		}
		if mask&64 != 0 {
			r.Notes = []string{note, summary}
		}
		if mask&128 != 0 {
			r.Usage = &core.Usage{InputTokens: published, OutputTokens: int64(dropped), ServerToolUse: core.ServerToolUse{WebSearchRequests: 2}, Requests: 1}
		}
		want, wantErr := json.Marshal(r)
		got, err := r.AppendJSON(nil)
		if wantErr != nil {
			var uv *json.UnsupportedValueError
			require.ErrorAs(t, wantErr, &uv)
			require.EqualError(t, err, wantErr.Error())
			return
		}
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	})
}

func FuzzAppendFetchResult(f *testing.F) {
	f.Add("https://e.x/<a>", "Title & more", "# text\n\u2029\xff", 16000, true, 0, 16000, 40000, false)
	f.Add("", "", "", 0, false, 0, 0, 0, true)
	f.Fuzz(func(t *testing.T, url, title, text string, chars int, truncated bool, offset, next, total int, cached bool) {
		r := FetchResult{URL: url, Title: title, Text: text, Chars: chars, Truncated: truncated, Offset: offset, NextOffset: next, TotalChars: total, Cached: cached}
		want, err := json.Marshal(r)
		require.NoError(t, err)
		require.Equal(t, string(want), string(r.AppendJSON(nil)))
	})
}

// Start and ToolInput marshal with encoding/json as the same structs with
// json.RawMessage fields do, and unmarshal back to what the decoders give.
func FuzzStartJSON(f *testing.F) {
	f.Add(1, "search", `{"search":"forced"}`, "sk-<&>", `{"query":"q\u2028"}`, "deepseek_fetch", `{"url":"x"}`)
	f.Add(0, "", "", "", "", "", "")
	f.Add(-3, "k\xff", `{"a": [1, 2] }`, "", `null`, "t", `  {"a" : "<"}`)
	f.Fuzz(func(t *testing.T, v int, kind, options, key, input, tool, args string) {
		if !json.Valid([]byte(options)) || !json.Valid([]byte(input)) || !json.Valid([]byte(args)) {
			options, input, args = "", "", "null" // RawMessage needs valid JSON; empty means absent
		}
		s := Start{V: v, Kind: kind, Options: []byte(options), APIKey: key, Input: []byte(input)}
		ref := refStart{V: v, Kind: kind, Options: json.RawMessage(options), APIKey: key, Input: json.RawMessage(input)}
		if options == "" {
			s.Options, ref.Options = nil, nil
		}
		if input == "" {
			s.Input, ref.Input = nil, nil
		}
		want, err := json.Marshal(ref)
		require.NoError(t, err)
		got, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
		var back Start
		require.NoError(t, json.Unmarshal(got, &back))
		decoded, err := DecodeStart(got)
		require.NoError(t, err)
		require.Equal(t, decoded, back)

		ti := ToolInput{Tool: tool, Args: []byte(args)}
		tref := refToolInput{Tool: tool, Args: json.RawMessage(args)}
		want, err = json.Marshal(tref)
		require.NoError(t, err)
		got, err = json.Marshal(ti)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
		var tback ToolInput
		require.NoError(t, json.Unmarshal(got, &tback))
		var tbackRef refToolInput
		require.NoError(t, json.Unmarshal(got, &tbackRef))
		require.Equal(t, tbackRef.Tool, tback.Tool)
		require.Equal(t, string(tbackRef.Args), string(tback.Args))
	})
}
