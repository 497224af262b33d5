package install

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// invalidUTF8 are byte sequences that are not UTF-8: a byte that never is,
// a lone continuation byte, a three-byte sequence cut short, and an
// encoded surrogate.
var invalidUTF8 = []string{"\xff", "\x80", "\xe2\x82", "\xed\xa0\x80"}

// A patch goes through JSON (the install record, the journal) and still
// gives back every byte of the lines it replaced; a hunk of UTF-8 is
// written as before.
func TestPatchKeepsInvalidUTF8ThroughJSON(t *testing.T) {
	for _, seq := range invalidUTF8 {
		before := "{\n  \"mcpServers\": {\"gh\": {\"command\": \"gh" + seq + "\"}}\n}\n"
		after := "{\n  \"mcpServers\": {\"gh\": {\"command\": \"gh" + seq + "\"}, \"x\": {}}\n}\n"
		raw, err := json.Marshal(MakePatch([]byte(before), []byte(after)))
		require.NoError(t, err)
		var p Patch
		require.NoError(t, json.Unmarshal(raw, &p))
		got, ok := p.Reverse([]byte(after))
		require.True(t, ok)
		require.Equal(t, []byte(before), got, "%q", seq)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // as Marshal writes records
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(Hunk{At: 1, Del: 2, Old: "<a> & ü\n"}))
	require.Equal(t, "{\"at\":1,\"del\":2,\"old\":\"<a> & ü\\n\"}\n", b.String())
	raw, err := json.Marshal(Hunk{At: 1, Del: 2, Old: "a\xffb\n"})
	require.NoError(t, err)
	require.Equal(t, `{"at":1,"del":2,"old":"","oldBytes":"Yf9iCg=="}`, string(raw))
	var h Hunk
	require.NoError(t, json.Unmarshal([]byte(`{"at":3,"del":0,"old":"x\n"}`), &h), "a record of an earlier version")
	require.Equal(t, Hunk{At: 3, Old: "x\n"}, h)
}

// An interrupted run's config is put back byte for byte from the
// journal's patch.
func TestRecoverKeepsInvalidUTF8(t *testing.T) {
	for _, seq := range invalidUTF8 {
		home := t.TempDir()
		cfg := filepath.Join(home, "cfg", "settings.json")
		old := "{\n  \"a\": \"" + seq + "\"\n}\n"
		require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
		require.NoError(t, os.WriteFile(cfg, []byte(old), 0o644))
		tx := Tx{StateDir: filepath.Join(home, ".local", "state", Name), Command: "init", Plans: []*Plan{{Changes: []Change{
			{Op: OpUpdate, Kind: KindConfig, Path: cfg, Old: []byte(old), New: []byte("{\n  \"a\": \"" + seq + "\",\n  \"b\": 1\n}\n")},
		}}}}
		changes, err := compose(tx.Plans)
		require.NoError(t, err)
		_, err = tx.begin(changes, MissingDirs(tx.StateDir))
		require.NoError(t, err)
		_, err = applyChange(changes[0])
		require.NoError(t, err)
		_, found, err := Recover(tx.StateDir)
		require.NoError(t, err, "%q", seq)
		require.True(t, found)
		got, err := os.ReadFile(cfg)
		require.NoError(t, err)
		require.Equal(t, []byte(old), got, "%q", seq)
	}
}

// Normalize, the data view edits are checked against, keeps strings that
// differ only in bytes that are not UTF-8 apart (encoding/json reads each
// such byte as U+FFFD).
func TestNormalizeKeepsInvalidUTF8Apart(t *testing.T) {
	seen := map[string]string{}
	for _, s := range append(invalidUTF8, "\ufffd", "\\ufffd", "\xfe", "\xff\xff") {
		v, err := Normalize([]byte(`{"a": "` + s + `"}`))
		require.NoError(t, err)
		k, err := json.Marshal(v)
		require.NoError(t, err)
		if s == "\\ufffd" {
			require.Equal(t, seen["\ufffd"], string(k), "an escape and the character it names are the same data")
			continue
		}
		_, dup := seen[string(k)]
		require.False(t, dup, "%q reads as %s, as another", s, k)
		seen[string(k)], seen[s] = s, string(k)
	}
}
