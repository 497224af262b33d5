package install

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
)

func TestTOMLString(t *testing.T) {
	for _, s := range []string{"plain", `a"b\c`, "tab\there", "nl\n", "\x01ctl", "ünï"} {
		var v struct{ K string }
		_, err := toml.Decode("K = "+TOMLString(s), &v)
		require.NoError(t, err)
		require.Equal(t, s, v.K)
	}
}

// FuzzPatch: the reverse patch, kept as JSON as the install record and
// the journal keep it, always restores the original bytes (UTF-8 or not).
func FuzzPatch(f *testing.F) {
	f.Add("a\nb\n", "a\nx\nb\n")
	f.Add("", "{}\n")
	f.Add("x", "y\nz")
	f.Add("{\"a\": \"\xff\"}\n", "{\"a\": \"\xff\", \"b\": 1}\n")
	f.Add("\x80\n\xe2\x82\n<&>\n", "\xed\xa0\x80\n")
	f.Fuzz(func(t *testing.T, before, after string) {
		raw, err := json.Marshal(MakePatch([]byte(before), []byte(after)))
		if err != nil {
			t.Fatal(err)
		}
		p := new(Patch)
		if err := json.Unmarshal(raw, p); err != nil {
			t.Fatal(err)
		}
		got, ok := p.Reverse([]byte(after))
		if !ok || string(got) != before {
			t.Fatalf("reverse(%q) = %q, want %q", after, got, before)
		}
		if _, ok := p.Reverse([]byte(after + "x")); ok {
			t.Fatal("a changed file was accepted")
		}
	})
}

func TestSecrets(t *testing.T) {
	cfg := `{
  "theme": "dark-theme-with-a-long-name",
  "apiKeyEnv": "DEEPSEEK_API_KEY",
  "mcp": {"gh": {"environment": {"GITHUB_TOKEN": "ghp_0123456789abcdefghijABCDEF0123"}, "headers": {"X-API-Key": "plain-words-value"}}},
  "env": {"REF": "${GITHUB_TOKEN}", "REF2": "{env:X}", "REF3": "${input:gh-token}"},
  "headers": {"Authorization": "Bearer ${input:api-token}"},
  "password": "hunter22",
  "args": ["--token", "sk-abcdef0123456789"],
  "url": "https://user:pw@example.com/x",
  "path": "/usr/local/lib/node_modules/some-package-name-1234",
  "model": "anthropic/claude-sonnet-4-5-20250929",
  "name": "my-project-name-2024-01-15-final-v2",
  "opaque": "Zx81Qp0LmN4tR7vW2yB5kC9dF3gH6jK1"
}`
	got := map[string]bool{}
	for _, s := range Secrets("x.json", []byte(cfg)) {
		got[string(s)] = true
	}
	for _, want := range []string{"ghp_0123456789abcdefghijABCDEF0123", "plain-words-value", "hunter22", "sk-abcdef0123456789", "https://user:pw@example.com/x", "Zx81Qp0LmN4tR7vW2yB5kC9dF3gH6jK1"} {
		require.True(t, got[want], want)
	}
	for _, not := range []string{"dark-theme-with-a-long-name", "DEEPSEEK_API_KEY", "${GITHUB_TOKEN}", "{env:X}", "${input:gh-token}", "Bearer ${input:api-token}", "/usr/local/lib/node_modules/some-package-name-1234", "anthropic/claude-sonnet-4-5-20250929", "my-project-name-2024-01-15-final-v2"} {
		require.False(t, got[not], not)
	}
	masked := string(Mask([]byte(cfg), Secrets("x.json", []byte(cfg))))
	require.NotContains(t, masked, "ghp_")
	require.True(t, strings.Contains(masked, "<redacted>"))
	tomlCfg := "[mcp_servers.gh.env]\nGITHUB_TOKEN = \"tok-value-1\"\n[x]\nbearer_token = \"abcdef12\"\n"
	require.Len(t, Secrets("config.toml", []byte(tomlCfg)), 2)
}

func TestParseTOMLNamesTheByteNotUTF8(t *testing.T) {
	_, _, err := ParseTOML([]byte("a = 1\nb = \"x\xe2\x82\"\n"))
	require.EqualError(t, err, "byte 12 is not valid UTF-8, which TOML requires")
}
