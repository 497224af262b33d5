package install

import (
	"errors"
	"reflect"
	"testing"

	gotoml "github.com/pelletier/go-toml/v2"
)

// FuzzTOMLEdit: for any document BurntSushi/toml reads, the editor adds
// our entry and the top-level key or refuses the shape (a
// *TOMLShapeError, the document untouched), never losing its way; the
// result parses (with go-toml/v2 too, when it reads the input), holds
// both, and is otherwise the same data; without the record the entry's
// statements come out to the same data; with it, removing both in the
// reverse order gives back the original bytes.
func FuzzTOMLEdit(f *testing.F) {
	for _, s := range []string{
		"", "a = 1", "# c\n[x]\ny = \"\"\"\n[z]\n\"\"\"\n", "[mcp_servers.other]\ncommand = \"x\"\n",
		"web_search = \"live\"\r\n[[arr]]\r\nk = 1\r\n", "a = '''\nweb_search = 1\n'''\n", "mcp_servers = {}",
		"mcp_servers = { gh = { command = \"gh\", args = [\"}\", '{'] } } # c\n", "mcp_servers = {\n  gh = { command = \"gh\" }, # c\n}\n",
		"mcp_servers.gh.command = \"gh\"\n", "[mcp_servers]\ngh.command = \"gh\"\n\n\n", "\"mcp_servers\".'gh'.x = 1979-05-27 07:32:00Z # d",
		"[[mcp_servers]]\nx = 1\n", "[mcp_servers.deepseek-web-retrieval]\ncommand = \"y\"\n", "web_search.x = 1\n", "  \n\t\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d, orig, err := ParseTOML([]byte(in))
		if err != nil {
			return
		}
		var se *TOMLShapeError
		e, err := d.AddEntry("mcp_servers", "deepseek-web-retrieval", ourKVs)
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("AddEntry: %v\n%q", err, in)
		}
		if err != nil && string(d.Bytes()) != in {
			t.Fatalf("a refused shape was changed: %q", d.Bytes())
		}
		afterEntry := string(d.Bytes())
		prev, ins, kerr := d.SetTopKey("web_search", `web_search = "disabled"`)
		if kerr != nil && !errors.As(kerr, &se) {
			t.Fatalf("SetTopKey: %v\n%q", kerr, in)
		}
		if kerr != nil && string(d.Bytes()) != afterEntry {
			t.Fatalf("a refused shape was changed: %q", d.Bytes())
		}
		_, mid, perr := ParseTOML(d.Bytes())
		if perr != nil {
			t.Fatalf("the edit broke the document: %v\n%q\n%q", perr, in, d.Bytes())
		}
		var a, b map[string]any
		if gotoml.Unmarshal([]byte(in), &a) == nil && gotoml.Unmarshal(d.Bytes(), &b) != nil {
			t.Fatalf("go-toml/v2 reads the input but not the result:\n%q\n%q", in, d.Bytes())
		}
		want, got := cloneTOML(orig), cloneTOML(mid)
		if e != nil {
			servers, _ := got["mcp_servers"].(map[string]any)
			if !reflect.DeepEqual(servers["deepseek-web-retrieval"], map[string]any{"command": "/bin/x", "args": []any{"mcp"}}) {
				t.Fatalf("entry lost: %v\n%q", mid, d.Bytes())
			}
			delete(servers, "deepseek-web-retrieval")
			if ws, ok := want["mcp_servers"].(map[string]any); !ok || len(ws) == 0 {
				delete(want, "mcp_servers")
				if len(servers) == 0 {
					delete(got, "mcp_servers")
				}
			}
		}
		if kerr == nil {
			if got["web_search"] != "disabled" {
				t.Fatalf("key lost: %v\n%q", mid, d.Bytes())
			}
			delete(got, "web_search")
			delete(want, "web_search")
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("more than ours changed:\n%q\n%q\n%v\n%v", in, d.Bytes(), want, got)
		}
		if e != nil && kerr != nil {
			// Without the record: the statements that define the entry.
			g, _, _ := ParseTOML(d.Bytes())
			if ok, err := g.RemoveEntry("mcp_servers", "deepseek-web-retrieval", nil); !ok || err != nil {
				t.Fatalf("RemoveEntry without the record: %v %v", ok, err)
			}
			_, back, err := ParseTOML(g.Bytes())
			if err != nil {
				t.Fatalf("removal broke the document: %v\n%q", err, g.Bytes())
			}
			if w, ok := orig["mcp_servers"].(map[string]any); !ok || len(w) == 0 {
				if s, ok := back["mcp_servers"].(map[string]any); ok && len(s) == 0 {
					delete(back, "mcp_servers")
				}
			}
			if !reflect.DeepEqual(cloneTOML(orig), cloneTOML(back)) {
				t.Fatalf("removal without the record:\n%q\n%q", in, g.Bytes())
			}
		}
		if kerr == nil {
			if ok, err := d.RemoveTopKey("web_search", "web_search = \"disabled\"\n", prev, ins); !ok || err != nil {
				t.Fatalf("RemoveTopKey: %v %v", ok, err)
			}
		}
		if e != nil {
			if ok, err := d.RemoveEntry("mcp_servers", "deepseek-web-retrieval", e); !ok || err != nil {
				t.Fatalf("RemoveEntry: %v %v", ok, err)
			}
		}
		if string(d.Bytes()) != in {
			t.Fatalf("round trip:\n%q\n%q", in, d.Bytes())
		}
	})
}

// cloneTOML deep-copies a parsed document's maps.
func cloneTOML(v map[string]any) map[string]any {
	out := map[string]any{}
	for k, e := range v {
		if m, ok := e.(map[string]any); ok {
			e = cloneTOML(m)
		}
		out[k] = e
	}
	return out
}
