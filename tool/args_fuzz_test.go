package tool

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// argsMap is readArgs as it was: every member's text in a map by name.
func argsMap(args []byte) (map[string][]byte, bool) {
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

var argsCases = []string{
	`{"url":"https://example.com/"}`,
	` {"url" : "https://example.com/" , "format":null, "offset": 12 } `,
	`{"url":"a","url":"b","URL":"c","\u0075rl":"d"}`,
	`{"query":"go","query":null}`,
	`{"offset":"3","format":"markdown","other":[1,{"url":2}]}`,
	`{}`, `[]`, `null`, ``, `{"url":}`, `{"url":"x"} x`, `{"url":"\ud800"}`,
}

// TestReadArgs checks readArgs against the map it replaced on fixed cases.
func TestReadArgs(t *testing.T) {
	for _, c := range argsCases {
		checkReadArgs(t, []byte(c))
	}
	a, ok := readArgs([]byte(`{"url":"a","url" : "b"}`))
	require.True(t, ok)
	require.Equal(t, `"b"`, string(a[argURL]))
}

// FuzzReadArgs checks that readArgs reads what the map of every member did
// for each name Parse reads, and the same validity.
func FuzzReadArgs(f *testing.F) {
	for _, c := range argsCases {
		f.Add([]byte(c))
	}
	f.Fuzz(checkReadArgs)
}

func checkReadArgs(t *testing.T, args []byte) {
	want, wantOK := argsMap(args)
	got, ok := readArgs(args)
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

func FuzzParse(f *testing.F) {
	for _, args := range []string{
		`{"url":"https://e.x/"}`, ` {"url":"https://e.x/","format":"markdown","offset":32000} `, `{"url":"u","offset":"16000"}`,
		`{"url":"u","offset":" 1e3 "}`, `{"url":"u","offset":1.5}`, `{"url":"u","offset":-1}`, `{"url":"u","offset":null}`,
		`{"url":"u","offset":"abc"}`, `{"url":"u","offset":[1]}`, `{"url":"u","offset":"` + strconv.Itoa(1<<31) + `"}`,
		`{"url":1}`, `{"url":null}`, `{}`, `[]`, `null`, ``, `{"query":"q","query":"r"}`, `{"query":"a\u00e9\ud800"}`,
		`{"Query":"q"}`, "{\"query\":\"\xff\"}", `{"query":"q"} x`, `{"query":"q",}`, `{"url":"u","format":7}`, `{"url":"u","offset":"\u0031"}`,
		`{"url":"u","offset":"0x1p4"}`, `{"url":"u","offset":"0x1_0p0"}`, `{"url":"u","offset":"010"}`,
	} {
		f.Add(uint8(0), []byte(args))
		f.Add(uint8(1), []byte(args))
	}
	f.Add(uint8(2), []byte(`{}`))
	cfg := &core.Config{}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		name := []string{FetchName, SearchName, "deepseek_other"}[int(which)%3]
		want, wantErr := refParse(name, args, cfg)
		got, err := Parse(name, args, cfg)
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error(), "%q", args)
			return
		}
		require.NoError(t, err, "%q", args)
		require.Equal(t, want, got, "%q", args)
	})
}
