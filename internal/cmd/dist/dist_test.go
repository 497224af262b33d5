package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// root is the repository, two levels up from this package.
const root = "../../.."

func testConfig(t *testing.T, out string, targets string) config {
	t.Helper()
	c := config{root: root, out: out, version: "1.2.3-test.1", npm: true, goCmd: "go"}
	require.NoError(t, c.fill(targets, ""))
	return c
}

// TestDistReproducible builds linux/amd64 with its npm packages twice, into
// two directories, and checks that every byte agrees, then what the
// artifacts hold. (make dist builds all six platforms; the local-registry
// test, tests/registry, checks that output.)
func TestDistReproducible(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	c := testConfig(t, a, "linux/amd64")
	require.NoError(t, run(c))
	c.out = b
	require.NoError(t, run(c))

	sumsA, err := os.ReadFile(filepath.Join(a, "checksums.txt"))
	require.NoError(t, err)
	sumsB, err := os.ReadFile(filepath.Join(b, "checksums.txt"))
	require.NoError(t, err)
	require.Equal(t, string(sumsA), string(sumsB))
	require.Equal(t, tree(t, a), tree(t, b), "every file of the two runs")

	// checksums.txt lists every archive and npm tarball with its SHA-256.
	var names []string
	for _, line := range strings.Split(strings.TrimSuffix(string(sumsA), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		require.True(t, ok, line)
		data, err := os.ReadFile(filepath.Join(a, name))
		require.NoError(t, err)
		h := sha256.Sum256(data)
		require.Equal(t, hex.EncodeToString(h[:]), sum, name)
		names = append(names, name)
	}
	require.Equal(t, []string{
		"deepseek-web-retrieval_1.2.3-test.1_linux_amd64.tar.gz",
		"npm/deepseek-web-retrieval-1.2.3-test.1.tgz",
		"npm/deepseek-web-retrieval-cli-linux-x64-1.2.3-test.1.tgz",
		"npm/deepseek-web-retrieval-opencode-1.2.3-test.1.tgz",
	}, names)

	// The binary is static: no ELF interpreter, CGO_ENABLED=0.
	exe := filepath.Join(a, "deepseek-web-retrieval_1.2.3-test.1_linux_amd64", "deepseek-web-retrieval")
	f, err := elf.Open(exe)
	require.NoError(t, err)
	for _, p := range f.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "the binary names a dynamic loader")
	}
	require.Nil(t, f.Section(".interp"))
	require.NoError(t, f.Close())
	out, err := exec.Command("go", "version", "-m", exe).Output()
	require.NoError(t, err)
	for _, want := range []string{"\tbuild\tCGO_ENABLED=0\n", "\tbuild\t-trimpath=true\n"} {
		require.Contains(t, string(out), want)
	}
	require.NotContains(t, string(out), "vcs.")
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		out, err := exec.Command(exe, "--version").Output()
		require.NoError(t, err)
		require.Equal(t, "deepseek-web-retrieval 1.2.3-test.1 (commit "+c.commit+", "+runtime.Version()+" linux/amd64)\n", string(out))
	}

	// The archive: the binary, README.md and LICENSE under one directory,
	// owner 0:0, fixed modes, the commit time everywhere.
	bin, err := os.ReadFile(exe)
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	require.NoError(t, err)
	dir := "deepseek-web-retrieval_1.2.3-test.1_linux_amd64/"
	require.Equal(t, []entry{
		{dir, 0o755, nil},
		{dir + "deepseek-web-retrieval", 0o755, bin},
		{dir + "README.md", 0o644, readme},
		{dir + "LICENSE", 0o644, license},
	}, readTarGz(t, filepath.Join(a, names[0]), c.mtime))

	// npm: the launcher pins every platform package exactly and carries
	// the platform table; the platform package holds the executable binary
	// with its os and cpu; the plugin is named and stamped; no scripts.
	npm := readTarGz(t, filepath.Join(a, names[1]), time.Time{})
	launcher := packageOf(t, npm)
	require.Equal(t, "deepseek-web-retrieval", launcher["name"])
	require.Equal(t, "1.2.3-test.1", launcher["version"])
	require.Equal(t, map[string]any{"deepseek-web-retrieval": "bin/deepseek-web-retrieval.js"}, launcher["bin"])
	deps := launcher["optionalDependencies"].(map[string]any)
	require.Len(t, deps, 6)
	for _, p := range c.names.Platforms {
		require.Equal(t, "1.2.3-test.1", deps[p.Package], p.Package)
		require.Equal(t, p.Package, launcher["deepseekWebRetrieval"].(map[string]any)["platforms"].(map[string]any)[p.OS+"-"+p.CPU])
	}
	js, err := os.ReadFile(filepath.Join(root, "npm", "launcher", "launcher.js"))
	require.NoError(t, err)
	require.Contains(t, npm, entry{"package/bin/deepseek-web-retrieval.js", 0o755, js})

	platform := readTarGz(t, filepath.Join(a, names[2]), time.Time{})
	pj := packageOf(t, platform)
	require.Equal(t, "@deepseek-web-retrieval/cli-linux-x64", pj["name"])
	require.Equal(t, []any{"linux"}, pj["os"])
	require.Equal(t, []any{"x64"}, pj["cpu"])
	require.Contains(t, platform, entry{"package/bin/deepseek-web-retrieval", 0o755, bin})

	plug := readTarGz(t, filepath.Join(a, names[3]), time.Time{})
	pj = packageOf(t, plug)
	require.Equal(t, "@deepseek-web-retrieval/opencode", pj["name"])
	require.Equal(t, "1.2.3-test.1", pj["version"])
	require.Nil(t, pj["dependencies"])
	wasm, err := os.ReadFile(filepath.Join(root, "plugin", "core.wasm"))
	require.NoError(t, err)
	require.Contains(t, plug, entry{"package/core.wasm", 0o644, wasm})
	for _, pkg := range [][]entry{npm, platform, plug} {
		pj := packageOf(t, pkg)
		require.Nil(t, pj["scripts"], pj["name"])
		require.Contains(t, pkg, entry{"package/LICENSE", 0o644, license}, pj["name"])
	}
}

// TestWriteZip checks the Windows archive's layout on a small input.
func TestWriteZip(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "a.zip")
	mtime := time.Date(2026, 12, 1, 23, 2, 4, 0, time.UTC)
	files := []file{{"deepseek-web-retrieval.exe", 0o755, []byte("MZ binary")}, {"README.md", 0o644, []byte("# readme\n")}}
	require.NoError(t, writeZip(dst, "d", mtime, files))
	first, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.NoError(t, writeZip(dst, "d", mtime, files))
	second, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.Equal(t, first, second)

	zr, err := zip.OpenReader(dst)
	require.NoError(t, err)
	defer zr.Close()
	var got []entry
	for _, f := range zr.File {
		require.True(t, f.Modified.Equal(mtime), f.Name)
		var data []byte
		if !f.FileInfo().IsDir() {
			r, err := f.Open()
			require.NoError(t, err)
			data, err = io.ReadAll(r)
			require.NoError(t, err)
		}
		got = append(got, entry{f.Name, f.Mode().Perm(), data})
	}
	require.Equal(t, []entry{{"d/", 0o755, nil}, {"d/deepseek-web-retrieval.exe", 0o755, []byte("MZ binary")}, {"d/README.md", 0o644, []byte("# readme\n")}}, got)
}

func TestFill(t *testing.T) {
	for _, tt := range []struct {
		version, targets, time, err string
	}{
		{version: "v1.0.0", err: `-version "v1.0.0" is not a semantic version`},
		{version: "1.0", err: "not a semantic version"},
		{version: "1.0.0", targets: "plan9/amd64", err: `-targets: "plan9/amd64" is not a platform of npm/packages.json`},
		{version: "1.0.0", time: "yesterday", err: `-time "yesterday": not Unix seconds`},
	} {
		c := config{root: root, version: tt.version, commit: "abc"}
		require.ErrorContains(t, c.fill(tt.targets, tt.time), tt.err)
	}
	c := config{root: root, version: "1.0.0", commit: "abc"}
	require.NoError(t, c.fill("", "1700000000"))
	require.Len(t, c.targets, 6)
	require.Equal(t, time.Unix(1700000000, 0).UTC(), c.mtime)
}

// TestPluginName holds plugin/package.json's name to npm/packages.json.
func TestPluginName(t *testing.T) {
	c := config{root: root, version: "1.0.0", commit: "abc"}
	require.NoError(t, c.fill("", "0"))
	files, err := pluginFiles(c)
	require.NoError(t, err)
	for _, f := range files {
		if f.name == "package.json" {
			var pj map[string]any
			require.NoError(t, json.Unmarshal(f.data, &pj))
			require.Equal(t, c.names.Plugin, pj["name"])
			require.Equal(t, "1.0.0", pj["version"])
			return
		}
	}
	t.Fatal("no package.json")
}

type entry struct {
	name string
	mode fs.FileMode
	data []byte
}

// readTarGz lists a .tar.gz's entries, checking owner 0:0 and, unless
// mtime is zero, that every timestamp is mtime.
func readTarGz(t *testing.T, path string, mtime time.Time) []entry {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		require.Equal(t, 0, h.Uid, h.Name)
		require.Equal(t, 0, h.Gid, h.Name)
		if !mtime.IsZero() {
			require.True(t, h.ModTime.Equal(mtime), "%s: %v", h.Name, h.ModTime)
		}
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		if h.Typeflag == tar.TypeDir {
			data = nil
		}
		out = append(out, entry{h.Name, fs.FileMode(h.Mode).Perm(), data})
	}
	return out
}

func packageOf(t *testing.T, entries []entry) map[string]any {
	t.Helper()
	for _, e := range entries {
		if e.name == "package/package.json" {
			var m map[string]any
			require.NoError(t, json.Unmarshal(e.data, &m))
			return m
		}
	}
	t.Fatal("no package/package.json")
	return nil
}

// tree maps every file under dir to its bytes' hash.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = hex.EncodeToString(h[:])
		return nil
	}))
	return m
}
