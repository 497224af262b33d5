package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// Seeds shared by the decoders; testdata/fuzz/<Target>/ holds more.
var wireSeeds = []string{
	``,
	`{}`,
	`null`,
	`[]`,
	`{"results":null}`,
	`{"results":[]}`,
	`{"results":{}}`,
	`{"results":[{"url":"https://go.dev/","title":"Go","summary":"s","rerank_score":2.1,"authority":3,"date":"2024-05-01T00:00:00Z","site_name":"Go"}]}`,
	`{"results":[null,1,"x",{"rerank_score":"1.5","authority":null}]}`,
	`{"title":"T","content":"# T\n\nbody"}`,
	`{"error":{"message":"Insufficient Balance"}}`,
	`{"error":"x","message":"y"}`,
	"\xff\xfe{\"error\":1}",
	`<html>502</html>`,
}

func FuzzDecodeSearch(f *testing.F) {
	for _, s := range wireSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := DecodeSearch(body)
		if err != nil {
			require.Nil(t, items)
			return
		}
		for _, it := range items {
			if !it.HasRerank {
				require.Zero(t, it.Rerank)
			}
			if !it.HasAuthority {
				require.Zero(t, it.Authority)
			}
			require.False(t, it.Rerank != it.Rerank, "NaN rerank")
			require.False(t, it.Authority != it.Authority, "NaN authority")
		}
	})
}

func FuzzDecodeFetch(f *testing.F) {
	for _, s := range wireSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := DecodeFetch(body)
		if err != nil {
			require.Equal(t, FetchPage{}, page)
			return
		}
		// Decoded JSON strings are always valid UTF-8.
		require.True(t, utf8.ValidString(page.Title))
		require.True(t, utf8.ValidString(page.Content))
	})
}

func FuzzErrorMessage(f *testing.F) {
	for _, s := range wireSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(strings.Repeat("x ", 400)))
	f.Fuzz(func(t *testing.T, body []byte) {
		m := ErrorMessage(body)
		require.LessOrEqual(t, utf8.RuneCountInString(m), 300)
		require.True(t, utf8.ValidString(m), "invalid UTF-8 in %q", m)
		require.Equal(t, strings.Trim(m, " "), m)
		require.NotContains(t, m, "  ")
		for _, r := range m {
			require.False(t, r < ' ' || r == 0x7f, "control character %U in %q", r, m)
		}
		if strings.Trim(string(body), " \t\r\n") == "" {
			require.Empty(t, m)
		}
	})
}

// equivalenceSeeds exercise what encoding/json does that a hand-written
// decoder easily gets wrong: case-insensitive and escaped member names,
// repeated members, escapes and surrogates, invalid UTF-8, numbers out of
// range, nesting.
var equivalenceSeeds = []string{
	`{"RESULTS":[{"URL":"a","Title":"t","ſite_name":"s","rerank_ſcore":1}]}`,
	`{"re\u0073ults":[{"\u0075rl":"x"}]}`,
	`{"results":[{"url":"a","url":5}],"results":[{"url":"b"}]}`,
	`{"results":[{}],"results":5}`,
	`{"results":5,"results":null}`,
	`{"results":[{"summary":"\ud83d\ude00 \ud800 \udc00\u0041 \ud800\u0041 \"\\\/\b\f\n\r\t"}]}`,
	"{\"results\":[{\"title\":\"a\xffb\xc3\"}]}",
	`{"results":[{"rerank_score":1e400,"authority":-0},{"rerank_score":"0x1p-2","authority":" 3 "}]}`,
	`{"results":[{"x":[[[{"y":{}}]]],"url":"u"}],"z":[1,-2.5e-3,true,false,null,"s"]}`,
	`{"results":[null,[],{},"x"]}`,
	`{"title":"a","TITLE":1,"content":"c","Content":null}`,
	`{"error":{"message":"m","message":" "},"message":"o"}`,
	` {"results":[]} `,
	`{"results":[]} x`,
	`[{"results":[]}]`,
	`"str"`,
	`-0.5e+7`,
	`{"a":01}`,
	`{"a":1.}`,
	`{"a":tru}`,
	`{"a":"\x"}`,
	`{"a":"\u12g4"}`,
	"{\"a\":\"\t\"}",
	`{"a" 1}`,
	`{"a":1,}`,
	`{,}`,
}

func addEquivalenceSeeds(f *testing.F) {
	for _, s := range append(wireSeeds, equivalenceSeeds...) {
		f.Add([]byte(s))
	}
}

// nonZero drops entries with no field set: encoding/json gives a zero item
// for a null entry, the streaming decoder skips it like any non-object.
func nonZero(items []SearchItem) []SearchItem {
	out := []SearchItem{}
	for _, it := range items {
		if it != (SearchItem{}) {
			out = append(out, it)
		}
	}
	return out
}

// On valid JSON the streaming decoder gives exactly what the encoding/json
// reference gives (or fails the same way); on invalid JSON it fails.
func FuzzDecodeSearchEquivalence(f *testing.F) {
	addEquivalenceSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := DecodeSearch(body)
		if !json.Valid(body) {
			require.Error(t, err, "invalid JSON %q accepted", body)
			require.ErrorIs(t, err, ErrNotJSON)
			return
		}
		var de *Error
		if errors.As(err, &de) && de.Problem == TooManyResults {
			return // beyond the limit: the reference reads everything
		}
		want, werr := refDecodeSearch(body)
		if werr != nil {
			require.Error(t, err, "body %q", body)
			require.Equal(t, errors.Is(werr, ErrNotJSON), errors.Is(err, ErrNotJSON), "body %q: %v vs %v", body, werr, err)
			return
		}
		require.NoError(t, err, "body %q", body)
		require.Equal(t, want == nil, got == nil, "body %q", body)
		require.Equal(t, nonZero(want), nonZero(got), "body %q", body)
	})
}

func FuzzDecodeFetchEquivalence(f *testing.F) {
	addEquivalenceSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := DecodeFetch(body)
		if !json.Valid(body) {
			require.ErrorIs(t, err, ErrNotJSON, "body %q", body)
			return
		}
		want, werr := refDecodeFetch(body)
		require.Equal(t, werr != nil, err != nil, "body %q: %v vs %v", body, werr, err)
		require.Equal(t, want, got, "body %q", body)
	})
}

func FuzzErrorMessageEquivalence(f *testing.F) {
	addEquivalenceSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		if !json.Valid(body) {
			return // the reference trims Unicode spaces before parsing; both fall back to the raw body otherwise
		}
		require.Equal(t, refErrorMessage(body, nil), ErrorMessage(body), "body %q", body)
	})
}
