package tests

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Set up once by TestMain.
var (
	// wasmPath is the module built for this run; wasmBytes its content.
	wasmPath  string
	wasmBytes []byte
	// cacheDir is the wazero compilation cache directory.
	cacheDir string
	// rt has wasi_snapshot_preview1 instantiated; compiled is the module
	// compiled in it.
	rt       wazero.Runtime
	compiled wazero.CompiledModule
)

// buildFlags are the Makefile's WASMFLAGS, so the tests exercise the
// artifact that ships as plugin/core.wasm.
var buildFlags = []string{"-buildmode=c-shared", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid="}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "deepseek-web-retrieval-tests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if err := setup(tmp); err != nil {
		fmt.Fprintln(os.Stderr, "tests: setup:", err)
		return 1
	}
	defer rt.Close(context.Background())
	return m.Run()
}

func setup(tmp string) error {
	wasmPath = filepath.Join(tmp, "core.wasm")
	args := append([]string{"build"}, buildFlags...)
	args = append(args, "-o", wasmPath, "./wasm")
	cmd := exec.Command(goTool(), args...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %v: %v\n%s", args, err, out)
	}
	var err error
	if wasmBytes, err = os.ReadFile(wasmPath); err != nil {
		return err
	}
	cacheDir = compilationCacheDir(tmp)
	cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
	if err != nil {
		return err
	}
	ctx := context.Background()
	rt = wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCompilationCache(cache))
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	if compiled, err = rt.CompileModule(ctx, wasmBytes); err != nil {
		return fmt.Errorf("compile %s: %w", wasmPath, err)
	}
	return nil
}

// goTool is the go command running these tests, else "go" from PATH.
func goTool() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	if root := os.Getenv("GOROOT"); root != "" {
		if p := filepath.Join(root, "bin", "go"); fileExists(p) {
			return p
		}
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// compilationCacheDir is a per-user directory that survives runs, so only
// the first run after a change to the module pays for a full compile; a
// temporary one when the user has no cache directory.
func compilationCacheDir(tmp string) string {
	if dir, err := os.UserCacheDir(); err == nil {
		d := filepath.Join(dir, "deepseek-web-retrieval-wazero")
		if os.MkdirAll(d, 0o755) == nil {
			return d
		}
	}
	return filepath.Join(tmp, "wazero-cache")
}

// newModule returns a fresh instance of the module, closed when t ends.
func newModule(t testing.TB) *Module {
	t.Helper()
	m, err := Instantiate(context.Background(), rt, compiled)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}
