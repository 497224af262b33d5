package install

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"
)

func TestSplitFirstLine(t *testing.T) {
	tests := []struct{ in, first, rest string }{
		{"\n  ", "\n", "  "},
		{" // c\n  ", " // c\n", "  "},
		{" /* a\n b */\n  ", " /* a\n b */\n", "  "},
	}
	for _, tc := range tests {
		f, r, ok := splitFirstLine([]byte(tc.in))
		require.True(t, ok, tc.in)
		require.Equal(t, tc.first, string(f))
		require.Equal(t, tc.rest, string(r))
	}
	_, _, ok := splitFirstLine([]byte(" /* x */ "))
	require.False(t, ok)
}

// Removing an item someone else added next to ours keeps the comment that
// trails the previous item.
func TestRemoveItemKeepsNeighbourComments(t *testing.T) {
	c, err := ParseJSONC([]byte("{\n  \"plugins\": [\n    \"a\", // about a\n    \"ours\",\n    \"b\"\n  ]\n}\n"))
	require.NoError(t, err)
	RemoveItem(ArrItems{c.Obj.Members[0].Value.Value.(*hujson.Array)}, 1, nil)
	require.Equal(t, "{\n  \"plugins\": [\n    \"a\", // about a\n    \"b\"\n  ]\n}\n", string(c.Pack()))
}

// Strings added to an empty array that spans lines go on their own lines,
// one level inside its closing bracket.
func TestAddStringsIntoAnEmptyMultilineArray(t *testing.T) {
	c, err := ParseJSONC([]byte("{\r\n\t\"tools\": {\r\n\t\t\"exclude\": [\r\n\t\t]\r\n\t}\r\n}\r\n"))
	require.NoError(t, err)
	_, _, _, err = c.AddStrings([]string{"tools", "exclude"}, []string{"a", "b"})
	require.NoError(t, err)
	require.Equal(t, "{\r\n\t\"tools\": {\r\n\t\t\"exclude\": [\r\n\t\t\t\"a\",\r\n\t\t\t\"b\"\r\n\t\t]\r\n\t}\r\n}\r\n", string(c.Pack()))
}
