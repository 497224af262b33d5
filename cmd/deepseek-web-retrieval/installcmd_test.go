package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPackageManaged(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("npm_config_cache", "")
	tests := []struct {
		path string
		want string // "" when the path is stable
	}{
		{filepath.Join(home, ".npm", "_npx", "3f2a", "node_modules", ".bin", "deepseek-web-retrieval"), "_npx"},
		{filepath.Join(home, "x", "_npx", "deepseek-web-retrieval"), "_npx"},
		{"/usr/lib/node_modules/@deepseek-web-retrieval/cli-linux-x64/bin/deepseek-web-retrieval", "node_modules"},
		{"/tmp/bunx-0-deepseek-web-retrieval@0.1.0/node_modules/.bin/deepseek-web-retrieval", "node_modules"},
		{filepath.Join(home, ".npm", "bin", "deepseek-web-retrieval"), "npm's cache"},
		{filepath.Join(home, ".local", "bin", "deepseek-web-retrieval"), ""},
		{"/usr/local/bin/deepseek-web-retrieval", ""},
		{filepath.Join(home, "node_modules_old", "deepseek-web-retrieval"), ""},
		{filepath.Join(home, ".npmrc.d", "deepseek-web-retrieval"), ""},
	}
	for _, tt := range tests {
		got := packageManaged(tt.path)
		if tt.want == "" {
			require.Empty(t, got, tt.path)
		} else {
			require.Contains(t, got, tt.want, tt.path)
		}
	}

	cache := filepath.Join(home, "cache")
	t.Setenv("npm_config_cache", cache)
	require.Equal(t, "inside npm's cache ("+cache+"), which npm empties", packageManaged(filepath.Join(cache, "x", "deepseek-web-retrieval")))
	require.Empty(t, packageManaged(filepath.Join(home, ".npm", "bin", "deepseek-web-retrieval")), "npm_config_cache moves the cache")
}

func TestInitRefusesPackageManagedBinary(t *testing.T) {
	setup(t)
	bin := filepath.Join(t.TempDir(), "_npx", "ab12", "node_modules", ".bin", "deepseek-web-retrieval")
	code, stdout, stderr := runCLI("init", "--host", "codex", "--binary", bin, "--yes")
	require.Equal(t, exitUsage, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, bin+` is inside npx's cache (_npx), which npm empties: a host told to start it would fail once it is gone. Run "deepseek-web-retrieval install" instead (same flags)`)
	_, err := os.Stat(filepath.Join(os.Getenv("HOME"), ".codex", "config.toml"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestInstallArgs(t *testing.T) {
	tests := []struct {
		args    []string
		binDir  string
		init    []string
		yes     bool
		wantErr string
	}{
		{args: nil},
		{args: []string{"--host", "codex", "--yes"}, init: []string{"--host", "codex", "--yes"}, yes: true},
		{args: []string{"--bin-dir", "/opt/b", "--max-results", "5"}, binDir: "/opt/b", init: []string{"--max-results", "5"}},
		{args: []string{"-bin-dir=/opt/b", "-yes=false"}, binDir: "/opt/b", init: []string{"-yes=false"}},
		{args: []string{"--yes=true", "--", "--bin-dir"}, init: []string{"--yes=true", "--", "--bin-dir"}, yes: true},
		{args: []string{"--bin-dir"}, wantErr: "flag needs an argument: --bin-dir"},
		{args: []string{"--bin-dir="}, wantErr: "--bin-dir is empty"},
		{args: []string{"--yes=maybe"}, wantErr: `invalid boolean value "maybe" for --yes`},
		{args: []string{"--binary", "/x"}, wantErr: "--binary is install's to choose"},
	}
	for _, tt := range tests {
		binDir, init, yes, err := installArgs(tt.args)
		if tt.wantErr != "" {
			require.ErrorContains(t, err, tt.wantErr, tt.args)
			continue
		}
		require.NoError(t, err, tt.args)
		require.Equal(t, tt.binDir, binDir, tt.args)
		require.Equal(t, tt.init, init, tt.args)
		require.Equal(t, tt.yes, yes, tt.args)
	}
}

func TestInstall(t *testing.T) {
	setup(t)
	home := os.Getenv("HOME")
	binDir := filepath.Join(home, ".local", "bin")
	dst := filepath.Join(binDir, "deepseek-web-retrieval")
	if runtime.GOOS == "windows" {
		t.Setenv("LOCALAPPDATA", filepath.Join(home, "AppData", "Local"))
		binDir = filepath.Join(home, "AppData", "Local", "Programs", "deepseek-web-retrieval")
		dst = filepath.Join(binDir, "deepseek-web-retrieval.exe")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	want, err := os.ReadFile(self)
	require.NoError(t, err)
	codexConfig := filepath.Join(home, ".codex", "config.toml")

	// Without --yes: the copy and init's plan are printed, nothing is written.
	code, stdout, stderr := runCLI("install", "--host", "codex")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "would copy ")
	require.Contains(t, stdout, " to "+dst+" (mode 0755)\n")
	require.Contains(t, stdout, "plan only, nothing has been written")
	require.Contains(t, stdout, `command = "`+strings.ReplaceAll(dst, `\`, `\\`)+`"`)
	_, err = os.Stat(binDir)
	require.ErrorIs(t, err, os.ErrNotExist)

	// A flag init refuses: nothing is copied.
	code, _, stderr = runCLI("install", "--host", "codex", "--max-results", "99", "--yes")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "invalid --max-results")
	_, err = os.Stat(binDir)
	require.ErrorIs(t, err, os.ErrNotExist)

	// With --yes: the binary is copied whole and executable, and the host
	// starts that copy.
	code, stdout, stderr = runCLI("install", "--host", "codex", "--max-results", "5", "--yes")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "installed "+dst+": MCP hosts start it from there")
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.Equal(t, want, got)
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(dst)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
	}
	cfg, err := os.ReadFile(codexConfig)
	require.NoError(t, err)
	require.Contains(t, string(cfg), `command = "`+strings.ReplaceAll(dst, `\`, `\\`)+`"`)
	require.Contains(t, string(cfg), `"--max-results", "5"`)
	ents, err := os.ReadDir(binDir)
	require.NoError(t, err)
	require.Len(t, ents, 1, "no temporary file is left behind")

	// --bin-dir chooses the place; one inside node_modules is refused.
	other := filepath.Join(t.TempDir(), "tools")
	code, stdout, stderr = runCLI("install", "--host", "codex", "--bin-dir", other)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, " to "+filepath.Join(other, filepath.Base(dst))+" (mode 0755)\n")
	code, _, stderr = runCLI("install", "--host", "codex", "--bin-dir", filepath.Join(other, "node_modules", ".bin"), "--yes")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "is inside a node_modules directory")
}

func TestCopyBinary(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	dst := filepath.Join(dir, "bin", "dst")
	require.NoError(t, os.WriteFile(src, []byte("new"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
	require.NoError(t, os.WriteFile(dst, []byte("old binary"), 0o700))

	require.NoError(t, copyBinary(src, dst))
	b, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.Equal(t, "new", string(b))
	ents, err := os.ReadDir(filepath.Dir(dst))
	require.NoError(t, err)
	require.Len(t, ents, 1)

	// Copying a binary onto itself leaves it as it is.
	require.NoError(t, copyBinary(dst, dst))
	b, err = os.ReadFile(dst)
	require.NoError(t, err)
	require.Equal(t, "new", string(b))

	require.Error(t, copyBinary(filepath.Join(dir, "missing"), dst))
	b, err = os.ReadFile(dst)
	require.NoError(t, err)
	require.Equal(t, "new", string(b), "a failed copy leaves the old binary")
}

func TestVersionLine(t *testing.T) {
	oldV, oldC := version, commit
	t.Cleanup(func() { version, commit = oldV, oldC })
	version, commit = "1.2.3", "0123456789abcdef0123456789abcdef01234567"
	code, stdout, _ := runCLI("--version")
	require.Equal(t, exitOK, code)
	require.Equal(t, "deepseek-web-retrieval 1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+")\n", stdout)
}
