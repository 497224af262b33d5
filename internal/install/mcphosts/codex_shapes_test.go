package mcphosts

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gotoml "github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

const ghToken = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

// codexShape is one way a user's config.toml can hold (or not hold)
// mcp_servers; text is written with "\n" and a final newline, and varied
// by codexVariants.
type codexShape struct {
	name, text string
	// ours: the text holds our entry as init would write it for the
	// first tier (adopted, and left by uninstall).
	ours bool
}

// codexShapes is every legal shape init edits: the ones it refuses are in
// TestCodexRefusedShapes.
func codexShapes(entry func(form string) string) []codexShape {
	return []codexShape{
		{name: "empty", text: ""},
		{name: "no mcp_servers", text: "# Codex\nmodel = \"gpt-5\"\n"},
		{name: "comments and blank lines everywhere", text: "# head\n\n# before model\nmodel = \"gpt-5\" # trailing\n\n  # indented\n[tools] # header comment\n\n# in a table\nweb_search = false # ignored by Codex\n\n# tail\n"},
		{name: "multi-line strings holding headers", text: "instructions = \"\"\"\n[mcp_servers.deepseek-web-retrieval]\nmcp_servers = {}\n\"\"\"\nnotes = '''\n[[mcp_servers]]\n'''\n"},
		{name: "inline empty", text: "model = \"gpt-5\"\nmcp_servers = {}\n\n[tools]\nx = 1\n"},
		{name: "inline with a server and a credential", text: "mcp_servers = { gh = { command = \"gh-mcp\", env = { GITHUB_TOKEN = \"" + ghToken + "\" } } } # mine\n"},
		{name: "inline multi-line (TOML 1.1)", text: "mcp_servers = {\n  gh = { command = \"gh-mcp\" }, # GitHub\n  docs = { command = \"docs-mcp\", args = [\n    \"--ro\",\n  ] },\n}\n"},
		{name: "top-level dotted keys", text: "model = \"gpt-5\"\nmcp_servers.gh.command = \"gh-mcp\"\nmcp_servers.gh.env.GITHUB_TOKEN = \"" + ghToken + "\"\n"},
		{name: "[mcp_servers] with subtables", text: "[mcp_servers.gh]\ncommand = \"gh-mcp\"\n\n[mcp_servers.gh.env]\nGITHUB_TOKEN = \"" + ghToken + "\"\n"},
		{name: "[mcp_servers] with dotted keys", text: "[mcp_servers]\ngh.command = \"gh-mcp\"\ngh.args = [\"--stdio\"]\n\n[profiles.fast]\nmodel = \"mini\"\n"},
		{name: "quoted keys", text: "[\"mcp_servers\".'gh']\ncommand = \"gh-mcp\"\n[mcp_servers.\"docs\"]\ncommand = 'docs-mcp'\n"},
		{name: "web_search set at the top", text: "web_search = \"live\" # on\nmodel = \"gpt-5\"\n\n[profiles.a]\nweb_search = \"cached\"\n"},
		{name: "ours as a quoted table", text: "model = \"gpt-5\"\n\n" + entry("table"), ours: true},
		{name: "ours in an inline table", text: "mcp_servers = { gh = { command = \"gh-mcp\" }, " + entry("inline") + " }\n", ours: true},
		{name: "ours as dotted keys", text: entry("dotted"), ours: true},
	}
}

// codexVariant is a shape's text in one file style.
type codexVariant struct {
	name string
	text string
}

// codexVariants varies a text by line ending, final newline, trailing
// blank lines and byte order mark, leaving out duplicates.
func codexVariants(text string) []codexVariant {
	var out []codexVariant
	seen := map[string]bool{}
	for _, crlf := range []bool{false, true} {
		for _, final := range []bool{true, false} {
			for _, blanks := range []bool{false, true} {
				for _, bom := range []bool{false, true} {
					s := strings.TrimSuffix(text, "\n")
					if blanks {
						s += "\n\n"
					}
					if final && s != "" {
						s += "\n"
					}
					if crlf {
						s = strings.ReplaceAll(s, "\n", "\r\n")
					}
					if bom {
						s = "\uFEFF" + s
					}
					if seen[s] {
						continue
					}
					seen[s] = true
					out = append(out, codexVariant{fmt.Sprintf("crlf=%t,final=%t,blanks=%t,bom=%t", crlf, final, blanks, bom), s})
				}
			}
		}
	}
	return out
}

// The runs of init before uninstall: one tier, or a tier raised or
// lowered by a second init.
var codexRuns = [][]string{{"off"}, {"forced"}, {"optional", "forced"}, {"forced", "preferred"}}

// TestCodexShapeCorpus: for every shape × line ending × final newline ×
// trailing blank lines × BOM × run of tiers, init writes a file that two
// TOML parsers read, with our entry and (forced) web_search = "disabled"
// and everything else as it was; new lines take the file's line ending;
// a second init changes nothing; and uninstall gives back the original
// bytes through the record's patch, and, after the user appended a table
// (so the patch no longer applies and the record's TOMLEntry and TopKey
// are used), exactly the original bytes plus that table.
func TestCodexShapeCorpus(t *testing.T) {
	cases, structural := 0, 0
	for _, run := range codexRuns {
		opts := install.Options{Search: run[0], Fetch: "optional"}
		entry := func(form string) string {
			kvs := []string{"command = " + install.TOMLString(binary), "args = " + install.TOMLStrings(serverArgs(opts)), `env_vars = ["DEEPSEEK_API_KEY"]`}
			switch form {
			case "inline":
				return "deepseek-web-retrieval = { " + strings.Join(kvs, ", ") + " }"
			case "dotted":
				return "mcp_servers.deepseek-web-retrieval = { " + strings.Join(kvs, ", ") + " }\n"
			}
			return "[mcp_servers.\"deepseek-web-retrieval\"]\n" + strings.Join(kvs, "\n") + "\n"
		}
		for _, sh := range codexShapes(entry) {
			if sh.ours && len(run) > 1 {
				continue // a replaced entry of the user's comes back only through the patch
			}
			for _, v := range codexVariants(sh.text) {
				for _, handEdit := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/%s/hand-edit=%t", strings.Join(run, "-"), sh.name, v.name, handEdit)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						codexRoundTrip(t, run, v.text, handEdit)
					})
					cases++
					if handEdit {
						structural++
					}
				}
			}
		}
	}
	t.Logf("%d cases (%d hand-edited, through the structural removal)", cases, structural)
}

func codexRoundTrip(t *testing.T, run []string, orig string, handEdit bool) {
	f := newFixture(t)
	cfgPath := filepath.Join(f.env.Home, ".codex", "config.toml")
	f.write(cfgPath, orig)
	before := f.tree()
	var opts install.Options
	for _, tier := range run {
		opts = install.Options{Search: tier, Fetch: "optional"}
		f.apply(planInit(f.req(Codex, install.ScopeGlobal, opts)))
	}
	got := f.read(cfgPath)
	checkCodexConfig(t, orig, got, opts)
	again, err := planInit(f.req(Codex, install.ScopeGlobal, opts))
	require.NoError(t, err)
	require.True(t, again.Empty(), "a second init changes nothing:\n%s", f.render(again, false))
	want := before
	if handEdit {
		nl := "\n"
		if strings.Contains(orig, "\r\n") {
			nl = "\r\n"
		}
		added := nl + "[profiles.by-hand]" + nl + "model = \"gpt-5-mini\"" + nl
		f.write(cfgPath, got+added)
		want = f.tree()
		want[filepath.Join("home", ".codex", "config.toml")] = orig + added
		for k := range want {
			if strings.Contains(k, ".local") {
				delete(want, k)
			}
		}
		for k, v := range before {
			if strings.Contains(k, ".local") {
				want[k] = v
			}
		}
	}
	f.apply(planUninstall(f.req(Codex, install.ScopeGlobal, install.Options{})))
	require.Equal(t, want, f.tree(), "uninstall restores every file byte for byte")
}

// checkCodexConfig checks what init wrote against the original.
func checkCodexConfig(t *testing.T, orig, got string, opts install.Options) {
	t.Helper()
	bom := "\uFEFF"
	require.Equal(t, strings.HasPrefix(orig, bom), strings.HasPrefix(got, bom), "the BOM is kept")
	body, origBody := strings.TrimPrefix(got, bom), strings.TrimPrefix(orig, bom)
	if strings.Contains(origBody, "\r\n") {
		require.NotRegexp(t, `[^\r]\n|^\n`, body, "every new line takes the file's CRLF")
	} else {
		require.NotContains(t, body, "\r")
	}
	_, v, err := install.ParseTOML([]byte(body))
	require.NoError(t, err, "%s", body)
	args := []any{}
	for _, a := range serverArgs(opts) {
		args = append(args, a)
	}
	require.Equal(t, map[string]any{"command": binary, "args": args, "env_vars": []any{"DEEPSEEK_API_KEY"}}, lookup(v, "mcp_servers", install.Name))
	if opts.Search == "forced" {
		require.Equal(t, "disabled", v["web_search"])
	}
	_, ov, err := install.ParseTOML([]byte(origBody))
	require.NoError(t, err)
	ts := codexTestTarget(opts)
	require.True(t, equalExcept(ov, v, ts), "nothing but ours changed:\n%s", body)

	// A second, independent parser (TOML 1.0) reads it to the same data,
	// whenever it reads the original.
	var a, b map[string]any
	if gotoml.Unmarshal([]byte(origBody), &a) != nil {
		require.Error(t, gotoml.Unmarshal([]byte(body), &b), "TOML 1.1 in, TOML 1.1 out")
		return
	}
	require.NoError(t, gotoml.Unmarshal([]byte(body), &b), "go-toml/v2 cannot read:\n%s", body)
	ja, _ := json.Marshal(v)
	jb, _ := json.Marshal(b)
	require.JSONEq(t, string(ja), string(jb))
}

func codexTestTarget(opts install.Options) target {
	t := target{toml: true, server: true, serverPath: []string{"mcp_servers", install.Name}}
	if opts.Search == "forced" {
		t.topKey = &topKeyEdit{Key: "web_search"}
	}
	return t
}

// TestCodexRefusedShapes: the shapes no entry can go into are refused
// with the file, the line and the shape, and nothing is written.
func TestCodexRefusedShapes(t *testing.T) {
	tests := []struct {
		name, text string
		forced     bool
		want       string
	}{
		{"array of tables", "model = \"gpt-5\"\n\n[[mcp_servers]]\ncommand = \"x\"\n", false, "line 3: [[mcp_servers]] makes mcp_servers an array of tables; Codex reads mcp_servers as a table of named servers ([mcp_servers.<name>])"},
		{"not a table", "# servers\nmcp_servers = \"none\"\n", false, "line 2: mcp_servers is set to a value that is not a table (\"none\")"},
		{"our entry as an array of tables", "[[mcp_servers.deepseek-web-retrieval]]\ncommand = \"x\"\n", false, "line 1: [[mcp_servers.deepseek-web-retrieval]] is an array of tables, not a server table"},
		{"our entry dotted inside the inline table", "mcp_servers = { deepseek-web-retrieval.command = \"x\" }\n", false, "line 1: mcp_servers.deepseek-web-retrieval is defined with dotted keys inside the inline table mcp_servers = { … }"},
		{"an entry of the user's, as a table", "a = 1\n\n[mcp_servers.'deepseek-web-retrieval']\ncommand = \"other\"\n", false, "line 3: mcp_servers.deepseek-web-retrieval is already defined as a [mcp_servers.deepseek-web-retrieval] table, and this installer did not write it"},
		{"an entry of the user's, inline", "mcp_servers = {\n  deepseek-web-retrieval = { command = \"other\" },\n}\n", false, "line 2: mcp_servers.deepseek-web-retrieval is already defined inside an inline table (mcp_servers = { … }), and this installer did not write it"},
		{"an entry of the user's, dotted", "mcp_servers.deepseek-web-retrieval.command = \"other\"\n", false, "line 1: mcp_servers.deepseek-web-retrieval is already defined with dotted keys (mcp_servers.deepseek-web-retrieval.… = …), and this installer did not write it"},
		{"an entry of the user's, an inline table under [mcp_servers]", "[mcp_servers]\n\"deepseek-web-retrieval\" = { command = \"other\" }\n", false, "line 2: mcp_servers.deepseek-web-retrieval is already defined as an inline table (mcp_servers.deepseek-web-retrieval = { … }), and this installer did not write it"},
		{"web_search as a table (forced)", "[web_search]\nmode = \"live\"\n", true, "line 1: web_search is a table here; Codex reads the top-level web_search as a string"},
	}
	for _, tc := range tests {
		for _, v := range codexVariants(tc.text) {
			t.Run(tc.name+"/"+v.name, func(t *testing.T) {
				f := newFixture(t)
				cfgPath := filepath.Join(f.env.Home, ".codex", "config.toml")
				f.write(cfgPath, v.text)
				before := f.tree()
				opts := install.Options{}
				if tc.forced {
					opts.Search = "forced"
				}
				_, err := planInit(f.req(Codex, install.ScopeGlobal, opts))
				var re *install.RefusedError
				require.ErrorAs(t, err, &re)
				require.Equal(t, cfgPath+" "+tc.want, re.Reason)
				require.Len(t, re.Manual, 1)
				require.Regexp(t, `^(remove|turn) .*, then run init again$`, re.Manual[0])
				require.Equal(t, before, f.tree())
				_, statErr := os.Stat(filepath.Join(f.env.Home, ".local", "state"))
				require.True(t, os.IsNotExist(statErr))
			})
		}
	}
}
