package main

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// TestGoInstall checks that `go install <module>/cmd/deepseek-web-retrieval@vX.Y.Z` works
// for a user: the module zip of the committed tree (what the module proxy would serve)
// is put in a file proxy, the dependencies come from this machine's module cache (also
// as a file proxy, so nothing leaves the machine), and go install builds the command
// with CGO_ENABLED=0 into an empty module cache. No replace directive may be needed,
// and plugin/core.wasm must be embedded.
func TestGoInstall(t *testing.T) {
	const mod = "github.com/deepseek-web-retrieval/deepseek-web-retrieval"
	const version = "v0.0.0-goinstall.1"
	tmp := t.TempDir()
	gomodcache := goEnv(t, "GOMODCACHE")

	// The proxy: .info, .mod and .zip of one version.
	dir := filepath.Join(tmp, "proxy", filepath.FromSlash(mod), "@v")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "list"), []byte(version+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, version+".info"), []byte(`{"Version":"`+version+`","Time":"2026-12-01T00:00:00Z"}`), 0o644))
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	require.NotContains(t, string(gomod), "replace", "go install ignores replace directives")
	require.NoError(t, os.WriteFile(filepath.Join(dir, version+".mod"), gomod, 0o644))
	files, err := exec.Command("git", "-C", root, "ls-files").Output()
	require.NoError(t, err)
	z, err := os.Create(filepath.Join(dir, version+".zip"))
	require.NoError(t, err)
	zw := zip.NewWriter(z)
	names := strings.Split(strings.TrimSpace(string(files)), "\n")
	// As the go command zips a module: without nested modules (a directory with its own
	// go.mod) and vendored packages.
	var nested []string
	for _, name := range names {
		if strings.HasSuffix(name, "/go.mod") {
			nested = append(nested, strings.TrimSuffix(name, "go.mod"))
		}
	}
	for _, name := range names {
		if vendored(name) || hasPrefix(name, nested) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) { // deleted in the work tree, not yet committed
			continue
		}
		require.NoError(t, err)
		w, err := zw.Create(mod + "@" + version + "/" + name)
		require.NoError(t, err)
		_, err = w.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, z.Close())

	gobin := filepath.Join(tmp, "bin")
	cmd := exec.Command("go", "install", mod+"/cmd/deepseek-web-retrieval@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(),
		"CGO_ENABLED=0", "GOBIN="+gobin, "GOFLAGS=-trimpath -modcacherw",
		"GOMODCACHE="+filepath.Join(tmp, "modcache"),
		"GOPROXY=file://"+filepath.ToSlash(filepath.Join(tmp, "proxy"))+",file://"+filepath.ToSlash(filepath.Join(gomodcache, "cache", "download")),
		"GONOSUMDB="+mod, "GOSUMDB=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))

	exe := filepath.Join(gobin, "deepseek-web-retrieval")
	v, err := exec.Command("go", "version", "-m", exe).Output()
	require.NoError(t, err)
	require.Contains(t, string(v), "\tmod\t"+mod+"\t"+version+"\t")
	require.Contains(t, string(v), "\tbuild\tCGO_ENABLED=0\n")
	ver, err := exec.Command(exe, "--version").Output()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(ver), "deepseek-web-retrieval "+core.Version+" (module "+version+")"), string(ver))

	// The embedded plugin: a project install's plan lists its core.wasm.
	home := filepath.Join(tmp, "home")
	project := filepath.Join(tmp, "project")
	require.NoError(t, os.MkdirAll(project, 0o755))
	plan := exec.Command(exe, "init", "--host", "opencode", "--scope", "project", "--dir", project)
	plan.Env = []string{"HOME=" + home, "PATH=", "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	pout, err := plan.CombinedOutput()
	require.NoError(t, err, string(pout))
	require.Contains(t, string(pout), "vendor/deepseek-web-retrieval/core.wasm")
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

func hasPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// vendored reports a file of a vendored package (golang.org/x/mod/zip's rule).
func vendored(name string) bool {
	i := 0
	if strings.HasPrefix(name, "vendor/") {
		i = len("vendor/")
	} else if j := strings.Index(name, "/vendor/"); j >= 0 {
		i = j + len("/vendor/")
	} else {
		return false
	}
	return strings.Contains(name[i:], "/")
}
