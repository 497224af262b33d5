package wire

import (
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
