package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// list splits a valid JSON array exactly as encoding/json does, and stops
// at its limit before holding more.
func TestList(t *testing.T) {
	for _, in := range []string{
		`[]`, ` [ ] `, `[1]`, `[1,2 , 3]`, `[{"a":[1,2]},"x,]\"",[[],{}],null]`,
		`["\\", "\\\"]", {"k":"}"}]`, "[\n {\"a\": 1},\n {\"b\": 2}\n]",
	} {
		var want []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(in), &want), in)
		got, err := list([]byte(in), 10, "things")
		require.NoError(t, err, in)
		require.Equal(t, len(want), len(got), in)
		for i := range want {
			require.Equal(t, string(bytes.TrimSpace(want[i])), string(got[i]), in)
		}
	}
	_, err := list([]byte(`[`+strings.Repeat(`{},`, 10)+`{}]`), 10, "things")
	require.EqualError(t, err, "more than 10 things")
	got, err := list([]byte(`[`+strings.Repeat(`{},`, 9)+`{}]`), 10, "things")
	require.NoError(t, err)
	require.Len(t, got, 10)
}

func FuzzList(f *testing.F) {
	for _, s := range []string{`[]`, `[1,"a",{"b":[2]}]`, `["\"", "\\"]`, `[[[]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want []json.RawMessage
		if json.Unmarshal(data, &want) != nil || !bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
			return // list is only ever given arrays encoding/json accepted
		}
		got, err := list(data, 1<<30, "entries")
		require.NoError(t, err)
		require.Equal(t, len(want), len(got))
		for i := range want {
			require.Equal(t, string(bytes.TrimSpace(want[i])), string(got[i]))
		}
	})
}
