package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// txHosts are the hosts the transaction tests install into, each with the
// config it starts from (a user's file with comments, blank lines, CRLF
// or no final newline), relative to HOME.
var txHosts = []struct {
	host, path, config string
}{
	{"codex", ".codex/config.toml", "# my codex\r\nmodel = \"gpt-5\"\r\n\r\n[mcp_servers.other]\r\ncommand = \"other\"\r\n"},
	{"claude", ".claude.json", "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": { \"command\": \"other\" }\n  }\n}"},
	{"gemini", ".gemini/settings.json", "{\n  // mine\n  \"ui\": { \"theme\": \"GitHub\" },\n}\n\n"},
	{"pi", ".pi/agent/mcp.json", "{\n\t\"mcpServers\": {}\n}\n"},
	{"cursor", ".cursor/mcp.json", ""}, // absent: init creates it and its directory
	{"goose", ".config/goose/config.yaml", "# goose\r\nGOOSE_PROVIDER: openai\r\nextensions:\r\n  developer:\r\n    enabled: true\r\n    name: developer\r\n    type: builtin\r\n"},
	{"continue", ".continue/config.yaml", "name: Local Config\nversion: 1.0.0\nschema: v1\n\n# MCP\nmcpServers:\n  - name: other\n    command: other"},
	{"copilot", ".copilot/mcp-config.json", "{\n  \"mcpServers\": {}\n}\n"},
	{"opencode", ".config/opencode/opencode.jsonc", "{\n  // mine\n  \"theme\": \"dark\"\n}\n"},
	{"opencode1", ".config/opencode/opencode.json", "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n"},
}

// txHome makes a scratch home with the given hosts' configs and returns
// it with the environment the binary runs in (no host on PATH).
func txHome(t *testing.T, hosts ...string) (home string, env []string) {
	t.Helper()
	home = t.TempDir()
	for _, h := range txHosts {
		if len(hosts) > 0 && !contains(hosts, h.host) {
			continue
		}
		if h.config == "" {
			continue
		}
		p := filepath.Join(home, h.path)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(h.config), 0o644))
	}
	return home, []string{"HOME=" + home, "PATH=" + filepath.Join(home, "no-bin"), "LANG=C.UTF-8"}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// tree returns every path under root with its content and mode, and fails
// on a temporary file or a journal left behind.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		require.NotContains(t, d.Name(), ".tmp-", "a temporary file was left: %s", rel)
		require.NotEqual(t, "journal.json", d.Name(), "a journal was left: %s", rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[rel+"/"] = fi.Mode().Perm().String()
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = fi.Mode().Perm().String() + " " + string(b)
		return err
	}))
	return out
}

func binRun(env []string, args ...string) (code int, stdout, stderr string, err error) {
	cmd := exec.Command(cliBin, args...)
	cmd.Env = env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
		if _, ok := err.(*exec.ExitError); ok {
			err = nil
		}
	}
	return code, out.String(), errb.String(), err
}

// Five inits for five different hosts, started at once, all succeed, in
// 20 rounds; one uninstall of every host gives back every byte, and no
// empty state directory.
func TestConcurrentInitsForDifferentHosts(t *testing.T) {
	hosts := []string{"codex", "claude", "gemini", "pi", "cursor"}
	home, env := txHome(t, hosts...)
	before := tree(t, home)
	for round := range 20 {
		var wg sync.WaitGroup
		errs := make([]string, len(hosts))
		for i, h := range hosts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, _, stderr, err := binRun(env, "init", "--host", h, "--yes")
				if err != nil || code != 0 {
					errs[i] = fmt.Sprintf("%s: exit %d %v: %s", h, code, err, stderr)
				}
			}()
		}
		wg.Wait()
		for _, e := range errs {
			require.Empty(t, e, "round %d", round)
		}
		code, stdout, stderr, err := binRun(env, "uninstall", "--yes")
		require.NoError(t, err)
		require.Equal(t, 0, code, "round %d: %s%s", round, stdout, stderr)
		require.Equal(t, before, tree(t, home), "round %d", round)
	}
}

// init --host auto with several hosts present is one transaction: it
// succeeds on its first run, and a single uninstall reverses it.
func TestInitEveryHostAtOnce(t *testing.T) {
	home, env := txHome(t, "codex", "claude", "gemini", "pi", "cursor", "opencode")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".cursor"), 0o755)) // so auto finds Cursor
	// An opencode on PATH that says it is 1.x, as auto asks.
	require.NoError(t, os.MkdirAll(filepath.Join(home, "no-bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, "no-bin", "opencode"), []byte("#!/bin/sh\necho 1.18.33\n"), 0o755))
	before := tree(t, home)
	code, stdout, stderr, err := binRun(env, "init", "--yes")
	require.NoError(t, err)
	require.Equal(t, 0, code, stdout+stderr)
	for _, want := range []string{"Codex", "Claude Code", "Gemini CLI", "Pi", "Cursor"} {
		require.Contains(t, stdout, "host        "+want)
	}
	require.Equal(t, 6, strings.Count(stdout, "init: applied."), stdout)
	code, stdout, stderr, err = binRun(env, "uninstall", "--yes")
	require.NoError(t, err)
	require.Equal(t, 0, code, stdout+stderr)
	require.Equal(t, before, tree(t, home))
}

// A failure in one host's plan while applying rolls back what the run
// wrote to every host, and the message says the files are as they were.
func TestInitFailureRollsBackEveryHost(t *testing.T) {
	home, env := txHome(t, "codex", "claude")
	// Gemini's directory is a file: creating its settings fails at apply.
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gemini"), []byte("not a directory"), 0o644))
	before := tree(t, home)
	args := []string{"init", "--yes", "--host"}
	for _, h := range []string{"codex", "claude", "gemini"} {
		code, stdout, stderr, err := binRun(env, append(args, h)...)
		require.NoError(t, err)
		if h != "gemini" {
			require.Equal(t, 0, code, stdout+stderr)
			code, stdout, stderr, err = binRun(env, "uninstall", "--yes", "--host", h)
			require.NoError(t, err)
			require.Equal(t, 0, code, stdout+stderr)
			continue
		}
		require.Equal(t, exitFailed, code, stdout+stderr)
	}
	require.Equal(t, before, tree(t, home))
}

// crashRuns is how many killed runs each host gets (at least 200 in make
// test; DWR_CRASH_RUNS changes it for a longer soak).
func crashRuns(t *testing.T) int {
	if s := os.Getenv("DWR_CRASH_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		return n
	}
	return 200
}

// An init or uninstall killed with SIGKILL at a random moment never
// loses a byte: the next init finishes the reversal, then a clean
// uninstall gives back the original files, with no orphaned entry, no
// journal and no temporary file.
func TestKilledRunsRecover(t *testing.T) {
	runs := crashRuns(t)
	var summary []string
	for _, h := range txHosts {
		t.Run(h.host, func(t *testing.T) {
			home, env := txHome(t, h.host)
			before := tree(t, home)
			// The shortest of three runs sets the range of kill times.
			span := time.Hour
			for range 3 {
				start := time.Now()
				code, out, errOut, err := binRun(env, "init", "--host", h.host, "--yes")
				require.NoError(t, err)
				require.Equal(t, 0, code, out+errOut)
				span = min(span, time.Since(start))
				code, out, errOut, err = binRun(env, "uninstall", "--host", h.host, "--yes")
				require.NoError(t, err)
				require.Equal(t, 0, code, out+errOut)
				require.Equal(t, before, tree(t, home))
			}

			var killed, recovered, finished int
			for i := range runs {
				cmd := "init"
				if i%2 == 1 {
					cmd = "uninstall"
					code, out, errOut, err := binRun(env, "init", "--host", h.host, "--yes")
					require.NoError(t, err)
					require.Equal(t, 0, code, out+errOut)
				}
				c := exec.Command(cliBin, cmd, "--host", h.host, "--yes")
				c.Env = env
				require.NoError(t, c.Start())
				time.Sleep(time.Duration(rand.Int64N(int64(span) + 1)))
				if c.Process.Signal(syscall.SIGKILL) == nil {
					killed++
				}
				if err := c.Wait(); err == nil {
					finished++
				}
				// The next run reverses what it finds, then init and
				// uninstall work as ever.
				code, out, errOut, err := binRun(env, "init", "--host", h.host, "--yes")
				require.NoError(t, err)
				require.Equal(t, 0, code, "run %d (%s killed): %s%s", i, cmd, out, errOut)
				if strings.Contains(errOut, "was interrupted before it finished") {
					recovered++
				}
				code, out, errOut, err = binRun(env, "uninstall", "--host", h.host, "--yes")
				require.NoError(t, err)
				require.Equal(t, 0, code, "run %d (%s killed): %s%s", i, cmd, out, errOut)
				require.Equal(t, before, tree(t, home), "run %d (%s killed)", i, cmd)
			}
			summary = append(summary, fmt.Sprintf("%-9s runs %d, killed %d, finished first %d, journals reversed %d (run length %s)", h.host, runs, killed, finished, recovered, span.Round(time.Millisecond)))
		})
	}
	for _, s := range summary {
		t.Log(s)
	}
}

// doctor reports a run that was killed before it finished, with the
// command that reverses it; that command does, and says so.
func TestDoctorReportsAnInterruptedRun(t *testing.T) {
	home, env := txHome(t, "codex")
	before := tree(t, home)
	state := filepath.Join(home, ".local", "state", "deepseek-web-retrieval")
	require.NoError(t, os.MkdirAll(state, 0o700))
	journal := `{"format":1,"tool":"deepseek-web-retrieval","command":"init","pid":4242,"started":"2026-12-02T03:00:00Z","steps":[],"dirs":["` +
		filepath.Join(home, ".local") + `","` + filepath.Join(home, ".local", "state") + `","` + state + `"]}`
	require.NoError(t, os.WriteFile(filepath.Join(state, "journal.json"), []byte(journal), 0o600))
	code, stdout, _, err := binRun(env, "doctor")
	require.NoError(t, err)
	require.Equal(t, exitFailed, code, stdout)
	require.Contains(t, stdout, "x an init (process 4242, started 2026-12-02T03:00:00Z) was interrupted before it finished; run `deepseek-web-retrieval init --yes`")
	code, stdout, stderr, err := binRun(env, "uninstall", "--host", "codex", "--yes")
	require.NoError(t, err)
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stderr, "an earlier init (process 4242, started 2026-12-02T03:00:00Z) was interrupted before it finished; reversed what it had done:\n  - it had changed nothing yet\n")
	require.Equal(t, before, tree(t, home))
}
