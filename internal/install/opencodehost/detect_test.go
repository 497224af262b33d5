package opencodehost

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

func TestAuto(t *testing.T) {
	for _, tc := range []struct {
		name      string
		config    string // opencode.json's content; "" for none
		dirExists bool
		prog      install.Program
		uninstall bool
		want      autoChoice
		err       string
	}{
		{name: "nothing here", want: autoChoice{}},
		{name: "2.x on PATH", prog: install.Program{Path: "/bin/opencode", Version: "2.1.0"},
			want: autoChoice{Host: HostV2, Found: "2.1.0", Why: "/bin/opencode is OpenCode 2.1.0; using --host opencode"}},
		{name: "1.x on PATH", prog: install.Program{Path: "/bin/opencode", Version: "1.18.33"},
			want: autoChoice{Host: HostV1, Found: "1.18.33", Why: "/bin/opencode is OpenCode 1.18.33; using --host opencode1"}},
		{name: "uninstall: the record says which", prog: install.Program{Path: "/bin/opencode", Version: "1.18.33"}, uninstall: true,
			want: autoChoice{Host: HostV2}},
		{name: "no program, the config's key", config: `{"plugin": []}`,
			want: autoChoice{Host: HostV1, Why: `no opencode on PATH; the config already uses the key of --host opencode1, so init keeps it`}},
		{name: "version unreadable, no key", dirExists: true, prog: install.Program{Path: "/bin/opencode", Err: errors.New("boom")},
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
			got, err := auto(install.Env{Environ: []string{"OPENCODE_CONFIG_DIR=" + dir}, WorkDir: dir}, install.ScopeGlobal, "", tc.prog, tc.uninstall)
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
	_, err := auto(install.Env{Environ: []string{"OPENCODE_CONFIG_DIR=" + dir}}, install.ScopeGlobal, "", install.Program{}, false)
	require.EqualError(t, err, `--host auto: found OpenCode's config directory `+dir+` but no opencode on PATH and no plugin key in the config: pass --host opencode (2.x, "plugins") or --host opencode1 (1.x, "plugin")`)
}
