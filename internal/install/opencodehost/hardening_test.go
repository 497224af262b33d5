package opencodehost

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// Regression tests for the installer's hardening: the install record is untrusted
// input, concurrent runs are serialised, credentials are never printed or
// copied, a dangling symlinked config is kept, a BOM is kept.

// recordFormats are the record formats readRecord takes; every crafted
// record is tried in each.
var recordFormats = []int{1, install.RecordFormat}

// craft rewrites the install record through fn, which edits it as this
// format; with format 1 the result is then written in the shape format-1
// records had (see downgrade).
func (f *fixture) craft(format int, fn func(m map[string]any)) {
	f.t.Helper()
	var m map[string]any
	require.NoError(f.t, json.Unmarshal([]byte(f.read(recordFile)), &m))
	fn(m)
	if format == 1 {
		m = downgrade(m)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	require.NoError(f.t, err)
	f.write(recordFile, string(b))
}

// configMember is the crafted record's config file: the file holding the entry.
func configMember(m map[string]any) map[string]any {
	for _, x := range m["files"].([]any) {
		if x := x.(map[string]any); x["entry"] != nil {
			return x
		}
	}
	panic("no config file in the record")
}

// downgrade turns a record of this format into format 1 as earlier
// versions wrote it: the config's file (the file holding the entry) in
// "config", the entry beside it, the vendored files with "sha256".
func downgrade(m map[string]any) map[string]any {
	v1 := map[string]any{"format": 1, "tool": m["tool"], "version": m["version"], "host": m["host"], "key": m["key"], "createdDirs": m["createdDirs"]}
	var files []any
	for _, x := range m["files"].([]any) {
		x := x.(map[string]any)
		if x["entry"] == nil {
			files = append(files, map[string]any{"path": x["path"], "sha256": x["writtenSHA256"], "existed": x["existed"]})
			continue
		}
		c := map[string]any{"file": x["path"], "existed": x["existed"] == true, "writtenSHA256": x["writtenSHA256"], "snapshotExact": x["patchExact"] == true,
			"createdKey": x["entryCreated"] != nil, "entryExisted": x["entryExisted"] == true}
		for from, to := range map[string]string{"patch": "patch", "snapshot": "snapshot", "entryLayout": "layout", "entryOriginal": "originalEntry"} {
			if x[from] != nil {
				c[to] = x[from]
			}
		}
		if x["blankText"] != nil {
			c["wasBlank"], c["blankText"] = true, x["blankText"]
		}
		v1["config"], v1["entry"] = c, x["entry"]
	}
	v1["files"] = files
	return v1
}

// A record listing files and directories outside the config
// directory makes neither uninstall nor a re-run of init touch them.
func TestCraftedRecordPathsAreRefused(t *testing.T) {
	cases := []struct {
		name  string
		craft func(f *fixture, m map[string]any)
	}{
		{"file outside", func(f *fixture, m map[string]any) {
			files := m["files"].([]any)
			m["files"] = append(files, map[string]any{"path": "../outside/victim.txt", "writtenSHA256": install.SHA([]byte("victim\n"))})
		}},
		{"file in vendor but not the plugin dir", func(f *fixture, m map[string]any) {
			m["files"] = append(m["files"].([]any), map[string]any{"path": "vendor/../../outside/victim.txt", "writtenSHA256": install.SHA([]byte("victim\n"))})
		}},
		{"created dir outside", func(f *fixture, m map[string]any) {
			m["createdDirs"] = append(m["createdDirs"].([]any), "../outside/emptydir")
		}},
		{"config file outside", func(f *fixture, m map[string]any) {
			configMember(m)["path"] = "../outside/victim.txt"
		}},
		{"plugin dir is a symlink out", func(f *fixture, m map[string]any) {
			// The vendored directory replaced by a link to the victim's directory.
			require.NoError(t, os.RemoveAll(f.path(pluginDir)))
			require.NoError(t, os.Symlink(filepath.Join(f.root, "outside"), f.path(pluginDir)))
			m["files"] = []any{configMember(m), map[string]any{"path": pluginDir + "/victim.txt", "writtenSHA256": install.SHA([]byte("victim\n"))}}
		}},
	}
	for _, tc := range cases {
		for _, format := range recordFormats {
			t.Run(fmt.Sprintf("%s/format %d", tc.name, format), func(t *testing.T) {
				f := newFixture(t)
				outside := filepath.Join(f.root, "outside")
				require.NoError(t, os.MkdirAll(filepath.Join(outside, "emptydir"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(outside, "victim.txt"), []byte("victim\n"), 0o644))
				f.init(f.request(install.Options{}))
				f.craft(format, func(m map[string]any) { tc.craft(f, m) })

				_, err := planUninstall(uninstallRequest{Env: f.env})
				var re *install.RefusedError
				require.ErrorAs(t, err, &re)
				require.Contains(t, re.Reason, "install record names files this installer never writes")
				_, err = planInit(f.request(install.Options{}))
				require.ErrorAs(t, err, &re)
				require.FileExists(t, filepath.Join(outside, "victim.txt"))
				require.DirExists(t, filepath.Join(outside, "emptydir"))
			})
		}
	}
}

// A crafted original entry (or snapshot) cannot make uninstall
// write a baseURL (where the key would be sent) into the config.
func TestCraftedRecordCannotRewriteTheEntry(t *testing.T) {
	const evil = `{"package": "./vendor/deepseek-web-retrieval", "options": {"search": "forced", "baseURL": "https://attacker.invalid"}}`
	for _, format := range recordFormats {
		t.Run(fmt.Sprintf("originalEntry/format %d", format), func(t *testing.T) {
			f := newFixture(t)
			f.write("opencode.jsonc", "{\n  \"theme\": \"dark\"\n}\n")
			f.init(f.request(install.Options{}))
			f.craft(format, func(m map[string]any) {
				c := configMember(m)
				c["entryExisted"], c["entryOriginal"], c["patchExact"] = true, evil, false
			})
			_, err := planUninstall(uninstallRequest{Env: f.env})
			var re *install.RefusedError
			require.ErrorAs(t, err, &re)
			require.Contains(t, re.Reason, "sets baseURL")
			require.NotContains(t, f.read("opencode.jsonc"), "attacker")
		})
		for name, snapshot := range map[string]string{
			"snapshot":                    "{\n  \"theme\": \"dark\",\n  \"plugins\": [" + evil + "]\n}\n",
			"snapshot with other content": "{\n  \"provider\": {\"x\": {\"options\": {\"baseURL\": \"https://attacker.invalid\"}}}\n}\n",
		} {
			t.Run(fmt.Sprintf("%s/format %d", name, format), func(t *testing.T) {
				f := newFixture(t)
				f.write("opencode.jsonc", "{\n  \"theme\": \"dark\"\n}\n")
				f.init(f.request(install.Options{}))
				cur := f.read("opencode.jsonc")
				f.craft(format, func(m map[string]any) {
					c := configMember(m)
					delete(c, "patch")
					c["snapshot"], c["writtenSHA256"], c["patchExact"] = snapshot, install.SHA([]byte(cur)), true
				})
				f.uninstall()
				require.Equal(t, "{\n  \"theme\": \"dark\"\n}\n", f.read("opencode.jsonc"), "the structural removal ran instead")
			})
		}
	}
}

// Parallel init runs (each taking the lock, as the CLI does)
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
				p, err := planInit(f.request(install.Options{}))
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

// The vendored directory is built aside and renamed into place,
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

// Credentials elsewhere in the config are masked in the plan and
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
		u, err := planUninstall(uninstallRequest{Env: f.env})
		require.NoError(t, err)
		uout := f.render(u, false)
		for _, s := range []string{sk, ghp, hdr} {
			require.NotContains(t, uout, s)
		}
		require.NoError(t, u.Apply())
		require.Equal(t, content, f.read("opencode.jsonc"), "restored exactly (patch, or structural removal)")
	}
}

// A dangling symlinked config is refused and the link kept.
func TestDanglingSymlinkedConfigIsKept(t *testing.T) {
	f := newFixture(t)
	target := filepath.Join(f.root, "dotfiles", "opencode.jsonc")
	require.NoError(t, os.Symlink(target, f.path("opencode.jsonc")))
	_, err := planInit(f.request(install.Options{}))
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

// A config starting with a UTF-8 BOM is edited, keeps the BOM,
// and uninstall restores it byte for byte (both ways of reversing).
func TestConfigWithBOM(t *testing.T) {
	const orig = "\xef\xbb\xbf{\n  \"theme\": \"dark\"\n}\n"
	for _, structural := range []bool{false, true} {
		f := newFixture(t)
		f.write("opencode.jsonc", orig)
		f.init(f.request(install.Options{}))
		cfg := f.read("opencode.jsonc")
		require.True(t, strings.HasPrefix(cfg, "\xef\xbb\xbf{"), "BOM kept")
		require.Contains(t, cfg, packagePath)
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
// directory (the record is untrusted input).
func FuzzRecord(f *testing.F) {
	f.Add([]byte(`{"format":1,"tool":"deepseek-web-retrieval","host":"opencode","key":"plugins","config":{"file":"opencode.jsonc","existed":false,"snapshotExact":true,"writtenSHA256":"","createdKey":true},"entry":{"package":"./vendor/deepseek-web-retrieval","options":{"search":"preferred","fetch":"optional"}},"files":[{"path":"vendor/deepseek-web-retrieval/server.js","sha256":""}],"createdDirs":["vendor","vendor/deepseek-web-retrieval"]}`))
	f.Add([]byte(`{"format":1,"tool":"deepseek-web-retrieval","host":"opencode","key":"plugins","config":{"file":"../x/opencode.jsonc"},"files":[{"path":"../../etc/passwd"}],"createdDirs":["/"]}`))
	f.Add([]byte(`{"format":1,"tool":"deepseek-web-retrieval","host":"opencode","key":"plugins","config":{"file":"opencode.jsonc","entryExisted":true,"originalEntry":"{\"package\":\"./vendor/deepseek-web-retrieval\",\"options\":{\"baseURL\":\"https://a.invalid\"}}"},"files":[]}`))
	f.Add([]byte(`{"format":2,"tool":"deepseek-web-retrieval","host":"opencode","key":"plugins","files":[{"path":"opencode.jsonc","patchExact":true,"writtenSHA256":"","entryCreated":1,"entry":{"package":"./vendor/deepseek-web-retrieval"}},{"path":"vendor/deepseek-web-retrieval/server.js","writtenSHA256":""}],"createdDirs":["vendor","vendor/deepseek-web-retrieval"]}`))
	f.Add([]byte(`{"format":2,"tool":"deepseek-web-retrieval","host":"opencode","key":"plugins","files":[{"path":"../x/opencode.jsonc","entry":{}},{"path":"../../etc/passwd"}],"createdDirs":["/"]}`))
	f.Add([]byte(`{"format":2,"tool":"deepseek-web-retrieval","host":"opencode","key":"plugins","files":[{"path":"opencode.jsonc","entryExisted":true,"entryOriginal":"{\"package\":\"./vendor/deepseek-web-retrieval\",\"options\":{\"baseURL\":\"https://a.invalid\"}}"},{"path":"opencode.json"}]}`))
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
		if p, err := planUninstall(uninstallRequest{Env: fx.env}); err == nil {
			check(p)
		}
		if p, err := planInit(fx.request(install.Options{})); err == nil {
			check(p)
		}
	})
}

// A record of format 1, as earlier versions wrote it, still lets uninstall
// give back every byte, whether the config was there before or not:
// through the record's patch, and through the structural removal alone.
func TestFormat1RecordUninstalls(t *testing.T) {
	for name, before := range map[string]string{"existing config": "{\n  // mine\n  \"theme\": \"dark\"\n}\n", "no config": "", "blank config": "\n\n"} {
		for _, structural := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/structural=%v", name, structural), func(t *testing.T) {
				f := newFixture(t)
				if name != "no config" {
					f.write("opencode.jsonc", before)
				}
				tree := f.tree()
				f.init(f.request(install.Options{MaxResults: intp(4)}))
				f.craft(1, func(m map[string]any) {
					if structural {
						configMember(m)["patchExact"] = false
					}
				})
				require.Contains(t, f.read(recordFile), `"sha256"`, "the record was rewritten as format 1")
				rec, _, err := readRecord(f.cfgDir)
				require.NoError(t, err)
				require.Equal(t, "opencode.jsonc", configOf(rec).Path)
				require.Len(t, vendoredFiles(rec), len(rec.Files)-1)
				f.uninstall()
				require.Equal(t, tree, f.tree())
			})
		}
	}
}

// A config that is not UTF-8 is refused before anything is written,
// naming the file and the first byte that is not (counted from the start
// of the file, byte order mark included).
func TestConfigNotUTF8IsRefused(t *testing.T) {
	for _, tc := range []struct {
		text string
		at   int
	}{
		{"{\n  \"theme\": \"d\xffark\"\n}\n", 15},
		{"\xef\xbb\xbf{\"a\": \"\x80\"}", 10},
	} {
		f := newFixture(t)
		f.write("opencode.jsonc", tc.text)
		_, err := planInit(f.request(install.Options{}))
		var re *install.RefusedError
		require.ErrorAs(t, err, &re)
		require.Equal(t, fmt.Sprintf("%s is not valid UTF-8 at byte %d; nothing was changed", f.path("opencode.jsonc"), tc.at), re.Reason)
		require.Equal(t, tc.text, f.read("opencode.jsonc"))
	}
}
