package mcphosts

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzHostLaunch feeds each host's expansion arbitrary config strings: it
// never panics, the environment has one sorted entry per name, and a
// string with no "$" or "{" passes through unchanged.
func FuzzHostLaunch(f *testing.F) {
	for _, s := range []string{"${FOO}", "$FOO", "${FOO:-x}", "${env:FOO}", "$env:FOO", "{env:FOO}", "${", "$", "${:-}", "a${FOO}b${BAR:-${X}}", "!cmd", "!!x"} {
		f.Add(uint8(0), s, s)
	}
	parent := map[string]string{"FOO": "foo", "BAR": "", "PATH": "/bin"}
	f.Fuzz(func(t *testing.T, h uint8, arg, val string) {
		host := all[int(h)%len(all)]
		entry := map[string]any{"command": "/b", "args": []any{arg}, "env": map[string]any{"V": val}, "env_vars": []any{arg}}
		l, err := hostLaunch(host, entry, parent, "/")
		require.NoError(t, err)
		require.True(t, slices.IsSorted(l.Env))
		seen := map[string]bool{}
		for _, kv := range l.Env {
			k, _, _ := strings.Cut(kv, "=")
			require.False(t, seen[k], "one entry per name")
			seen[k] = true
		}
		plain := func(s string) bool { return !strings.ContainsAny(s, "${") }
		if plain(arg) {
			require.Equal(t, []string{arg}, l.Args)
		}
		if v, ok := l.lookup("V"); plain(val) && !strings.HasPrefix(val, "!") && ok {
			require.Equal(t, val, v)
		}
	})
}

// FuzzOptionsFromArgs: reading options back from any command line never
// panics, and reading back what Args writes for them is stable.
func FuzzOptionsFromArgs(f *testing.F) {
	f.Add("mcp\x00--search\x00forced\x00--max-results\x005\x00--allow-unknown-authority=true\x00--include-domains\x00a,b")
	f.Add("--min-rerank\x001e-9\x00--timeout-ms\x00x\x00--language")
	f.Fuzz(func(t *testing.T, s string) {
		o1 := optionsFromArgs(strings.Split(s, "\x00"))
		o2 := optionsFromArgs(serverArgs(o1))
		require.Equal(t, o2, optionsFromArgs(serverArgs(o2)))
	})
}
