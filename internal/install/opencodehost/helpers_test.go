package opencodehost

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"

	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func fakePlugin() fstest.MapFS {
	return fstest.MapFS{
		"package.json": {Data: []byte(`{"name": "deepseek-web-retrieval", "version": "0.0.0-test", "type": "module"}` + "\n")},
		"server.js":    {Data: []byte("export default { id: \"deepseek-web-retrieval\", setup() {} }\n")},
		"wasi.js":      {Data: []byte("export class WASI {}\n")},
		"core.wasm":    {Data: []byte("\x00asm\x01\x00\x00\x00")},
	}
}

// fixture is a scratch home with a global OpenCode config directory.
type fixture struct {
	t      *testing.T
	root   string
	env    install.Env
	cfgDir string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	env := install.Env{Home: filepath.Join(root, "home"), WorkDir: filepath.Join(root, "work")}
	require.NoError(t, os.MkdirAll(env.WorkDir, 0o755))
	cfgDir := filepath.Join(env.Home, ".config", "opencode")
	require.NoError(t, os.MkdirAll(cfgDir, 0o755))
	return &fixture{t: t, root: root, env: env, cfgDir: cfgDir}
}

func (f *fixture) path(rel string) string { return filepath.Join(f.cfgDir, filepath.FromSlash(rel)) }

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	require.NoError(f.t, os.MkdirAll(filepath.Dir(f.path(rel)), 0o755))
	require.NoError(f.t, os.WriteFile(f.path(rel), []byte(content), 0o644))
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(f.path(rel))
	require.NoError(f.t, err)
	return string(b)
}

func (f *fixture) exists(rel string) bool {
	_, err := os.Lstat(f.path(rel))
	return err == nil
}

func (f *fixture) request(o install.Options) request {
	return request{Env: f.env, Scope: install.ScopeGlobal, Host: HostV2, Options: o, Plugin: fakePlugin(), Version: "test"}
}

func (f *fixture) planInit(req request) *install.Plan {
	f.t.Helper()
	p, err := planInit(req)
	require.NoError(f.t, err)
	return p
}

func (f *fixture) init(req request) *install.Plan {
	f.t.Helper()
	p := f.planInit(req)
	require.NoError(f.t, p.Apply())
	return p
}

func (f *fixture) uninstall() *install.Plan {
	f.t.Helper()
	p, err := planUninstall(uninstallRequest{Env: f.env, Scope: install.ScopeGlobal})
	require.NoError(f.t, err)
	require.NoError(f.t, p.Apply())
	return p
}

// render returns the plan's output with the scratch directory replaced by $TMP.
func (f *fixture) render(p *install.Plan, applied bool) string {
	f.t.Helper()
	var b bytes.Buffer
	require.NoError(f.t, p.Render(&b, applied))
	return strings.ReplaceAll(b.String(), f.root, "$TMP")
}

// tree lists every file under the config directory with its content.
func (f *fixture) tree() map[string]string {
	f.t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(f.cfgDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(f.cfgDir, p)
		if d.IsDir() {
			out[filepath.ToSlash(rel)+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	require.NoError(f.t, err)
	return out
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./internal/install/opencodehost -update")
	require.Equal(t, string(want), got)
}

func intp(n int) *int { return &n }
