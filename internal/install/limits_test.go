package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"
)

func TestJSONShape(t *testing.T) {
	for _, tc := range []struct {
		in            string
		depth, values int
	}{
		{``, 0, 0},
		{`1`, 0, 1},
		{`"[{"`, 0, 1},
		{`{}`, 1, 1},
		{`{"a": [1, {"b": []}]}`, 4, 7},
		{`[[[]], [[[]]]]`, 4, 6},
		{`{"a": "x\"[[[" , "b": "\\"}`, 1, 5},
		{"// [[[\n{\"a\": /* {{{ */ [\n]}", 2, 3},
		{"{\"a\": 1} // [[[", 1, 3},
		{"{\"a\": 1} /* [[[", 1, 3},
		{"{\"a\": 1} /*/ [[[ */", 1, 3},
		{"{\"a\": \"\xff[\"}", 1, 3},
		{`[true, null, -1.5e+3, 0]`, 1, 5},
		{`]]]{`, 1, 1},
		{`"unterminated [[[`, 0, 1},
	} {
		d, n := jsonShape([]byte(tc.in))
		require.Equal(t, tc.depth, d, "%q", tc.in)
		require.Equal(t, tc.values, n, "%q", tc.in)
	}
}

func TestTOMLDepth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 1},
		{"a = 1", 1},
		{"a.b.c = 1", 3},
		{"a . 'b' . \"c\" = 1", 3},
		{"[a.b]", 3},
		{"[ a . b ]\nc = 1", 3},
		{"[a.b]\nc.d = {}", 5},
		{"[[a]]", 3},
		{"[[a]]\nb.c = 1", 4},
		{"[[a]]\n[a.b]", 4},
		{"[[a]]\n[[a.b]]", 5},
		{"[[a]]\n[[a.b]]\n[[a]]\n[a.b.c]", 5},
		{"[[\"a\"]]\n[\"\\u0061\".b]", 4},
		{"a = [1, [2, [3]]]", 4},
		{"a = []", 2},
		{"a = {}", 2},
		{"a = { b = { c = 1 } }", 3},
		{"a = { b.c.d = [ {} ] }", 6},
		{"a = [ # [[[\n  1, # {{{\n  {x = 2},\n]", 3},
		{"a = \"[[{{\"\nb = '[[{{'\n", 1},
		{"a = \"\"\"\n[[x]]\n{{\n\"\"\"\nb = 1", 1},
		{"a = '''\n[[x.y.z]]\n''''' # ok", 1},
		{"a = \"\"\"\\\"\"\"\"\nb = \"\"\"[x\"\"\"\"\" # [[", 1},
		{"# [[a.b.c]]\na = 1 # {{{\n", 1},
		{"d = 1979-05-27 07:32:00Z\ne = [1979-05-27 07:32:00Z, {f = 1}]", 3},
		{"a = {\n  b = 1, # c\n  c = [2,],\n}", 3},
		{"[a]\nb = {c = {d = {e = 1}}}", 5},
		{"a = " + strings.Repeat("{b=", 1000) + "1" + strings.Repeat("}", 1000), 1001},
		{strings.Repeat("a.", 999) + "a = 1", 1000},
		{"[" + strings.Repeat("a.", 999) + "a]", 1001},
		{"a = " + strings.Repeat("[", 1000), 1001},
		{"]]]]", 1},
		{"[[", 1},
		{"a = {", 2},
		{"a = { = 1 }", 2},
		{"= = =", 1},
	} {
		require.Equal(t, tc.want, tomlDepth([]byte(tc.in)), "%q", tc.in)
		var m map[string]any
		if _, err := toml.Decode(tc.in, &m); err == nil && tc.want < 64 {
			require.Equal(t, tc.want, treeDepth(m), "%q", tc.in)
		}
	}
}

// treeDepth is how deeply a parsed value nests (as tomlDepth counts).
func treeDepth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, treeDepth(e))
		}
		return d + 1
	case []map[string]any:
		for _, e := range x {
			d = max(d, treeDepth(e))
		}
		return d + 1
	case []any:
		for _, e := range x {
			d = max(d, treeDepth(e))
		}
		return d + 1
	}
	return 0
}

// hujsonShape is how deeply a parsed value nests and how many nodes its
// tree has (as jsonShape counts).
func hujsonShape(v hujson.ValueTrimmed) (depth, values int) {
	switch x := v.(type) {
	case *hujson.Object:
		for _, m := range x.Members {
			d, n := hujsonShape(m.Value.Value)
			depth, values = max(depth, d), values+n+1
		}
		return depth + 1, values + 1
	case *hujson.Array:
		for _, e := range x.Elements {
			d, n := hujsonShape(e.Value)
			depth, values = max(depth, d), values+n
		}
		return depth + 1, values + 1
	}
	return 0, 1
}

var jsonShapeSeeds = []string{
	"{}", `{"a": [1, {"b": []}]}`, "// [[\n{\"a\": /* {{ */ [\n]} // ]]", `{"a": "x\"[[" , "b": "\\"}`,
	"[[[]], [[[]]]]", "{\"a\": \"\xff[\\u00\"}", "{\"a\": 1,}", "/**/[/*/]*/]", `"\\\"[["`,
}

// FuzzJSONShape: the scanner never panics, and on every text the parser
// reads it finds the depth and the size of the tree the parser built.
func FuzzJSONShape(f *testing.F) {
	for _, s := range jsonShapeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, n := jsonShape(data)
		if len(data) > 1<<16 {
			return
		}
		if v, _, err := ParseValue(data); err == nil {
			wd, wn := hujsonShape(v.Value)
			require.Equal(t, wd, d, "depth of %q", data)
			require.Equal(t, wn, n, "values of %q", data)
		}
	})
}

var tomlDepthSeeds = []string{
	"", "a = 1", "a.b.c = 1", "[a.b]\nc.d = {}", "[[a]]\n[[a.b]]\n[[a]]\n[a.b.c]", "[[\"a\"]]\n[\"\\u0061\".b]",
	"a = { b.c.d = [ {} ] }", "a = [ # [[[\n  1, # {{{\n  {x = 2},\n]", "a = \"\"\"\n[[x]]\n{{\n\"\"\"\nb = 1",
	"a = '''\n[[x.y.z]]\n''''' # ok", "d = 1979-05-27 07:32:00Z\ne = [1979-05-27 07:32:00Z, {f = 1}]",
	"a = {\n  b = 1, # c\n  c = [2,],\n}", "[a]\nb = {c = {d = {e = 1}}}\n[a.x.'y']\n", "\"\\x41\" = { \"\\e\" = [[]] }",
}

// FuzzTOMLDepth: the depth scanner never panics, and on every document
// BurntSushi/toml reads it finds the depth of what the parser built.
func FuzzTOMLDepth(f *testing.F) {
	for _, s := range tomlDepthSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d := tomlDepth([]byte(in))
		if len(in) > 1<<12 || d > 64 {
			return // the parser's time grows with the square of the depth
		}
		var m map[string]any
		if _, err := toml.Decode(in, &m); err == nil {
			if m == nil {
				m = map[string]any{}
			}
			require.Equal(t, treeDepth(m), d, "%q", in)
		}
	})
}

func TestCheckConfigBounds(t *testing.T) {
	for _, tc := range []struct {
		path, in, want string
	}{
		{"/h/.claude.json", "{\"a\": " + strings.Repeat("[", 65) + strings.Repeat("]", 65) + "}", "/h/.claude.json: nested 66 levels deep, more than the 64 this installer reads; nothing was changed"},
		{"/h/.claude.json", "\ufeff" + strings.Repeat("[", 64) + strings.Repeat("]", 64), ""},
		{"/h/.codex/config.toml", "a = " + strings.Repeat("{b=", 40) + "1" + strings.Repeat("}", 40), "/h/.codex/config.toml: nested 41 levels deep, more than the 32 this installer reads; nothing was changed"},
		{"/h/.codex/config.toml", strings.Repeat("a.", 31) + "a = 1", ""},
		{"/h/.codex/config.toml", strings.Repeat("a.", 32) + "a = 1", "/h/.codex/config.toml: nested 33 levels deep, more than the 32 this installer reads; nothing was changed"},
		{"/h/.codex/config.toml", strings.Repeat("#", maxTOMLBytes+1), "/h/.codex/config.toml: 1048577 bytes, more than the 1 MiB this installer reads; nothing was changed"},
		{"/h/.mcp.json", "[" + strings.Repeat("0,", maxJSONValues) + "0]", "/h/.mcp.json: 4000002 values, more than the 4000000 this installer reads; nothing was changed"},
		{"/h/.mcp.json", "[" + strings.Repeat("0,", maxJSONValues-2) + "0]", ""},
	} {
		err := checkConfig(tc.path, []byte(tc.in))
		if tc.want == "" {
			require.NoError(t, err)
			continue
		}
		var le *limitError
		require.ErrorAs(t, err, &le)
		require.EqualError(t, err, tc.want)
	}
}

// A file over the size bound is refused from its size, unread; a config
// over its depth bound is refused before any parser sees it.
func TestReadConfigLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxFileBytes+1))
	require.NoError(t, f.Close())
	_, _, exists, err := ReadFile(big)
	require.True(t, exists)
	require.EqualError(t, err, big+": 268435457 bytes, more than the 256 MiB this installer reads; nothing was changed")
	_, _, _, err = ReadConfig(big)
	require.EqualError(t, err, big+": 268435457 bytes, more than the 256 MiB this installer reads; nothing was changed")

	toml := filepath.Join(dir, "config.toml")
	require.NoError(t, os.WriteFile(toml, make([]byte, maxTOMLBytes+1), 0o644))
	_, _, _, err = ReadConfig(toml)
	require.EqualError(t, err, toml+": 1048577 bytes, more than the 1 MiB this installer reads; nothing was changed")
	data, _, _, err := ReadFile(toml)
	require.NoError(t, err, "any other file may be up to 256 MiB")
	require.Len(t, data, maxTOMLBytes+1)

	deep := filepath.Join(dir, "deep.json")
	require.NoError(t, os.WriteFile(deep, []byte(strings.Repeat("[", 100)+strings.Repeat("]", 100)), 0o644))
	_, _, _, err = ReadConfig(deep)
	require.EqualError(t, err, deep+": nested 100 levels deep, more than the 64 this installer reads; nothing was changed")
	data, _, ok, err := ReadConfig(filepath.Join(dir, "absent.json"))
	require.NoError(t, err)
	require.False(t, ok)
	require.Nil(t, data)
}

// A record is read only from a regular file: one a clone links to
// /dev/zero would be read until memory runs out.
func TestReadRecordRefusesADevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	p := filepath.Join(t.TempDir(), "deepseek-web-retrieval.install.json")
	require.NoError(t, os.Symlink("/dev/zero", p))
	r, _, err := ReadRecord(p, nil)
	require.Nil(t, r)
	require.EqualError(t, err, "refused: "+p+" is not a regular file")
}
