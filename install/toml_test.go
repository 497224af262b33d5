package install

import (
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
)

const ourTable = "[mcp_servers.deepseek-web-retrieval]\ncommand = \"/bin/x\"\nargs = [\"mcp\"]\n"

var ourPath = []string{"mcp_servers", "deepseek-web-retrieval"}

func TestTOMLSetAndRemoveTable(t *testing.T) {
	tests := []struct{ name, in, set string }{
		{"empty", "", ourTable},
		{"no final newline", "model = \"o3\"", "model = \"o3\"\n\n" + ourTable},
		{"comments kept", "# top\nmodel = \"o3\" # why\n\n[tools] # t\nweb_search = false\n", "# top\nmodel = \"o3\" # why\n\n[tools] # t\nweb_search = false\n\n" + ourTable},
		{"multi-line string with a bracket line", "x = \"\"\"\n[mcp_servers.deepseek-web-retrieval]\n\"\"\"\n", "x = \"\"\"\n[mcp_servers.deepseek-web-retrieval]\n\"\"\"\n\n" + ourTable},
		{"replace in place with subtable", "a = 1\n\n[mcp_servers.deepseek-web-retrieval]\ncommand = \"old\"\n\n[mcp_servers.deepseek-web-retrieval.env]\nK = \"v\"\n\n# next\n[b]\nc = 2\n", "a = 1\n\n" + ourTable + "\n# next\n[b]\nc = 2\n"},
		{"quoted header", "[mcp_servers.\"deepseek-web-retrieval\"]\ncommand = \"old\"\n", ourTable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, _, err := ParseTOML([]byte(tc.in))
			require.NoError(t, err)
			d.SetTable(ourPath, ourTable)
			require.Equal(t, tc.set, string(d.Bytes()))
			_, _, err = ParseTOML(d.Bytes())
			require.NoError(t, err)
		})
	}
	d, _, err := ParseTOML([]byte("# top\nmodel = \"o3\"\n\n" + ourTable + "\n# tail comment\n[b]\nc = 1\n"))
	require.NoError(t, err)
	require.True(t, d.RemoveTable(ourPath))
	require.Equal(t, "# top\nmodel = \"o3\"\n\n# tail comment\n[b]\nc = 1\n", string(d.Bytes()))
}

func TestTOMLTopKey(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"after the last top-level key", "# c\nmodel = \"o3\"\n\n[tools]\nx = 1\n", "# c\nmodel = \"o3\"\nweb_search = \"disabled\"\n\n[tools]\nx = 1\n"},
		{"replace", "web_search = \"live\" # on\n[a]\n", "web_search = \"disabled\"\n[a]\n"},
		{"only tables", "[a]\nweb_search = \"live\"\n", "web_search = \"disabled\"\n\n[a]\nweb_search = \"live\"\n"},
		{"empty", "", "web_search = \"disabled\"\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, _, err := ParseTOML([]byte(tc.in))
			require.NoError(t, err)
			prev, ins := d.SetTopKey("web_search", "web_search = \"disabled\"\n")
			require.Equal(t, tc.want, string(d.Bytes()))
			require.True(t, d.RemoveTopKey("web_search", "web_search = \"disabled\"\n", prev, ins))
			require.Equal(t, tc.in, string(d.Bytes()))
		})
	}
}

func TestTOMLString(t *testing.T) {
	for _, s := range []string{"plain", `a"b\c`, "tab\there", "nl\n", "\x01ctl", "ünï"} {
		var v struct{ K string }
		_, err := toml.Decode("K = "+TOMLString(s), &v)
		require.NoError(t, err)
		require.Equal(t, s, v.K)
	}
}

// FuzzTOMLEdit: for any valid TOML document, adding our table and key then
// removing them leaves a document equal to the original as data, and every
// intermediate document parses.
func FuzzTOMLEdit(f *testing.F) {
	for _, s := range []string{"", "a = 1\n", "# c\n[x]\ny = \"\"\"\n[z]\n\"\"\"\n", "[mcp_servers.other]\ncommand = \"x\"\n", "web_search = \"live\"\n[[arr]]\nk = 1\n", "a = '''\nweb_search = 1\n'''\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d, orig, err := ParseTOML([]byte(in))
		if err != nil || orig["mcp_servers"] != nil || orig["web_search"] != nil {
			return
		}
		prev, ins := d.SetTopKey("web_search", "web_search = \"disabled\"\n")
		d.SetTable(ourPath, ourTable)
		_, mid, err := ParseTOML(d.Bytes())
		if err != nil {
			t.Fatalf("edit broke the document: %v\n%s", err, d.Bytes())
		}
		if mid["web_search"] != "disabled" || mid["mcp_servers"] == nil {
			t.Fatalf("edit lost: %v", mid)
		}
		d.RemoveTable(ourPath)
		d.RemoveTopKey("web_search", "web_search = \"disabled\"\n", prev, ins)
		_, back, err := ParseTOML(d.Bytes())
		if err != nil || !reflect.DeepEqual(back, orig) {
			t.Fatalf("round trip: %v\n%q\n%q", err, in, d.Bytes())
		}
	})
}

// FuzzPatch: the reverse patch always restores the original bytes.
func FuzzPatch(f *testing.F) {
	f.Add("a\nb\n", "a\nx\nb\n")
	f.Add("", "{}\n")
	f.Add("x", "y\nz")
	f.Fuzz(func(t *testing.T, before, after string) {
		p := MakePatch([]byte(before), []byte(after))
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
  "env": {"REF": "${GITHUB_TOKEN}", "REF2": "{env:X}"},
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
	for _, not := range []string{"dark-theme-with-a-long-name", "DEEPSEEK_API_KEY", "${GITHUB_TOKEN}", "{env:X}", "/usr/local/lib/node_modules/some-package-name-1234", "anthropic/claude-sonnet-4-5-20250929", "my-project-name-2024-01-15-final-v2"} {
		require.False(t, got[not], not)
	}
	masked := string(Mask([]byte(cfg), Secrets("x.json", []byte(cfg))))
	require.NotContains(t, masked, "ghp_")
	require.True(t, strings.Contains(masked, "<redacted>"))
	tomlCfg := "[mcp_servers.gh.env]\nGITHUB_TOKEN = \"tok-value-1\"\n[x]\nbearer_token = \"abcdef12\"\n"
	require.Len(t, Secrets("config.toml", []byte(tomlCfg)), 2)
}
