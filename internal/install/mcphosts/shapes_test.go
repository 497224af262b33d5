package mcphosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install/internal/shapetest"
)

// The shape corpus of the JSON/JSONC hosts. Every legal shape of the
// server's file (mcpServers absent, empty, commented, on one line, with
// trailing commas, our own entry already there, …) and of the file the
// forced tiers edit (Claude's permissions.deny, Gemini's tools.exclude),
// each written with every indentation style, line ending, final-newline
// style and with or without a byte order mark, goes through init → an
// independent read (hujson strips the comments and trailing commas, then
// encoding/json) → uninstall, which must give back the original bytes:
// once through the patch the record keeps and once through the structural
// removal (the record's patch taken away, as when a replaced line holds a
// credential). A shape that cannot be edited must be refused with the
// file, the line and the shape, and nothing written.

// shape is one config template, written with "\n" and two-space indents.
type shape struct {
	name string
	text string
	// refuse is the expected refusal (with {file} for the path), "" when
	// init must succeed; refuseForced applies only to the forced tier.
	refuse, refuseForced string
	// ours: the template holds our entry; {entry} is replaced by it.
	ours bool
}

// serverShapes are shapes of the server's file.
var serverShapes = []shape{
	{name: "mcpServers absent", text: "{\n  \"theme\": \"dark\"\n}\n"},
	{name: "empty file", text: ""},
	{name: "blank file", text: "\n\n"},
	{name: "empty object on one line", text: "{}\n"},
	{name: "empty object on two lines", text: "{\n}\n"},
	{name: "mcpServers {}", text: "{\n  \"mcpServers\": {}\n}\n"},
	{name: "mcpServers { } between members", text: "{\n  \"a\": 1,\n  \"mcpServers\": { },\n  \"b\": [1, 2]\n}\n"},
	{name: "mcpServers empty with a line comment", text: "{\n  \"mcpServers\": {\n    // none yet\n  }\n}\n"},
	{name: "mcpServers empty with a block comment", text: "{\n  \"mcpServers\": { /* none */ }\n}\n"},
	{name: "mcpServers on one line", text: "{\n  \"mcpServers\": { \"a\": {\"command\": \"x\"} }\n}\n"},
	{name: "nested comments", text: "{\n  // top\n  \"mcpServers\": {\n    /* a server */\n    \"a\": {\n      \"command\": \"x\", // trailing\n      \"args\": [\"-y\"] /* inline */\n    } // after a\n  } /* after servers */,\n  \"theme\": \"dark\"\n}\n"},
	{name: "trailing commas", text: "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",},\n  },\n  \"list\": [1, 2,],\n}\n"},
	{name: "comment after the last server", text: "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"} // a's comment\n  }\n}\n"},
	{name: "block comment spanning lines before the brace", text: "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    /* one\n       two */\n  }\n}\n"},
	{name: "blank line before the brace", text: "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n\n  }\n}\n"},
	{name: "whole file on one line", text: "{\"mcpServers\":{\"a\":{\"command\":\"x\"}},\"theme\":\"dark\"}"},
	{name: "comments before and after the root", text: "// my config\n/* v2 */ {\n  \"theme\": \"dark\" // mine\n} // end\n"},
	{name: "duplicate mcpServers (the last wins)", text: "{\n  \"mcpServers\": {\"old\": {\"command\": \"y\"}},\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n  }\n}\n"},
	{name: "strings that are not UTF-8 on the edited line", text: "{\n  \"mcpServers\": {\"a\": {\"command\": \"x\xff\x80\", \"args\": [\"\xe2\x82\", \"\xed\xa0\x80\"]}}\n}\n"},
	{name: "strings that are not UTF-8 elsewhere", text: "{\n  \"history\": [\"\xff\", \"a\x80b\"],\n  \"\xe2\x82\": \"\xed\xa0\x80\",\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n  }\n}\n"},
	{name: "another server's credential on the edited line", text: "{\n  \"mcpServers\": {\"gh\": {\"command\": \"gh\", \"env\": {\"GITHUB_TOKEN\": \"ghp_0123456789abcdefghijABCDEFGHIJ012345\"}}}\n}\n"},
	{name: "our entry already there", text: "{\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {entry}\n  }\n}\n", ours: true},
	{name: "our entry with other options", text: "{\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\"command\": \"/elsewhere\"}\n  }\n}\n",
		refuse: "{file} already has an entry \"mcpServers.deepseek-web-retrieval\" that this installer did not write"},
	{name: "our entry null", text: "{\n  \"mcpServers\": {\"deepseek-web-retrieval\": null}\n}\n",
		refuse: "{file} already has an entry \"mcpServers.deepseek-web-retrieval\" that this installer did not write"},
	{name: "mcpServers null", text: "{\n  \"theme\": \"dark\",\n  \"mcpServers\": null\n}\n",
		refuse: "cannot add the entry to {file}: line 3: \"mcpServers\" is null, not an object"},
	{name: "mcpServers an array", text: "{\n  // servers\n  \"mcpServers\": [\n    {\"name\": \"a\"}\n  ]\n}\n",
		refuse: "cannot add the entry to {file}: line 3: \"mcpServers\" is an array, not an object"},
	{name: "mcpServers a string", text: "{\"mcpServers\": \"none\"}\n",
		refuse: "cannot add the entry to {file}: line 1: \"mcpServers\" is a string, not an object"},
	{name: "mcpServers a number", text: "{\n  \"mcpServers\":\n    0\n}\n",
		refuse: "cannot add the entry to {file}: line 3: \"mcpServers\" is a number, not an object"},
	{name: "top level an array", text: "[\n  {}\n]\n",
		refuse: "cannot parse {file}: line 1: the top level is an array, not an object"},
	{name: "top level null after a comment", text: "// nothing yet\nnull\n",
		refuse: "cannot parse {file}: line 2: the top level is null, not an object"},
}

// geminiShapes add the tools member the forced tiers edit.
var geminiShapes = []shape{
	{name: "tools.exclude with items", text: "{\n  \"tools\": {\n    \"exclude\": [\"run_shell_command\"]\n  },\n  \"mcpServers\": {}\n}\n"},
	{name: "tools.exclude empty", text: "{\n  \"tools\": {\"exclude\": []},\n  \"mcpServers\": {\"a\": {\"command\": \"x\"}}\n}\n"},
	{name: "tools.exclude multi-line, trailing comma", text: "{\n  \"tools\": {\n    \"exclude\": [\n      \"a\", // first\n      \"b\",\n    ],\n  },\n}\n"},
	{name: "tools without exclude", text: "{\n  \"tools\": {\n    \"core\": [\"read_file\"]\n  }\n}\n"},
	{name: "tools.exclude holding ours already", text: "{\n  \"tools\": {\"exclude\": [\"web_fetch\", \"google_web_search\"]}\n}\n"},
	{name: "tools null", text: "{\n  \"tools\": null\n}\n",
		refuseForced: "cannot turn the built-in off in {file}: line 2: \"tools\" is null, not an object"},
	{name: "tools.exclude a string", text: "{\n  \"tools\": {\n    \"exclude\": \"web_fetch\"\n  }\n}\n",
		refuseForced: "cannot turn the built-in off in {file}: line 3: \"tools.exclude\" is a string, not an array"},
}

// claudeSettingsShapes are shapes of Claude Code's settings.json, where
// the forced tiers add to permissions.deny.
var claudeSettingsShapes = []shape{
	{name: "absent", text: "\x00"},
	{name: "empty object", text: "{}\n"},
	{name: "permissions absent", text: "{\n  \"model\": \"opus\"\n}\n"},
	{name: "deny with items", text: "{\n  \"permissions\": {\n    \"deny\": [\n      \"Bash(rm:*)\"\n    ]\n  }\n}\n"},
	{name: "deny on one line, trailing commas", text: "{\n  \"permissions\": {\"deny\": [\"Bash(rm:*)\",],},\n}\n"},
	{name: "allow only, commented", text: "{\n  \"permissions\": {\n    \"allow\": [] // none\n  }\n}\n"},
	{name: "permissions null", text: "{\n  \"permissions\": null\n}\n",
		refuseForced: "cannot turn the built-in off in {file}: line 2: \"permissions\" is null, not an object"},
	{name: "deny an object", text: "{\n  \"permissions\": {\n    \"deny\": {}\n  }\n}\n",
		refuseForced: "cannot turn the built-in off in {file}: line 3: \"permissions.deny\" is an object, not an array"},
}

// variant is how a template is written out.
type variant = shapetest.Style

func variants() []variant { return shapetest.Styles() }

func readJSON(t *testing.T, data []byte) map[string]any { return shapetest.ReadJSON(t, data) }

// want applies what init must do to a target, as data.
func want(orig map[string]any, t target) map[string]any {
	out := deepCopy(orig).(map[string]any)
	at := func(path []string) map[string]any { return shapetest.Object(out, path) }
	if t.server {
		var e any
		_ = json.Unmarshal(mustJSON(t.entry), &e)
		at(t.serverPath[:len(t.serverPath)-1])[t.serverPath[len(t.serverPath)-1]] = e
	}
	for _, ad := range t.adds {
		parent := at(ad.Path[:len(ad.Path)-1])
		k := ad.Path[len(ad.Path)-1]
		arr, _ := parent[k].([]any)
		for _, s := range ad.Items {
			if !slices.Contains(arr, any(s)) {
				arr = append(arr, s)
			}
		}
		parent[k] = arr
	}
	return out
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// checkStyle checks that the lines init wrote follow the file's line
// ending and indentation.
func checkStyle(t *testing.T, v variant, orig, got string, name string) {
	t.Helper()
	shapetest.CheckStyle(t, v, orig, got, name)
}

type corpusCase struct {
	host   Host
	scope  install.Scope
	tier   string
	v      variant
	server shape // the server's file
	other  shape // Claude's settings.json (text "\x00": absent)
	// strict: the host reads its file as strict JSON, so what init writes
	// must parse with encoding/json alone (after the byte order mark).
	strict bool
}

// runCase runs one case in f (left as it found it) and reports whether
// init was refused.
func runCase(t *testing.T, f *fixture, c corpusCase) bool {
	name := fmt.Sprintf("%s/%s/%s/%s/%s", c.host, c.scope, c.tier, c.server.name, c.v)
	if c.other.name != "" {
		name += "/settings " + c.other.name
	}
	req := f.req(c.host, c.scope, install.Options{Search: c.tier, Fetch: c.tier})
	rs, err := resolve(req)
	require.NoError(t, err)
	rs.args = serverArgs(req.Options)
	ts := adapters[c.host].targets(rs)
	texts := []string{c.server.text}
	if len(ts) > 1 {
		texts = append(texts, c.other.text)
	}
	for i, text := range texts {
		if text == "\x00" {
			continue
		}
		if c.server.ours && i == 0 {
			text = strings.ReplaceAll(text, "{entry}", string(mustJSON(ts[0].entry)))
		}
		f.write(ts[i].path, c.v.Render(text))
	}
	before := f.tree()
	defer func() {
		for _, tg := range ts {
			_ = os.Remove(tg.path)
		}
	}()

	p, err := planInit(req)
	forced := c.tier == "forced"
	refusal := c.server.refuse
	file := ts[0].path
	if refusal == "" && forced {
		if refusal = c.server.refuseForced; refusal == "" && len(ts) > 1 {
			refusal, file = c.other.refuseForced, ts[1].path
		}
	}
	if refusal != "" {
		var re *install.RefusedError
		require.ErrorAs(t, err, &re, name)
		require.Equal(t, strings.ReplaceAll(refusal, "{file}", file), re.Reason, name)
		require.Equal(t, before, f.tree(), "%s: a refusal writes nothing", name)
		return true
	}
	require.NoError(t, err, name)
	require.NoError(t, p.Apply(), name)

	for i, tg := range ts {
		if len(tg.adds) == 0 && !tg.server {
			continue
		}
		orig := []byte(before[rel(f, tg.path)])
		got, err := os.ReadFile(tg.path)
		require.NoError(t, err, name)
		if c.strict {
			require.Equal(t, want(readJSON(t, orig), tg), readStrictJSON(t, got), "%s: file %d as strict JSON", name, i)
		}
		require.Equal(t, want(readJSON(t, orig), tg), readJSON(t, got), "%s: file %d as data", name, i)
		require.Equal(t, bytes.HasPrefix(orig, []byte("\ufeff")), bytes.HasPrefix(got, []byte("\ufeff")), "%s: the BOM is kept", name)
		checkStyle(t, c.v, string(orig), string(got), name)
	}
	again, err := planInit(req)
	require.NoError(t, err, name)
	require.True(t, again.Empty(), "%s: a second init changes nothing:\n%s", name, f.render(again, false))
	if forced {
		// A tier lowered by a later init takes back what forced added,
		// leaving the other files as they were.
		lower := f.req(c.host, c.scope, install.Options{Search: "preferred", Fetch: "preferred"})
		lp, err := planInit(lower)
		require.NoError(t, err, name)
		require.NoError(t, lp.Apply(), name)
		for _, tg := range ts {
			if tg.server {
				continue
			}
			orig, existed := before[rel(f, tg.path)]
			got, err := os.ReadFile(tg.path)
			if existed {
				require.NoError(t, err, name)
				require.Equal(t, orig, string(got), "%s: lowering the tier restores %s", name, tg.path)
			}
		}
	}

	// Uninstall through the patch, then (the plan's result compared)
	// through the structural removal alone.
	u := f.uninstallPlan(t, c.host, c.scope, name)
	checkRestores(t, f, u, before, name+" (patch)")
	recPath := rs.recordPath(ts[0].path)
	recData := f.read(recPath)
	var rec Record
	require.NoError(t, json.Unmarshal([]byte(recData), &rec))
	for i := range rec.Files {
		rec.Files[i].Patch = nil
	}
	f.write(recPath, string(rec.Marshal()))
	s := f.uninstallPlan(t, c.host, c.scope, name)
	checkRestores(t, f, s, before, name+" (structural)")

	// A hand edit elsewhere in the server's file (a comment line put at
	// the top) voids the patch: uninstall keeps the edit and takes out
	// only what init added, byte for byte.
	orig, existed := before[rel(f, ts[0].path)]
	if mark, body := install.SplitBOM([]byte(orig)); existed && !install.IsBlank(body) {
		eol := install.DetectEOL(body)
		edit := func(b []byte) string {
			m, rest := install.SplitBOM(b)
			return string(m) + "// edited" + eol + string(rest)
		}
		cur, err := os.ReadFile(ts[0].path)
		require.NoError(t, err)
		f.write(recPath, recData)
		f.write(ts[0].path, edit(cur))
		h := f.uninstallPlan(t, c.host, c.scope, name)
		for _, ch := range h.Changes {
			if ch.Path == ts[0].path {
				require.Equal(t, edit(append(mark, body...)), string(ch.New), "%s (edited)", name)
			}
		}
		require.NoError(t, h.Apply(), name)
		f.write(ts[0].path, orig)
	} else {
		require.NoError(t, s.Apply(), name)
	}
	require.Equal(t, before, f.tree(), "%s: uninstall restores every file byte for byte", name)
	return false
}

func rel(f *fixture, p string) string {
	r, _ := filepath.Rel(f.root, p)
	return r
}

func (f *fixture) uninstallPlan(t *testing.T, h Host, scope install.Scope, name string) *install.Plan {
	t.Helper()
	u, err := planUninstall(f.req(h, scope, install.Options{}))
	require.NoError(t, err, name)
	return u
}

// checkRestores checks that the plan puts every config back as it was in
// before (without applying it).
func checkRestores(t *testing.T, f *fixture, p *install.Plan, before map[string]string, name string) {
	t.Helper()
	for _, c := range p.Changes {
		if c.Kind != install.KindConfig {
			continue
		}
		orig, existed := before[rel(f, c.Path)]
		if c.Op == install.OpDelete {
			require.False(t, existed, "%s: uninstall deletes %s, which was there before", name, c.Rel)
			continue
		}
		require.True(t, existed, name)
		require.Equal(t, orig, string(c.New), "%s: %s", name, c.Rel)
	}
}

// newMemFixture is newFixture in memory (/dev/shm) where there is one:
// every apply syncs its files, which on a disk costs most of the corpus's
// time.
func newMemFixture(t *testing.T) *fixture {
	root, err := os.MkdirTemp("/dev/shm", "dwr-shapes-")
	if err != nil {
		return newFixture(t)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	env := install.Env{Home: filepath.Join(root, "home"), WorkDir: filepath.Join(root, "proj")}
	require.NoError(t, os.MkdirAll(env.Home, 0o755))
	require.NoError(t, os.MkdirAll(env.WorkDir, 0o755))
	return &fixture{t: t, root: root, env: env}
}

var jsonHosts = []Host{Claude, Gemini, Pi, Cursor, Copilot, Qwen}

// TestShapeCorpus runs the corpus; see the comment at the top of the file.
func TestShapeCorpus(t *testing.T) {
	tiers := []string{"off", "optional", "preferred", "forced"}
	vs := variants()
	var total, refused atomic.Int64
	t.Cleanup(func() {
		t.Logf("shape corpus: %d cases (%d shapes of the server's file, %d of Gemini's tools, %d of Claude's settings; %d variants each), %d refused as expected",
			total.Load(), len(serverShapes), len(geminiShapes), len(claudeSettingsShapes), len(vs), refused.Load())
	})
	for _, h := range jsonHosts {
		for _, scope := range []install.Scope{install.ScopeGlobal, install.ScopeProject} {
			t.Run(string(h)+"/"+string(scope), func(t *testing.T) {
				t.Parallel()
				f := newMemFixture(t)
				shapes := slices.Clone(serverShapes)
				if h == Gemini {
					shapes = append(shapes, geminiShapes...)
				}
				run := func(c corpusCase) {
					total.Add(1)
					if runCase(t, f, c) {
						refused.Add(1)
					}
				}
				for si, s := range shapes {
					for vi, v := range vs {
						c := corpusCase{host: h, scope: scope, tier: tiers[(si+vi)%len(tiers)], v: v, server: s, other: claudeSettingsShapes[0]}
						if s.refuseForced != "" && vi%2 == 0 {
							c.tier = "forced"
						}
						run(c)
					}
				}
				if h == Claude {
					var ok []shape
					for _, s := range serverShapes {
						if s.refuse == "" {
							ok = append(ok, s)
						}
					}
					for _, o := range claudeSettingsShapes {
						for vi, v := range vs {
							run(corpusCase{host: h, scope: scope, tier: "forced", v: v, server: ok[vi%len(ok)], other: o})
						}
					}
				}
			})
		}
	}
}

// Gemini CLI refuses a settings.json with a byte order mark (seen in
// tests/hosts/shapes.test.js): init keeps the mark and says so.
func TestGeminiWarnsAboutABOM(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(f.env.Home, ".gemini", "settings.json")
	warning := ".gemini/settings.json starts with a byte order mark, which Gemini CLI refuses (\"Unexpected token '\ufeff'\"): init keeps it, as it keeps every byte it does not own; remove it, or Gemini will not start"
	for _, text := range []string{"{}\n", "\ufeff{}\n"} {
		f.write(path, text)
		p, err := planInit(f.req(Gemini, install.ScopeGlobal, install.Options{}))
		require.NoError(t, err)
		require.Equal(t, strings.HasPrefix(text, "\ufeff"), slices.Contains(p.Warnings, warning), "%q: %q", text, p.Warnings)
	}
}
