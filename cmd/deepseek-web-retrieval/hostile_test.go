package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// hostileConfig is a config file a cloned project can bring.
type hostileConfig struct {
	name string
	host string
	file string // relative to the project
	text string
	want string // the problem doctor reports, and init's refusal, after "<file>: "
}

// nestedTOML nests inline tables in "a = {b={b=…1}}" up to size bytes.
func nestedTOML(size int) string {
	n := (size - len("a = 1\n")) / 4
	return "a = " + strings.Repeat("{b=", n) + "1" + strings.Repeat("}", n) + "\n"
}

// The configs that crashed or stalled the installer before their depth
// was checked: a 6 MB .mcp.json of nested arrays (a fatal stack overflow
// in hujson), nested inline tables in a 40 KB and a 160 KB Codex config
// (BurntSushi/toml's time and memory grow with the square of the depth:
// 29 s and 3.9 GB, and out of memory past 6 GB, here), a 32 KB dotted key
// of 16,000 parts, which costs BurntSushi/toml as much (37 s and 10 GB),
// and 60 MB of one-digit values, which took doctor past 10 GB.
var hostileConfigs = []hostileConfig{
	{"6 MB of nested arrays", "claude", ".mcp.json", strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000),
		"nested 3000000 levels deep, more than the 64 this installer reads; nothing was changed"},
	{"40 KB of nested inline tables", "codex", filepath.Join(".codex", "config.toml"), nestedTOML(40_000),
		"nested 9999 levels deep, more than the 32 this installer reads; nothing was changed"},
	{"160 KB of nested inline tables", "codex", filepath.Join(".codex", "config.toml"), nestedTOML(160_000),
		"nested 39999 levels deep, more than the 32 this installer reads; nothing was changed"},
	{"a dotted key of 16,000 parts", "codex", filepath.Join(".codex", "config.toml"), strings.Repeat("a.", 15_999) + "a = 1\n",
		"nested 16000 levels deep, more than the 32 this installer reads; nothing was changed"},
	{"60 MB of one-digit values", "claude", ".mcp.json", "[" + strings.Repeat("0,", 30_000_000) + "0]",
		"30000002 values, more than the 4000000 this installer reads; nothing was changed"},
}

// hostileProject makes a fresh home and a project whose file (relative
// to the project) holds text: the home, the project and the file's path.
func hostileProject(t *testing.T, file, text string) (home, proj, path string) {
	t.Helper()
	root := t.TempDir()
	home, proj = filepath.Join(root, "home"), filepath.Join(root, "proj")
	path = filepath.Join(proj, file)
	require.NoError(t, os.MkdirAll(filepath.Join(home, "bin"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return home, proj, path
}

// hostileDeadline bounds each run: the checks take milliseconds, the old
// parsers took tens of seconds or crashed.
const hostileDeadline = 20 * time.Second

// runHostile runs the CLI in dir with a fresh home, within hostileDeadline.
func runHostile(t *testing.T, home, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hostileDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, cliBin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=" + filepath.Join(home, "bin"), "LANG=C.UTF-8"}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "%v did not finish within %v", args, hostileDeadline)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %v: %v", args, err)
	}
	r := result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
	checkOutput(t, r)
	t.Logf("%s: %v", args[0], time.Since(start).Round(time.Millisecond))
	return r
}

// doctor, run in a clone that brings a hostile config, reports it as a
// problem of that file, at once, and goes on with the other hosts.
func TestCLIDoctorHostileConfigs(t *testing.T) {
	for _, c := range hostileConfigs {
		t.Run(c.name, func(t *testing.T) {
			home, proj, path := hostileProject(t, c.file, c.text)

			r := runHostile(t, home, proj, "doctor")
			require.Equal(t, exitFailed, r.code, r.stdout+r.stderr)
			require.Contains(t, r.stdout, "\n  x "+path+": "+c.want+"\n")
			require.Contains(t, r.stdout, "\nOpenCode (global: ", "doctor goes on with the other hosts")
			problems := "\n1 problem(s) found.\n"
			if c.file == ".mcp.json" {
				problems = "\n2 problem(s) found.\n" // Claude Code and Copilot CLI read it
			}
			require.Contains(t, r.stdout, problems)
		})
	}
}

// init refuses a hostile config, naming it, and writes nothing; so does
// uninstall when the file turned hostile after init.
func TestCLIInitUninstallHostileConfigs(t *testing.T) {
	for _, c := range hostileConfigs {
		t.Run(c.name, func(t *testing.T) {
			home, proj, path := hostileProject(t, c.file, c.text)
			scope := []string{"--host", c.host, "--scope", "project", "--dir", proj, "--yes"}

			r := runHostile(t, home, proj, append([]string{"init", "--binary", cliBin}, scope...)...)
			require.Equal(t, exitFailed, r.code, r.stdout+r.stderr)
			require.Contains(t, r.stderr, path+": "+c.want+"\n")
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			require.True(t, string(got) == c.text, "init changed the file")
			require.NoDirExists(t, filepath.Join(home, ".local", "state"), "init wrote no record")

			// Installed into an empty file, which then turns hostile.
			require.NoError(t, os.WriteFile(path, nil, 0o644))
			r = runHostile(t, home, proj, append([]string{"init", "--binary", cliBin}, scope...)...)
			require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
			require.NoError(t, os.WriteFile(path, []byte(c.text), 0o644))
			r = runHostile(t, home, proj, append([]string{"uninstall"}, scope...)...)
			require.Equal(t, exitFailed, r.code, r.stdout+r.stderr)
			require.Contains(t, r.stderr, path+": "+c.want+"\n")
			got, err = os.ReadFile(path)
			require.NoError(t, err)
			require.True(t, string(got) == c.text, "uninstall changed the file")
			recs, err := filepath.Glob(filepath.Join(home, ".local", "state", "deepseek-web-retrieval", "installs", c.host+"-project-*.json"))
			require.NoError(t, err)
			require.Len(t, recs, 1, "uninstall kept the record")
		})
	}
}
