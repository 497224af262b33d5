package install_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/stretchr/testify/require"
)

const toyBinary = "/opt/bin/deepseek-web-retrieval"

// toyEntryText is the entry toyHost writes with the default options, one
// level in ("  ") under "mcpServers", with lines ending in eol.
func toyEntryText(eol string) string {
	return strings.ReplaceAll(`  "mcpServers": {
    "deepseek-web-retrieval": {
      "command": "/opt/bin/deepseek-web-retrieval",
      "args": [
        "mcp",
        "--search",
        "preferred",
        "--fetch",
        "optional"
      ]
    }
  }`, "\n", eol)
}

// env is a scratch machine: root/home is the home directory, root/work
// the project.
type env struct {
	t    *testing.T
	root string
	req  install.Request
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"home", "work"} {
		require.NoError(t, os.Mkdir(filepath.Join(root, d), 0o755))
	}
	return &env{t: t, root: root, req: install.Request{
		Env:     install.Env{Home: filepath.Join(root, "home"), WorkDir: filepath.Join(root, "work")},
		Binary:  toyBinary,
		Version: "1.2.3",
	}}
}

func (e *env) path(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

func (e *env) write(rel, content string, mode fs.FileMode) {
	e.t.Helper()
	require.NoError(e.t, os.MkdirAll(filepath.Dir(e.path(rel)), 0o755))
	require.NoError(e.t, os.WriteFile(e.path(rel), []byte(content), mode))
	require.NoError(e.t, os.Chmod(e.path(rel), mode))
}

func (e *env) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.path(rel))
	require.NoError(e.t, err)
	return string(b)
}

// tree is every file and directory under root: a file's content and mode,
// "dir" for a directory.
func (e *env) tree() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	require.NoError(e.t, filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == e.root {
			return err
		}
		r := filepath.ToSlash(strings.TrimPrefix(p, e.root+string(filepath.Separator)))
		if d.IsDir() {
			out[r+"/"] = "dir"
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[r] = fi.Mode().Perm().String() + " " + string(b)
		return nil
	}))
	return out
}

// render is the plan as a person reads it, the scratch root as $ROOT.
func (e *env) render(p *install.Plan, applied bool) string {
	e.t.Helper()
	var b strings.Builder
	require.NoError(e.t, p.Render(&b, applied))
	return strings.ReplaceAll(b.String(), e.root, "$ROOT")
}

// changes lists a plan's changes as "op kind rel".
func changes(p *install.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, c.Op.String()+" "+c.Kind.String()+" "+c.Rel)
	}
	return out
}

const keyFooter = `The MCP server reads the DeepSeek API key from the DEEPSEEK_API_KEY environment variable each time it runs;
init never writes the key anywhere. Set it in your shell profile (~/.bashrc, ~/.zshrc, ...):
  export DEEPSEEK_API_KEY=...
`

func TestPlanInitRender(t *testing.T) {
	e := newEnv(t)
	e.write("home/.toy/config.json", "// mine\n{\n  \"theme\": \"dark\" // yes\n}\n", 0o644)
	before := e.tree()

	p, err := toyHost{}.PlanInit(e.req)
	require.NoError(t, err)
	require.False(t, p.Empty())
	require.Equal(t, []string{
		"update config config.json",
		"create record deepseek-web-retrieval.install.json",
	}, changes(p))
	require.Equal(t, `deepseek-web-retrieval init: plan only, nothing has been written.

  config dir  $ROOT/home/.toy
  config      config.json
  host        toy (config.json)
  scope       global

Would do:
  update  config.json (config, diff below)
  create  deepseek-web-retrieval.install.json (install record)

--- a/config.json
+++ b/config.json
@@ -1,4 +1,16 @@
 // mine
 {
-  "theme": "dark" // yes
+  "theme": "dark", // yes
+  "mcpServers": {
+    "deepseek-web-retrieval": {
+      "command": "/opt/bin/deepseek-web-retrieval",
+      "args": [
+        "mcp",
+        "--search",
+        "preferred",
+        "--fetch",
+        "optional"
+      ]
+    }
+  }
 }

Run the same command with --yes to apply exactly this plan.

`+keyFooter, e.render(p, false))
	require.Equal(t, before, e.tree(), "planning and rendering write nothing")

	require.NoError(t, p.Apply())
	require.Equal(t, `deepseek-web-retrieval init: applied.

  config dir  $ROOT/home/.toy
  config      config.json
  host        toy (config.json)
  scope       global

Done:
  updated config.json (config, diff below)
  created deepseek-web-retrieval.install.json (install record)
`, e.render(p, true)[:strings.Index(e.render(p, true), "\n\n---")+1])
	require.Contains(t, e.render(p, true), "\nNext:\n  - restart toy\n\n"+keyFooter)
}

func TestPlanRenderTexts(t *testing.T) {
	tests := []struct {
		name    string
		plan    install.Plan
		applied bool
		want    string
	}{
		{
			name: "empty init says up to date",
			plan: install.Plan{Command: "init", Host: "h", Scope: "global", ConfigDir: "/c", ConfigFile: "f.json", UpToDate: "Already there."},
			want: "deepseek-web-retrieval init: nothing to do.\n\n  config dir  /c\n  config      f.json\n  host        h\n  scope       global\n\nAlready there.\n\n" +
				"The plugin reads the DeepSeek API key from the DEEPSEEK_API_KEY environment variable each time it runs;\n" +
				"init never writes the key anywhere. Set it in your shell profile (~/.bashrc, ~/.zshrc, ...):\n  export DEEPSEEK_API_KEY=...\n",
		},
		{
			name: "empty uninstall",
			plan: install.Plan{Command: "uninstall", Host: "h", Scope: "project", ConfigDir: "/c", ConfigFile: "f.json", APIKeyEnv: "MY_KEY"},
			want: "deepseek-web-retrieval uninstall: nothing to uninstall.\n\n  config dir  /c\n  config      f.json\n  host        h\n  scope       project\n\n" +
				"The API key was never written by init; if nothing else uses MY_KEY, remove its export from your shell profile.\n",
		},
		{
			name: "gateway token, warnings and notes",
			plan: install.Plan{Command: "init", Host: "h", Scope: "global", ConfigDir: "/c", ConfigFile: "f.json", Reader: "Toy", TokenEnv: "TEAM_TOKEN",
				Changes:  []install.Change{{Op: install.OpCreate, Kind: install.KindFile, Path: "/c/x.js", Rel: "x.js", New: []byte("abc")}},
				Warnings: []string{"w1"}, Notes: []string{"n1"}, Next: []string{"not shown before apply"}},
			want: "deepseek-web-retrieval init: plan only, nothing has been written.\n\n  config dir  /c\n  config      f.json\n  host        h\n  scope       global\n\n" +
				"Would do:\n  create  x.js (3 bytes)\n\nWarnings:\n  ! w1\n\nNotes:\n  - n1\n\nRun the same command with --yes to apply exactly this plan.\n\n" +
				"Toy sends your gateway token from the TEAM_TOKEN environment variable each time it connects;\n" +
				"init never writes the token anywhere, and the DeepSeek key stays on the gateway. Set it in your\n" +
				"shell profile (~/.bashrc, ~/.zshrc, ...) to the token `serve token add` printed for you:\n  export TEAM_TOKEN=...\n",
		},
		{
			name: "applied uninstall of a tree and a directory",
			plan: install.Plan{Command: "uninstall", Host: "h", Scope: "global", ConfigDir: "/c", ConfigFile: "f.json", SignIn: true,
				Changes: []install.Change{
					{Op: install.OpDelete, Kind: install.KindConfig, Path: "/c/f.json", Rel: "f.json", Old: []byte("{}\n")},
					{Op: install.OpCreate, Kind: install.KindTree, Path: "/c/v", Rel: "v/", Files: []install.TreeFile{{Name: "a.js", Data: []byte("12")}}},
					{Op: install.OpDelete, Kind: install.KindDir, Path: "/c/d", Rel: "d/", IfEmpty: true},
				},
				Next: []string{"restart h"}},
			applied: true,
			want: "deepseek-web-retrieval uninstall: applied.\n\n  config dir  /c\n  config      f.json\n  host        h\n  scope       global\n\n" +
				"Done:\n  deleted f.json (config, created by init)\n  created v/\n  created v/a.js (2 bytes)\n  deleted d/ (if empty)\n\n" +
				"--- a/f.json\n+++ /dev/null\n@@ -1 +0,0 @@\n-{}\n\nNext:\n  - restart h\n\n" +
				"The plugin keeps the sign-in to the gateway itself; sign out there if you no longer use it.\n",
		},
		{
			name: "extra secrets are masked everywhere",
			plan: install.Plan{Command: "init", Host: "h sk-zzz", Scope: "global", ConfigDir: "/c", ConfigFile: "f.json", Notes: []string{"token sk-zzz"}, Secrets: [][]byte{[]byte("sk-zzz")}},
			want: "deepseek-web-retrieval init: nothing to do.\n\n  config dir  /c\n  config      f.json\n  host        h <redacted>\n  scope       global\n\nNotes:\n  - token <redacted>\n\n" +
				"The plugin reads the DeepSeek API key from the DEEPSEEK_API_KEY environment variable each time it runs;\n" +
				"init never writes the key anywhere. Set it in your shell profile (~/.bashrc, ~/.zshrc, ...):\n  export DEEPSEEK_API_KEY=...\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			require.NoError(t, tt.plan.Render(&b, tt.applied))
			require.Equal(t, tt.want, b.String())
		})
	}
}

func TestRenderMasksCredentialsInTheDiff(t *testing.T) {
	e := newEnv(t)
	const key = "sk-abcdef0123456789abcdef"
	e.write("home/.toy/config.json", "{\n  \"apiKey\": \""+key+"\"\n}\n", 0o600)
	p, err := toyHost{}.PlanInit(e.req)
	require.NoError(t, err)
	out := e.render(p, false)
	require.NotContains(t, out, key)
	require.Contains(t, out, "\n-  \"apiKey\": \"<redacted>\"\n+  \"apiKey\": \"<redacted>\",\n")
}

// TestInitApplyUninstall drives init, a repeated init and uninstall over
// the files a user may start with, and checks every byte on disk.
func TestInitApplyUninstall(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string // relative to the scratch root; "" is no file
		scope   install.Scope
		host    toyHost
		plan    []string // the init plan's changes
		config  string   // the config's path after init
		want    string   // its content
		unplan  []string // the uninstall plan's changes
		created []string // what init made that was not there before
	}{
		{
			name:    "no config directory",
			plan:    []string{"create dir ./", "create config config.json", "create record deepseek-web-retrieval.install.json"},
			config:  "home/.toy/config.json",
			want:    "{\n" + toyEntryText("\n") + "\n}\n",
			unplan:  []string{"delete config config.json", "delete record deepseek-web-retrieval.install.json", "delete dir ./"},
			created: []string{"home/.toy/", "home/.toy/config.json", "home/.toy/deepseek-web-retrieval.install.json"},
		},
		{
			name:    "commented config and a file of the user's",
			files:   map[string]string{"home/.toy/config.json": "/* toy */\n{\n  \"theme\": \"dark\", // yes\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n", "home/.toy/notes.txt": "keep me\n"},
			plan:    []string{"update config config.json", "create record deepseek-web-retrieval.install.json"},
			config:  "home/.toy/config.json",
			want:    "/* toy */\n{\n  \"theme\": \"dark\", // yes\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},\n    \"deepseek-web-retrieval\": {\n      \"command\": \"/opt/bin/deepseek-web-retrieval\",\n      \"args\": [\n        \"mcp\",\n        \"--search\",\n        \"preferred\",\n        \"--fetch\",\n        \"optional\"\n      ]\n    }\n  }\n}\n",
			unplan:  []string{"update config config.json", "delete record deepseek-web-retrieval.install.json"},
			created: []string{"home/.toy/deepseek-web-retrieval.install.json"},
		},
		{
			name:    "CRLF config without a final newline",
			files:   map[string]string{"home/.toy/config.json": "{\r\n  \"theme\": \"dark\"\r\n}"},
			plan:    []string{"update config config.json", "create record deepseek-web-retrieval.install.json"},
			config:  "home/.toy/config.json",
			want:    "{\r\n  \"theme\": \"dark\",\r\n" + toyEntryText("\r\n") + "\r\n}",
			unplan:  []string{"update config config.json", "delete record deepseek-web-retrieval.install.json"},
			created: []string{"home/.toy/deepseek-web-retrieval.install.json"},
		},
		{
			name:    "credential in the config: uninstall removes the entry structurally",
			files:   map[string]string{"home/.toy/config.json": "{\n  \"apiKey\": \"sk-abcdef0123456789abcdef\"\n}\n"},
			plan:    []string{"update config config.json", "create record deepseek-web-retrieval.install.json"},
			config:  "home/.toy/config.json",
			want:    "{\n  \"apiKey\": \"sk-abcdef0123456789abcdef\",\n" + toyEntryText("\n") + "\n}\n",
			unplan:  []string{"update config config.json", "delete record deepseek-web-retrieval.install.json"},
			created: []string{"home/.toy/deepseek-web-retrieval.install.json"},
		},
		{
			name:    "project scope with the record in a state directory",
			files:   map[string]string{"work/.toy/config.json": "{}\n"},
			scope:   install.ScopeProject,
			host:    toyHost{RecordDir: "state/records"},
			plan:    []string{"update config config.json", "create dir state/", "create dir state/records/", "create record state/records/deepseek-web-retrieval.install.json"},
			config:  "work/.toy/config.json",
			want:    "{\n" + toyEntryText("\n") + "\n}\n",
			unplan:  []string{"update config config.json", "delete record state/records/deepseek-web-retrieval.install.json", "delete dir state/records/", "delete dir state/"},
			created: []string{"work/.toy/state/", "work/.toy/state/records/", "work/.toy/state/records/deepseek-web-retrieval.install.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for rel, content := range tt.files {
				e.write(rel, content, 0o640)
			}
			req := e.req
			req.Scope = tt.scope
			before := e.tree()
			require.False(t, tt.host.Installed(req))

			p, err := tt.host.PlanInit(req)
			require.NoError(t, err)
			require.Equal(t, tt.plan, changes(p))
			require.NoError(t, p.Apply())

			require.Equal(t, tt.want, e.read(tt.config))
			after := e.tree()
			var created []string
			for rel := range after {
				if _, ok := before[rel]; !ok {
					created = append(created, rel)
				}
			}
			require.ElementsMatch(t, tt.created, created)
			for rel, content := range before {
				if rel != tt.config && !strings.HasSuffix(rel, "/") {
					require.Equal(t, content, after[rel], "init leaves %s alone", rel)
				}
			}
			if _, existed := before[tt.config]; existed {
				require.Equal(t, before[tt.config][:len("-rw-r-----")], after[tt.config][:len("-rw-r-----")], "an update keeps the config's mode")
			}
			for _, rel := range tt.created {
				if strings.HasSuffix(rel, ".install.json") {
					require.True(t, strings.HasPrefix(after[rel], "-rw------- {\n  \"format\": 2,\n  \"tool\": \"deepseek-web-retrieval\",\n  \"version\": \"1.2.3\",\n  \"host\": \"toy\",\n"), after[rel])
				}
			}
			require.True(t, tt.host.Installed(req))

			// A second init has nothing to do; the first plan, applied
			// again, is refused as stale and changes nothing.
			again, err := tt.host.PlanInit(req)
			require.NoError(t, err)
			require.True(t, again.Empty())
			require.NoError(t, again.Apply())
			require.True(t, strings.HasPrefix(e.render(again, false), "deepseek-web-retrieval init: nothing to do.\n"))
			require.Contains(t, e.render(again, false), "\ntoy already starts deepseek-web-retrieval with these options.\n")
			err = p.Apply()
			require.ErrorIs(t, err, install.ErrStale)
			require.Equal(t, after, e.tree())

			u, err := tt.host.PlanUninstall(req)
			require.NoError(t, err)
			require.Equal(t, tt.unplan, changes(u))
			require.NoError(t, u.Apply())
			require.Equal(t, before, e.tree(), "uninstall gives back every byte and removes only what init made")
			require.False(t, tt.host.Installed(req))

			none, err := tt.host.PlanUninstall(req)
			require.NoError(t, err)
			require.True(t, none.Empty())
			require.True(t, strings.HasPrefix(e.render(none, false), "deepseek-web-retrieval uninstall: nothing to uninstall.\n"))
		})
	}
}

func TestUninstallKeepsTheUsersLaterEdits(t *testing.T) {
	e := newEnv(t)
	e.write("home/.toy/config.json", "{\n  \"theme\": \"dark\"\n}\n", 0o644)
	p, err := toyHost{}.PlanInit(e.req)
	require.NoError(t, err)
	require.NoError(t, p.Apply())

	// The user changes the theme after init: the patch no longer applies,
	// so the entry goes structurally and the new theme stays.
	edited := strings.Replace(e.read("home/.toy/config.json"), `"dark"`, `"light"`, 1)
	e.write("home/.toy/config.json", edited, 0o644)
	e.write("home/.toy/other.json", "{}\n", 0o644)
	u, err := toyHost{}.PlanUninstall(e.req)
	require.NoError(t, err)
	require.NoError(t, u.Apply())
	require.Equal(t, map[string]string{
		".toy/":            "dir",
		".toy/config.json": "-rw-r--r-- {\n  \"theme\": \"light\"\n}\n",
		".toy/other.json":  "-rw-r--r-- {}\n",
	}, subtree(e.tree(), "home/"))
}

// subtree is the part of a tree under prefix, named relative to it.
func subtree(tree map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range tree {
		if r, ok := strings.CutPrefix(k, prefix); ok && r != "" {
			out[r] = v
		}
	}
	return out
}

// TestRefusedLeavesFilesUntouched covers every way a run stops before it
// writes: a planner's refusal and the checks Apply makes first.
func TestRefusedLeavesFilesUntouched(t *testing.T) {
	cfg := "home/.toy/config.json"
	tests := []struct {
		name    string
		setup   func(e *env)
		host    toyHost
		options install.Options
		// between runs after the plan is made, before it is applied.
		between func(e *env)
		planErr bool
		check   func(t *testing.T, e *env, err error)
	}{
		{
			name:    "config that does not parse",
			setup:   func(e *env) { e.write(cfg, "{\"theme\": }\n", 0o644) },
			planErr: true,
			check: func(t *testing.T, e *env, err error) {
				var refused *install.RefusedError
				require.ErrorAs(t, err, &refused)
				require.True(t, strings.HasPrefix(err.Error(), "refused: "+e.path(cfg)+" is not valid JSONC ("), err.Error())
				require.True(t, strings.HasSuffix(err.Error(), "), so init cannot edit it\nTo do it by hand:\n  - fix the file and run the command again"), err.Error())
			},
		},
		{
			name:    "config whose top level is not an object",
			setup:   func(e *env) { e.write(cfg, "\n[1, 2]\n", 0o644) },
			planErr: true,
			check: func(t *testing.T, e *env, err error) {
				require.EqualError(t, err, "refused: "+e.path(cfg)+" is not valid JSONC (line 2: the top level is an array, not an object), so init cannot edit it\nTo do it by hand:\n  - fix the file and run the command again")
			},
		},
		{
			name:    "member on the entry's path that is not an object",
			setup:   func(e *env) { e.write(cfg, "{\n  \"theme\": \"dark\",\n  \"mcpServers\": null\n}\n", 0o644) },
			planErr: true,
			check: func(t *testing.T, e *env, err error) {
				var shape *install.ShapeError
				require.ErrorAs(t, err, &shape)
				require.Equal(t, install.ShapeError{Path: "mcpServers", Line: 3, Shape: "null", Want: "an object"}, *shape)
				require.EqualError(t, err, e.path(cfg)+`: line 3: "mcpServers" is null, not an object`)
			},
		},
		{
			name:    "invalid option",
			setup:   func(e *env) { e.write(cfg, "{}\n", 0o644) },
			options: install.Options{MaxResults: ptr(99)},
			planErr: true,
			check: func(t *testing.T, e *env, err error) {
				var opt *install.OptionError
				require.ErrorAs(t, err, &opt)
				require.Equal(t, "maxResults", opt.Option)
				require.True(t, strings.HasPrefix(err.Error(), "invalid maxResults: "), err.Error())
			},
		},
		{
			name:  "read-only config",
			setup: func(e *env) { e.write(cfg, "{}\n", 0o444) },
			check: func(t *testing.T, e *env, err error) {
				var refused *install.RefusedError
				require.ErrorAs(t, err, &refused)
				p := e.path(cfg)
				require.EqualError(t, err, "refused: "+p+" is read-only (mode 0444); init does not change a file's permissions\nTo do it by hand:\n"+
					"  - make it writable (chmod u+w "+p+") and run the command again\n"+
					"  - or make the change by hand: run the command without --yes to see the diff")
			},
		},
		{
			name:    "config changed after the plan was made",
			setup:   func(e *env) { e.write(cfg, "{}\n", 0o644) },
			between: func(e *env) { e.write(cfg, "{\"theme\": \"light\"}\n", 0o644) },
			check: func(t *testing.T, e *env, err error) {
				require.ErrorIs(t, err, install.ErrStale)
				require.EqualError(t, err, e.path(cfg)+": changed since the plan was made; run the command again")
			},
		},
		{
			name: "a file where the record's directory goes",
			setup: func(e *env) {
				e.write(cfg, "{}\n", 0o644)
				e.write("home/.toy/state", "mine\n", 0o644)
			},
			host: toyHost{RecordDir: "state"},
			check: func(t *testing.T, e *env, err error) {
				require.EqualError(t, err, e.path("home/.toy/state/deepseek-web-retrieval.install.json")+": changed since the plan was made; run the command again")
			},
		},
		{
			name:    "config created after the plan was made",
			between: func(e *env) { e.write(cfg, "{}\n", 0o644) },
			check: func(t *testing.T, e *env, err error) {
				require.ErrorIs(t, err, install.ErrStale)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if tt.setup != nil {
				tt.setup(e)
			}
			req := e.req
			req.Options = tt.options
			p, err := tt.host.PlanInit(req)
			if tt.planErr {
				require.Nil(t, p)
				tt.check(t, e, err)
				return
			}
			require.NoError(t, err)
			if tt.between != nil {
				tt.between(e)
			}
			before := e.tree()
			err = p.Apply()
			tt.check(t, e, err)
			require.Equal(t, before, e.tree())
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestApplyFailingHalfWayRollsBack makes a run fail after it has
// written: the second host's plugin tree holds a nested file, which Apply
// refuses once the tree's first file is written. Every change the run made
// before, on both hosts, is undone, and no temporary file is left.
func TestApplyFailingHalfWayRollsBack(t *testing.T) {
	e := newEnv(t)
	e.write("work/.toy/config.json", "{\n  // project\n}\n", 0o644)
	before := e.tree()

	global, err := toyHost{}.PlanInit(e.req)
	require.NoError(t, err)
	require.Equal(t, []string{"create dir ./", "create config config.json", "create record deepseek-web-retrieval.install.json"}, changes(global))
	project := e.req
	project.Scope = install.ScopeProject
	vendor := []install.TreeFile{{Name: "index.js", Data: []byte("export {}\n")}, {Name: "lib/util.js", Data: []byte("//\n")}}
	broken, err := toyHost{Vendor: vendor}.PlanInit(project)
	require.NoError(t, err)
	require.Equal(t, []string{"update config config.json", "create dir vendor/", "create tree vendor/deepseek-web-retrieval/", "create record deepseek-web-retrieval.install.json"}, changes(broken))

	err = install.Tx{Command: "init", Plans: []*install.Plan{global, broken}}.Apply()
	require.EqualError(t, err, `bad file name "lib/util.js" (everything this run wrote was rolled back)`)
	require.Equal(t, before, e.tree(), "no half-written file, no temporary file, no directory left")

	// The same run with a flat tree goes through.
	global, err = toyHost{}.PlanInit(e.req)
	require.NoError(t, err)
	vendor[1].Name = "util.js"
	fixed, err := toyHost{Vendor: vendor}.PlanInit(project)
	require.NoError(t, err)
	require.NoError(t, install.Tx{Command: "init", Plans: []*install.Plan{global, fixed}}.Apply())
	work := subtree(e.tree(), "work/")
	require.Contains(t, work, ".toy/deepseek-web-retrieval.install.json")
	delete(work, ".toy/deepseek-web-retrieval.install.json")
	require.Equal(t, map[string]string{
		".toy/":                               "dir",
		".toy/config.json":                    "-rw-r--r-- {\n" + toyEntryText("\n") + "\n  // project\n}\n",
		".toy/vendor/":                        "dir",
		".toy/vendor/deepseek-web-retrieval/": "dir",
		".toy/vendor/deepseek-web-retrieval/index.js": "-rw-r--r-- export {}\n",
		".toy/vendor/deepseek-web-retrieval/util.js":  "-rw-r--r-- //\n",
	}, work)
	u, err := toyHost{Vendor: vendor}.PlanUninstall(project)
	require.NoError(t, err)
	require.NoError(t, u.Apply())
	require.Equal(t, subtree(before, "work/"), subtree(e.tree(), "work/"))
	require.Contains(t, e.read("home/.toy/config.json"), toyEntryText("\n"))
}

func TestTxComposesPlans(t *testing.T) {
	t.Run("two plans changing one file differently are refused", func(t *testing.T) {
		e := newEnv(t)
		e.write("home/.toy/config.json", "{}\n", 0o644)
		before := e.tree()
		a, err := toyHost{}.PlanInit(e.req)
		require.NoError(t, err)
		b, err := toyHost{RecordDir: "b"}.PlanInit(e.req)
		require.NoError(t, err)
		require.Equal(t, install.KindConfig, b.Changes[0].Kind)
		b.Changes[0].New = append([]byte("// b\n"), b.Changes[0].New...)
		err = install.Tx{Command: "init", Plans: []*install.Plan{a, b}}.Apply()
		require.EqualError(t, err, "two plans of this run change "+e.path("home/.toy/config.json")+": run the command for one host at a time (--host)")
		require.Equal(t, before, e.tree())
	})
	t.Run("the very same change in two plans is made once", func(t *testing.T) {
		e := newEnv(t)
		a, err := toyHost{}.PlanInit(e.req)
		require.NoError(t, err)
		b, err := toyHost{}.PlanInit(e.req)
		require.NoError(t, err)
		require.NoError(t, install.Tx{Command: "init", Plans: []*install.Plan{a, b}}.Apply())
		require.Equal(t, "{\n"+toyEntryText("\n")+"\n}\n", e.read("home/.toy/config.json"))
	})
	t.Run("a journal in a missing state directory leaves nothing behind", func(t *testing.T) {
		e := newEnv(t)
		state := install.StateDir(e.req.Env.Home, "")
		require.Equal(t, filepath.Join(e.req.Env.Home, ".local", "state", "deepseek-web-retrieval"), state)
		p, err := toyHost{}.PlanInit(e.req)
		require.NoError(t, err)
		require.NoError(t, install.Tx{StateDir: state, Command: "init", Plans: []*install.Plan{p}}.Apply())
		require.NoDirExists(t, filepath.Join(e.req.Env.Home, ".local"))
		_, found, err := install.Pending(state)
		require.NoError(t, err)
		require.False(t, found)
		_, ok := install.PendingCheck(state)
		require.False(t, ok)
		require.Equal(t, "{\n"+toyEntryText("\n")+"\n}\n", e.read("home/.toy/config.json"))
	})
}

func TestInterruptedRunState(t *testing.T) {
	e := newEnv(t)
	state := e.path("state")

	// Nothing there: nothing to recover, nothing to say.
	_, found, err := install.Recover(state)
	require.NoError(t, err)
	require.False(t, found)
	_, ok := install.PendingCheck(state)
	require.False(t, ok)

	// A file in the journal's place that is not one: refused, and named.
	e.write("state/journal.json", "{\"tool\": \"someone-else\"}", 0o600)
	want := e.path("state/journal.json") + " is not a journal of this installer (move it away to go on): tool \"someone-else\", format 0 (want \"deepseek-web-retrieval\", 1)"
	_, _, err = install.Pending(state)
	require.ErrorContains(t, err, want)
	_, found, err = install.Recover(state)
	require.False(t, found)
	require.ErrorContains(t, err, want)
	c, ok := install.PendingCheck(state)
	require.True(t, ok)
	require.Equal(t, "Installer state", c.Title)
	require.Len(t, c.Problems, 1)
	require.True(t, strings.HasPrefix(c.Problems[0], want), c.Problems[0])
	require.Equal(t, "-rw------- {\"tool\": \"someone-else\"}", e.tree()["state/journal.json"], "left as it was")
}

func TestApplyErrorsAreRealFileErrors(t *testing.T) {
	e := newEnv(t)
	// A plan whose tree names a file with a separator is refused before
	// anything is renamed into place.
	p := &install.Plan{Command: "init", ConfigDir: e.root}
	p.Add(install.Change{Op: install.OpCreate, Kind: install.KindTree, Path: e.path("home/v"), Files: []install.TreeFile{{Name: "a/b", Data: []byte("x")}}})
	require.Equal(t, e.path("home/v"), p.Changes[0].Rel, "Add names a change by its path when Rel is empty")
	before := e.tree()
	require.EqualError(t, p.Apply(), `bad file name "a/b"`)
	require.Equal(t, before, e.tree())

	p = &install.Plan{Command: "init", ConfigDir: e.root}
	p.Add(install.Change{Op: install.OpCreate, Kind: install.KindTree, Path: e.path("home/v"), Files: []install.TreeFile{{Name: "a.js", Data: []byte("x")}, {Name: "b.wasm", Data: []byte("\x00asm")}}})
	require.NoError(t, p.Apply())
	require.Equal(t, map[string]string{"v/": "dir", "v/a.js": "-rw-r--r-- x", "v/b.wasm": "-rw-r--r-- \x00asm"}, subtree(e.tree(), "home/"))
	require.ErrorIs(t, p.Apply(), install.ErrStale, "the tree exists now")

	var pathErr *fs.PathError
	p = &install.Plan{Command: "uninstall"}
	p.Add(install.Change{Op: install.OpDelete, Kind: install.KindDir, Path: e.path("home/v")})
	require.ErrorAs(t, p.Apply(), &pathErr, "a directory that is not empty is not removed")
	require.DirExists(t, e.path("home/v"))
	require.True(t, errors.Is(pathErr.Err, syscall.ENOTEMPTY) || errors.Is(pathErr.Err, syscall.EEXIST), pathErr.Error())
}
