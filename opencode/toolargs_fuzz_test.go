package opencode

import (
	"bytes"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
	"github.com/stretchr/testify/require"
)

// membersMap is members as it was: every member's text in a map by name.
func membersMap(args []byte) (map[string][]byte, bool) {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || a[0] != '{' {
		return nil, false
	}
	fields := map[string][]byte{}
	err := jsonlite.DecodeObject(a, func(d *jsonlite.Decoder, key string) error {
		v, err := d.Raw()
		fields[key] = v
		return err
	})
	return fields, err == nil
}

var toolArgsCases = []string{
	`{"url":"https://example.com/"}`,
	` {"url" : "https://example.com/" , "format":null, "offset": 12 } `,
	`{"url":"a","url":"b","URL":"c","\u0075rl":"d"}`,
	`{"query":"go","query":null}`,
	`{"offset":"3","format":"markdown","other":[1,{"url":2}]}`,
	`{}`, `[]`, `null`, ``, `{"url":}`, `{"url":"x"} x`, `{"url":"\ud800"}`,
}

// TestToolArgs checks members against the map it replaced on fixed cases.
func TestToolArgs(t *testing.T) {
	for _, c := range toolArgsCases {
		checkToolArgs(t, []byte(c))
	}
	a, ok := members([]byte(`{"url":"a","url" : "b"}`))
	require.True(t, ok)
	require.Equal(t, `"b"`, string(a[argURL]))
}

// FuzzToolArgs checks that members reads what the map of every member did
// for each name ToolCall reads, and the same validity.
func FuzzToolArgs(f *testing.F) {
	for _, c := range toolArgsCases {
		f.Add([]byte(c))
	}
	f.Fuzz(checkToolArgs)
}

func checkToolArgs(t *testing.T, args []byte) {
	want, wantOK := membersMap(args)
	got, ok := members(args)
	require.Equal(t, wantOK, ok)
	if !ok {
		return
	}
	for i, name := range argNames {
		w, wok := want[name]
		require.Equal(t, wok, got[i] != nil, name)
		require.Equal(t, string(w), string(got[i]), name)
	}
}
