package mcphosts

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// finds returns a LookPath that finds only the programs named.
func finds(programs ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		if slices.Contains(programs, name) {
			return "/usr/bin/" + name, nil
		}
		return "", errors.New("not found")
	}
}

// buildOf returns the VS Code build with the directory name dir.
func buildOf(t *testing.T, dir string) vscodeBuild {
	t.Helper()
	i := slices.IndexFunc(vscodeBuilds, func(b vscodeBuild) bool { return b.Dir == dir })
	require.GreaterOrEqual(t, i, 0, dir)
	return vscodeBuilds[i]
}

// pathRow is one row of the per-GOOS path tables: a system, a home, the
// environment, the build found (by its launcher on PATH; stable VS Code
// is the one taken when none is found) and the file expected.
type pathRow struct {
	name    string
	goos    string
	home    string
	environ []string
	build   string // the build's directory name
	want    string
}

// vscodePathRows: the user data directory is userDataPath.ts's
// (microsoft/vscode src/vs/platform/environment/node/userDataPath.ts):
// $VSCODE_APPDATA, else %APPDATA% (else %USERPROFILE%\AppData\Roaming) on
// Windows, ~/Library/Application Support on macOS, $XDG_CONFIG_HOME (else
// ~/.config) on Linux, joined with the product's nameShort (src/main.ts);
// mcp.json is in its User folder, the default profile (userDataProfile.ts).
var vscodePathRows = []pathRow{
	// Linux: $XDG_CONFIG_HOME unset: ~/.config (userDataPath.ts, case 'linux').
	{"linux", "linux", "/home/u", nil, "Code", "/home/u/.config/Code/User/mcp.json"},
	// Linux: $XDG_CONFIG_HOME set (userDataPath.ts, case 'linux').
	{"linux xdg", "linux", "/home/u", []string{"XDG_CONFIG_HOME=/xdg"}, "Code", "/xdg/Code/User/mcp.json"},
	// A relative $XDG_CONFIG_HOME is ignored, as the XDG Base Directory
	// Specification says (VS Code would resolve it against its own cwd).
	{"linux relative xdg", "linux", "/home/u", []string{"XDG_CONFIG_HOME=cfg"}, "Code", "/home/u/.config/Code/User/mcp.json"},
	// Insiders: nameShort "Code - Insiders" [3p: the standard layout].
	{"linux insiders", "linux", "/home/u", nil, "Code - Insiders", "/home/u/.config/Code - Insiders/User/mcp.json"},
	{"linux insiders xdg", "linux", "/home/u", []string{"XDG_CONFIG_HOME=/xdg"}, "Code - Insiders", "/xdg/Code - Insiders/User/mcp.json"},
	// VSCodium: nameShort "VSCodium" (VSCodium/vscodium prepare_vscode.sh).
	{"linux vscodium", "linux", "/home/u", nil, "VSCodium", "/home/u/.config/VSCodium/User/mcp.json"},
	{"linux vscodium xdg", "linux", "/home/u", []string{"XDG_CONFIG_HOME=/xdg"}, "VSCodium", "/xdg/VSCodium/User/mcp.json"},
	// VSCodium Insiders: nameShort "VSCodium - Insiders" (prepare_vscode.sh).
	{"linux vscodium insiders", "linux", "/home/u", nil, "VSCodium - Insiders", "/home/u/.config/VSCodium - Insiders/User/mcp.json"},
	// $VSCODE_APPDATA wins on every system (userDataPath.ts, step 2).
	{"linux VSCODE_APPDATA", "linux", "/home/u", []string{"XDG_CONFIG_HOME=/xdg", "VSCODE_APPDATA=/data"}, "Code", "/data/Code/User/mcp.json"},
	// macOS: ~/Library/Application Support (userDataPath.ts, case 'darwin');
	// $XDG_CONFIG_HOME plays no part there.
	{"darwin", "darwin", "/Users/u", []string{"XDG_CONFIG_HOME=/xdg"}, "Code", "/Users/u/Library/Application Support/Code/User/mcp.json"},
	{"darwin insiders", "darwin", "/Users/u", nil, "Code - Insiders", "/Users/u/Library/Application Support/Code - Insiders/User/mcp.json"},
	{"darwin vscodium", "darwin", "/Users/u", nil, "VSCodium", "/Users/u/Library/Application Support/VSCodium/User/mcp.json"},
	// Windows: %APPDATA% (userDataPath.ts, case 'win32').
	{"windows appdata", "windows", `C:\Users\u`, []string{`APPDATA=D:\Roaming`}, "Code", `D:\Roaming\Code\User\mcp.json`},
	{"windows appdata insiders", "windows", `C:\Users\u`, []string{`APPDATA=D:\Roaming`}, "Code - Insiders", `D:\Roaming\Code - Insiders\User\mcp.json`},
	{"windows appdata vscodium", "windows", `C:\Users\u`, []string{`APPDATA=D:\Roaming`}, "VSCodium", `D:\Roaming\VSCodium\User\mcp.json`},
	// Windows without %APPDATA%: %USERPROFILE%\AppData\Roaming (same case).
	{"windows no appdata", "windows", `C:\Users\u`, nil, "Code", `C:\Users\u\AppData\Roaming\Code\User\mcp.json`},
	{"windows no appdata insiders", "windows", `C:\Users\u`, nil, "Code - Insiders", `C:\Users\u\AppData\Roaming\Code - Insiders\User\mcp.json`},
	{"windows no appdata vscodium", "windows", `C:\Users\u`, nil, "VSCodium", `C:\Users\u\AppData\Roaming\VSCodium\User\mcp.json`},
}

// targetsFor resolves a global request on another system and returns the
// host's files.
func targetsFor(t *testing.T, h Host, row pathRow) []string {
	t.Helper()
	env := install.Env{GOOS: row.goos, Home: row.home, Environ: row.environ}
	if row.build != "Code" {
		env.LookPath = finds(buildOf(t, row.build).Program)
	}
	rs, err := resolve(request{install.Request{Env: env, Binary: binary}, h})
	require.NoError(t, err)
	var out []string
	for _, tg := range adapters[h].targets(rs) {
		out = append(out, tg.path)
	}
	return out
}

func TestVSCodePaths(t *testing.T) {
	for _, row := range vscodePathRows {
		t.Run(row.name, func(t *testing.T) {
			require.Equal(t, []string{row.want}, targetsFor(t, VSCode, row))
		})
	}
	f := newFixture(t)
	rs, err := resolve(f.req(VSCode, install.ScopeProject, install.Options{}))
	require.NoError(t, err)
	// The workspace file: .vscode/mcp.json (mcp-configuration.md).
	require.Equal(t, filepath.Join(f.env.WorkDir, ".vscode", "mcp.json"), vscodeTargets(rs)[0].path)
}

// TestVSCodeBuilds: which builds a global install writes into, and that
// uninstall finds them again whatever was installed or removed since.
func TestVSCodeBuilds(t *testing.T) {
	user := func(f *fixture, dir string) string { return filepath.Join(f.env.Home, ".config", dir, "User") }
	files := func(f *fixture, h Host) []string {
		rs, err := resolve(f.req(h, install.ScopeGlobal, install.Options{}))
		require.NoError(t, err)
		var out []string
		for _, tg := range adapters[h].targets(rs) {
			r, _ := filepath.Rel(f.env.Home, tg.path)
			out = append(out, r)
		}
		return out
	}
	t.Run("none found: stable", func(t *testing.T) {
		f := newFixture(t)
		require.Equal(t, []string{".config/Code/User/mcp.json"}, files(f, VSCode))
		require.False(t, vscodeDetect(f.env))
	})
	t.Run("Insiders only: Insiders", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, os.MkdirAll(user(f, "Code - Insiders"), 0o755))
		require.Equal(t, []string{".config/Code - Insiders/User/mcp.json"}, files(f, VSCode))
		require.True(t, vscodeDetect(f.env))
	})
	t.Run("codium on PATH only: VSCodium", func(t *testing.T) {
		f := newFixture(t)
		f.env.LookPath = finds("codium")
		require.Equal(t, []string{".config/VSCodium/User/mcp.json"}, files(f, VSCode))
		require.True(t, vscodeDetect(f.env))
	})
	t.Run("stable and Insiders: both, stable first", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, os.MkdirAll(user(f, "Code - Insiders"), 0o755))
		require.NoError(t, os.MkdirAll(user(f, "Code"), 0o755))
		require.Equal(t, []string{".config/Code/User/mcp.json", ".config/Code - Insiders/User/mcp.json"}, files(f, VSCode))
		before := f.tree()
		p := f.apply(planInit(f.req(VSCode, install.ScopeGlobal, install.Options{})))
		require.Contains(t, p.Notes, "VS Code is set up in each VS Code build found here (VS Code, VS Code Insiders): the entry goes into .config/Code/User/mcp.json and .config/Code - Insiders/User/mcp.json; doctor checks the first")
		for _, dir := range []string{"Code", "Code - Insiders"} {
			require.Contains(t, f.read(filepath.Join(user(f, dir), "mcp.json")), `"deepseek-web-retrieval"`)
		}
		f.apply(planUninstall(f.req(VSCode, install.ScopeGlobal, install.Options{})))
		require.Equal(t, before, f.tree())
	})
	t.Run("stable installed after an Insiders install", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, os.MkdirAll(user(f, "Code - Insiders"), 0o755))
		before := f.tree()
		f.apply(planInit(f.req(VSCode, install.ScopeGlobal, install.Options{})))
		require.NoError(t, os.MkdirAll(user(f, "Code"), 0o755))
		before[rel(f, filepath.Dir(user(f, "Code")))+"/"], before[rel(f, user(f, "Code"))+"/"] = "", ""
		// The build holding the record stays first: uninstall finds it.
		require.Equal(t, []string{".config/Code - Insiders/User/mcp.json", ".config/Code/User/mcp.json"}, files(f, VSCode))
		require.True(t, hasInstall(f.req(VSCode, install.ScopeGlobal, install.Options{})))
		// init again adds the new build; uninstall takes both out.
		f.apply(planInit(f.req(VSCode, install.ScopeGlobal, install.Options{})))
		require.Contains(t, f.read(filepath.Join(user(f, "Code"), "mcp.json")), `"deepseek-web-retrieval"`)
		f.apply(planUninstall(f.req(VSCode, install.ScopeGlobal, install.Options{})))
		require.Equal(t, before, f.tree())
	})
	t.Run("a recorded build removed since", func(t *testing.T) {
		f := newFixture(t)
		require.NoError(t, os.MkdirAll(user(f, "Code"), 0o755))
		require.NoError(t, os.MkdirAll(user(f, "Code - Insiders"), 0o755))
		f.apply(planInit(f.req(VSCode, install.ScopeGlobal, install.Options{})))
		require.NoError(t, os.RemoveAll(filepath.Join(f.env.Home, ".config", "Code - Insiders")))
		// Still a target (the record names it): no refusal, a note.
		require.Equal(t, []string{".config/Code/User/mcp.json", ".config/Code - Insiders/User/mcp.json"}, files(f, VSCode))
		u := f.apply(planUninstall(f.req(VSCode, install.ScopeGlobal, install.Options{})))
		require.Contains(t, u.Notes, ".config/Code - Insiders/User/mcp.json is already gone")
		require.NoFileExists(t, filepath.Join(user(f, "Code"), "mcp.json"))
	})
}

// vscodeShapes are the corpus's shapes of the server's file with VS Code's
// "servers" member, and the shapes VS Code's own files take.
func vscodeShapes() []shape {
	var out []shape
	for _, s := range serverShapes {
		s.text = strings.ReplaceAll(s.text, "mcpServers", "servers")
		s.refuse = strings.ReplaceAll(s.refuse, "mcpServers", "servers")
		out = append(out, s)
	}
	return append(out,
		shape{name: "inputs and servers, as MCP: Add Server writes them", text: "{\n  \"inputs\": [\n    {\n      \"type\": \"promptString\",\n      \"id\": \"gh-token\",\n      \"description\": \"GitHub token\",\n      \"password\": true\n    }\n  ],\n  \"servers\": {\n    \"github\": {\n      \"type\": \"http\",\n      \"url\": \"https://api.githubcopilot.com/mcp/\",\n      \"headers\": {\"Authorization\": \"Bearer ${input:gh-token}\"}\n    }\n  }\n}\n"},
		shape{name: "servers with comments and trailing commas", text: "{\n  // my servers\n  \"servers\": {\n    \"memory\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-memory\",],\n    }, // memory\n  },\n}\n"},
		shape{name: "the old mcp key of settings.json", text: "{\n  \"mcp\": {\"servers\": {}}\n}\n"},
	)
}

// TestVSCodeShapeCorpus runs the shape corpus (shapes_test.go) over VS
// Code's mcp.json: every shape × every style → init → an independent
// JSONC read (hujson, then encoding/json) → uninstall → the same bytes.
func TestVSCodeShapeCorpus(t *testing.T) {
	runCorpus(t, VSCode, vscodeShapes(), nil)
}

// runCorpus runs shapes through runCase for host h in both scopes; check,
// when set, is called on each file init wrote (BOM stripped) for the
// shapes it accepts.
func runCorpus(t *testing.T, h Host, shapes []shape, check func(t *testing.T, name string, orig, got []byte)) {
	tiers := []string{"off", "optional", "preferred", "forced"}
	vs := variants()
	var total, refused atomic.Int64
	t.Cleanup(func() { t.Logf("%s shape corpus: %d cases, %d refused as expected", h, total.Load(), refused.Load()) })
	for _, scope := range []install.Scope{install.ScopeGlobal, install.ScopeProject} {
		t.Run(string(scope), func(t *testing.T) {
			t.Parallel()
			f := newMemFixture(t)
			for si, s := range shapes {
				for vi, v := range vs {
					c := corpusCase{host: h, scope: scope, tier: tiers[(si+vi)%len(tiers)], v: v, server: s}
					if check != nil && s.refuse == "" {
						strictCheck(t, f, c, check)
					}
					total.Add(1)
					if runCase(t, f, c) {
						refused.Add(1)
					}
				}
			}
		})
	}
}

// strictCheck writes the case's file, runs init, hands the result to
// check and uninstalls, which must give back every byte.
func strictCheck(t *testing.T, f *fixture, c corpusCase, check func(t *testing.T, name string, orig, got []byte)) {
	name := string(c.host) + "/" + string(c.scope) + "/" + c.server.name + "/" + c.v.String()
	req := f.req(c.host, c.scope, install.Options{Search: c.tier, Fetch: c.tier})
	rs, err := resolve(req)
	require.NoError(t, err)
	rs.args = serverArgs(req.Options)
	tg := adapters[c.host].targets(rs)[0]
	text := c.server.text
	if c.server.ours {
		text = strings.ReplaceAll(text, "{entry}", string(mustJSON(tg.entry)))
	}
	orig := c.v.Render(text)
	f.write(tg.path, orig)
	before := f.tree()
	f.apply(planInit(req))
	_, body := install.SplitBOM([]byte(f.read(tg.path)))
	_, origBody := install.SplitBOM([]byte(orig))
	check(t, name, origBody, body)
	f.apply(planUninstall(f.req(c.host, c.scope, install.Options{})))
	require.Equal(t, before, f.tree(), name)
	require.NoError(t, os.Remove(tg.path))
}

// TestVSCodeTraps: the plan's warnings and notes for VS Code.
func TestVSCodeTraps(t *testing.T) {
	settings := func(f *fixture) string { return filepath.Join(f.env.Home, ".config", "Code", "User", "settings.json") }
	plan := func(f *fixture, scope install.Scope, o install.Options) *install.Plan {
		p, err := planInit(f.req(VSCode, scope, o))
		require.NoError(t, err)
		return p
	}
	f := newFixture(t)
	p := plan(f, install.ScopeGlobal, install.Options{})
	require.Empty(t, p.Warnings)
	require.Contains(t, p.Notes, "the entry passes DEEPSEEK_API_KEY as \"${env:DEEPSEEK_API_KEY}\", which VS Code fills in from its own environment when it starts the server (an unset variable gives an empty key): start VS Code from a shell where DEEPSEEK_API_KEY is exported")
	require.Contains(t, p.Notes, "the first time the server starts, VS Code asks \"Trust and run MCP server deepseek-web-retrieval?\": answer Trust (\"MCP: Reset Trust\" undoes a refusal)")
	require.Contains(t, p.Notes, "a chat request can have at most 128 tools enabled: if Copilot Chat says \"Cannot have more than 128 tools per request\", deselect tools in the chat's tools picker (Configure Tools) or turn on github.copilot.chat.virtualTools.threshold")
	require.Contains(t, strings.Join(plan(f, install.ScopeProject, install.Options{}).Notes, "\n"), "VS Code runs a workspace's MCP servers only once you trust the workspace")

	p = plan(f, install.ScopeGlobal, install.Options{Search: "forced", Fetch: "forced"})
	require.Equal(t, []string{"Copilot Chat's built-in #web/fetch tool cannot be turned off from mcp.json: with fetch forced, deselect it in the chat's tools picker (Configure Tools) or leave it out of your custom agent's tools, or the model may still use it"}, p.Warnings)
	require.Contains(t, p.Notes, "VS Code's built-in tools have no general web search to turn off (#githubRepo and #githubTextSearch search GitHub code only); a web-search extension or MCP server you added stays available")

	for _, tc := range []struct{ text, want string }{
		{"{\n  // off\n  \"chat.mcp.access\": \"none\",\n}\n", ".config/Code/User/settings.json sets chat.mcp.access to \"none\": VS Code starts no MCP server at all; set it to \"all\" (or remove it) to use deepseek-web-retrieval"},
		{"{\"chat.mcp.access\": \"registry\"}", ".config/Code/User/settings.json sets chat.mcp.access to \"registry\": VS Code runs only MCP servers installed from its registry, not deepseek-web-retrieval; set it to \"all\" (or remove it)"},
		{"{\"chat.mcp.access\": \"all\"}", ""},
	} {
		f.write(settings(f), tc.text)
		p = plan(f, install.ScopeGlobal, install.Options{})
		if tc.want == "" {
			require.Empty(t, p.Warnings)
			continue
		}
		require.Equal(t, []string{tc.want}, p.Warnings)
	}
	// A project reads the workspace's settings, then the user's.
	f.write(filepath.Join(f.env.WorkDir, ".vscode", "settings.json"), "{\"chat.mcp.access\": \"none\"}")
	require.Equal(t, []string{
		".vscode/settings.json sets chat.mcp.access to \"none\": VS Code starts no MCP server at all; set it to \"all\" (or remove it) to use deepseek-web-retrieval",
	}, plan(f, install.ScopeProject, install.Options{}).Warnings)
}

// TestVSCodeLaunch: how doctor starts the entry as VS Code would.
func TestVSCodeLaunch(t *testing.T) {
	parent := map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo", "DEEPSEEK_API_KEY": "k1"}
	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"type": "stdio", "command": "/b", "args": ["${env:FOO}", "$FOO", "${env:MISSING}"], "env": {"DEEPSEEK_API_KEY": "${env:DEEPSEEK_API_KEY}", "PATH": "/opt/bin", "HOME": null, "M": "a${env:MISSING}b"}}`), &entry))
	l, err := hostLaunch(VSCode, entry, parent, "/work")
	require.NoError(t, err)
	require.Equal(t, "/b", l.Command)
	require.Equal(t, []string{"foo", "$FOO", ""}, l.Args)
	require.Equal(t, map[string]string{"PATH": "/usr/bin" + string(os.PathListSeparator) + "/opt/bin", "FOO": "foo", "DEEPSEEK_API_KEY": "k1", "M": "ab"}, envMap(l.Env))
	require.Equal(t, "/work", l.Dir)
	require.Empty(t, l.Notes)
}

// TestVSCodeRemote: init --remote writes VS Code's HTTP entry, the token
// by ${env:} reference; a second init is a no-op; uninstall gives back
// every byte; doctor connects as VS Code would.
func TestVSCodeRemote(t *testing.T) {
	remoteCase(t, VSCode, ".config/Code/User/mcp.json", "{\n  // mine\n  \"servers\": {},\n}\n",
		"{\n  // mine\n  \"servers\": {\n    \"deepseek-web-retrieval\": {\n      \"type\": \"http\",\n      \"url\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${env:TEAM_TOKEN}\"\n      }\n    }\n  },\n}\n")
}

// remoteCase is TestRemoteEntries and TestDoctorRemote (remote_test.go)
// for one host.
func remoteCase(t *testing.T, h Host, file, before, want string) {
	t.Run("entry", func(t *testing.T) {
		f := newFixture(t)
		path := filepath.Join(f.env.Home, filepath.FromSlash(file))
		f.write(path, before)
		tree := f.tree()
		req := f.remoteReq(h, install.ScopeGlobal, install.Options{})
		p, err := planInit(req)
		require.NoError(t, err)
		text := f.render(p, false)
		require.Contains(t, text, "sends your gateway token from the TEAM_TOKEN environment variable")
		require.NotContains(t, text, "DEEPSEEK_API_KEY")
		require.Empty(t, install.Secrets(path, []byte(want)))
		require.NoError(t, p.Apply())
		require.Equal(t, want, f.read(path))
		again, err := planInit(req)
		require.NoError(t, err)
		require.True(t, again.Empty(), f.render(again, false))
		u, err := planUninstall(f.req(h, install.ScopeGlobal, install.Options{}))
		require.NoError(t, err)
		require.Contains(t, f.render(u, false), "The gateway token was never written by init; if nothing else uses TEAM_TOKEN, remove its export")
		f.apply(u, nil)
		require.Equal(t, tree, f.tree())
	})
	t.Run("local to remote and back", func(t *testing.T) {
		f := newFixture(t)
		tree := f.tree()
		f.apply(planInit(f.req(h, install.ScopeGlobal, install.Options{Search: "forced"})))
		p := f.apply(planInit(f.remoteReq(h, install.ScopeGlobal, install.Options{Search: "forced"})))
		require.Contains(t, f.render(p, true), "instead")
		f.apply(planInit(f.req(h, install.ScopeGlobal, install.Options{})))
		f.apply(planUninstall(f.req(h, install.ScopeGlobal, install.Options{})))
		require.Equal(t, tree, f.tree())
	})
	t.Run("doctor", func(t *testing.T) {
		const token = "dwr_Zq8Xv3Lp0Rt7Yw2Mn5Bc9Kd4Fg6Hj1S"
		srv := gatewayStub(t, token)
		f := newFixture(t)
		req := f.req(h, install.ScopeGlobal, install.Options{})
		req.Binary, req.Remote = "", &install.Remote{URL: srv.URL + "/mcp", TokenEnv: "TEAM_TOKEN"}
		f.apply(planInit(req))
		c := doctor(context.Background(), f.req(h, install.ScopeGlobal, install.Options{}), []string{"TEAM_TOKEN=" + token})
		all := strings.Join(append(append(c.Lines, c.Problems...), c.Traps...), "\n")
		require.NotContains(t, all, token)
		require.Empty(t, c.Problems)
		require.Equal(t, []string{
			"entry present in " + c.File,
			"connects to the gateway " + srv.URL + "/mcp",
			"TEAM_TOKEN is set (value not shown)",
			"connected, 2 tools (deepseek_fetch, deepseek_search)",
			"the gateway's version: 9.9.9",
		}, c.Lines)
		c = doctor(context.Background(), f.req(h, install.ScopeGlobal, install.Options{}), nil)
		require.Equal(t, []string{"does not connect: the gateway refused the token (401 Unauthorized): check the token in your environment, or ask for a new one (`serve token add`)"}, c.Problems)
	})
}
