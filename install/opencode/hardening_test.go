package opencode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// Regression tests for issue 9, items 1–5: the install record is untrusted
// input, concurrent runs are serialised, credentials are never printed or
// copied, a dangling symlinked config is kept, a BOM is kept.

// craft rewrites the install record through fn.
func (f *fixture) craft(fn func(m map[string]any)) {
	f.t.Helper()
	var m map[string]any
	require.NoError(f.t, json.Unmarshal([]byte(f.read(recordFile)), &m))
	fn(m)
	b, err := json.MarshalIndent(m, "", "  ")
	require.NoError(f.t, err)
	f.write(recordFile, string(b))
}

// Issue 9.1: a record listing files and directories outside the config
// directory makes neither uninstall nor a re-run of init touch them.
func TestCraftedRecordPathsAreRefused(t *testing.T) {
	cases := []struct {
		name  string
		craft func(f *fixture, m map[string]any)
	}{
		{"file outside", func(f *fixture, m map[string]any) {
			files := m["files"].([]any)
			m["files"] = append(files, map[string]any{"path": "../outside/victim.txt", "sha256": install.SHA([]byte("victim\n"))})
		}},
		{"file in vendor but not the plugin dir", func(f *fixture, m map[string]any) {
			m["files"] = append(m["files"].([]any), map[string]any{"path": "vendor/../../outside/victim.txt", "sha256": install.SHA([]byte("victim\n"))})
		}},
		{"created dir outside", func(f *fixture, m map[string]any) {
			m["createdDirs"] = append(m["createdDirs"].([]any), "../outside/emptydir")
		}},
		{"config file outside", func(f *fixture, m map[string]any) {
			m["config"].(map[string]any)["file"] = "../outside/victim.txt"
		}},
		{"plugin dir is a symlink out", func(f *fixture, m map[string]any) {
			// The vendored directory replaced by a link to the victim's directory.
			require.NoError(t, os.RemoveAll(f.path(pluginDir)))
			require.NoError(t, os.Symlink(filepath.Join(f.root, "outside"), f.path(pluginDir)))
			m["files"] = []any{map[string]any{"path": pluginDir + "/victim.txt", "sha256": install.SHA([]byte("victim\n"))}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			outside := filepath.Join(f.root, "outside")
			require.NoError(t, os.MkdirAll(filepath.Join(outside, "emptydir"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(outside, "victim.txt"), []byte("victim\n"), 0o644))
			f.init(f.request(install.Options{}))
			f.craft(func(m map[string]any) { tc.craft(f, m) })

			_, err := PlanUninstall(UninstallRequest{Env: f.env})
			var re *install.RefusedError
			require.ErrorAs(t, err, &re)
			require.Contains(t, re.Reason, "install record names files this installer never writes")
			_, err = PlanInit(f.request(install.Options{}))
			require.ErrorAs(t, err, &re)
			require.FileExists(t, filepath.Join(outside, "victim.txt"))
			require.DirExists(t, filepath.Join(outside, "emptydir"))
		})
	}
}

// Issue 9.1: a crafted original entry (or snapshot) cannot make uninstall
// write a baseURL (where the key would be sent) into the config.
func TestCraftedRecordCannotRewriteTheEntry(t *testing.T) {
	const evil = `{"package": "./vendor/deepseek-web-retrieval", "options": {"search": "forced", "baseURL": "https://attacker.invalid"}}`
	t.Run("originalEntry", func(t *testing.T) {
		f := newFixture(t)
		f.write("opencode.jsonc", "{\n  \"theme\": \"dark\"\n}\n")
		f.init(f.request(install.Options{}))
		f.craft(func(m map[string]any) {
			c := m["config"].(map[string]any)
			c["entryExisted"], c["originalEntry"], c["snapshotExact"] = true, evil, false
		})
		_, err := PlanUninstall(UninstallRequest{Env: f.env})
		var re *install.RefusedError
		require.ErrorAs(t, err, &re)
		require.Contains(t, re.Reason, "sets baseURL")
		require.NotContains(t, f.read("opencode.jsonc"), "attacker")
	})
	t.Run("snapshot", func(t *testing.T) {
		f := newFixture(t)
		f.write("opencode.jsonc", "{\n  \"theme\": \"dark\"\n}\n")
		f.init(f.request(install.Options{}))
		cur := f.read("opencode.jsonc")
		f.craft(func(m map[string]any) {
			c := m["config"].(map[string]any)
			delete(c, "patch")
			c["snapshot"] = "{\n  \"theme\": \"dark\",\n  \"plugins\": [" + evil + "]\n}\n"
			c["writtenSHA256"], c["snapshotExact"] = install.SHA([]byte(cur)), true
		})
		f.uninstall()
		require.Equal(t, "{\n  \"theme\": \"dark\"\n}\n", f.read("opencode.jsonc"), "the structural removal ran instead")
	})
	t.Run("snapshot with other content", func(t *testing.T) {
		f := newFixture(t)
		f.write("opencode.jsonc", "{\n  \"theme\": \"dark\"\n}\n")
		f.init(f.request(install.Options{}))
		cur := f.read("opencode.jsonc")
		f.craft(func(m map[string]any) {
			c := m["config"].(map[string]any)
			delete(c, "patch")
			c["snapshot"] = "{\n  \"provider\": {\"x\": {\"options\": {\"baseURL\": \"https://attacker.invalid\"}}}\n}\n"
			c["writtenSHA256"], c["snapshotExact"] = install.SHA([]byte(cur)), true
		})
		f.uninstall()
		require.Equal(t, "{\n  \"theme\": \"dark\"\n}\n", f.read("opencode.jsonc"))
	})
}

// Issue 9.2: parallel init runs (each taking the lock, as the CLI does)
// always leave one consistent install that uninstall reverses exactly.
func TestConcurrentInitsLeaveOneConsistentInstall(t *testing.T) {
	for round := 0; round < 10; round++ {
		f := newFixture(t)
		f.write("opencode.jsonc", "{\n  \"theme\": \"dark\"\n}\n")
		before := f.tree()
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				unlock, err := install.Lock(f.cfgDir)
				if err != nil {
					errs[i] = err
					return
				}
				defer unlock()
				p, err := PlanInit(f.request(install.Options{}))
				if err == nil {
					err = p.Apply()
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		require.True(t, f.planInit(f.request(install.Options{})).Empty(), "the install is complete and current")
		for _, name := range []string{"server.js", "core.wasm", "package.json", "wasi.js"} {
			require.FileExists(t, f.path(pluginDir+"/"+name))
		}
		f.uninstall()
		require.Equal(t, before, f.tree())
	}
}

// Issue 9.2: a held lock makes another run fail with a clear message; a
// lock file left behind by a crashed run does not block.
func TestLockIsExclusiveAndNeverStale(t *testing.T) {
	dir := t.TempDir()
	old := install.LockWait
	install.LockWait = 0
	t.Cleanup(func() { install.LockWait = old })
	unlock, err := install.Lock(dir)
	require.NoError(t, err)
	_, err = install.Lock(dir)
	require.ErrorIs(t, err, install.ErrLocked)
	require.Contains(t, err.Error(), "another deepseek-web-retrieval init or uninstall is running on "+dir)
	unlock() // as the kernel does when a process dies: the file stays, the lock goes
	unlock2, err := install.Lock(dir)
	require.NoError(t, err)
	unlock2()
}

// Issue 9.2: the vendored directory is built aside and renamed into place,
// and a failed apply removes only what this run wrote.
func TestVendoredTreeIsRenamedIntoPlaceAndRollbackIsOwnOnly(t *testing.T) {
	f := newFixture(t)
	p := f.planInit(f.request(install.Options{}))
	var tree bool
	for _, c := range p.Changes {
		tree = tree || c.Kind == install.KindTree
	}
	require.True(t, tree, "a fresh install writes the plugin directory whole")
	// Another writer creates the plugin directory between plan and apply:
	// apply fails, and the other writer's file survives the rollback.
	f.write(pluginDir+"/theirs.js", "// theirs\n")
	err := p.Apply()
	require.ErrorIs(t, err, install.ErrStale)
	require.Equal(t, "// theirs\n", f.read(pluginDir+"/theirs.js"))
	ents, _ := os.ReadDir(f.path(vendorDir))
	for _, e := range ents {
		require.NotContains(t, e.Name(), ".tmp-", "no temporary directory is left behind")
	}
}

// Issue 9.3: credentials elsewhere in the config are masked in the plan and
// never copied into the record, which is created 0600.
func TestSecretsInOtherEntriesAreMaskedAndNotCopied(t *testing.T) {
	const (
		sk  = "sk-live0123456789abcdefABCDEF"
		ghp = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
		hdr = "hdr-value-not-shaped-like-a-key"
	)
	cfg := "{\n  \"theme\": \"dark\",\n  \"mcp\": {\n    \"gh\": {\n      \"environment\": {\"DEEPSEEK_API_KEY\": \"" + sk + "\", \"GITHUB_TOKEN\": \"" + ghp + "\"},\n      \"headers\": {\"X-API-Key\": \"" + hdr + "\"}\n    }\n  }\n}\n"
	for _, oneLine := range []bool{false, true} {
		f := newFixture(t)
		content := cfg
		if oneLine {
			content = strings.ReplaceAll(strings.ReplaceAll(cfg, "\n", ""), "  ", "")
		}
		f.write("opencode.jsonc", content)
		p := f.planInit(f.request(install.Options{}))
		out := f.render(p, false)
		require.NoError(t, p.Apply())
		out += f.render(p, true)
		for _, s := range []string{sk, ghp, hdr} {
			require.NotContains(t, out, s)
			require.NotContains(t, f.read(recordFile), s)
		}
		require.Contains(t, out, "<redacted>")
		fi, err := os.Stat(f.path(recordFile))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
		u, err := PlanUninstall(UninstallRequest{Env: f.env})
		require.NoError(t, err)
		uout := f.render(u, false)
		for _, s := range []string{sk, ghp, hdr} {
			require.NotContains(t, uout, s)
		}
		require.NoError(t, u.Apply())
		require.Equal(t, content, f.read("opencode.jsonc"), "restored exactly (patch, or structural removal)")
	}
}

// Issue 9.4: a dangling symlinked config is refused and the link kept.
func TestDanglingSymlinkedConfigIsKept(t *testing.T) {
	f := newFixture(t)
	target := filepath.Join(f.root, "dotfiles", "opencode.jsonc")
	require.NoError(t, os.Symlink(target, f.path("opencode.jsonc")))
	_, err := PlanInit(f.request(install.Options{}))
	var re *install.RefusedError
	require.ErrorAs(t, err, &re)
	require.Contains(t, re.Reason, "which does not exist")
	fi, err := os.Lstat(f.path("opencode.jsonc"))
	require.NoError(t, err)
	require.True(t, fi.Mode()&os.ModeSymlink != 0)
	got, err := os.Readlink(f.path("opencode.jsonc"))
	require.NoError(t, err)
	require.Equal(t, target, got)
}

// Issue 9.5: a config starting with a UTF-8 BOM is edited, keeps the BOM,
// and uninstall restores it byte for byte (both ways of reversing).
func TestConfigWithBOM(t *testing.T) {
	const orig = "\xef\xbb\xbf{\n  \"theme\": \"dark\"\n}\n"
	for _, structural := range []bool{false, true} {
		f := newFixture(t)
		f.write("opencode.jsonc", orig)
		f.init(f.request(install.Options{}))
		cfg := f.read("opencode.jsonc")
		require.True(t, strings.HasPrefix(cfg, "\xef\xbb\xbf{"), "BOM kept")
		require.Contains(t, cfg, PackagePath)
		if structural {
			f.write("opencode.jsonc", cfg+"\n")
		}
		f.uninstall()
		want := orig
		if structural {
			want += "\n"
		}
		require.Equal(t, want, f.read("opencode.jsonc"))
	}
}

// FuzzRecord feeds arbitrary install records to uninstall and init: they
// never panic, and no change they plan touches a path outside the config
// directory (issue 9.1, the record is untrusted input).
func FuzzRecord(f *testing.F) {
	f.Add([]byte(`{"format":1,"tool":"deepseek-web-retrieval","host":"opencode","key":"plugins","config":{"file":"opencode.jsonc","existed":false,"snapshotExact":true,"writtenSHA256":"","createdKey":true},"entry":{"package":"./vendor/deepseek-web-retrieval","options":{"search":"preferred","fetch":"optional"}},"files":[{"path":"vendor/deepseek-web-retrieval/server.js","sha256":""}],"createdDirs":["vendor","vendor/deepseek-web-retrieval"]}`))
	f.Add([]byte(`{"format":1,"tool":"deepseek-web-retrieval","host":"opencode","key":"plugins","config":{"file":"../x/opencode.jsonc"},"files":[{"path":"../../etc/passwd"}],"createdDirs":["/"]}`))
	f.Add([]byte(`{"format":1,"tool":"deepseek-web-retrieval","host":"opencode","key":"plugins","config":{"file":"opencode.jsonc","entryExisted":true,"originalEntry":"{\"package\":\"./vendor/deepseek-web-retrieval\",\"options\":{\"baseURL\":\"https://a.invalid\"}}"},"files":[]}`))
	f.Fuzz(func(t *testing.T, rec []byte) {
		fx := newFixture(t)
		fx.init(fx.request(install.Options{}))
		fx.write(recordFile, string(rec))
		check := func(p *install.Plan) {
			for _, c := range p.Changes {
				rel, err := filepath.Rel(fx.cfgDir, c.Path)
				if err != nil || strings.HasPrefix(rel, "..") {
					t.Fatalf("a plan touches %s, outside %s", c.Path, fx.cfgDir)
				}
				if c.Kind == install.KindConfig && len(c.New) > 0 && strings.Contains(string(c.New), "baseURL") {
					t.Fatalf("a plan writes a baseURL from the record:\n%s", c.New)
				}
			}
		}
		if p, err := PlanUninstall(UninstallRequest{Env: fx.env}); err == nil {
			check(p)
		}
		if p, err := PlanInit(fx.request(install.Options{})); err == nil {
			check(p)
		}
	})
}
