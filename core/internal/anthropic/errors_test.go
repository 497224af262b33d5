package anthropic

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecodeErrorTexts pins the words of Decode's errors, which used to
// come from fmt, and that each still matches ErrNotJSON or is a
// *LimitError.
func TestDecodeErrorTexts(t *testing.T) {
	tests := []struct {
		name, body string
		want       string
		notJSON    bool
	}{
		{"broken", `{"content":[}`, "not a JSON object: the body is not valid JSON at byte 12", true},
		{"truncated", `{"content":`, "not a JSON object: the body is not valid JSON at byte 11", true},
		{"another kind", `[1]`, "not a JSON object", true},
		{"empty", ``, "not a JSON object", true},
		{"too many blocks", `{"content":[` + strings.Repeat(`{},`, MaxBlocks) + `{}]}`, "more than 2000 content blocks", false},
		{"too many results", `{"content":[{"type":"web_search_tool_result","content":[` + strings.Repeat(`{},`, MaxListEntries) + `{}]}]}`,
			"more than 200 results in one web_search_tool_result", false},
		{"too many citations", `{"content":[{"type":"text","citations":[` + strings.Repeat(`{},`, MaxListEntries) + `{}]}]}`,
			"more than 200 citations in one text block", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.body))
			require.EqualError(t, err, tt.want)
			if tt.notJSON {
				require.ErrorIs(t, err, ErrNotJSON)
				return
			}
			require.NotErrorIs(t, err, ErrNotJSON)
			var le *LimitError
			require.ErrorAs(t, err, &le)
		})
	}
}
