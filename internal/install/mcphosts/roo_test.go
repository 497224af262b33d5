package mcphosts

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// rooPathRows: Roo Code's global file is <User dir>/globalStorage/
// rooveterinaryinc.roo-cline/settings/mcp_settings.json (Roo-Code v3.52.1
// McpHub.ts getMcpSettingsFilePath, storage.ts getSettingsDirectoryPath;
// VS Code extHostStoragePaths.ts: globalStorage/<id lowercased>), with the
// User dir of vscodePathRows (userDataPath.ts) for each system and build.
var rooPathRows = func() []pathRow {
	const tail = "globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"
	var out []pathRow
	for _, row := range vscodePathRows {
		if row.goos == "windows" {
			row.want = strings.TrimSuffix(row.want, "mcp.json") + strings.ReplaceAll(tail, "/", `\`)
		} else {
			row.want = strings.TrimSuffix(row.want, "mcp.json") + tail
		}
		out = append(out, row)
	}
	return out
}()

func TestRooPaths(t *testing.T) {
	for _, row := range rooPathRows {
		t.Run(row.name, func(t *testing.T) {
			require.Equal(t, []string{row.want}, targetsFor(t, Roo, row))
		})
	}
	f := newFixture(t)
	rs, err := resolve(f.req(Roo, install.ScopeProject, install.Options{}))
	require.NoError(t, err)
	// The project file: .roo/mcp.json (McpHub.ts getProjectMcpPath).
	require.Equal(t, filepath.Join(f.env.WorkDir, ".roo", "mcp.json"), rooTargets(rs)[0].path)
}

// TestRooBuilds: the builds Roo Code has run in; roo-cline.customStoragePath.
func TestRooBuilds(t *testing.T) {
	user := func(f *fixture, dir string) string { return filepath.Join(f.env.Home, ".config", dir, "User") }
	files := func(f *fixture) []string {
		rs, err := resolve(f.req(Roo, install.ScopeGlobal, install.Options{}))
		require.NoError(t, err)
		var out []string
		for _, tg := range rooTargets(rs) {
			r, _ := filepath.Rel(f.env.Home, tg.path)
			out = append(out, r)
		}
		return out
	}
	warning := func(f *fixture) []string {
		p, err := planInit(f.req(Roo, install.ScopeGlobal, install.Options{}))
		require.NoError(t, err)
		return p.Warnings
	}
	t.Run("in Insiders only, VS Code also installed", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, os.MkdirAll(user(f, "Code"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(user(f, "Code - Insiders"), "globalStorage", rooExtension), 0o755))
		require.Equal(t, []string{".config/Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"}, files(f))
		require.True(t, rooDetect(f.env))
		require.Empty(t, warning(f))
	})
	t.Run("in two builds", func(t *testing.T) {
		f := newFixture(t)
		for _, dir := range []string{"Code", "VSCodium"} {
			require.NoError(t, os.MkdirAll(filepath.Join(user(f, dir), "globalStorage", rooExtension), 0o755))
		}
		require.Equal(t, []string{
			".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
			".config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
		}, files(f))
	})
	t.Run("not run yet: the first VS Code build, with a warning", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, os.MkdirAll(user(f, "VSCodium"), 0o755))
		require.False(t, rooDetect(f.env))
		require.Equal(t, []string{".config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"}, files(f))
		require.Equal(t, []string{"Roo Code has not run in any VS Code build here (no globalStorage/rooveterinaryinc.roo-cline folder): init writes .config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json, which Roo Code reads once it is installed in VSCodium"}, warning(f))
		before := f.tree()
		f.apply(planInit(f.req(Roo, install.ScopeGlobal, install.Options{})))
		f.apply(planUninstall(f.req(Roo, install.ScopeGlobal, install.Options{})))
		require.Equal(t, before, f.tree(), "the directories init created go too")
	})
	t.Run("customStoragePath", func(t *testing.T) {
		f := newFixture(t)
		custom := filepath.Join(f.root, "roo-data")
		require.NoError(t, os.MkdirAll(custom, 0o755))
		f.write(filepath.Join(user(f, "Code"), "settings.json"), "{\n  // Roo\n  \"roo-cline.customStoragePath\": \""+custom+"\",\n}\n")
		require.True(t, rooDetect(f.env))
		rs, err := resolve(f.req(Roo, install.ScopeGlobal, install.Options{}))
		require.NoError(t, err)
		require.Equal(t, filepath.Join(custom, "settings", "mcp_settings.json"), rooTargets(rs)[0].path)
	})
}

// rooShapes are the corpus's shapes that are strict JSON (Roo Code reads
// its files with JSON.parse), and the file Roo writes when there is none.
func rooShapes() []shape {
	var out []shape
	for _, s := range serverShapes {
		if install.IsBlank([]byte(s.text)) || json.Valid([]byte(strings.ReplaceAll(s.text, "{entry}", "{}"))) {
			out = append(out, s)
		}
	}
	return append(out,
		shape{name: "the file Roo Code creates", text: "{\n  \"mcpServers\": {\n\n  }\n}"},
		shape{name: "as Roo Code rewrites it", text: "{\n  \"mcpServers\": {\n    \"tavily\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"tavily-mcp\"\n      ],\n      \"alwaysAllow\": [\n        \"search\"\n      ],\n      \"disabled\": false\n    }\n  }\n}\n"},
	)
}

// TestRooShapeCorpus runs the shape corpus over Roo Code's files, and
// checks that a strict JSON file stays strict JSON (encoding/json, no
// hujson) after init.
func TestRooShapeCorpus(t *testing.T) {
	require.Greater(t, len(rooShapes()), 20)
	runCorpus(t, Roo, rooShapes(), func(t *testing.T, name string, orig, got []byte) {
		var v map[string]any
		require.NoError(t, json.Unmarshal(got, &v), "%s: strict JSON after init:\n%s", name, got)
		require.NotNil(t, v["mcpServers"], name)
	})
}

// TestRooTraps: the plan's warnings and notes for Roo Code.
func TestRooTraps(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(f.env.Home, ".config", "Code", "User", "globalStorage", rooExtension, "settings", "mcp_settings.json")
	plan := func(o install.Options) *install.Plan {
		p, err := planInit(f.req(Roo, install.ScopeGlobal, o))
		require.NoError(t, err)
		return p
	}
	f.write(path, "{\"mcpServers\": {}}")
	p := plan(install.Options{Search: "forced", Fetch: "forced"})
	require.Empty(t, p.Warnings)
	require.Contains(t, p.Notes, "Roo Code gives a server only a few variables of its environment (HOME, LOGNAME, PATH, SHELL, TERM, USER) plus the entry's env, so the entry passes DEEPSEEK_API_KEY as \"${env:DEEPSEEK_API_KEY}\": Roo fills it in from its own environment, and an unset variable reaches the server as that literal text; start VS Code from a shell where DEEPSEEK_API_KEY is exported")
	require.Contains(t, p.Notes, "Roo Code watches this file and connects to the server without a restart")
	require.Contains(t, p.Notes, "Roo Code has no built-in web search or fetch tool to turn off; forced tiers need nothing more there")
	require.Contains(t, strings.Join(p.Notes, "\n"), "Always allow")

	rel := ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"
	for _, tc := range []struct{ text, want string }{
		{"\ufeff{\"mcpServers\": {}}", rel + " starts with a byte order mark, which Roo Code's JSON.parse refuses: init keeps it, as it keeps every byte it does not own; remove it, or Roo will not load the file"},
		{"{\n  // mine\n  \"mcpServers\": {}\n}", rel + " has comments or trailing commas, which Roo Code's JSON.parse refuses: init keeps them, as it keeps every byte it does not own; remove them, or Roo will not load the file"},
		{"{\"mcpServers\": {},}", rel + " has comments or trailing commas, which Roo Code's JSON.parse refuses: init keeps them, as it keeps every byte it does not own; remove them, or Roo will not load the file"},
		{"", ""},
		{"\n", ""},
	} {
		f.write(path, tc.text)
		p = plan(install.Options{})
		if tc.want == "" {
			require.Empty(t, p.Warnings, "%q", tc.text)
			continue
		}
		require.Equal(t, []string{tc.want}, p.Warnings)
	}
}

// TestRooLaunch: doctor starts the entry as Roo Code would: the SDK's
// default variables only, the entry's env with ${env:} filled in, an
// unset one left as written.
func TestRooLaunch(t *testing.T) {
	parent := map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "SHELL": "() { :; }", "FOO": `a\b`, "GITHUB_TOKEN": "ghp-x", "DEEPSEEK_API_KEY": "k1", "Q": `x"y`}
	tests := []struct {
		name     string
		entry    string
		wantEnv  map[string]string
		wantArgs []string
		notes    []string
	}{
		{name: "the key passed, the rest not inherited",
			entry:    `{"type": "stdio", "command": "/b", "args": ["${env:FOO}", "$FOO", "${env:MISSING}", "${workspaceFolder}/x"], "env": {"DEEPSEEK_API_KEY": "${env:DEEPSEEK_API_KEY}"}}`,
			wantEnv:  map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "DEEPSEEK_API_KEY": "k1"},
			wantArgs: []string{"a/b", "$FOO", "${env:MISSING}", "/work/x"}},
		{name: "unset stays literal",
			entry:    `{"command": "/b", "env": {"DEEPSEEK_API_KEY": "${env:NOPE}"}}`,
			wantEnv:  map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "DEEPSEEK_API_KEY": "${env:NOPE}"},
			wantArgs: []string{}},
		{name: "a value that breaks Roo's substitution",
			entry:    `{"command": "/b", "env": {"A": "${env:Q}"}}`,
			wantEnv:  map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "A": `x"y`},
			wantArgs: []string{},
			notes:    []string{"the value of Q holds a quote, a backslash or a control character: Roo Code substitutes it into the entry's JSON text unescaped, and then fails to load the entry"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var entry map[string]any
			require.NoError(t, json.Unmarshal([]byte(tc.entry), &entry))
			l, err := hostLaunch(Roo, entry, parent, "/work")
			require.NoError(t, err)
			require.Equal(t, "/b", l.Command)
			require.Equal(t, tc.wantEnv, envMap(l.Env))
			require.Equal(t, tc.wantArgs, l.Args)
			require.Equal(t, tc.notes, l.Notes)
			require.Equal(t, "/work", l.Dir)
		})
	}
}

// TestRooRemote: Roo Code's streamable HTTP entry (remoteCase).
func TestRooRemote(t *testing.T) {
	remoteCase(t, Roo, ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", "{\n  \"mcpServers\": {\n\n  }\n}",
		"{\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"type\": \"streamable-http\",\n      \"url\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${env:TEAM_TOKEN}\"\n      }\n    }\n\n  }\n}")
}

// TestRooDoctorDefaultEnv: an entry without env (written by hand) gets no
// key from Roo Code, which passes only the SDK's default variables; VS
// Code passes its whole environment. doctor starts each as its host would
// and says so.
func TestRooDoctorDefaultEnv(t *testing.T) {
	environ := []string{"PATH=/usr/bin:/bin", "DEEPSEEK_API_KEY=" + testKey}
	for _, tc := range []struct {
		host       Host
		file, text string
		want       string
	}{
		{Roo, ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", `{"mcpServers": {"deepseek-web-retrieval": {"command": "` + self(t) + `", "args": ["mcp"]}}}`,
			"DEEPSEEK_API_KEY is set in this shell, but Roo Code does not pass it to the server: run init again to rewrite the entry"},
		{VSCode, ".config/Code/User/mcp.json", `{"servers": {"deepseek-web-retrieval": {"type": "stdio", "command": "` + self(t) + `", "args": ["mcp"]}}}`,
			"DEEPSEEK_API_KEY reaches the server (value not shown)"},
	} {
		t.Run(string(tc.host), func(t *testing.T) {
			f := newFixture(t)
			f.write(filepath.Join(f.env.Home, filepath.FromSlash(tc.file)), tc.text)
			c := doctor(context.Background(), request{install.Request{Env: f.env}, tc.host}, environ)
			all := strings.Join(append(append(append([]string{}, c.Lines...), c.Traps...), c.Problems...), "\n")
			require.Contains(t, all, tc.want)
			require.Contains(t, c.Lines, "connected, 2 tools (deepseek_fetch, deepseek_search)")
			require.NotContains(t, all, testKey)
		})
	}
}
