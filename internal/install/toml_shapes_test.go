package install

import (
	"strings"
	"testing"

	gotoml "github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/require"
)

var ourKVs = []TOMLKV{{"command", `"/bin/x"`}, {"args", `["mcp"]`}}

const (
	ourTable  = "[mcp_servers.deepseek-web-retrieval]\ncommand = \"/bin/x\"\nargs = [\"mcp\"]\n"
	ourInline = `deepseek-web-retrieval = { command = "/bin/x", args = ["mcp"] }`
)

// parsesElsewhere checks out with a second, independent TOML parser
// (go-toml/v2, TOML 1.0): when it reads in, it must read out, and to the
// same data as BurntSushi/toml.
func parsesElsewhere(t testing.TB, in, out []byte) {
	t.Helper()
	var a map[string]any
	if gotoml.Unmarshal(in, &a) != nil {
		// TOML 1.1 only (a multi-line inline table): BurntSushi/toml reads
		// it, go-toml/v2 does not, before or after.
		require.Error(t, gotoml.Unmarshal(out, &a), "go-toml/v2 reads the result but not the input")
		return
	}
	var b map[string]any
	require.NoError(t, gotoml.Unmarshal(out, &b), "go-toml/v2 cannot read:\n%s", out)
	_, want, err := ParseTOML(out)
	require.NoError(t, err)
	require.Equal(t, normalizeTOML(want), normalizeTOML(b))
}

// normalizeTOML maps both parsers' values to one form (integers as int64,
// nested maps and arrays as map[string]any and []any).
func normalizeTOML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = normalizeTOML(e)
		}
		return m
	case []map[string]any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = normalizeTOML(e)
		}
		return a
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = normalizeTOML(e)
		}
		return a
	case int:
		return int64(x)
	}
	return v
}

// TestTOMLAddRemoveEntry: each shape of mcp_servers gets the entry in the
// form it takes, exactly as shown; removing it with the record gives the
// original bytes back, and removing it without the record (every
// statement that defines it) gives the original data back.
func TestTOMLAddRemoveEntry(t *testing.T) {
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	tests := []struct{ name, in, want string }{
		{"empty", "", ourTable},
		{"no final newline", `model = "o3"`, "model = \"o3\"\n\n" + strings.TrimSuffix(ourTable, "\n")},
		{"blank last line without newline", "model = \"o3\"\n  ", "model = \"o3\"\n  \n" + strings.TrimSuffix(ourTable, "\n")},
		{"two trailing blank lines", "model = \"o3\"\n\n\n", "model = \"o3\"\n\n\n" + ourTable},
		{"CRLF", "# c\r\nmodel = \"o3\"\r\n", "# c\r\nmodel = \"o3\"\r\n\r\n" + crlf(ourTable)},
		{"CRLF without final newline", "model = \"o3\"\r\n[a]\r\nb = 1", "model = \"o3\"\r\n[a]\r\nb = 1\r\n\r\n" + strings.TrimSuffix(crlf(ourTable), "\r\n")},
		{"comments kept", "# top\nmodel = \"o3\" # why\n\n[tools] # t\nweb_search = false\n# tail\n", "# top\nmodel = \"o3\" # why\n\n[tools] # t\nweb_search = false\n# tail\n\n" + ourTable},
		{"multi-line string with a header inside", "x = \"\"\"\n[mcp_servers.deepseek-web-retrieval]\n\"\"\"\n", "x = \"\"\"\n[mcp_servers.deepseek-web-retrieval]\n\"\"\"\n\n" + ourTable},
		{"subtables", "[mcp_servers.gh]\ncommand = \"gh\"\n[mcp_servers.gh.env]\nK = \"v\"\n", "[mcp_servers.gh]\ncommand = \"gh\"\n[mcp_servers.gh.env]\nK = \"v\"\n\n" + ourTable},
		{"[mcp_servers] with dotted keys", "[mcp_servers]\ngh.command = \"gh\"\ngh.args = [\n  \"a\", # one\n]\n", "[mcp_servers]\ngh.command = \"gh\"\ngh.args = [\n  \"a\", # one\n]\n\n" + ourTable},
		{"top-level dotted keys", "mcp_servers.gh.command = \"gh\"\nmcp_servers.gh.env = { K = \"v\" }\n", "mcp_servers.gh.command = \"gh\"\nmcp_servers.gh.env = { K = \"v\" }\n\n" + ourTable},
		{"quoted parent header", "[\"mcp_servers\".'gh']\ncommand = \"gh\"\n", "[\"mcp_servers\".'gh']\ncommand = \"gh\"\n\n" + ourTable},
		{"empty inline table", "mcp_servers = {}\n[a]\n", "mcp_servers = { " + ourInline + " }\n[a]\n"},
		{"empty inline table with a space", "mcp_servers = { } # none\n", "mcp_servers = { " + ourInline + " } # none\n"},
		{"inline table", `mcp_servers = { gh = { command = "gh" } }`, `mcp_servers = { gh = { command = "gh" }, ` + ourInline + " }"},
		{"quoted inline parent", "'mcp_servers' = { \"gh\" = { command = \"gh\", args = [\"}\"] } }\n", "'mcp_servers' = { \"gh\" = { command = \"gh\", args = [\"}\"] }, " + ourInline + " }\n"},
		{"multi-line inline table (TOML 1.1)", "mcp_servers = {\r\n  gh = { command = \"gh\" }, # c\r\n}\r\n", "mcp_servers = {\r\n  gh = { command = \"gh\" },\r\n  " + ourInline + ", # c\r\n}\r\n"},
		{"multi-line inline table without a trailing comma", "mcp_servers = {\n\tgh = { command = \"gh\" }\n}\n", "mcp_servers = {\n\tgh = { command = \"gh\" },\n\t" + ourInline + "\n}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, orig, err := ParseTOML([]byte(tc.in))
			require.NoError(t, err)
			form, _, err := d.EntryForm("mcp_servers", "deepseek-web-retrieval")
			require.NoError(t, err)
			require.Equal(t, "", form)
			e, err := d.AddEntry("mcp_servers", "deepseek-web-retrieval", ourKVs)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(d.Bytes()))
			_, mid, err := ParseTOML(d.Bytes())
			require.NoError(t, err)
			require.Equal(t, map[string]any{"command": "/bin/x", "args": []any{"mcp"}}, mid["mcp_servers"].(map[string]any)["deepseek-web-retrieval"])
			parsesElsewhere(t, []byte(tc.in), d.Bytes())

			again, _, err := ParseTOML(d.Bytes())
			require.NoError(t, err)
			ok, err := again.RemoveEntry("mcp_servers", "deepseek-web-retrieval", e)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, tc.in, string(again.Bytes()), "removed with the record")

			again, _, err = ParseTOML(d.Bytes())
			require.NoError(t, err)
			ok, err = again.RemoveEntry("mcp_servers", "deepseek-web-retrieval", nil)
			require.NoError(t, err)
			require.True(t, ok)
			_, back, err := ParseTOML(again.Bytes())
			require.NoError(t, err)
			if mid["mcp_servers"].(map[string]any)["gh"] == nil && orig["mcp_servers"] == nil {
				delete(back, "mcp_servers") // the table the entry created stays, empty, as mcp_servers = {}
			}
			require.Equal(t, orig, back, "removed without the record:\n%s", again.Bytes())
		})
	}
}

// TestTOMLEntryForms: how an existing entry is recognised and removed, and
// the shapes refused with their line, the document left untouched.
func TestTOMLEntryForms(t *testing.T) {
	tests := []struct{ name, in, form, refused string }{
		{"table", "a = 1\n\n[mcp_servers.deepseek-web-retrieval]\ncommand = \"x\"\n", "table", ""},
		{"quoted table", "[mcp_servers.\"deepseek-web-retrieval\"]\ncommand = \"x\"\n", "table", ""},
		{"literal-quoted table", "[ mcp_servers . 'deepseek-web-retrieval' ] # ours\ncommand = \"x\"\n", "table", ""},
		{"table with a subtable", "[mcp_servers.deepseek-web-retrieval]\ncommand = \"x\"\n\n# env\n[mcp_servers.deepseek-web-retrieval.env]\nK = \"v\"\n\n[b]\nc = 1\n", "table", ""},
		{"subtable only", "[mcp_servers.deepseek-web-retrieval.env]\nK = \"x\"\n", "table", ""},
		{"top-level dotted", "mcp_servers.deepseek-web-retrieval.command = \"x\"\nmcp_servers.gh.command = \"gh\"\n", "dotted", ""},
		{"dotted in [mcp_servers]", "[mcp_servers]\ngh.command = \"gh\"\ndeepseek-web-retrieval.command = \"x\"\n", "dotted", ""},
		{"inline value in [mcp_servers]", "[mcp_servers]\ngh.command = \"gh\"\ndeepseek-web-retrieval = { command = \"x\" }\n", "value", ""},
		{"dotted inline value at the top", "mcp_servers.deepseek-web-retrieval = { command = \"x\" } # c\n", "value", ""},
		{"inline member", "mcp_servers = { deepseek-web-retrieval = { command = \"x\" } }\n", "inline", ""},
		{"inline member first of two", "mcp_servers = { deepseek-web-retrieval = { command = \"x\" }, gh = { command = \"gh\" } }\n", "inline", ""},
		{"mixed", "[mcp_servers]\ndeepseek-web-retrieval.command = \"x\"\n[mcp_servers.deepseek-web-retrieval.env]\nK = \"v\"\n", "mixed", ""},
		{"array of tables", "# servers\n\n[[mcp_servers]]\ncommand = \"x\"\n", "", "line 3: [[mcp_servers]] makes mcp_servers an array of tables; Codex reads mcp_servers as a table of named servers ([mcp_servers.<name>])"},
		{"our entry as an array of tables", "[[mcp_servers.deepseek-web-retrieval]]\ncommand = \"x\"\n", "", "line 1: [[mcp_servers.deepseek-web-retrieval]] is an array of tables, not a server table"},
		{"not a table", "a = 1\nmcp_servers = [\n  1,\n]\n", "", "line 2: mcp_servers is set to a value that is not a table ([ …)"},
		{"our entry not a table", "mcp_servers.deepseek-web-retrieval = \"x\"\n", "", "line 1: mcp_servers.deepseek-web-retrieval is set to a value that is not a table"},
		{"dotted inside the inline table", "mcp_servers = {\n  deepseek-web-retrieval.command = \"x\" }\n", "", "line 2: mcp_servers.deepseek-web-retrieval is defined with dotted keys inside the inline table mcp_servers = { … }"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, orig, err := ParseTOML([]byte(tc.in))
			require.NoError(t, err)
			form, _, err := d.EntryForm("mcp_servers", "deepseek-web-retrieval")
			if tc.refused != "" {
				var se *TOMLShapeError
				require.ErrorAs(t, err, &se)
				require.Equal(t, tc.refused, err.Error())
				_, err = d.AddEntry("mcp_servers", "deepseek-web-retrieval", ourKVs)
				require.EqualError(t, err, tc.refused)
				require.Equal(t, tc.in, string(d.Bytes()))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.form, form)
			_, err = d.AddEntry("mcp_servers", "deepseek-web-retrieval", ourKVs)
			require.ErrorContains(t, err, "is already defined")
			require.Equal(t, tc.in, string(d.Bytes()))
			ok, err := d.RemoveEntry("mcp_servers", "deepseek-web-retrieval", nil)
			require.NoError(t, err)
			require.True(t, ok)
			_, back, err := ParseTOML(d.Bytes())
			require.NoError(t, err, "%s", d.Bytes())
			servers := orig["mcp_servers"].(map[string]any)
			delete(servers, "deepseek-web-retrieval")
			if _, ok := back["mcp_servers"]; !ok && len(servers) == 0 {
				delete(orig, "mcp_servers")
			}
			require.Equal(t, orig, back, "%s", d.Bytes())
		})
	}
}

// TestTOMLTopKey: web_search = "disabled" replaces the top-level pair or
// goes after the last one, in the file's line ending; removing it gives
// the original bytes back; a web_search table is refused.
func TestTOMLTopKey(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"after the last top-level key", "# c\nmodel = \"o3\"\n\n[tools]\nx = 1\n", "# c\nmodel = \"o3\"\nweb_search = \"disabled\"\n\n[tools]\nx = 1\n"},
		{"replace", "web_search = \"live\" # on\n[a]\n", "web_search = \"disabled\"\n[a]\n"},
		{"replace a quoted key without final newline", `'web_search' = "live"`, `web_search = "disabled"`},
		{"replace a multi-line value", "web_search = \"\"\"\nlive\"\"\"\r\nb = 1\r\n", "web_search = \"disabled\"\r\nb = 1\r\n"},
		{"only tables", "[a]\nweb_search = \"live\"\n", "web_search = \"disabled\"\n\n[a]\nweb_search = \"live\"\n"},
		{"empty", "", "web_search = \"disabled\"\n"},
		{"no final newline", `model = "o3"`, "model = \"o3\"\nweb_search = \"disabled\""},
		{"CRLF", "model = \"o3\"\r\n\r\n[a]\r\n", "model = \"o3\"\r\nweb_search = \"disabled\"\r\n\r\n[a]\r\n"},
		{"multi-line value last", "m = '''\nx\n'''\n# end\n", "m = '''\nx\n'''\nweb_search = \"disabled\"\n# end\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, _, err := ParseTOML([]byte(tc.in))
			require.NoError(t, err)
			prev, ins, err := d.SetTopKey("web_search", `web_search = "disabled"`)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(d.Bytes()))
			parsesElsewhere(t, []byte(tc.in), d.Bytes())
			require.Equal(t, `web_search = "disabled"`, d.TopKeyLine("web_search"))
			ok, err := d.RemoveTopKey("web_search", "web_search = \"disabled\"\n", prev, ins)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, tc.in, string(d.Bytes()))
		})
	}
	for _, in := range []string{"[web_search]\nx = 1\n", "web_search.mode = \"live\"\n"} {
		d, _, err := ParseTOML([]byte(in))
		require.NoError(t, err)
		_, _, err = d.SetTopKey("web_search", `web_search = "disabled"`)
		require.EqualError(t, err, "line 1: web_search is a table here; Codex reads the top-level web_search as a string")
		require.Equal(t, in, string(d.Bytes()))
	}
}
