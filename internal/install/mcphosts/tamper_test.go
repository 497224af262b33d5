package mcphosts

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func (f *fixture) apply(p *install.Plan, err error) *install.Plan {
	f.t.Helper()
	require.NoError(f.t, err)
	require.NoError(f.t, p.Apply())
	return p
}

func (f *fixture) read(p string) string {
	f.t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(f.t, err)
	return string(b)
}

// A config edited by hand between init and uninstall: the user's edits
// stay, our entry (and only it) goes.
func TestUninstallAfterHandEdits(t *testing.T) {
	t.Run("codex", func(t *testing.T) {
		f := newFixture(t)
		cfgPath := filepath.Join(f.env.Home, ".codex", "config.toml")
		f.write(cfgPath, "# mine\nmodel = \"o3\"\n\n[tools]\nweb_search = true\n")
		f.apply(planInit(f.req(Codex, install.ScopeGlobal, install.Options{Search: "forced"})))
		cfg := f.read(cfgPath)
		cfg = strings.Replace(cfg, "model = \"o3\"", "model = \"gpt-5\"", 1) + "\n[profiles.fast]\nmodel = \"mini\"\n"
		f.write(cfgPath, cfg)
		f.apply(planUninstall(f.req(Codex, install.ScopeGlobal, install.Options{})))
		require.Equal(t, "# mine\nmodel = \"gpt-5\"\n\n[tools]\nweb_search = true\n\n[profiles.fast]\nmodel = \"mini\"\n", f.read(cfgPath))
	})
	t.Run("gemini", func(t *testing.T) {
		f := newFixture(t)
		cfgPath := filepath.Join(f.env.Home, ".gemini", "settings.json")
		f.write(cfgPath, "{\n  // mine\n  \"theme\": \"GitHub\"\n}\n")
		f.apply(planInit(f.req(Gemini, install.ScopeGlobal, install.Options{Search: "forced", Fetch: "forced"})))
		f.write(cfgPath, strings.Replace(f.read(cfgPath), "\"GitHub\"", "\"Dracula\"", 1))
		f.apply(planUninstall(f.req(Gemini, install.ScopeGlobal, install.Options{})))
		require.Equal(t, "{\n  // mine\n  \"theme\": \"Dracula\"\n}\n", f.read(cfgPath))
	})
	t.Run("claude user scope rewritten by Claude Code", func(t *testing.T) {
		f := newFixture(t)
		cfgPath := filepath.Join(f.env.Home, ".claude.json")
		f.write(cfgPath, "{\n  \"numStartups\": 1\n}\n")
		f.apply(planInit(f.req(Claude, install.ScopeGlobal, install.Options{})))
		f.write(cfgPath, strings.Replace(f.read(cfgPath), "\"numStartups\": 1", "\"numStartups\": 2", 1))
		f.apply(planUninstall(f.req(Claude, install.ScopeGlobal, install.Options{})))
		require.Equal(t, "{\n  \"numStartups\": 2\n}\n", f.read(cfgPath))
	})
}

// Our entry changed by hand: uninstall refuses with the manual steps and
// writes nothing.
func TestUninstallRefusesAChangedEntry(t *testing.T) {
	f := newFixture(t)
	cfgPath := filepath.Join(f.env.Home, ".cursor", "mcp.json")
	f.apply(planInit(f.req(Cursor, install.ScopeGlobal, install.Options{})))
	f.write(cfgPath, strings.Replace(f.read(cfgPath), "\"optional\"", "\"forced\"", 1))
	before := f.tree()
	_, err := planUninstall(f.req(Cursor, install.ScopeGlobal, install.Options{}))
	var re *install.RefusedError
	require.ErrorAs(t, err, &re)
	require.Contains(t, re.Reason, "was changed since init wrote it")
	require.Contains(t, err.Error(), "To do it by hand:")
	require.Equal(t, before, f.tree())
}

// The record (the snapshot of what init did) is missing: with our entry
// still there uninstall refuses; with nothing of ours it has nothing to do.
func TestUninstallWithoutRecord(t *testing.T) {
	f := newFixture(t)
	f.apply(planInit(f.req(Pi, install.ScopeGlobal, install.Options{})))
	p, err := planInit(f.req(Pi, install.ScopeGlobal, install.Options{}))
	require.NoError(t, err)
	rs, _ := resolve(f.req(Pi, install.ScopeGlobal, install.Options{}))
	require.NoError(t, os.Remove(rs.recordPath(piTargets(rs)[0].path)))
	_, err = planUninstall(f.req(Pi, install.ScopeGlobal, install.Options{}))
	var re *install.RefusedError
	require.ErrorAs(t, err, &re)
	require.Contains(t, re.Reason, "no install record")
	require.True(t, p.Empty())

	g := newFixture(t)
	u, err := planUninstall(g.req(Pi, install.ScopeGlobal, install.Options{}))
	require.NoError(t, err)
	require.True(t, u.Empty())
	require.Contains(t, g.render(u, false), "nothing to uninstall")
}

// A config that became invalid since init: uninstall refuses (nothing is
// written) and says how to undo by hand.
func TestUninstallRefusesAnInvalidConfig(t *testing.T) {
	for _, h := range []Host{Codex, Claude, Gemini} {
		t.Run(string(h), func(t *testing.T) {
			f := newFixture(t)
			req := f.req(h, install.ScopeGlobal, install.Options{})
			f.apply(planInit(req))
			rs, _ := resolve(req)
			path := adapters[h].targets(rs)[0].path
			f.write(path, f.read(path)+"\n{{ broken\n")
			before := f.tree()
			_, err := planUninstall(req)
			var re *install.RefusedError
			require.ErrorAs(t, err, &re)
			require.Contains(t, re.Reason, "became invalid")
			require.Equal(t, before, f.tree())
		})
	}
}

// downgrade rewrites the record at p in the shape format-1 records had, as
// earlier versions wrote them (the entry's fields named "server…"); without
// its patches when structural, so uninstall must remove what the record
// says init added.
func (f *fixture) downgrade(p string, structural bool) {
	f.t.Helper()
	var m map[string]any
	require.NoError(f.t, json.Unmarshal([]byte(f.read(p)), &m))
	m["format"] = 1
	for _, x := range m["files"].([]any) {
		x := x.(map[string]any)
		if structural {
			delete(x, "patch")
		}
		for _, k := range []string{"", "Created", "Existed", "Original", "Layout"} {
			if v, ok := x["entry"+k]; ok {
				x["server"+k] = v
				delete(x, "entry"+k)
			}
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	require.NoError(f.t, err)
	f.write(p, string(b)+"\n")
}

// A record naming a file the adapter never writes is refused, in either
// format.
func TestCraftedRecordIsRefused(t *testing.T) {
	for _, format := range []int{1, install.RecordFormat} {
		t.Run(fmt.Sprintf("format %d", format), func(t *testing.T) {
			f := newFixture(t)
			req := f.req(Gemini, install.ScopeGlobal, install.Options{})
			f.apply(planInit(req))
			rs, _ := resolve(req)
			rp := rs.recordPath(geminiTargets(rs)[0].path)
			if format == 1 {
				f.downgrade(rp, false)
			}
			victim := filepath.Join(f.root, "victim.json")
			f.write(victim, "{\"mcpServers\": {}}\n")
			f.write(rp, strings.Replace(f.read(rp), geminiTargets(rs)[0].path, victim, 1))
			_, err := planUninstall(req)
			var re *install.RefusedError
			require.ErrorAs(t, err, &re)
			require.Contains(t, re.Reason, "a file this installer never writes")
			require.Equal(t, "{\"mcpServers\": {}}\n", f.read(victim))
		})
	}
}

// A record of format 1 (init of an earlier version) still lets uninstall
// give back every byte, for every host and what each adds beside the entry:
// through the record's patch, and through the structural removal alone.
func TestFormat1RecordUninstalls(t *testing.T) {
	for _, h := range []Host{Codex, Claude, Gemini, Pi, Cursor} {
		for _, structural := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/structural=%v", h, structural), func(t *testing.T) {
				f := newFixture(t)
				req := f.req(h, install.ScopeGlobal, install.Options{Search: "forced", Fetch: "forced"})
				before := f.tree()
				f.apply(planInit(req))
				rs, _ := resolve(req)
				rp := rs.recordPath(adapters[h].targets(rs)[0].path)
				f.downgrade(rp, structural)
				require.Contains(t, f.read(rp), `"server"`)
				f.apply(planUninstall(f.req(h, install.ScopeGlobal, install.Options{})))
				require.Equal(t, before, f.tree())
			})
		}
	}
}

// A tier lowered on a second init takes back what forced added.
func TestLoweringATierTakesBackTheDeny(t *testing.T) {
	f := newFixture(t)
	settings := filepath.Join(f.env.Home, ".claude", "settings.json")
	f.write(settings, "{\n  \"permissions\": {\"deny\": [\"Bash(rm:*)\"]}\n}\n")
	f.apply(planInit(f.req(Claude, install.ScopeGlobal, install.Options{Search: "forced"})))
	require.Contains(t, f.read(settings), "WebSearch")
	f.apply(planInit(f.req(Claude, install.ScopeGlobal, install.Options{Search: "preferred"})))
	require.Equal(t, "{\n  \"permissions\": {\"deny\": [\"Bash(rm:*)\"]}\n}\n", f.read(settings))
	f.apply(planUninstall(f.req(Claude, install.ScopeGlobal, install.Options{})))
	require.Equal(t, "{\n  \"permissions\": {\"deny\": [\"Bash(rm:*)\"]}\n}\n", f.read(settings))
}

// An existing entry of ours pointing at a deleted binary is reported.
func TestMovedBinaryIsReported(t *testing.T) {
	f := newFixture(t)
	req := f.req(Cursor, install.ScopeGlobal, install.Options{})
	req.Binary = filepath.Join(f.root, "old", "deepseek-web-retrieval")
	f.apply(planInit(req))
	req.Binary = binary
	p, err := planInit(req)
	require.NoError(t, err)
	require.Contains(t, strings.Join(p.Warnings, "\n"), "which no longer exists (moved or deleted)")
}

func TestArgsCache(t *testing.T) {
	ttl, mb := 0, 16
	require.Equal(t, []string{"mcp", "--search", "preferred", "--fetch", "optional", "--cache-ttl", "0", "--cache-max-mb", "16"},
		serverArgs(install.Options{CacheTTL: &ttl, CacheMaxMB: &mb}))
}

func TestArgs(t *testing.T) {
	n, x, yes := 5, 1.5, false
	got := serverArgs(install.Options{Search: "forced", MaxResults: &n, MinRerank: &x, AllowUnknownAuthority: &yes, BaseURL: "https://api.example.com", APIKeyEnv: "K", BlockedDomains: []string{"a.com", "b.com"}})
	require.Equal(t, []string{"mcp", "--search", "forced", "--fetch", "optional", "--api-key-env", "K", "--base-url", "https://api.example.com", "--max-results", "5", "--min-rerank", "1.5", "--allow-unknown-authority=false", "--blocked-domains", "a.com,b.com"}, got)
}

// A project file that already has exactly our entry (committed by a
// teammate): init adopts it, uninstall leaves it.
func TestCommittedEntryIsLeftByUninstall(t *testing.T) {
	f := newFixture(t)
	req := f.req(Claude, install.ScopeProject, install.Options{})
	f.apply(planInit(req))
	mcp := filepath.Join(f.env.WorkDir, ".mcp.json")
	committed := f.read(mcp)
	rs, _ := resolve(req)
	require.NoError(t, os.Remove(rs.recordPath(mcp))) // a fresh clone: no record here
	p, err := planInit(req)
	require.NoError(t, err)
	require.NoError(t, p.Apply())
	f.write(mcp, committed+"\n") // and the file changed since, so the structural path runs
	f.apply(planUninstall(req))
	require.Equal(t, committed+"\n", f.read(mcp))
}

// Traps the real hosts showed (tests/hosts): Codex's approval_policy
// "never" refuses every MCP call; a Pi installed as
// @mariozechner/pi-coding-agent cannot load current pi-mcp-adapter releases.
func TestTrapsSeenInRealHosts(t *testing.T) {
	t.Run("codex approval_policy never", func(t *testing.T) {
		f := newFixture(t)
		f.write(filepath.Join(f.env.Home, ".codex", "config.toml"), "approval_policy = \"never\"\n")
		p, err := planInit(f.req(Codex, install.ScopeGlobal, install.Options{}))
		require.NoError(t, err)
		require.Contains(t, p.Warnings, `.codex/config.toml sets approval_policy = "never": Codex then refuses every MCP tool call as needing approval; to let it call deepseek_search and deepseek_fetch (read-only tools), add default_tools_approval_mode = "approve" under [mcp_servers.deepseek-web-retrieval]`)

		f.write(filepath.Join(f.env.Home, ".codex", "config.toml"), "approval_policy = \"on-request\"\n")
		p, err = planInit(f.req(Codex, install.ScopeGlobal, install.Options{}))
		require.NoError(t, err)
		require.NotContains(t, strings.Join(p.Warnings, "\n"), "approval_policy")
	})
	t.Run("pi under its old package name", func(t *testing.T) {
		for _, tc := range []struct {
			pkg  string
			warn bool
		}{{"@mariozechner/pi-coding-agent", true}, {"@earendil-works/pi-coding-agent", false}} {
			f := newFixture(t)
			f.write(filepath.Join(f.env.Home, ".pi", "agent", "settings.json"), `{"packages": ["npm:pi-mcp-adapter"]}`)
			cli := filepath.Join(f.root, "lib", "node_modules", tc.pkg, "dist", "cli.js")
			f.write(cli, "#!/usr/bin/env node\n")
			link := filepath.Join(f.root, "bin", "pi")
			require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
			require.NoError(t, os.Symlink(cli, link))
			f.env.LookPath = func(name string) (string, error) {
				if name == "pi" {
					return link, nil
				}
				return "", os.ErrNotExist
			}
			p, err := planInit(f.req(Pi, install.ScopeGlobal, install.Options{}))
			require.NoError(t, err)
			require.Equal(t, tc.warn, strings.Contains(strings.Join(p.Warnings, "\n"), "current pi-mcp-adapter releases import @earendil-works/pi-coding-agent"), tc.pkg)
		}
	})
}
