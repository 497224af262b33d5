package opencodehost_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install/opencodehost"
	"github.com/stretchr/testify/require"
)

func plugin() fstest.MapFS {
	return fstest.MapFS{
		"package.json": {Data: []byte(`{"name": "deepseek-web-retrieval", "type": "module"}` + "\n")},
		"server.js":    {Data: []byte("export default { id: \"deepseek-web-retrieval\", setup() {} }\n")},
		"wasi.js":      {Data: []byte("export class WASI {}\n")},
		"core.wasm":    {Data: []byte("\x00asm\x01\x00\x00\x00")},
	}
}

// scratch is a home directory with OpenCode's global config directory.
type scratch struct {
	t      *testing.T
	root   string
	cfgDir string
	req    install.Request
}

func newScratch(t *testing.T) *scratch {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	cfgDir := filepath.Join(home, ".config", "opencode")
	require.NoError(t, os.MkdirAll(cfgDir, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "work"), 0o755))
	return &scratch{t: t, root: root, cfgDir: cfgDir, req: install.Request{
		Env: install.Env{Home: home, WorkDir: filepath.Join(root, "work")}, Plugin: plugin(), Version: "1.2.3",
	}}
}

func (s *scratch) write(name, content string) {
	s.t.Helper()
	require.NoError(s.t, os.WriteFile(filepath.Join(s.cfgDir, name), []byte(content), 0o644))
}

// tree is every file under the config directory with its content, ""
// for a directory (a trailing slash).
func (s *scratch) tree() map[string]string {
	s.t.Helper()
	out := map[string]string{}
	require.NoError(s.t, filepath.WalkDir(s.cfgDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == s.cfgDir {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, s.cfgDir+string(filepath.Separator)))
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	}))
	return out
}

func ops(p *install.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, c.Op.String()+" "+c.Rel)
	}
	return out
}

func TestPackageSpecPinsExactVersions(t *testing.T) {
	tests := []struct {
		version, want, wantErr string
	}{
		{"1.2.3", "@deepseek-web-retrieval/opencode@1.2.3", ""},
		{"0.0.1", "@deepseek-web-retrieval/opencode@0.0.1", ""},
		{"1.2.3-rc.1", "@deepseek-web-retrieval/opencode@1.2.3-rc.1", ""},
		{"v1.2.3", "", `cannot pin @deepseek-web-retrieval/opencode to version "v1.2.3": not an exact version (x.y.z); a release build has one`},
		{"^1.2.3", "", `cannot pin @deepseek-web-retrieval/opencode to version "^1.2.3": not an exact version (x.y.z); a release build has one`},
		{"1.2", "", `cannot pin @deepseek-web-retrieval/opencode to version "1.2": not an exact version (x.y.z); a release build has one`},
		{"01.2.3", "", `cannot pin @deepseek-web-retrieval/opencode to version "01.2.3": not an exact version (x.y.z); a release build has one`},
		{"1.2.3+build.5", "", `cannot pin @deepseek-web-retrieval/opencode to version "1.2.3+build.5": not an exact version (x.y.z); a release build has one`},
		{"latest", "", `cannot pin @deepseek-web-retrieval/opencode to version "latest": not an exact version (x.y.z); a release build has one`},
		{"dev", "", `cannot pin @deepseek-web-retrieval/opencode to version "dev": not an exact version (x.y.z); a release build has one`},
		{"", "", `cannot pin @deepseek-web-retrieval/opencode to version "": not an exact version (x.y.z); a release build has one`},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			got, err := opencodehost.PackageSpec(tt.version)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestPlugins(t *testing.T) {
	hosts := opencodehost.Plugins()
	require.Len(t, hosts, 2)
	s := newScratch(t)
	for i, want := range []struct {
		name string
		key  string
	}{{"opencode", "plugins"}, {"opencode1", "plugin"}} {
		require.Equal(t, want.name, hosts[i].Name())
		require.Equal(t, want.key, opencodehost.Host(want.name).Key())
		require.False(t, hosts[i].Remote(), "the plugin does not connect to a gateway: mcphosts.Gateway does")
		dir, err := hosts[i].ConfigDir(s.req)
		require.NoError(t, err)
		require.Equal(t, s.cfgDir, dir)
		require.False(t, hosts[i].Installed(s.req))
	}
	require.Equal(t, opencodehost.Host("opencode"), opencodehost.HostV2)
	require.Equal(t, opencodehost.Host("opencode1"), opencodehost.HostV1)
}

func TestInitUninstallRoundTrip(t *testing.T) {
	vendor := map[string]string{
		"vendor/": "", "vendor/deepseek-web-retrieval/": "",
		"vendor/deepseek-web-retrieval/package.json": `{"name": "deepseek-web-retrieval", "type": "module"}` + "\n",
		"vendor/deepseek-web-retrieval/server.js":    "export default { id: \"deepseek-web-retrieval\", setup() {} }\n",
		"vendor/deepseek-web-retrieval/wasi.js":      "export class WASI {}\n",
		"vendor/deepseek-web-retrieval/core.wasm":    "\x00asm\x01\x00\x00\x00",
	}
	tests := []struct {
		name    string
		host    int // index in Plugins()
		file    string
		before  string // "" is no config
		pkg     string
		options install.Options
		plan    []string
		want    string
		vendor  bool
	}{
		{
			name: "2.x into an existing config", file: "opencode.json", before: "{\n  // mine\n  \"theme\": \"dark\"\n}\n",
			plan:   []string{"create vendor/", "create vendor/deepseek-web-retrieval/", "create vendor/deepseek-web-retrieval.install.json", "update opencode.json"},
			want:   "{\n  // mine\n  \"theme\": \"dark\",\n  \"plugins\": [\n    {\n      \"package\": \"./vendor/deepseek-web-retrieval\",\n      \"options\": {\n        \"search\": \"preferred\",\n        \"fetch\": \"optional\"\n      }\n    }\n  ]\n}\n",
			vendor: true,
		},
		{
			name: "1.x tuple with options", host: 1, file: "opencode.json", before: "{\"plugin\": [\"other\"]}\n",
			options: install.Options{Search: "forced", Fetch: "off", MaxResults: ptr(5)},
			plan:    []string{"create vendor/", "create vendor/deepseek-web-retrieval/", "create vendor/deepseek-web-retrieval.install.json", "update opencode.json"},
			want:    "{\"plugin\": [\"other\", [\"./vendor/deepseek-web-retrieval\", {\"search\": \"forced\", \"fetch\": \"off\", \"maxResults\": 5}]]}\n",
			vendor:  true,
		},
		{
			name: "2.x npm package, no vendored files", file: "opencode.json", before: "{\n  \"theme\": \"dark\"\n}\n", pkg: "@deepseek-web-retrieval/opencode@1.2.3",
			plan: []string{"create vendor/", "create vendor/deepseek-web-retrieval.install.json", "update opencode.json"},
			want: "{\n  \"theme\": \"dark\",\n  \"plugins\": [\n    {\n      \"package\": \"@deepseek-web-retrieval/opencode@1.2.3\",\n      \"options\": {\n        \"search\": \"preferred\",\n        \"fetch\": \"optional\"\n      }\n    }\n  ]\n}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScratch(t)
			if tt.before != "" {
				s.write(tt.file, tt.before)
			}
			req := s.req
			req.Options, req.Package = tt.options, tt.pkg
			h := opencodehost.Plugins()[tt.host]
			before := s.tree()

			p, err := h.PlanInit(req)
			require.NoError(t, err)
			require.Equal(t, tt.plan, ops(p))
			require.Equal(t, before, s.tree(), "planning writes nothing")
			require.NoError(t, p.Apply())

			after := s.tree()
			require.Equal(t, tt.want, after[tt.file])
			require.Contains(t, after, "vendor/deepseek-web-retrieval.install.json")
			for name, content := range vendor {
				if tt.vendor {
					require.Equal(t, content, after[name], name)
				} else if name != "vendor/" {
					require.NotContains(t, after, name)
				}
			}
			require.True(t, h.Installed(req))

			again, err := h.PlanInit(req)
			require.NoError(t, err)
			require.True(t, again.Empty(), "%v", ops(again))

			u, err := h.PlanUninstall(req)
			require.NoError(t, err)
			require.NoError(t, u.Apply())
			require.Equal(t, before, s.tree(), "uninstall gives every byte back")
			require.False(t, h.Installed(req))

			none, err := h.PlanUninstall(req)
			require.NoError(t, err)
			require.True(t, none.Empty())
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestInitRefusals(t *testing.T) {
	tests := []struct {
		name, config string
		req          func(r *install.Request)
		want         string // with $CFG for the config directory
	}{
		{
			name: "config that does not parse", config: "{\n  \"theme\": \n}\n",
			want: "refused: cannot parse $CFG/opencode.json: hujson: line 3, column 1: invalid character '}' at start of value\nTo do it by hand:\n  - fix the file so it is valid JSONC, then run init again",
		},
		{
			name: "plugins that is not an array", config: "{\n  \"plugins\": {}\n}\n",
			want: "refused: cannot add the plugin to $CFG/opencode.json: line 2: \"plugins\" is an object, not an array\nTo do it by hand:\n  - make \"plugins\" an array (or remove it), then run init again",
		},
		{
			name: "plugin files without the module", config: "{}\n",
			req:  func(r *install.Request) { delete(r.Plugin.(fstest.MapFS), "core.wasm") },
			want: "the plugin files are incomplete: core.wasm is missing or not WebAssembly (build it into plugin/ before building this binary)",
		},
		{
			name: "invalid option", config: "{}\n",
			req:  func(r *install.Request) { r.Options.MaxResults = ptr(0) },
			want: "invalid maxResults: ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScratch(t)
			s.write("opencode.json", tt.config)
			req := s.req
			req.Plugin = plugin()
			if tt.req != nil {
				tt.req(&req)
			}
			before := s.tree()
			p, err := opencodehost.Plugins()[0].PlanInit(req)
			require.Nil(t, p)
			require.Error(t, err)
			want := strings.ReplaceAll(tt.want, "$CFG", s.cfgDir)
			if strings.HasSuffix(want, ": ") {
				require.True(t, strings.HasPrefix(err.Error(), want), err.Error())
			} else {
				require.EqualError(t, err, want)
			}
			require.Equal(t, before, s.tree())
		})
	}
}
