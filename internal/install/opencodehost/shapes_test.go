package opencodehost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install/internal/shapetest"
)

// The shape corpus of OpenCode's config: every legal shape of the plugin
// list (2.x "plugins": strings, {package, options} objects, mixed; 1.x
// "plugin": strings and [name, options] tuples; absent, empty, commented,
// trailing commas, our entry already there), each written with every
// indentation style, line ending, final-newline style, with or without a
// byte order mark, as opencode.jsonc or opencode.json, goes through init →
// an independent read (hujson strips comments and trailing commas, then
// encoding/json) → uninstall, which must give back the original bytes:
// through the record's patch and through the structural removal alone. A
// list that is not an array is refused with the file, the line and the
// shape, and nothing is written.

type ocShape struct {
	name   string
	host   Host
	text   string
	refuse string // with {file}; "" when init must succeed
}

var ocShapes = []ocShape{
	{name: "plugins absent", text: "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n"},
	{name: "empty file", text: ""},
	{name: "blank file", text: "\n  \n"},
	{name: "empty object", text: "{}\n"},
	{name: "plugins []", text: "{\n  \"plugins\": []\n}\n"},
	{name: "plugins empty with a comment", text: "{\n  \"plugins\": [\n    // none yet\n  ],\n  \"theme\": \"dark\"\n}\n"},
	{name: "plugins empty with a block comment", text: "{\n  \"plugins\": [ /* none */ ]\n}\n"},
	{name: "plugins strings on one line", text: "{\n  \"plugins\": [\"opencode-foo\", \"opencode-bar@1.2.3\"]\n}\n"},
	{name: "plugins strings, comments, trailing commas", text: "{\n  // my plugins\n  \"plugins\": [\n    \"opencode-foo\", // foo\n    /* bar */ \"opencode-bar\",\n  ],\n  \"model\": \"x\",\n}\n"},
	{name: "plugins objects", text: "{\n  \"plugins\": [\n    {\n      \"package\": \"opencode-foo\",\n      \"options\": {\"level\": 2}\n    }\n  ]\n}\n"},
	{name: "plugins mixed", text: "{\n  \"plugins\": [\n    \"opencode-foo\",\n    {\"package\": \"opencode-bar\", \"options\": {}} // bar\n  ]\n}\n"},
	{name: "plugins comment after the last", text: "{\n  \"plugins\": [\n    \"opencode-foo\" // the only one\n  ]\n}\n"},
	{name: "plugins our entry as a string", text: "{\n  \"plugins\": [\n    \"opencode-foo\",\n    \"./vendor/deepseek-web-retrieval\"\n  ]\n}\n"},
	{name: "plugins our entry as an object", text: "{\n  \"plugins\": [{\"package\": \"./vendor/deepseek-web-retrieval\", \"options\": {\"search\": \"off\"}}]\n}\n"},
	{name: "whole file on one line", text: "{\"plugins\":[\"opencode-foo\"],\"theme\":\"dark\"}"},
	{name: "comments around the root", text: "// mine\n{\n  \"theme\": \"dark\"\n} // end\n"},
	{name: "plugins null", text: "{\n  \"theme\": \"dark\",\n  \"plugins\": null\n}\n",
		refuse: "cannot add the plugin to {file}: line 3: \"plugins\" is null, not an array"},
	{name: "plugins an object", text: "{\n  \"plugins\": {\n    \"opencode-foo\": {}\n  }\n}\n",
		refuse: "cannot add the plugin to {file}: line 2: \"plugins\" is an object, not an array"},
	{name: "plugins a string", text: "{\"plugins\": \"opencode-foo\"}\n",
		refuse: "cannot add the plugin to {file}: line 1: \"plugins\" is a string, not an array"},

	{name: "top level a string", text: "\"opencode\"\n",
		refuse: "cannot parse {file}: line 1: the top level is a string, not an object"},
	{name: "1.x plugin absent", host: HostV1, text: "{\n  \"model\": \"x\"\n}\n"},
	{name: "1.x plugin []", host: HostV1, text: "{\n  \"plugin\": []\n}\n"},
	{name: "1.x plugin strings", host: HostV1, text: "{\n  \"plugin\": [\n    \"opencode-foo\",\n    \"opencode-bar\", // bar\n  ]\n}\n"},
	{name: "1.x plugin tuples", host: HostV1, text: "{\n  \"plugin\": [[\"opencode-foo\", {\"level\": 2}], \"opencode-bar\"]\n}\n"},
	{name: "1.x plugin our entry", host: HostV1, text: "{\n  \"plugin\": [\n    [\"./vendor/deepseek-web-retrieval\", {\"search\": \"off\"}]\n  ]\n}\n"},
	{name: "1.x plugin null", host: HostV1, text: "{\n  \"plugin\": null\n}\n",
		refuse: "cannot add the plugin to {file}: line 2: \"plugin\" is null, not an array"},
}

type ocVariant struct {
	shapetest.Style
	file string
}

func (v ocVariant) String() string { return v.Style.String() + "/" + v.file }

func ocVariants() []ocVariant {
	var out []ocVariant
	for i, st := range shapetest.Styles() {
		file := "opencode.jsonc"
		if i%3 == 2 {
			file = "opencode.json"
		}
		out = append(out, ocVariant{st, file})
	}
	return out
}

// ocRead is the independent reader: hujson, then encoding/json.
func ocRead(t *testing.T, data []byte) map[string]any { return shapetest.ReadJSON(t, data) }

// withoutOurs drops our entries from the plugin list (and the list when
// that empties it), for comparing the rest of the config.
func withoutOurs(m map[string]any, key string, dropEmpty bool) (map[string]any, int) {
	arr, ok := m[key].([]any)
	if !ok {
		return m, 0
	}
	var keep []any
	n := 0
	for _, e := range arr {
		if isOurPath(entryName(e)) {
			n++
			continue
		}
		keep = append(keep, e)
	}
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	if len(keep) == 0 && dropEmpty {
		delete(out, key)
	} else {
		if keep == nil {
			keep = []any{}
		}
		out[key] = keep
	}
	return out, n
}

func newMemFixture(t *testing.T) *fixture {
	root, err := os.MkdirTemp("/dev/shm", "dwr-ocshapes-")
	if err != nil {
		return newFixture(t)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	env := install.Env{Home: filepath.Join(root, "home"), WorkDir: filepath.Join(root, "work")}
	require.NoError(t, os.MkdirAll(env.WorkDir, 0o755))
	cfgDir := filepath.Join(env.Home, ".config", "opencode")
	require.NoError(t, os.MkdirAll(cfgDir, 0o755))
	return &fixture{t: t, root: root, env: env, cfgDir: cfgDir}
}

func readNow(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// TestShapeCorpus runs the corpus; see the comment above ocShapes.
func TestShapeCorpus(t *testing.T) {
	vs := ocVariants()
	tiers := []string{"off", "optional", "preferred", "forced"}
	var total, refused atomic.Int64
	t.Cleanup(func() {
		t.Logf("shape corpus: %d cases (%d shapes × %d variants), %d refused as expected", total.Load(), len(ocShapes), len(vs), refused.Load())
	})
	for _, half := range []int{0, 1} {
		t.Run(fmt.Sprint(half), func(t *testing.T) {
			t.Parallel()
			f := newMemFixture(t)
			for si, s := range ocShapes {
				if si%2 != half {
					continue
				}
				for vi, v := range vs {
					total.Add(1)
					if ocCase(t, f, s, v, tiers[(si+vi)%len(tiers)]) {
						refused.Add(1)
					}
				}
			}
		})
	}
}

func ocCase(t *testing.T, f *fixture, s ocShape, v ocVariant, tier string) bool {
	name := fmt.Sprintf("%s/%s/%s", s.name, v, tier)
	h := s.host
	if h == "" {
		h = HostV2
	}
	cfg := f.path(v.file)
	if !(s.text == "" && v.Final == "none" && v.BOM) { // one case with no file at all
		f.write(v.file, v.Render(s.text))
	}
	defer func() { _ = os.Remove(cfg) }()
	before := f.tree()
	req := f.request(install.Options{Search: tier, Fetch: tier})
	req.Host = h
	p, err := planInit(req)
	if s.refuse != "" {
		var re *install.RefusedError
		require.ErrorAs(t, err, &re, name)
		require.Equal(t, strings.ReplaceAll(s.refuse, "{file}", cfg), re.Reason, name)
		require.Equal(t, before, f.tree(), "%s: a refusal writes nothing", name)
		return true
	}
	require.NoError(t, err, name)
	require.NoError(t, p.Apply(), name)

	orig := []byte(before[v.file])
	got, err := os.ReadFile(cfg)
	require.NoError(t, err, name)
	key := h.Key()
	o, _ := withoutOurs(ocRead(t, orig), key, true)
	a, n := withoutOurs(ocRead(t, got), key, true)
	require.Equal(t, o, a, "%s: init changed only the plugin list", name)
	require.Equal(t, 1, n, "%s: one entry of ours:\n%s", name, got)
	require.Equal(t, bytes.HasPrefix(orig, []byte("\ufeff")), bytes.HasPrefix(got, []byte("\ufeff")), "%s: the BOM is kept", name)
	shapetest.CheckStyle(t, v.Style, string(orig), string(got), name)
	again, err := planInit(req)
	require.NoError(t, err, name)
	require.True(t, again.Empty(), "%s: a second init changes nothing:\n%s", name, f.render(again, false))
	// The .jsonc cases change the tier with a later init: the entry's
	// options are rewritten in place, and uninstall still restores.
	if v.file == "opencode.jsonc" {
		other := install.Options{Search: "forced", Fetch: "off"}
		if tier == "forced" {
			other = install.Options{Search: "off", Fetch: "preferred"}
		}
		req2 := f.request(other)
		req2.Host = h
		p2, err := planInit(req2)
		require.NoError(t, err, name)
		require.NoError(t, p2.Apply(), name)
		got2, err := os.ReadFile(cfg)
		require.NoError(t, err)
		a2, n2 := withoutOurs(ocRead(t, got2), key, true)
		require.Equal(t, o, a2, "%s: the second init changed only the plugin list", name)
		require.Equal(t, 1, n2, name)
	}

	// Uninstall through the patch, then through the structural removal.
	check := func(p *install.Plan, how string) {
		for _, c := range p.Changes {
			if c.Kind != install.KindConfig {
				continue
			}
			if c.Op == install.OpDelete {
				_, existed := before[v.file]
				require.False(t, existed, "%s (%s): uninstall deletes a config that was there", name, how)
				continue
			}
			require.Equal(t, string(orig), string(c.New), "%s (%s)", name, how)
		}
	}
	u, err := planUninstall(uninstallRequest{Env: f.env, Scope: install.ScopeGlobal})
	require.NoError(t, err, name)
	check(u, "patch")
	recData := f.read(recordFile)
	var rec Record
	require.NoError(t, json.Unmarshal([]byte(recData), &rec))
	configOf(&rec).Patch = nil
	f.write(recordFile, string(rec.Marshal()))
	u2, err := planUninstall(uninstallRequest{Env: f.env, Scope: install.ScopeGlobal})
	require.NoError(t, err, name)
	check(u2, "structural")

	// A hand edit elsewhere (a comment line at the top) voids the patch:
	// uninstall keeps it and takes out only our entry, byte for byte.
	if mark, body := install.SplitBOM(orig); len(orig) > 0 && !install.IsBlank(body) {
		eol := install.DetectEOL(body)
		edit := func(b []byte) string {
			m, rest := install.SplitBOM(b)
			return string(m) + "// edited" + eol + string(rest)
		}
		f.write(recordFile, recData)
		f.write(v.file, edit(readNow(t, cfg)))
		u3, err := planUninstall(uninstallRequest{Env: f.env, Scope: install.ScopeGlobal})
		require.NoError(t, err, name)
		seen := false
		for _, c := range u3.Changes {
			if c.Kind == install.KindConfig {
				seen = true
				require.Equal(t, edit(append(mark, body...)), string(c.New), "%s (edited)", name)
			}
		}
		require.True(t, seen, name)
		require.NoError(t, u3.Apply(), name)
		f.write(v.file, string(orig))
	} else {
		require.NoError(t, u2.Apply(), name)
	}
	require.True(t, reflect.DeepEqual(before, f.tree()), "%s: uninstall restores every file byte for byte:\n%q\n%q", name, before[v.file], f.tree()[v.file])
	return false
}
