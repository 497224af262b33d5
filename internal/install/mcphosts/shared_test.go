package mcphosts

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// sharedRun plans cmd ("init" or "uninstall") for the hosts in one run
// (Request.Run names them all), in the project scope, and applies the
// plans as one transaction, as the CLI does.
func (f *fixture) sharedRun(cmd string, o install.Options, remote *install.Remote, hosts ...Host) []*install.Plan {
	f.t.Helper()
	var run []string
	for _, h := range hosts {
		run = append(run, string(h))
	}
	var plans []*install.Plan
	for _, h := range hosts {
		req := f.req(h, install.ScopeProject, o)
		req.Run = run
		var p *install.Plan
		var err error
		if cmd == "init" {
			if remote != nil {
				req.Binary, req.Remote = "", remote
			}
			p, err = planInit(req)
		} else {
			req.Options = install.Options{}
			p, err = planUninstall(req)
		}
		require.NoError(f.t, err, "%s %v", cmd, hosts)
		plans = append(plans, p)
	}
	require.NoError(f.t, install.Tx{Command: cmd, Plans: plans}.Apply(), "%s %v", cmd, hosts)
	return plans
}

func (f *fixture) recordOf(h Host) string {
	return filepath.Join(f.env.Home, ".local", "state", install.Name, "installs", string(h)+"-project-"+install.SHA([]byte(filepath.Join(f.env.WorkDir, ".mcp.json")))[:16]+".json")
}

// configChanges returns the plan's changes to config files.
func configChanges(p *install.Plan) []install.Change {
	return slices.DeleteFunc(slices.Clone(p.Changes), func(c install.Change) bool { return c.Kind != install.KindConfig })
}

// A project's .mcp.json is Claude Code's and Copilot CLI's: one entry
// serves both, in every order of init and uninstall, alone or in one run,
// and the last uninstall gives the file back byte for byte.
func TestSharedMCPJSON(t *testing.T) {
	seed := "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n"
	sequences := [][]string{
		{"init claude", "init copilot", "uninstall claude", "uninstall copilot"},
		{"init copilot", "init claude", "uninstall copilot", "uninstall claude"},
		{"init claude", "init copilot", "uninstall copilot", "uninstall claude"},
		{"init claude copilot", "uninstall claude copilot"},
		{"init copilot claude", "uninstall copilot", "uninstall claude"},
		{"init claude", "init claude copilot", "uninstall claude copilot"},
		{"init copilot", "uninstall claude copilot"},
		{"init claude copilot", "init copilot", "init claude", "uninstall claude"},
	}
	gw := &install.Remote{URL: "https://gw.example.com/mcp", TokenEnv: "TEAM_TOKEN"}
	for _, remote := range []*install.Remote{nil, gw} {
		for _, start := range []string{"absent", "seed"} {
			for _, seq := range sequences {
				name := start + "/" + strings.Join(seq, ", ")
				if remote != nil {
					name = "remote/" + name
				}
				t.Run(name, func(t *testing.T) {
					f := newFixture(t)
					path := filepath.Join(f.env.WorkDir, ".mcp.json")
					if start == "seed" {
						f.write(path, seed)
					}
					before := f.tree()
					held := map[Host]bool{}
					installed := ""
					for _, step := range seq {
						words := strings.Fields(step)
						var hosts []Host
						for _, w := range words[1:] {
							hosts = append(hosts, Host(w))
						}
						fileBefore, _ := os.ReadFile(path)
						plans := f.sharedRun(words[0], install.Options{}, remote, hosts...)
						heldBefore := len(held) > 0
						for _, h := range hosts {
							held[h] = words[0] == "init"
							if !held[h] {
								delete(held, h)
							}
						}
						switch {
						case len(held) == 0:
							if start == "seed" {
								require.Equal(t, seed, f.read(path), step)
							} else {
								require.NoFileExists(t, path, step)
							}
						case installed == "":
							installed = f.read(path)
							require.Contains(t, installed, install.Name)
							if start == "seed" {
								require.Contains(t, installed, "\"other\"", "the user's server stays")
							}
						default:
							require.Equal(t, installed, f.read(path), "%s: the one entry stays as it was", step)
						}
						if heldBefore && len(held) > 0 {
							require.Equal(t, string(fileBefore), f.read(path), step)
							for _, p := range plans {
								require.Empty(t, configChanges(p), "%s: the file is not changed", step)
							}
						}
						for _, h := range []Host{Claude, Copilot} {
							if held[h] {
								require.FileExists(t, f.recordOf(h), step)
							} else {
								require.NoFileExists(t, f.recordOf(h), step)
							}
						}
						for _, p := range plans {
							if words[0] == "init" {
								require.Contains(t, strings.Join(p.Notes, "\n"), ".mcp.json is shared with ")
							}
						}
					}
					if len(held) > 0 {
						var rest []Host
						for h := range held {
							rest = append(rest, h)
						}
						f.sharedRun("uninstall", install.Options{}, nil, rest...)
					}
					require.Equal(t, before, f.tree(), "the last uninstall gives back every byte")
				})
			}
		}
	}
}

// What the plans say: the second host takes the entry the first wrote,
// and an uninstall leaves the file to the host still using it.
func TestSharedMCPJSONPlans(t *testing.T) {
	f := newFixture(t)
	f.sharedRun("init", install.Options{}, nil, Claude)
	p := f.sharedRun("init", install.Options{}, nil, Copilot)[0]
	require.Contains(t, p.Notes, "Claude Code's install already has the entry in .mcp.json: this install records it too")
	require.Contains(t, p.Notes, ".mcp.json is shared with Claude Code, which reads the same entry: one entry serves both, and uninstall leaves it while the other's install still uses it")
	u := f.sharedRun("uninstall", install.Options{}, nil, Claude)[0]
	require.Empty(t, configChanges(u))
	require.Contains(t, u.Notes, ".mcp.json is left as it is: GitHub Copilot CLI's install still uses the entry (the file is shared); uninstalling that too removes it")
	require.Contains(t, f.render(u, false), "delete  $TMP/home/.local/state/deepseek-web-retrieval/installs/claude-project-HASH.json (install record)")

	// Claude Code has no install left: its uninstall has nothing to do,
	// and does not refuse the entry it finds.
	again, err := planUninstall(f.req(Claude, install.ScopeProject, install.Options{}))
	require.NoError(t, err)
	require.True(t, again.Empty())
	require.Equal(t, "Nothing to uninstall: Claude Code (mcpServers) has no install by this tool (project scope); the entry in .mcp.json is GitHub Copilot CLI's install's (the file is shared).", again.UpToDate)
}

// A hand edit between the installs and the uninstalls stays; only our
// entry goes, once the last host holding it is uninstalled.
func TestSharedMCPJSONHandEdit(t *testing.T) {
	seed := "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n"
	edit := func(s string) string {
		return strings.Replace(s, "\"mcpServers\": {\n", "\"mcpServers\": {\n    \"mine\": {\"command\": \"y\"},\n", 1)
	}
	for _, last := range [][]Host{{Claude}, {Copilot}, {Claude, Copilot}} {
		t.Run(string(last[0])+" last", func(t *testing.T) {
			f := newFixture(t)
			path := filepath.Join(f.env.WorkDir, ".mcp.json")
			f.write(path, seed)
			f.sharedRun("init", install.Options{}, nil, Claude)
			f.sharedRun("init", install.Options{}, nil, Copilot)
			edited := edit(f.read(path))
			f.write(path, edited)
			if len(last) == 1 {
				first := Claude
				if last[0] == Claude {
					first = Copilot
				}
				f.sharedRun("uninstall", install.Options{}, nil, first)
				require.Equal(t, edited, f.read(path), "the file is left to the other host")
			}
			f.sharedRun("uninstall", install.Options{}, nil, last...)
			require.Equal(t, edit(seed), f.read(path))
		})
	}
}

// Init into one host with other options changes the one entry for both:
// the plan says so, and the other host's record follows, so either can be
// uninstalled first. In one run, two plans that would write the file
// differently are refused, and nothing is written.
func TestSharedMCPJSONOtherOptions(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(f.env.WorkDir, ".mcp.json")
	f.write(path, "{}\n")
	before := f.tree()
	f.sharedRun("init", install.Options{}, nil, Claude)
	f.sharedRun("init", install.Options{}, nil, Copilot)
	claudeRec := f.read(f.recordOf(Claude))
	p := f.sharedRun("init", install.Options{Search: "forced"}, nil, Copilot)[0]
	require.Len(t, configChanges(p), 1)
	require.Contains(t, p.Warnings, "Claude Code's install uses this entry too (the file is shared): this changes the server Claude Code starts as well, and updates its install record to match")
	require.True(t, slices.ContainsFunc(p.Changes, func(c install.Change) bool {
		return c.Kind == install.KindRecord && c.Path == f.recordOf(Claude) && c.Op == install.OpUpdate
	}))
	require.NotEqual(t, claudeRec, f.read(f.recordOf(Claude)))
	require.Contains(t, f.read(path), "forced")
	again, err := planInit(f.req(Claude, install.ScopeProject, install.Options{Search: "forced"}))
	require.NoError(t, err)
	require.False(t, slices.ContainsFunc(again.Changes, func(c install.Change) bool { return c.Path == path }), "Claude Code's record holds the entry now in the file")
	f.sharedRun("uninstall", install.Options{}, nil, Claude)
	require.Contains(t, f.read(path), "forced")
	f.sharedRun("uninstall", install.Options{}, nil, Copilot)
	require.Equal(t, before, f.tree())

	// One run, two different entries for the one file: refused.
	var plans []*install.Plan
	for _, h := range []Host{Claude, Copilot} {
		o := install.Options{}
		if h == Copilot {
			o.Search = "forced"
		}
		req := f.req(h, install.ScopeProject, o)
		req.Run = []string{"claude", "copilot"}
		p, err := planInit(req)
		require.NoError(t, err)
		plans = append(plans, p)
	}
	require.EqualError(t, install.Tx{Command: "init", Plans: plans}.Apply(), "two plans of this run change "+path+": run the command for one host at a time (--host)")
	require.Equal(t, before, f.tree())
}

// Doctor for the host without a record of its own finds the other host's
// install holding the shared entry, starts it and says whose it is.
func TestSharedMCPJSONDoctor(t *testing.T) {
	f := newFixture(t)
	req := f.req(Claude, install.ScopeProject, install.Options{})
	req.Binary = self(t)
	f.apply(planInit(req))
	environ := []string{"PATH=/usr/bin:/bin", "HOME=" + f.env.Home, "DEEPSEEK_API_KEY=" + testKey}
	c := doctor(context.Background(), request{install.Request{Env: f.env, Scope: install.ScopeProject}, Copilot}, environ)
	all := strings.Join(append(append(append([]string{}, c.Lines...), c.Traps...), c.Problems...), "\n")
	require.True(t, c.Installed)
	require.Empty(t, c.Problems, all)
	require.Contains(t, c.Lines, "the entry is Claude Code's install's (the file is shared with it)")
	require.Contains(t, c.Lines, "connected, 2 tools (deepseek_fetch, deepseek_search)")
	require.NotContains(t, all, "no install record")
	require.NotContains(t, all, "not started")
}
