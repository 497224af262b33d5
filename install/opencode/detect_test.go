package opencode

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

func TestFindProgram(t *testing.T) {
	look := func(string) (string, error) { return "/bin/opencode", nil }
	answer := func(out string, err error) func(context.Context, string, ...string) ([]byte, error) {
		return func(context.Context, string, ...string) ([]byte, error) { return []byte(out), err }
	}
	require.Equal(t, Program{}, FindProgram(func(string) (string, error) { return "", errors.New("not found") }, answer("", nil), time.Second))
	require.Equal(t, Program{Path: "/bin/opencode", Version: "1.18.33"}, FindProgram(look, answer("opencode 1.18.33\n", nil), time.Second))
	p := FindProgram(look, answer("dev build\n", nil), time.Second)
	require.EqualError(t, p.Err, "/bin/opencode --version printed no version")
	p = FindProgram(look, answer("", errors.New("exit status 1")), time.Second)
	require.EqualError(t, p.Err, "/bin/opencode --version failed: exit status 1")
	p = FindProgram(look, func(ctx context.Context, _ string, _ ...string) ([]byte, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, 10*time.Millisecond)
	require.EqualError(t, p.Err, "/bin/opencode --version did not answer within 10ms")
}

func TestAuto(t *testing.T) {
	for _, tc := range []struct {
		name      string
		config    string // opencode.json's content; "" for none
		dirExists bool
		prog      Program
		uninstall bool
		want      AutoChoice
		err       string
	}{
		{name: "nothing here", want: AutoChoice{}},
		{name: "2.x on PATH", prog: Program{Path: "/bin/opencode", Version: "2.1.0"},
			want: AutoChoice{Host: HostV2, Found: "2.1.0", Why: "/bin/opencode is OpenCode 2.1.0; using --host opencode"}},
		{name: "1.x on PATH", prog: Program{Path: "/bin/opencode", Version: "1.18.33"},
			want: AutoChoice{Host: HostV1, Found: "1.18.33", Why: "/bin/opencode is OpenCode 1.18.33; using --host opencode1"}},
		{name: "uninstall: the record says which", prog: Program{Path: "/bin/opencode", Version: "1.18.33"}, uninstall: true,
			want: AutoChoice{Host: HostV2}},
		{name: "no program, the config's key", config: `{"plugin": []}`,
			want: AutoChoice{Host: HostV1, Why: `no opencode on PATH; the config already uses the key of --host opencode1, so init keeps it`}},
		{name: "version unreadable, no key", dirExists: true, prog: Program{Path: "/bin/opencode", Err: errors.New("boom")},
			err: `--host auto: could not read the OpenCode version (boom), and the config has no plugin key to go by: pass --host opencode (2.x, "plugins") or --host opencode1 (1.x, "plugin")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "opencode")
			if tc.dirExists || tc.config != "" {
				require.NoError(t, os.MkdirAll(dir, 0o755))
			}
			if tc.config != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "opencode.json"), []byte(tc.config), 0o644))
			}
			got, err := Auto(Env{OpencodeConfigDir: dir, WorkDir: dir}, install.ScopeGlobal, "", tc.prog, tc.uninstall)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	// A config directory but neither a program nor a key: no guess.
	dir := t.TempDir()
	_, err := Auto(Env{OpencodeConfigDir: dir}, install.ScopeGlobal, "", Program{}, false)
	require.EqualError(t, err, `--host auto: found OpenCode's config directory `+dir+` but no opencode on PATH and no plugin key in the config: pass --host opencode (2.x, "plugins") or --host opencode1 (1.x, "plugin")`)
}
