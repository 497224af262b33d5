package opencodehost

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

const testSpec = npmPackage + "@1.2.3"

// TestNPMPackageIsPackagesJSONs holds npmPackage to npm/packages.json,
// where every npm package name is kept.
func TestNPMPackageIsPackagesJSONs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "npm", "packages.json"))
	require.NoError(t, err)
	var names struct{ Plugin string }
	require.NoError(t, json.Unmarshal(b, &names))
	require.Equal(t, names.Plugin, npmPackage)
}

func TestPackageSpec(t *testing.T) {
	for _, tc := range []struct{ version, want, err string }{
		{version: "1.2.3", want: "@deepseek-web-retrieval/opencode@1.2.3"},
		{version: "0.1.0-rc.1", want: "@deepseek-web-retrieval/opencode@0.1.0-rc.1"},
		{version: "^1.2.3", err: `cannot pin @deepseek-web-retrieval/opencode to version "^1.2.3": not an exact version (x.y.z); a release build has one`},
		{version: "latest", err: `cannot pin @deepseek-web-retrieval/opencode to version "latest": not an exact version (x.y.z); a release build has one`},
		{version: "1.2", err: `cannot pin @deepseek-web-retrieval/opencode to version "1.2": not an exact version (x.y.z); a release build has one`},
		{version: "v1.2.3", err: `cannot pin @deepseek-web-retrieval/opencode to version "v1.2.3": not an exact version (x.y.z); a release build has one`},
		{version: "1.2.3+build", err: `cannot pin @deepseek-web-retrieval/opencode to version "1.2.3+build": not an exact version (x.y.z); a release build has one`},
		{version: "01.2.3", err: `cannot pin @deepseek-web-retrieval/opencode to version "01.2.3": not an exact version (x.y.z); a release build has one`},
		{version: "", err: `cannot pin @deepseek-web-retrieval/opencode to version "": not an exact version (x.y.z); a release build has one`},
	} {
		t.Run(tc.version, func(t *testing.T) {
			got, err := PackageSpec(tc.version)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestInitRefusesARangeAsPackage(t *testing.T) {
	f := newFixture(t)
	for _, spec := range []string{npmPackage + "@^1.2.3", npmPackage, "other@1.2.3", npmPackage + "@latest"} {
		req := f.request(install.Options{})
		req.Package = spec
		_, err := planInit(req)
		require.EqualError(t, err, `package "`+spec+`": want @deepseek-web-retrieval/opencode@<exact version>`)
	}
	require.Equal(t, map[string]string{"./": ""}, f.tree())
}

// ourEntries returns the plugin list under key in the config at path, as data.
func ourEntries(t *testing.T, path, key string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	_, body := install.SplitBOM(b)
	v, err := install.Normalize(body)
	require.NoError(t, err)
	return v.(map[string]any)[key]
}

// wantEntry is the entry init writes for host h naming name with options o, as data.
func wantEntry(t *testing.T, h Host, name string, o install.Options) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(install.Marshal(h.generation().entry(name, o.WithDefaults()), "", "", true), &v))
	return v
}

// TestInitNPMWritesTheExactSpec: with Package set, init writes the exact
// spec in each generation's shape, global and project, vendors nothing,
// is a no-op the second time, and uninstall gives back every byte.
func TestInitNPMWritesTheExactSpec(t *testing.T) {
	o := install.Options{MaxResults: intp(5)}
	for _, host := range []Host{HostV2, HostV1} {
		for _, scope := range []install.Scope{install.ScopeGlobal, install.ScopeProject} {
			for _, tc := range configs {
				t.Run(string(host)+"/"+string(scope)+"/"+tc.name, func(t *testing.T) {
					f := newFixture(t)
					if scope == install.ScopeProject {
						f.cfgDir = f.env.WorkDir
					}
					switch tc.content {
					case "":
					case "\x00":
						f.write(tc.file, "")
					default:
						f.write(tc.file, tc.content)
					}
					before := f.tree()
					req := f.request(o)
					req.Host, req.Scope, req.Package = host, scope, testSpec
					p := f.init(req)
					require.False(t, p.Empty())

					list, ok := ourEntries(t, f.path(p.ConfigFile), host.Key()).([]any)
					require.True(t, ok)
					require.Equal(t, wantEntry(t, host, testSpec, o), list[len(list)-1])
					require.NotContains(t, f.read(p.ConfigFile), packagePath)
					require.False(t, f.exists(pluginDir), "nothing is vendored")
					require.True(t, f.exists(recordFile))
					for _, c := range p.Changes {
						require.NotContains(t, c.Rel, pluginDir+"/", "the plan touches the plugin directory")
					}

					again := f.planInit(req)
					require.True(t, again.Empty(), "second init must be a no-op:\n%s", f.render(again, false))

					up, err := planUninstall(uninstallRequest{Env: f.env, Scope: scope})
					require.NoError(t, err)
					require.NoError(t, up.Apply())
					require.Equal(t, before, f.tree())
				})
			}
		}
	}
}

// TestSwitchVendorNPMVendor: a later init with the other source replaces
// the entry and deletes or vendors the files in the same plan; uninstall
// then gives back every byte.
func TestSwitchVendorNPMVendor(t *testing.T) {
	for _, host := range []Host{HostV2, HostV1} {
		t.Run(string(host), func(t *testing.T) {
			f := newFixture(t)
			f.write("opencode.jsonc", "{\n  // mine\n  \"theme\": \"dark\",\n  \""+host.Key()+"\": [\"other-plugin\"]\n}\n")
			before := f.tree()
			o := install.Options{Search: "forced"}
			vendor := f.request(o)
			vendor.Host = host
			npm := vendor
			npm.Package = testSpec

			f.init(vendor)
			require.True(t, f.exists(pluginDir+"/plan.json"))
			require.Equal(t, wantEntry(t, host, packagePath, o), ourEntries(t, f.path("opencode.jsonc"), host.Key()).([]any)[1])

			p := f.init(npm)
			var ops []string
			for _, c := range p.Changes {
				ops = append(ops, c.Op.String()+" "+c.Rel)
			}
			require.Equal(t, []string{
				"update vendor/deepseek-web-retrieval.install.json",
				"update opencode.jsonc",
				"delete vendor/deepseek-web-retrieval/core.wasm",
				"delete vendor/deepseek-web-retrieval/package.json",
				"delete vendor/deepseek-web-retrieval/plan.json",
				"delete vendor/deepseek-web-retrieval/server.js",
				"delete vendor/deepseek-web-retrieval/wasi.js",
				"delete vendor/deepseek-web-retrieval/",
			}, ops)
			require.False(t, f.exists(pluginDir))
			list := ourEntries(t, f.path("opencode.jsonc"), host.Key()).([]any)
			require.Equal(t, []any{"other-plugin", wantEntry(t, host, testSpec, o)}, list)
			require.Contains(t, f.read("opencode.jsonc"), "// mine")
			require.True(t, f.planInit(npm).Empty())

			f.init(vendor)
			require.True(t, f.exists(pluginDir+"/plan.json"))
			list = ourEntries(t, f.path("opencode.jsonc"), host.Key()).([]any)
			require.Equal(t, []any{"other-plugin", wantEntry(t, host, packagePath, o)}, list)
			require.True(t, f.planInit(vendor).Empty())

			f.init(npm)
			f.uninstall()
			require.Equal(t, before, f.tree())
		})
	}
}

// TestNPMEntryKeepsHandFiles: switching to npm leaves a file in the
// plugin directory that init did not write, and the directory with it.
func TestNPMEntryKeepsHandFiles(t *testing.T) {
	f := newFixture(t)
	req := f.request(install.Options{})
	f.init(req)
	f.write(pluginDir+"/notes.txt", "mine\n")
	req.Package = testSpec
	p := f.init(req)
	require.Contains(t, p.Notes, "vendor/deepseek-web-retrieval/ holds files init did not write (notes.txt); left in place")
	require.Equal(t, "mine\n", f.read(pluginDir+"/notes.txt"))
	require.False(t, f.exists(pluginDir+"/server.js"))
	f.uninstall()
	require.Equal(t, "mine\n", f.read(pluginDir+"/notes.txt"))
	require.False(t, f.exists(recordFile))
}

// TestUninstallRefusalNamesTheSpec: a refusal of an npm install names the
// entry init wrote, not the vendored path.
func TestUninstallRefusalNamesTheSpec(t *testing.T) {
	f := newFixture(t)
	f.write("opencode.jsonc", "{}\n")
	req := f.request(install.Options{})
	req.Package = testSpec
	f.init(req)
	f.write("opencode.jsonc", "{\"plugins\": []}\n")
	_, err := planUninstall(uninstallRequest{Env: f.env, Scope: install.ScopeGlobal})
	require.ErrorContains(t, err, `the @deepseek-web-retrieval/opencode@1.2.3 entry init added is no longer in "plugins" in `+f.path("opencode.jsonc")+" (removed by hand?)")
}
