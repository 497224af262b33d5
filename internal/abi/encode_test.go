package abi

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

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
