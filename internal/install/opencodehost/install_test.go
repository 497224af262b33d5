package opencodehost

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"

	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// configs are the JSONC inputs the round-trip tests run over. "" as content
// means the file does not exist.
var configs = []struct {
	name, file, content string
}{
	{"absent", "opencode.jsonc", ""},
	{"empty-object", "opencode.json", "{}\n"},
	{"empty-object-multiline", "opencode.jsonc", "{\n}\n"},
	{"blank-file", "opencode.json", "\n"},
	{"zero-byte-file", "opencode.json", "\x00"},
	{"no-plugins-key", "opencode.json", "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"theme\": \"dark\"\n}\n"},
	{"comments-trailing-commas", "opencode.jsonc", `// global OpenCode config
{
  "$schema": "https://opencode.ai/config.json",
  /* the look */
  "theme": "dark", // dark is nice
  "plugins": [
    "opencode-wakatime", // time tracking
    { "package": "@acme/tools", "options": { "level": 2 } },
  ],
  // end of file
}
`},
	{"plugins-empty-array", "opencode.jsonc", "{\n  \"plugins\": [],\n  \"theme\": \"dark\"\n}\n"},
	{"plugins-single-line", "opencode.jsonc", "{\n  \"plugins\": [\"a\", \"b\"],\n  \"theme\": \"dark\"\n}\n"},
	{"last-member-trailing-comment", "opencode.jsonc", "{\n  \"theme\": \"dark\" // trailing\n}\n"},
	{"tabs-no-final-newline", "opencode.json", "{\n\t\"theme\": \"dark\",\n\t\"plugins\": [\n\t\t\"x\"\n\t]\n}"},
	{"compact", "opencode.json", `{"theme":"dark","plugins":["x"]}`},
	{"block-comment-tail", "opencode.jsonc", "{\n  \"plugins\": [\n    \"x\" /* last */\n  ]\n}\n"},
}

func TestInitThenUninstallRestoresBytes(t *testing.T) {
	for _, host := range []Host{HostV2, HostV1} {
		for _, tc := range configs {
			for _, structural := range []bool{false, true} {
				name := string(host) + "/" + tc.name
				if structural {
					name += "/structural"
				}
				t.Run(name, func(t *testing.T) {
					f := newFixture(t)
					switch tc.content {
					case "":
					case "\x00":
						f.write(tc.file, "")
					default:
						f.write(tc.file, tc.content)
					}
					before := f.tree()
					req := f.request(install.Options{MaxResults: intp(5), BlockedDomains: []string{"example.com"}})
					req.Host = host
					p := f.init(req)
					require.False(t, p.Empty())
					cfg := f.read(p.ConfigFile)
					require.Contains(t, cfg, packagePath)

					again := f.planInit(req)
					require.True(t, again.Empty(), "second init must be a no-op:\n%s", f.render(again, false))
					require.Contains(t, f.render(again, false), "nothing to do")

					if structural {
						// Force the AST path: pretend the file changed since init.
						rec, _, err := readRecord(f.cfgDir)
						require.NoError(t, err)
						configOf(rec).PatchExact = false
						require.NoError(t, os.WriteFile(f.path(recordFile), rec.Marshal(), 0o644))
					}
					f.uninstall()
					after := f.tree()
					require.Equal(t, before, after)
				})
			}
		}
	}
}

func TestInitPlanGolden(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		req     func(*fixture) request
	}{
		{"init_fresh", "", "", func(f *fixture) request { return f.request(install.Options{}) }},
		{"init_jsonc", "opencode.jsonc", configNamed("comments-trailing-commas"), func(f *fixture) request {
			return f.request(install.Options{Search: "forced", Fetch: "preferred", MaxResults: intp(8), IncludeDomains: []string{"go.dev", "pkg.go.dev"}})
		}},
		{"init_opencode1", "opencode.json", "{\n  \"plugin\": [\"opencode-wakatime\"]\n}\n", func(f *fixture) request {
			r := f.request(install.Options{APIKeyEnv: "MY_DEEPSEEK_KEY"})
			r.Host = HostV1
			return r
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.content != "" {
				f.write(tc.file, tc.content)
			}
			p := f.planInit(tc.req(f))
			golden(t, tc.name+".txt", f.render(p, false))
			require.NoError(t, p.Apply())
			golden(t, tc.name+".applied.txt", f.render(p, true))
			golden(t, tc.name+".noop.txt", f.render(f.planInit(tc.req(f)), false))
		})
	}
}

func TestInitWritesNoKeyAndNamesTheVariable(t *testing.T) {
	f := newFixture(t)
	p := f.init(f.request(install.Options{APIKeyEnv: "ACME_KEY"}))
	out := f.render(p, true)
	require.Contains(t, out, "export ACME_KEY=...")
	for path, content := range f.tree() {
		require.NotContains(t, content, "apiKey\"", path)
	}
}

func TestChangedOptionsUpdateTheEntryInPlace(t *testing.T) {
	f := newFixture(t)
	orig := configNamed("comments-trailing-commas")
	f.write("opencode.jsonc", orig)
	f.init(f.request(install.Options{MaxResults: intp(5)}))
	p := f.planInit(f.request(install.Options{Search: "forced"}))
	golden(t, "init_update.txt", f.render(p, false))
	require.NoError(t, p.Apply())
	cfg := f.read("opencode.jsonc")
	require.Equal(t, 1, strings.Count(cfg, packagePath))
	require.Contains(t, cfg, `"search": "forced"`)
	require.NotContains(t, cfg, "maxResults")
	f.uninstall()
	require.Equal(t, orig, f.read("opencode.jsonc"))
}

func TestUninstallKeepsUnrelatedEdits(t *testing.T) {
	f := newFixture(t)
	f.write("opencode.jsonc", configNamed("comments-trailing-commas"))
	f.init(f.request(install.Options{}))
	cfg := f.read("opencode.jsonc")
	// The user edits the config: a comment reworded, a plugin removed, a
	// plugin added after ours, a new key.
	cfg = strings.Replace(cfg, "/* the look */", "/* the look, v2 */", 1)
	cfg = strings.Replace(cfg, "    \"opencode-wakatime\", // time tracking\n", "", 1)
	cfg = strings.Replace(cfg, "  ],\n  // end of file", "    \"opencode-later\",\n  ],\n  \"model\": \"deepseek/deepseek-chat\",\n  // end of file", 1)
	f.write("opencode.jsonc", cfg)

	u, err := planUninstall(uninstallRequest{Env: f.env})
	require.NoError(t, err)
	golden(t, "uninstall_after_edits.txt", f.render(u, false))
	require.NoError(t, u.Apply())
	require.Equal(t, `// global OpenCode config
{
  "$schema": "https://opencode.ai/config.json",
  /* the look, v2 */
  "theme": "dark", // dark is nice
  "plugins": [
    { "package": "@acme/tools", "options": { "level": 2 } },
    "opencode-later",
  ],
  "model": "deepseek/deepseek-chat",
  // end of file
}
`, f.read("opencode.jsonc"))
	require.False(t, f.exists(pluginDir))
	require.False(t, f.exists(vendorDir))
}

func TestUninstallOfCreatedFileAfterEditsKeepsTheFile(t *testing.T) {
	f := newFixture(t)
	f.init(f.request(install.Options{}))
	cfg := f.read("opencode.jsonc")
	f.write("opencode.jsonc", strings.Replace(cfg, "{\n", "{\n  \"theme\": \"dark\",\n", 1))
	f.uninstall()
	require.Equal(t, "{\n  \"theme\": \"dark\"\n}\n", f.read("opencode.jsonc"))
}

func TestUninstallRefuses(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(f *fixture)
		want   string
	}{
		{"record missing", func(f *fixture) { require.NoError(t, os.Remove(f.path(recordFile))) }, "no install record"},
		{"record corrupt", func(f *fixture) { f.write(recordFile, "{") }, "unreadable install record"},
		{"entry options changed", func(f *fixture) {
			f.write("opencode.jsonc", strings.Replace(f.read("opencode.jsonc"), `"fetch": "optional"`, `"fetch": "forced"`, 1))
		}, "was changed since init"},
		{"entry removed", func(f *fixture) {
			f.write("opencode.jsonc", "{\n  \"theme\": \"dark\"\n}\n")
		}, "no longer in"},
		{"config deleted", func(f *fixture) { require.NoError(t, os.Remove(f.path("opencode.jsonc"))) }, "no longer exists"},
		{"config became invalid", func(f *fixture) { f.write("opencode.jsonc", f.read("opencode.jsonc")+"\n{ broken") }, "it became invalid since init"},
		{"vendored file modified", func(f *fixture) { f.write(pluginDir+"/server.js", "// mine\n") }, "was changed since init"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("opencode.jsonc", "{\n  \"theme\": \"dark\"\n}\n")
			f.init(f.request(install.Options{}))
			tc.mutate(f)
			before := f.tree()
			_, err := planUninstall(uninstallRequest{Env: f.env})
			var re *install.RefusedError
			require.ErrorAs(t, err, &re)
			require.Contains(t, re.Reason, tc.want)
			require.NotEmpty(t, re.Manual, "a refusal says how to undo by hand")
			require.Contains(t, err.Error(), "To do it by hand:")
			require.Equal(t, before, f.tree(), "a refusal writes nothing")
		})
	}
}

func TestInitRefusesForeignVendoredFile(t *testing.T) {
	f := newFixture(t)
	f.write(pluginDir+"/server.js", "// someone else's\n")
	_, err := planInit(f.request(install.Options{}))
	var re *install.RefusedError
	require.ErrorAs(t, err, &re)
	require.Contains(t, re.Reason, "differs from what this installer wrote")
}

func TestInitAdoptsExistingEntry(t *testing.T) {
	f := newFixture(t)
	orig := "{\n  \"plugins\": [\n    \"./vendor/deepseek-web-retrieval\"\n  ]\n}\n"
	f.write("opencode.jsonc", orig)
	p := f.init(f.request(install.Options{}))
	out := f.render(p, true)
	require.Contains(t, out, `"package": "./vendor/deepseek-web-retrieval"`)
	require.True(t, f.planInit(f.request(install.Options{})).Empty())
	// An edit elsewhere forces the structural path, which puts the original entry back.
	f.write("opencode.jsonc", strings.Replace(f.read("opencode.jsonc"), "{\n", "{\n  \"theme\": \"dark\",\n", 1))
	f.uninstall()
	require.Equal(t, "{\n  \"theme\": \"dark\",\n  \"plugins\": [\n    \"./vendor/deepseek-web-retrieval\"\n  ]\n}\n", f.read("opencode.jsonc"))
}

func TestInitRefusesOtherHostOverExistingInstall(t *testing.T) {
	f := newFixture(t)
	f.init(f.request(install.Options{}))
	req := f.request(install.Options{})
	req.Host = HostV1
	_, err := planInit(req)
	var re *install.RefusedError
	require.ErrorAs(t, err, &re)
	require.Contains(t, re.Error(), "uninstall")
}

func TestInitRefusesUnparsableConfig(t *testing.T) {
	f := newFixture(t)
	f.write("opencode.jsonc", "{ \"plugins\": [ }")
	_, err := planInit(f.request(install.Options{}))
	var re *install.RefusedError
	require.ErrorAs(t, err, &re)
	require.Contains(t, re.Reason, "cannot parse")
	f.write("opencode.jsonc", "{\n  // mine\n  \"plugins\": \"x\"\n}\n")
	_, err = planInit(f.request(install.Options{}))
	require.ErrorAs(t, err, &re)
	require.Equal(t, "cannot add the plugin to "+f.path("opencode.jsonc")+": line 3: \"plugins\" is a string, not an array", re.Reason)
}

func TestProjectScope(t *testing.T) {
	f := newFixture(t)
	proj := filepath.Join(f.root, "proj")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "opencode.json"), []byte("{\n  \"theme\": \"dark\"\n}\n"), 0o600))
	req := f.request(install.Options{})
	req.Scope, req.Dir = install.ScopeProject, proj
	p := f.planInit(req)
	require.Equal(t, "opencode.json", p.ConfigFile, "the existing file is used")
	require.NoError(t, p.Apply())
	require.FileExists(t, filepath.Join(proj, "vendor", pluginName, "server.js"))
	require.FileExists(t, filepath.Join(proj, filepath.FromSlash(recordFile)))
	fi, err := os.Stat(filepath.Join(proj, "opencode.json"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the file mode is kept")
	require.False(t, f.exists("opencode.jsonc"), "the global config is untouched")

	// Relative --dir resolves from the working directory; default is WorkDir.
	env := f.env
	env.WorkDir = f.root
	u, err := planUninstall(uninstallRequest{Env: env, Scope: install.ScopeProject, Dir: "proj"})
	require.NoError(t, err)
	require.NoError(t, u.Apply())
	b, err := os.ReadFile(filepath.Join(proj, "opencode.json"))
	require.NoError(t, err)
	require.Equal(t, "{\n  \"theme\": \"dark\"\n}\n", string(b))
	require.NoDirExists(t, filepath.Join(proj, "vendor"))
}

func TestConfigFileChoice(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  string
		warn  bool
	}{
		{"none", nil, "opencode.jsonc", false},
		{"json", []string{"opencode.json"}, "opencode.json", false},
		{"jsonc", []string{"opencode.jsonc"}, "opencode.jsonc", false},
		{"both", []string{"opencode.json", "opencode.jsonc"}, "opencode.jsonc", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for _, n := range tc.files {
				f.write(n, "{}\n")
			}
			p := f.planInit(f.request(install.Options{}))
			require.Equal(t, tc.want, p.ConfigFile)
			require.Equal(t, tc.warn, strings.Contains(strings.Join(p.Warnings, "\n"), "both opencode.jsonc and opencode.json"))
		})
	}
}

func TestConfigDir(t *testing.T) {
	tests := []struct {
		name  string
		env   install.Env
		scope install.Scope
		dir   string
		want  string
		err   bool
	}{
		{"opencode dir wins", install.Env{Home: "/h", Environ: []string{"XDG_CONFIG_HOME=/x", "OPENCODE_CONFIG_DIR=/o"}}, install.ScopeGlobal, "", "/o", false},
		{"xdg", install.Env{Home: "/h", Environ: []string{"XDG_CONFIG_HOME=/x"}}, install.ScopeGlobal, "", "/x/opencode", false},
		{"home", install.Env{Home: "/h"}, install.ScopeGlobal, "", "/h/.config/opencode", false},
		{"nothing", install.Env{}, install.ScopeGlobal, "", "", true},
		{"project default", install.Env{WorkDir: "/w"}, install.ScopeProject, "", "/w", false},
		{"project relative", install.Env{WorkDir: "/w"}, install.ScopeProject, "p/../q", "/w/q", false},
		{"project absolute", install.Env{WorkDir: "/w"}, install.ScopeProject, "/p", "/p", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := configDir(tc.env, tc.scope, tc.dir)
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, filepath.FromSlash(tc.want), got)
		})
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		extra   func(f *fixture)
		opts    install.Options
		want    string
		secret  string
		nowarns bool
	}{
		{name: "other deepseek plugin", config: `{"plugins": ["opencode-deepseek-web"]}`, want: `another DeepSeek plugin is configured in "plugins": "opencode-deepseek-web"`},
		{name: "ours under another path", config: `{"plugins": ["/opt/deepseek-web-retrieval"]}`, want: "would load twice"},
		{name: "ours from npm", config: `{"plugins": [{"package": "deepseek-web-retrieval@0.1.0"}]}`, want: "would load twice"},
		{name: "ours under the 1.x key", config: `{"plugin": ["./vendor/deepseek-web-retrieval"]}`, want: `"plugin" also lists ./vendor/deepseek-web-retrieval`},
		{name: "second web-search plugin", config: `{"plugins": ["opencode-tavily-search", "@exa/opencode", "my-websearch"]}`, want: `a second web-search plugin is configured in "plugins": "opencode-tavily-search"`},
		{name: "exa as a word only", config: `{"plugins": ["example-plugin"]}`, nowarns: true},
		{name: "web search plugin with search off", config: `{"plugins": ["opencode-tavily-search"]}`, opts: install.Options{Search: "off"}, nowarns: true},
		{name: "websearch false", config: `{"websearch": false}`, want: `"websearch": false turns OpenCode's web search off`},
		{name: "websearch other provider", config: `{"websearch": {"provider": "exa"}}`, want: `"websearch": {"provider": "exa"} selects another web-search provider, which defeats search=preferred`},
		{name: "websearch other provider with optional", config: `{"websearch": {"provider": "exa"}}`, opts: install.Options{Search: "optional"}, nowarns: true},
		{name: "websearch deepseek", config: `{"websearch": {"provider": "deepseek"}}`, nowarns: true},
		{name: "tools websearch false", config: `{"tools": {"websearch": false}}`, want: `"tools": {"websearch": false}`},
		{name: "permission deny", config: `{"permission": {"websearch": "deny"}}`, want: `"permission": {"websearch": "deny"}`},
		{name: "auto-loaded copy", config: `{}`, extra: func(f *fixture) { f.write("plugins/deepseek-web-retrieval/server.js", "") }, want: "plugins/deepseek-web-retrieval is auto-loaded"},
		{name: "auto-loaded copy in plugin/", config: `{}`, extra: func(f *fixture) { f.write("plugin/deepseek.js", "") }, want: "plugin/deepseek.js is auto-loaded"},
		{name: "literal api key", config: `{"plugins": [{"package": "opencode-deepseek-web", "options": {"apiKey": "sk-live-123456"}}]}`, want: "sets a literal apiKey in the config (not shown)", secret: "sk-live-123456"},
		{name: "literal api key in our 1.x entry", config: `{"plugin": [["./vendor/deepseek-web-retrieval", {"apiKey": "sk-live-abcdef"}]]}`, want: "literal apiKey", secret: "sk-live-abcdef"},
		{name: "api key reference", config: `{"plugins": [{"package": "opencode-deepseek-web", "options": {"apiKey": "{env:DEEPSEEK_API_KEY}"}}]}`, want: "another DeepSeek plugin"},
		{name: "disabled by name", config: `{"plugins": ["-deepseek-web-retrieval"]}`, want: `which disables a plugin`},
		{name: "clean", config: `{"plugins": ["opencode-wakatime"], "websearch": {"provider": "deepseek"}}`, nowarns: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("opencode.jsonc", tc.config)
			if tc.extra != nil {
				tc.extra(f)
			}
			p := f.planInit(f.request(tc.opts))
			out := f.render(p, false)
			if tc.nowarns {
				require.Empty(t, p.Warnings)
				require.NotContains(t, out, "Warnings:")
				return
			}
			require.Contains(t, strings.Join(p.Warnings, "\n"), tc.want)
			require.Contains(t, out, "Warnings:\n")
			if tc.secret != "" {
				require.NotContains(t, out, tc.secret)
			}
		})
	}
}

func TestInvalidOptions(t *testing.T) {
	f64 := func(x float64) *float64 { return &x }
	tests := []struct {
		opts install.Options
		want string
	}{
		{install.Options{Search: "sometimes"}, "search"},
		{install.Options{Fetch: "always"}, "fetch"},
		{install.Options{MaxResults: intp(0)}, "maxResults"},
		{install.Options{MaxResults: intp(51)}, "maxResults"},
		{install.Options{TimeoutMs: intp(10)}, "timeoutMs"},
		{install.Options{MaxRetries: intp(9)}, "maxRetries"},
		{install.Options{MinRerank: f64(3.5)}, "minRerank"},
		{install.Options{MinAuthority: f64(-1)}, "minAuthority"},
		{install.Options{APIKeyEnv: "not a name"}, "apiKeyEnv"},
		{install.Options{BaseURL: "http://api.example.com"}, "baseURL"},
		{install.Options{Localization: "somewhere"}, "localization"},
		{install.Options{Language: "zh, en:"}, "language"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			f := newFixture(t)
			_, err := planInit(f.request(tc.opts))
			var oe *install.OptionError
			require.ErrorAs(t, err, &oe)
			require.Equal(t, tc.want, oe.Option)
		})
	}
	require.NoError(t, install.Validate(install.Options{Search: "forced", Fetch: "off", MaxResults: intp(50), TimeoutMs: intp(1000), MaxRetries: intp(0),
		BaseURL: "http://127.0.0.1:8080", Localization: "2001:db8::1", Language: "zh,en", BlockedDomains: []string{"example.com"}}))
}

func TestApplyRollsBackOnFailure(t *testing.T) {
	f := newFixture(t)
	orig := "{\n  \"theme\": \"dark\"\n}\n"
	f.write("opencode.jsonc", orig)
	before := f.tree()
	p := f.planInit(f.request(install.Options{}))
	// The config changes between plan and apply: every step is checked
	// before the first is taken, so nothing at all is written.
	f.write("opencode.jsonc", orig+" ")
	before["opencode.jsonc"] = orig + " "
	err := p.Apply()
	require.ErrorIs(t, err, install.ErrStale)
	require.Equal(t, before, f.tree())
}

func TestSymlinkedConfigIsEditedThroughTheLink(t *testing.T) {
	f := newFixture(t)
	real := filepath.Join(f.root, "dotfiles", "opencode.jsonc")
	require.NoError(t, os.MkdirAll(filepath.Dir(real), 0o755))
	require.NoError(t, os.WriteFile(real, []byte("{\n  \"theme\": \"dark\"\n}\n"), 0o644))
	require.NoError(t, os.Symlink(real, f.path("opencode.jsonc")))
	f.init(f.request(install.Options{}))
	fi, err := os.Lstat(f.path("opencode.jsonc"))
	require.NoError(t, err)
	require.True(t, fi.Mode()&os.ModeSymlink != 0, "the link is kept")
	b, err := os.ReadFile(real)
	require.NoError(t, err)
	require.Contains(t, string(b), packagePath)
	f.uninstall()
	b, err = os.ReadFile(real)
	require.NoError(t, err)
	require.Equal(t, "{\n  \"theme\": \"dark\"\n}\n", string(b))
}

func TestRecordContents(t *testing.T) {
	f := newFixture(t)
	f.write("opencode.jsonc", "{\n  \"theme\": \"dark\"\n}\n")
	f.init(f.request(install.Options{MaxResults: intp(3)}))
	var rec Record
	require.NoError(t, json.Unmarshal([]byte(f.read(recordFile)), &rec))
	require.Equal(t, install.RecordFormat, rec.Format)
	require.Equal(t, "plugins", rec.Key)
	cfg := configOf(&rec)
	require.Equal(t, "opencode.jsonc", cfg.Path)
	require.Empty(t, cfg.Snapshot, "the record never holds a copy of the config")
	before, ok := cfg.Patch.Reverse([]byte(f.read("opencode.jsonc")))
	require.True(t, ok)
	require.Equal(t, "{\n  \"theme\": \"dark\"\n}\n", string(before))
	fi, err := os.Stat(f.path(recordFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	require.True(t, cfg.Existed)
	require.Equal(t, 1, cfg.EntryCreated)
	require.JSONEq(t, `{"package":"./vendor/deepseek-web-retrieval","options":{"search":"preferred","fetch":"optional","maxResults":3}}`, string(cfg.Entry))
	require.Len(t, vendoredFiles(&rec), 5)
	require.Len(t, rec.Files, 6)
	require.Equal(t, []string{"vendor", "vendor/deepseek-web-retrieval"}, rec.CreatedDirs)
}

func TestPluginUpgradeReplacesUnmodifiedFiles(t *testing.T) {
	f := newFixture(t)
	f.init(f.request(install.Options{}))
	req := f.request(install.Options{})
	fsys := fakePlugin()
	fsys["server.js"].Data = []byte("// v2\n")
	delete(fsys, "wasi.js")
	req.Plugin = fsys
	p := f.planInit(req)
	var ops []string
	for _, c := range p.Changes {
		ops = append(ops, c.Op.String()+" "+c.Rel)
	}
	require.Equal(t, []string{"update vendor/deepseek-web-retrieval/server.js", "delete vendor/deepseek-web-retrieval/wasi.js", "update " + recordFile}, ops)
	require.NoError(t, p.Apply())
	f.uninstall()
	require.False(t, f.exists(vendorDir))
}

func TestPluginFilesMustBeComplete(t *testing.T) {
	f := newFixture(t)
	req := f.request(install.Options{})
	fsys := fakePlugin()
	delete(fsys, "core.wasm")
	req.Plugin = fsys
	_, err := planInit(req)
	require.True(t, errors.Is(err, errNoPlugin), "%v", err)
}

func configNamed(name string) string {
	for _, c := range configs {
		if c.name == name {
			return c.content
		}
	}
	panic("no config " + name)
}

// A root vendor/ would switch a Go module's `go build` to vendor mode
// ("inconsistent vendoring") and belongs to Composer in PHP projects, so
// those projects get the install in .opencode/, and uninstall leaves the
// project as it was.
func TestProjectScopeUsesDotOpencodeWhenVendorIsTaken(t *testing.T) {
	for _, marker := range []string{"go.mod", "composer.json"} {
		t.Run(marker, func(t *testing.T) {
			f := newFixture(t)
			proj := filepath.Join(f.root, "proj")
			require.NoError(t, os.MkdirAll(proj, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(proj, marker), []byte("module example.com/p\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(proj, "opencode.json"), []byte("{}\n"), 0o644))
			before := snapshotTree(t, proj)

			req := f.request(install.Options{})
			req.Scope, req.Dir = install.ScopeProject, proj
			p := f.init(req)
			dot := filepath.Join(proj, ".opencode")
			require.Equal(t, dot, p.ConfigDir)
			require.FileExists(t, filepath.Join(dot, "opencode.jsonc"))
			require.FileExists(t, filepath.Join(dot, "vendor", pluginName, "server.js"))
			require.NoDirExists(t, filepath.Join(proj, "vendor"), "no vendor/ at the project root")

			// A second init finds the install where it is.
			again := f.planInit(req)
			require.Equal(t, dot, again.ConfigDir)

			u, err := planUninstall(uninstallRequest{Env: f.env, Scope: install.ScopeProject, Dir: proj})
			require.NoError(t, err)
			require.NoError(t, u.Apply())
			require.Equal(t, before, snapshotTree(t, proj))
		})
	}
}

func TestProjectConfigDir(t *testing.T) {
	root := t.TempDir()
	require.Equal(t, root, projectConfigDir(root), "a plain project installs at its root")
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".opencode"), 0o755))
	require.Equal(t, root, projectConfigDir(root), "an empty .opencode/ changes nothing")
	require.NoError(t, os.WriteFile(filepath.Join(root, ".opencode", "opencode.json"), []byte("{}"), 0o644))
	require.Equal(t, filepath.Join(root, ".opencode"), projectConfigDir(root), "an existing .opencode config is used")
}

// snapshotTree lists every file and directory under dir with its content.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[filepath.ToSlash(rel)+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	}))
	return out
}

// TestPlanMatrixGolden renders the init and uninstall plans for both
// OpenCode generations × both scopes × every tier into one golden file.
func TestPlanMatrixGolden(t *testing.T) {
	var out strings.Builder
	for _, host := range []Host{HostV2, HostV1} {
		for _, scope := range []install.Scope{install.ScopeGlobal, install.ScopeProject} {
			for _, tier := range []string{"off", "optional", "preferred", "forced"} {
				f := newFixture(t)
				req := f.request(install.Options{Search: tier, Fetch: tier})
				req.Host, req.Scope = host, scope
				f.write("opencode.jsonc", "{\n  // mine\n  \"theme\": \"dark\"\n}\n")
				p := f.planInit(req)
				name := string(host) + "/" + string(scope) + "/" + tier
				out.WriteString("-- " + name + "/init --\n" + f.render(p, false))
				require.NoError(t, p.Apply())
				u, err := planUninstall(uninstallRequest{Env: f.env, Scope: scope})
				require.NoError(t, err)
				out.WriteString("-- " + name + "/uninstall --\n" + f.render(u, false))
				require.NoError(t, u.Apply())
			}
		}
	}
	golden(t, "matrix.txtar", out.String())
}
