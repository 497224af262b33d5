package core

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A key the server echoes where a length limit cuts the text must not
// survive as a prefix at the cut: it is masked before anything is cut.
func TestKeyMaskedBeforeCuts(t *testing.T) {
	prefix := testKey[:12] // what a cut after the mask would have left

	t.Run("fetch text at fetchMaxChars", func(t *testing.T) {
		cfg := mustConfig(t, Options{FetchMaxChars: 200})
		content := strings.Repeat("x", 150) + testKey + strings.Repeat("y", 400)
		s := fetch(t, cfg, "https://example.com/", okReply(fetchBodyJSON(t, "", content)))
		require.Nil(t, s.Err)
		require.True(t, s.Result.Fetch.Truncated)
		require.NotContains(t, s.Result.Fetch.Text, prefix)
		require.LessOrEqual(t, s.Result.Fetch.Chars, 200)
	})

	t.Run("search summary at maxSummaryChars", func(t *testing.T) {
		cfg := mustConfig(t, Options{MaxSummaryChars: 60})
		summary := strings.Repeat("s", 45) + testKey + " tail"
		hits := searchHits(t, cfg, resultsBody(t, item{URL: "https://example.com/", Summary: summary}))
		require.Len(t, hits, 1)
		require.NotContains(t, hits[0].Text, prefix)
		require.Equal(t, strings.Repeat("s", 45)+keyMask+" tail", hits[0].Text)
	})

	t.Run("error message at 300 characters", func(t *testing.T) {
		body := fmt.Sprintf(`{"error":{"message":%q}}`, strings.Repeat("m", 290)+testKey)
		s := search(t, nil, "q", statusReply(400, body))
		require.NotNil(t, s.Err)
		require.NotContains(t, s.Err.Message, prefix)
		require.Contains(t, s.Err.Message, keyMask)
	})
}

// A zero written for an option whose range excludes it is an error naming
// the option, not a silent "default".
func TestExplicitZeroOptions(t *testing.T) {
	for _, name := range []string{"maxResults", "maxSummaryChars", "fetchMaxChars", "timeoutMs"} {
		t.Run(name, func(t *testing.T) {
			_, _, err := ParseOptions([]byte(`{"` + name + `":0}`))
			require.Error(t, err)
			require.Contains(t, err.Error(), `option "`+name+`": want a whole number from `)
			require.Contains(t, err.Error(), "got 0")
		})
	}
	o, _, err := ParseOptions([]byte(`{"maxRetries":0}`))
	require.NoError(t, err)
	require.Equal(t, 0, *o.MaxRetries)
	_, _, err = ParseOptions([]byte(`{"maxRetries":9}`))
	require.EqualError(t, err, `option "maxRetries": want a whole number from 0 to 5, got 9`)
}

// Option errors are typed, so callers name the option without parsing text.
func TestOptionErrorIsTyped(t *testing.T) {
	_, _, err := ParseOptions([]byte(`{"maxResults":"ten"}`))
	var oe *OptionError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "maxResults", oe.Option)
	_, _, err = NewConfig(Options{Search: "always"})
	require.ErrorAs(t, err, &oe)
	require.Equal(t, OptionError{Option: "search", Reason: `want off, optional, preferred or forced, got "always"`}, *oe)
}

// The masking window of malformed bodies covers the longest form of the
// longest valid key.
func TestMaxFormBytesCoversTheLongestKey(t *testing.T) {
	key := strings.Repeat("a", 1024)
	require.True(t, validKey(key))
	require.Equal(t, maxFormBytes, NewRedactor(key).MaxLen())
	// The longest spelling of a byte is as long as maxUnitLen says.
	require.Equal(t, maxUnitLen, unitOf("&#x0000061;", 'a'))
}
