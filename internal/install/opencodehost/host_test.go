package opencodehost

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The plugin's doctor section: the opencode on PATH first, then the
// entry, and the key trap when the config's key is not the one the
// OpenCode on PATH reads.
func TestPluginDoctor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		written Host // the generation init wrote; "" for none
		prog    install.Program
		first   string // the section's first line
		trap    string // the key trap, "" for none
	}{
		{name: "nothing installed, no opencode", first: "no opencode on PATH"},
		{name: "1.x key, OpenCode 2.x on PATH", written: HostV1, prog: install.Program{Path: "/bin/opencode", Version: "2.1.0"},
			first: "/bin/opencode is OpenCode 2.1.0", trap: `the config uses the "plugin" key, which OpenCode 2.1.0 does not read: run init --host auto`},
		{name: "2.x key, OpenCode 1.x on PATH", written: HostV2, prog: install.Program{Path: "/bin/opencode", Version: "1.18.33"},
			first: "/bin/opencode is OpenCode 1.18.33", trap: `the config uses the "plugins" key, which OpenCode 1.18.33 does not read: run init --host auto`},
		{name: "keys match", written: HostV2, prog: install.Program{Path: "/bin/opencode", Version: "2.1.0"}, first: "/bin/opencode is OpenCode 2.1.0"},
		{name: "version unreadable", written: HostV1, prog: install.Program{Path: "/bin/opencode", Err: errString("boom")}, first: "could not read the version: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.written != "" {
				req := f.request(install.Options{})
				req.Host = tc.written
				f.init(req)
			}
			env := f.env
			env.Program = func(name string) install.Program {
				require.Equal(t, "opencode", name)
				return tc.prog
			}
			checks := plugin{HostV2}.Doctor(context.Background(), install.Request{Env: env})
			require.Len(t, checks, 1)
			c := checks[0]
			require.Equal(t, "OpenCode (global: "+filepath.Join(f.env.Home, ".config", "opencode")+")", c.Title)
			require.Equal(t, tc.first, c.Lines[0])
			require.Equal(t, tc.written != "", c.Installed)
			require.Empty(t, c.Problems)
			var want []string
			if c.Installed {
				// The fake plugin is not this binary's version.
				want = append(want, "the vendored plugin is version 0.0.0-test, and this binary is "+core.Version+": run `deepseek-web-retrieval init --yes` (with the same --host and --scope) from this binary to vendor its plugin")
			}
			if tc.trap != "" {
				want = append(want, tc.trap)
			}
			require.Equal(t, want, c.Traps)
			if c.Installed {
				require.Equal(t, install.DefaultAPIKeyEnv, c.KeyEnv)
			}
		})
	}
}

type errString string

func (e errString) Error() string { return string(e) }
