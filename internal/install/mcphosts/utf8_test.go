package mcphosts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// invalidUTF8 are byte sequences that are not UTF-8: a byte that never is,
// a lone continuation byte, a three-byte sequence cut short, and an
// encoded surrogate.
var invalidUTF8 = []struct{ name, bytes string }{
	{"\\xff", "\xff"},
	{"a lone continuation byte", "\x80"},
	{"a truncated three-byte sequence", "\xe2\x82"},
	{"an encoded surrogate", "\xed\xa0\x80"},
}

// A JSON config may hold strings that are not UTF-8 (Claude Code keeps
// pasted text in ~/.claude.json); init and uninstall give every byte
// back, on the line init edits (another server's entry beside ours) and
// elsewhere, through the record's patch and through the structural
// removal alike.
func TestInitUninstallKeepInvalidUTF8(t *testing.T) {
	for _, seq := range invalidUTF8 {
		for _, tmpl := range []string{
			"{\n  \"history\": [\"a{x}b\"],\n  \"mcpServers\": {\"gh\": {\"command\": \"gh{x}\", \"args\": [\"{x}\"]}}\n}\n",
			"{\n  \"mcpServers\": {\n    \"gh\": {\"command\": \"{x}\"}\n  },\n  \"{x}\": \"x{x}\"\n}\n",
		} {
			text := strings.ReplaceAll(tmpl, "{x}", seq.bytes)
			for _, structural := range []bool{false, true} {
				name := seq.name
				if structural {
					name += " (structural)"
				}
				f := newFixture(t)
				path := filepath.Join(f.env.Home, ".claude.json")
				f.write(path, text)
				req := f.req(Claude, install.ScopeGlobal, install.Options{Search: "forced", Fetch: "forced"})
				p, err := planInit(req)
				require.NoError(t, err, name)
				require.NoError(t, p.Apply(), name)
				if structural {
					rs, err := resolve(req)
					require.NoError(t, err)
					recPath := rs.recordPath(path)
					var rec Record
					require.NoError(t, json.Unmarshal([]byte(f.read(recPath)), &rec))
					for i := range rec.Files {
						rec.Files[i].Patch = nil
					}
					f.write(recPath, string(rec.Marshal()))
				}
				u, err := planUninstall(f.req(Claude, install.ScopeGlobal, install.Options{}))
				require.NoError(t, err, name)
				require.NoError(t, u.Apply(), name)
				got, err := os.ReadFile(path)
				require.NoError(t, err)
				require.Equal(t, []byte(text), got, "%s: uninstall gives every byte back", name)
			}
		}
	}
}

// An entry of ours that holds bytes that are not UTF-8 is not what init
// writes (it writes U+FFFD there): init refuses it rather than adopt it and
// keep its text in the record, which could not hold those bytes.
func TestInitRefusesOurEntryWithInvalidUTF8(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(f.env.Home, ".claude.json")
	req := f.req(Claude, install.ScopeGlobal, install.Options{})
	req.Binary = "/opt/dwr\ufffd/deepseek-web-retrieval"
	f.write(path, "{\"mcpServers\": {\"deepseek-web-retrieval\": {\"type\": \"stdio\", \"command\": \"/opt/dwr\xff/deepseek-web-retrieval\", \"args\": [\"mcp\", \"--search\", \"preferred\", \"--fetch\", \"optional\"], \"env\": {\"DEEPSEEK_API_KEY\": \"${DEEPSEEK_API_KEY:-}\"}}}}\n")
	_, err := planInit(req)
	var re *install.RefusedError
	require.ErrorAs(t, err, &re)
	require.Equal(t, path+" already has an entry \"mcpServers.deepseek-web-retrieval\" that this installer did not write", re.Reason)
}
