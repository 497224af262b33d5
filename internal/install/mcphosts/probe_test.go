package mcphosts

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"

	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	mcpserver "github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
)

// TestMain lets the test binary be the server an entry starts: "mcp" is
// our real server with its default options (two tools), "no-tools" a
// server that lists none.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "mcp":
			_ = mcpserver.Serve(context.Background(), mcpserver.Options{}, &sdk.StdioTransport{})
			os.Exit(0)
		case "no-tools":
			srv := sdk.NewServer(&sdk.Implementation{Name: "empty", Version: "1"}, &sdk.ServerOptions{Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}}})
			_ = srv.Run(context.Background(), &sdk.StdioTransport{})
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

const testKey = "sk-probe0123456789abcdef0123"

func self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	return exe
}

// script writes an executable shell script and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
	return p
}

func shortTimeout(t *testing.T, d time.Duration) {
	old, oldTerm := probeTimeout, probeTerminate
	probeTimeout, probeTerminate = d, 200*time.Millisecond
	t.Cleanup(func() { probeTimeout, probeTerminate = old, oldTerm })
}

// TestProbe starts servers that work and servers that fail in each way a
// host reports, and checks the sentence doctor shows; the key, which some
// of them print, never appears in it.
func TestProbe(t *testing.T) {
	shortTimeout(t, 500*time.Millisecond)
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.Symlink(self(t), filepath.Join(bin, "fakesrv")))
	notExec := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644))
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "DEEPSEEK_API_KEY=" + testKey}
	tests := []struct {
		name    string
		command string
		args    []string
		want    string
		tools   []string
	}{
		{name: "connects", command: self(t), args: []string{"mcp"}, want: "connected, 2 tools (deepseek_fetch, deepseek_search)", tools: []string{"deepseek_fetch", "deepseek_search"}},
		{name: "bare name on the host's PATH", command: "fakesrv", args: []string{"mcp"}, want: "connected, 2 tools (deepseek_fetch, deepseek_search)", tools: []string{"deepseek_fetch", "deepseek_search"}},
		{name: "no tools", command: self(t), args: []string{"no-tools"}, want: "tools/list returned 0 tools", tools: []string{}},
		{name: "binary moved", command: filepath.Join(dir, "gone", "deepseek-web-retrieval"), want: "command not found: " + filepath.Join(dir, "gone", "deepseek-web-retrieval")},
		{name: "bare name not on PATH", command: "nosuchsrv", want: "command not found: nosuchsrv (not on the PATH the host passes: " + bin + ":/usr/bin:/bin)"},
		{name: "not executable", command: notExec, want: "cannot start " + notExec + ": not executable"},
		{name: "a directory", command: bin, want: "cannot start " + bin + ": it is a directory"},
		{name: "exits at once", command: script(t, dir, "exits", `echo "fatal: unknown flag --frobnicate" >&2; exit 3`), want: "exited with status 3: fatal: unknown flag --frobnicate"},
		{name: "exits at once, silently", command: script(t, dir, "silent", `exit 0`), want: "exited with status 0 before answering initialize, with nothing on stderr"},
		{name: "exits printing the key", command: script(t, dir, "leaks", `echo; echo "401 for key $DEEPSEEK_API_KEY (Bearer $DEEPSEEK_API_KEY)" >&2; exit 1`), want: "exited with status 1: 401 for key [redacted] (Bearer [redacted])"},
		{name: "never answers", command: script(t, dir, "hangs", `exec sleep 30`), want: "no answer to initialize within 500ms"},
		{name: "never answers, key on stderr", command: script(t, dir, "hangs-leaks", `echo "starting with $DEEPSEEK_API_KEY" >&2; exec sleep 30`), want: "no answer to initialize within 500ms; its stderr began: starting with [redacted]"},
		{name: "answers initialize only", command: script(t, dir, "half", `read line; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"half","version":"1"}}}'; exec sleep 30`), want: "no answer to tools/list within 500ms"},
		{name: "exits after initialize", command: script(t, dir, "quits", `read line; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"q","version":"1"}}}'; read line; read line; echo "tools/list: out of memory" >&2; exit 4`), want: "exited with status 4: tools/list: out of memory"},
		{name: "crashes", command: script(t, dir, "crashes", `echo "panic: nil map" >&2; kill -SEGV $$`), want: "killed by a signal (segmentation fault): panic: nil map"},
		{name: "answers garbage", command: script(t, dir, "garbage", `read line; echo "not json"; exec sleep 30`), want: "initialize failed: calling \"initialize\": invalid character 'o' in literal null (expecting 'u')"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := probeEntry(context.Background(), launchSpec{Command: tc.command, Args: tc.args, Env: env, Dir: dir}, []string{testKey})
			require.Less(t, time.Since(start), 5*time.Second, "the probe is bounded")
			require.NotContains(t, r.String(), testKey)
			require.NotContains(t, r.String(), "sk-probe")
			if tc.want == "" {
				require.False(t, r.Connected(), r.String())
				return
			}
			require.Equal(t, tc.want, r.String())
			require.Equal(t, tc.tools, r.Tools)
			require.Equal(t, tc.tools != nil && len(tc.tools) > 0, r.Connected())
		})
	}
}

// TestHostLaunchEnv: the environment, command and args each host gives
// the server, from the same shell.
func TestHostLaunchEnv(t *testing.T) {
	parent := map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo", "GITHUB_TOKEN": "ghp-x", "DEEPSEEK_API_KEY": "k1"}
	noKey := map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo"}
	tests := []struct {
		name     string
		host     Host
		entry    string
		parent   map[string]string
		wantEnv  map[string]string
		wantArgs []string
		notes    int
	}{
		{name: "codex env_vars passes the key", host: Codex,
			entry:   `{"command": "/b", "args": ["mcp", "$FOO"], "env_vars": ["DEEPSEEK_API_KEY", "UNSET"], "env": {"LIT": "${FOO}"}}`,
			wantEnv: map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "DEEPSEEK_API_KEY": "k1", "LIT": "${FOO}"}, wantArgs: []string{"mcp", "$FOO"}},
		{name: "codex without env_vars passes only its list", host: Codex,
			entry:   `{"command": "/b", "args": ["mcp"]}`,
			wantEnv: map[string]string{"PATH": "/usr/bin", "HOME": "/home/u"}, wantArgs: []string{"mcp"}},
		{name: "codex env_vars as tables", host: Codex,
			entry:   `{"command": "/b", "env_vars": [{"name": "FOO"}]}`,
			wantEnv: map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo"}, wantArgs: []string{}},
		{name: "claude ${VAR:-} and defaults", host: Claude,
			entry:    `{"type": "stdio", "command": "/b", "args": ["--x=${FOO}", "$FOO"], "env": {"DEEPSEEK_API_KEY": "${DEEPSEEK_API_KEY:-}", "D": "${MISSING:-dflt}", "M": "${MISSING}", "E": "a${FOO}b"}}`,
			wantEnv:  map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo", "GITHUB_TOKEN": "ghp-x", "CLAUDECODE": "1", "DEEPSEEK_API_KEY": "k1", "D": "dflt", "M": "${MISSING}", "E": "afoob"},
			wantArgs: []string{"--x=foo", "$FOO"}},
		{name: "claude key unset", host: Claude, parent: noKey,
			entry:   `{"command": "/b", "env": {"DEEPSEEK_API_KEY": "${DEEPSEEK_API_KEY:-}"}}`,
			wantEnv: map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo", "CLAUDECODE": "1", "DEEPSEEK_API_KEY": ""}, wantArgs: []string{}},
		{name: "gemini $VAR, secrets dropped from the inherited environment", host: Gemini,
			entry:    `{"command": "/b", "args": ["$FOO", "${FOO}", "${MISSING:-d}", "$MISSING"], "env": {"DEEPSEEK_API_KEY": "$DEEPSEEK_API_KEY", "Z": "${MISSING:-zz}"}}`,
			wantEnv:  map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo", "GEMINI_CLI": "1", "DEEPSEEK_API_KEY": "k1", "Z": "zz"},
			wantArgs: []string{"foo", "foo", "d", "$MISSING"}},
		{name: "gemini key unset reaches the server empty", host: Gemini, parent: noKey,
			entry:   `{"command": "/b", "env": {"DEEPSEEK_API_KEY": "$DEEPSEEK_API_KEY"}}`,
			wantEnv: map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo", "GEMINI_CLI": "1", "DEEPSEEK_API_KEY": ""}, wantArgs: []string{}},
		{name: "gemini without env has no key", host: Gemini,
			entry:   `{"command": "/b"}`,
			wantEnv: map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo", "GEMINI_CLI": "1"}, wantArgs: []string{}},
		{name: "pi inherits and interpolates args", host: Pi,
			entry:   `{"command": "/b", "args": ["${FOO}", "$env:FOO", "{env:FOO}", "${MISSING}", "$FOO"], "directTools": true}`,
			wantEnv: parent, wantArgs: []string{"foo", "foo", "foo", "", "$FOO"}},
		{name: "pi inheritEnv false, a command secret not run", host: Pi,
			entry:   `{"command": "/b", "inheritEnv": false, "env": {"A": "${FOO}", "B": "!!x", "C": "!cat /secret"}}`,
			wantEnv: map[string]string{"A": "foo", "B": "!x"}, wantArgs: []string{}, notes: 1},
		{name: "cursor ${env:NAME}", host: Cursor, parent: noKey,
			entry:   `{"command": "/b", "args": ["${env:FOO}"], "env": {"DEEPSEEK_API_KEY": "${env:DEEPSEEK_API_KEY}"}}`,
			wantEnv: map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "FOO": "foo", "DEEPSEEK_API_KEY": ""}, wantArgs: []string{"foo"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var entry map[string]any
			require.NoError(t, json.Unmarshal([]byte(tc.entry), &entry))
			p := tc.parent
			if p == nil {
				p = parent
			}
			l, err := hostLaunch(tc.host, entry, p, "/work")
			require.NoError(t, err)
			require.Equal(t, "/b", l.Command)
			require.Equal(t, tc.wantEnv, envMap(l.Env))
			require.Equal(t, tc.wantArgs, l.Args)
			require.Len(t, l.Notes, tc.notes)
			require.Equal(t, "/work", l.Dir)
		})
	}
	_, err := hostLaunch(Codex, map[string]any{"url": "https://x"}, parent, "")
	require.EqualError(t, err, "the entry has no command (not a stdio server)")
}

// literalWhenUnset lists the hosts whose ${VAR} syntax has no default: an
// unset variable reaches the server as the reference's text.
var literalWhenUnset = map[Host]bool{Kiro: true, Amp: true}

// TestDoctorConnects installs each host's entry (pointing at this test
// binary, which serves our real server) and checks doctor starts it as
// the host would and lists two tools, with the key reaching it and never
// shown; with the key unset, it still connects and says so.
func TestDoctorConnects(t *testing.T) {
	for _, h := range all {
		for _, scope := range []install.Scope{install.ScopeGlobal, install.ScopeProject} {
			if scope == install.ScopeProject && adapters[h].noProject != "" {
				continue
			}
			t.Run(string(h)+"/"+string(scope), func(t *testing.T) {
				f := newFixture(t)
				req := f.req(h, scope, install.Options{})
				req.Binary = self(t)
				f.apply(planInit(req))
				environ := []string{"PATH=/usr/bin:/bin", "HOME=" + f.env.Home, "DEEPSEEK_API_KEY=" + testKey, "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345"}
				c := doctor(context.Background(), request{install.Request{Env: f.env, Scope: scope}, h}, environ)
				all := strings.Join(append(append(append([]string{}, c.Lines...), c.Traps...), c.Problems...), "\n")
				require.True(t, c.Installed)
				require.Empty(t, c.Problems, all)
				require.Contains(t, c.Lines, "connected, 2 tools (deepseek_fetch, deepseek_search)")
				require.Contains(t, c.Lines, "DEEPSEEK_API_KEY reaches the server (value not shown)")
				require.Contains(t, c.Lines, "starts "+self(t)+" mcp --search preferred --fetch optional")
				require.NotContains(t, all, "no install record")
				require.NotContains(t, all, testKey)

				c = doctor(context.Background(), request{install.Request{Env: f.env, Scope: scope}, h}, environ[:2])
				require.Empty(t, c.Problems)
				require.Contains(t, c.Lines, "connected, 2 tools (deepseek_fetch, deepseek_search)")
				switch {
				case literalWhenUnset[h]:
					require.Contains(t, c.Traps, "DEEPSEEK_API_KEY reaches the server as the literal text \"${DEEPSEEK_API_KEY}\": DEEPSEEK_API_KEY is not set in this shell, and "+names[h]+" passes the reference as written; every search and fetch fails until you export it")
				case h == Copilot && scope == install.ScopeGlobal: // ${DEEPSEEK_API_KEY}, unset, reaches the server as written
					require.Contains(t, c.Traps, "DEEPSEEK_API_KEY reaches the server as the literal text \"${DEEPSEEK_API_KEY}\": DEEPSEEK_API_KEY is not set in this shell, and GitHub Copilot CLI passes the reference as written; every search and fetch fails until you export it")
				case h == Qwen && scope == install.ScopeGlobal: // Qwen Code leaves an unset $VAR as written
					require.Contains(t, c.Traps, "DEEPSEEK_API_KEY reaches the server as the literal text \"$DEEPSEEK_API_KEY\": DEEPSEEK_API_KEY is not set in this shell, and Qwen Code passes the reference as written; every search and fetch fails until you export it")
				case h == Roo: // Roo Code leaves an unset ${env:} as written
					require.Contains(t, c.Traps, "DEEPSEEK_API_KEY reaches the server as the literal text \"${env:DEEPSEEK_API_KEY}\": DEEPSEEK_API_KEY is not set in this shell, and Roo Code passes the reference as written; every search and fetch fails until you export it")
				default:
					require.Contains(t, c.Traps, "DEEPSEEK_API_KEY is not set in this shell, so "+names[h]+" starts the server without a key: it lists its tools, but every search and fetch fails until you export it")
				}
			})
		}
	}
}

// TestDoctorReportsFailures: a moved binary and a server that prints the
// key and exits are problems; the key is never in the Check.
func TestDoctorReportsFailures(t *testing.T) {
	f := newFixture(t)
	leak := script(t, f.root, "leaky-server", `echo "cannot start: key $DEEPSEEK_API_KEY refused" >&2; exit 2`)
	req := f.req(Codex, install.ScopeGlobal, install.Options{})
	req.Binary = leak
	f.apply(planInit(req))
	environ := []string{"PATH=/usr/bin:/bin", "DEEPSEEK_API_KEY=" + testKey}
	c := doctor(context.Background(), request{install.Request{Env: f.env}, Codex}, environ)
	require.Equal(t, []string{"does not connect: exited with status 2: cannot start: key [redacted] refused"}, c.Problems)
	require.NotContains(t, strings.Join(append(append(c.Lines, c.Traps...), c.Problems...), "\n"), testKey)

	require.NoError(t, os.Remove(leak))
	c = doctor(context.Background(), request{install.Request{Env: f.env}, Codex}, environ)
	require.Equal(t, []string{"does not connect: command not found: " + leak + " (moved or deleted?): run `make install`, or init again from the binary's new place"}, c.Problems)
}

// TestDoctorEntryWithoutRecord: an entry with no install record is
// reported with the init command that adopts it, and that command does.
func TestDoctorEntryWithoutRecord(t *testing.T) {
	for _, scope := range []install.Scope{install.ScopeGlobal, install.ScopeProject} {
		t.Run(string(scope), func(t *testing.T) {
			f := newFixture(t)
			five := 5
			o := install.Options{Search: "forced", MaxResults: &five}
			req := f.req(Gemini, scope, o)
			req.Binary = self(t)
			f.apply(planInit(req))
			recs, err := filepath.Glob(filepath.Join(f.env.Home, ".local", "state", "deepseek-web-retrieval", "installs", "*.json"))
			require.NoError(t, err)
			require.Len(t, recs, 1)
			require.NoError(t, os.Remove(recs[0]))

			c := doctor(context.Background(), request{install.Request{Env: f.env, Scope: scope}, Gemini}, nil)
			file, _ := mainFile(req)
			cmd := "deepseek-web-retrieval init --host gemini --binary " + self(t) + " --search forced --fetch optional --max-results 5 --yes"
			if scope == install.ScopeProject {
				cmd = "deepseek-web-retrieval init --host gemini --scope project --dir " + f.env.WorkDir + " --binary " + self(t) + " --search forced --fetch optional --max-results 5 --yes"
			}
			require.Contains(t, c.Traps, "no install record for this entry (written by hand, or by an install that was interrupted), so uninstall will not remove it: run `"+cmd+"` to adopt it, or remove mcpServers.deepseek-web-retrieval from "+file)
			require.Empty(t, c.Problems)

			// The command's options are the entry's: init adopts it.
			f.apply(planInit(req))
			c = doctor(context.Background(), request{install.Request{Env: f.env, Scope: scope}, Gemini}, nil)
			require.NotContains(t, strings.Join(c.Traps, "\n"), "no install record")
		})
	}
}

// TestOptionsFromArgs: reading the options back from an entry's command
// line gives the options it was written from.
func TestOptionsFromArgs(t *testing.T) {
	n, x, yes, no := 7, 2.5, true, false
	o := install.Options{Search: "forced", Fetch: "off", APIKeyEnv: "MY_KEY", BaseURL: "https://api.example.com", MaxResults: &n, MinRerank: &x,
		AllowUnknownAuthority: &yes, MessagesSummary: &no, IncludeDomains: []string{"go.dev", "golang.org"}, Language: "zh,en", TimeoutMs: &n}
	require.Equal(t, o, optionsFromArgs(serverArgs(o)))
	require.Equal(t, install.Options{Search: "off"}, optionsFromArgs([]string{"mcp", "--frob", "--search", "off", "--max-results", "many", "--fetch"}))
}

// TestGeminiTrust: doctor's reading of Gemini CLI's folder trust, which
// agrees with `gemini mcp list` 0.61.0 in the cases tried by hand
// (Disabled with no rule, Connected under TRUST_FOLDER and TRUST_PARENT).
func TestGeminiTrust(t *testing.T) {
	f := newFixture(t)
	proj := f.env.WorkDir
	file := filepath.Join(f.env.Home, ".gemini", "trustedFolders.json")
	tests := []struct {
		name, rules, settings string
		env                   map[string]string
		want                  string
	}{
		{name: "no file", want: proj + " is not trusted in " + file},
		{name: "the folder trusted", rules: `{"` + proj + `": "TRUST_FOLDER"}`},
		{name: "an ancestor trusted", rules: `{"` + f.root + `": "TRUST_FOLDER"}`},
		{name: "a sibling's parent trusted", rules: `{"` + filepath.Join(f.root, "other") + `": "TRUST_PARENT"}`},
		{name: "the longest rule wins", rules: `{"` + f.root + `": "TRUST_FOLDER", "` + proj + `": "DO_NOT_TRUST"}`, want: proj + " is marked DO_NOT_TRUST in " + file},
		{name: "another folder trusted", rules: `{"` + proj + `-x": "TRUST_FOLDER"}`, want: proj + " is not trusted in "},
		{name: "folder trust off", settings: `{"security": {"folderTrust": {"enabled": false}}}`},
		{name: "trusted by the environment", env: map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(file)
			_ = os.Remove(filepath.Join(f.env.Home, ".gemini", "settings.json"))
			if tc.rules != "" {
				f.write(file, tc.rules)
			}
			if tc.settings != "" {
				f.write(filepath.Join(f.env.Home, ".gemini", "settings.json"), tc.settings)
			}
			rs, err := resolve(request{install.Request{Env: f.env}, Gemini})
			require.NoError(t, err)
			got := geminiTrust(rs, proj, tc.env)
			if tc.want == "" {
				require.Empty(t, got)
				return
			}
			require.Contains(t, got, "Gemini CLI starts stdio MCP servers only in trusted folders, and "+tc.want)
		})
	}
}

// TestDoctorDoesNotRunAClonedProjectsCommand: a project's entry doctor
// did not write and record is never started, whether it has no record or
// was changed since init; a global one the user wrote is.
func TestDoctorDoesNotRunAClonedProjectsCommand(t *testing.T) {
	f := newFixture(t)
	marker := filepath.Join(f.root, "ran")
	evil := script(t, f.root, "evil", "touch "+marker+"; exit 1")
	cfg := filepath.Join(f.env.WorkDir, ".mcp.json")
	f.write(cfg, `{"mcpServers": {"deepseek-web-retrieval": {"command": "`+evil+`", "args": ["mcp"]}}}`)
	c := doctor(context.Background(), request{install.Request{Env: f.env, Scope: install.ScopeProject}, Claude}, nil)
	require.NoFileExists(t, marker)
	require.Contains(t, c.Traps, "not started: doctor starts a project's entry only when it is the one init wrote and recorded, so a cloned project cannot make it run a command, and it has no install record here: adopt it with the command above if you trust it")

	// Installed by init, then changed (a pull).
	require.NoError(t, os.Remove(cfg))
	req := f.req(Claude, install.ScopeProject, install.Options{})
	req.Binary = self(t)
	f.apply(planInit(req))
	c = doctor(context.Background(), request{install.Request{Env: f.env, Scope: install.ScopeProject}, Claude}, nil)
	require.Contains(t, c.Lines, "connected, 2 tools (deepseek_fetch, deepseek_search)")
	data, err := os.ReadFile(cfg)
	require.NoError(t, err)
	f.write(cfg, strings.Replace(string(data), self(t), evil, 1))
	c = doctor(context.Background(), request{install.Request{Env: f.env, Scope: install.ScopeProject}, Claude}, nil)
	require.NoFileExists(t, marker)
	require.Contains(t, c.Traps, "not started: doctor starts a project's entry only when it is the one init wrote and recorded, so a cloned project cannot make it run a command, and it differs from the one init recorded (changed by hand, or by a pull?): run init again if you trust it")

	// The user's own global config is the user's: started.
	f.write(filepath.Join(f.env.Home, ".claude.json"), `{"mcpServers": {"deepseek-web-retrieval": {"command": "`+evil+`", "args": ["mcp"]}}}`)
	c = doctor(context.Background(), request{install.Request{Env: f.env}, Claude}, nil)
	require.FileExists(t, marker)
	require.Contains(t, c.Problems, "does not connect: exited with status 1 before answering initialize, with nothing on stderr")
}
