package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install/internal/shapetest"
)

var fuzzEntry = json.RawMessage(`{"command":"/opt/dwr","args":["mcp","--search","forced"],"env":{"K":"$K"}}`)

// editRoundTrip inserts a server entry (mcpServers.dwr) and two strings
// into tools.exclude, the way init does, checks the result, then removes
// them from a fresh parse of it, the way uninstall does, and returns what
// that gives back. ok is false when data is not a JSONC object or the
// edit is refused (then nothing may have changed).
func editRoundTrip(t *testing.T, data []byte) (out []byte, ok bool) {
	c, err := ParseJSONC(bytes.Clone(data))
	if err != nil {
		return nil, false
	}
	before, err := Normalize(data)
	require.NoError(t, err, "ParseJSONC accepted what Normalize refuses: %q", data)
	server := []string{"mcpServers", "dwr"}
	tools := []string{"tools", "exclude"}
	if c.Lookup(server...) != nil {
		return nil, false // an entry there already is adopted or refused, never edited
	}
	created, lay, err := c.Set(server, fuzzEntry)
	var se *ShapeError
	if err != nil {
		require.True(t, errors.As(err, &se), "%v", err)
		require.Equal(t, string(data), string(c.Pack()), "a refused edit changes nothing")
		return nil, false
	}
	added, createdA, lays, err := c.AddStrings(tools, []string{"web_fetch", "google_web_search"})
	if err != nil {
		require.True(t, errors.As(err, &se), "%v", err)
		return nil, false
	}
	mid := c.Pack()

	// The result is valid JSONC holding exactly the original plus the edits.
	after, err := Normalize(mid)
	require.NoError(t, err, "the edit made invalid JSONC from %q:\n%q", data, mid)
	want := before.(map[string]any)
	var e any
	_ = json.Unmarshal(fuzzEntry, &e)
	at := func(path []string) map[string]any { return shapetest.Object(want, path) }
	at(server[:1])[server[1]] = e
	arr, _ := at(tools[:1])[tools[1]].([]any)
	for _, s := range added {
		arr = append(arr, s)
	}
	if arr != nil || len(added) > 0 {
		at(tools[:1])[tools[1]] = arr
	}
	require.Equal(t, want, after, "%q\n%q", data, mid)
	// New lines take the file's line ending: a CRLF file gets no bare LF.
	if DetectEOL(data) == "\r\n" {
		require.Equal(t, bareLF(data), bareLF(mid), "bare LFs in %q", mid)
	}

	// Remove, from a fresh parse, in the reverse order.
	d, err := ParseJSONC(bytes.Clone(mid))
	require.NoError(t, err)
	if len(added) > 0 {
		d.RemoveStrings(tools, added, createdA, lays...)
	}
	require.True(t, d.Remove(server, created, layoutsOf(lay)...))
	return d.Pack(), true
}

func layoutsOf(l *Layout) []Layout {
	if l == nil {
		return nil
	}
	return []Layout{*l}
}

func bareLF(b []byte) int { return bytes.Count(b, []byte("\n")) - bytes.Count(b, []byte("\r\n")) }

var roundTripSeeds = []string{
	"{}",
	"{\n}\n",
	"{\n  \"theme\": \"dark\"\n}\n",
	"{\r\n  \"theme\": \"dark\"\r\n}\r\n",
	"{\n\t\"mcpServers\": {}\n}",
	"{\n  \"mcpServers\": {\n    // none\n  }\n}\n",
	"{\n  \"mcpServers\": { /* none */ }\n}\n",
	"{\n  \"mcpServers\": { \"a\": {\"command\": \"x\"} }\n}\n",
	"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}, // a\n  },\n}\n",
	"// top\n{\"mcpServers\":{\"a\":{}},\"tools\":{\"exclude\":[\"x\",]}} // end",
	"{\n  \"tools\": {\n    \"exclude\": [\n      \"a\" /* a */\n\n    ]\n  }\n}\n",
	"{\n  \"mcpServers\": null\n}\n",
	"{\r\n\t\"tools\": {\"exclude\": []},\r\n\t\"x\": [1, 2,]\r\n}",
	"{\"h\": [\"\xff\", \"a\x80\"], \"mcpServers\": {\"b\": {\"command\": \"\xe2\x82\xed\xa0\x80\"}}}\n",
}

// The seeds' round trip is exact (the fuzz target's property on known
// shapes, run by every go test).
func TestEditRoundTripSeeds(t *testing.T) {
	edited := 0
	for _, s := range roundTripSeeds {
		out, ok := editRoundTrip(t, []byte(s))
		if ok {
			edited++
			require.Equal(t, s, string(out))
		}
	}
	require.Equal(t, len(roundTripSeeds)-1, edited, "every seed but mcpServers: null is edited")
}

// FuzzEditRoundTrip: for any JSONC object, inserting our entry and array
// items and removing them again gives back the bytes, and the edited text
// is valid JSONC holding exactly the original plus the edits.
func FuzzEditRoundTrip(f *testing.F) {
	for _, s := range roundTripSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 || strings.Contains(string(data), "\x00") {
			return
		}
		out, ok := editRoundTrip(t, data)
		if !ok {
			return
		}
		require.Equal(t, string(data), string(out), "insert then remove")
	})
}

func TestShapeErrorNamesLineAndShape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\n  \"mcpServers\": null\n}", `line 2: "mcpServers" is null, not an object`},
		{"{\n\n  \"mcpServers\":\n  [1]}", `line 4: "mcpServers" is an array, not an object`},
		{"{\"mcpServers\": true}", `line 1: "mcpServers" is true, not an object`},
		{"{\"mcpServers\": 1.5}", `line 1: "mcpServers" is a number, not an object`},
	} {
		c, err := ParseJSONC([]byte(tc.in))
		require.NoError(t, err)
		_, _, err = c.Set([]string{"mcpServers", "x"}, 1)
		require.EqualError(t, err, tc.want)
		require.Equal(t, tc.in, string(c.Pack()))
	}
	c, err := ParseJSONC([]byte("{\n  \"tools\": {\"exclude\": \"x\"}\n}"))
	require.NoError(t, err)
	_, _, _, err = c.AddStrings([]string{"tools", "exclude"}, []string{"a"})
	require.EqualError(t, err, `line 2: "tools.exclude" is a string, not an array`)
}
