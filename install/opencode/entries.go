package opencode

import (
	"strings"

	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// plugin list entries

// entry is one item of a plugin list.
type entry struct {
	index   int
	name    string // the package or path; "" when the item has no recognisable name
	options any    // the options object, nil when absent
	form    string // "string", "object" ({package, options}) or "tuple" ([name, options])
}

func entries(arr *hujson.Array) []entry {
	var out []entry
	for i, el := range arr.Elements {
		e := entry{index: i}
		switch v := install.Plain(el).(type) {
		case string:
			e.name, e.form = v, "string"
		case map[string]any:
			e.name, _ = v["package"].(string)
			e.options, e.form = v["options"], "object"
		case []any:
			if len(v) > 0 {
				e.name, _ = v[0].(string)
			}
			if len(v) > 1 {
				e.options = v[1]
			}
			e.form = "tuple"
		}
		out = append(out, e)
	}
	return out
}

func isOurPath(name string) bool {
	return strings.TrimRight(name, "/") == PackagePath
}

// entryJSON returns the config entry for host h, formatted as indented JSON
// whose continuation lines start with prefix (indent is one level), or as
// compact JSON when compact is set.
func entryJSON(h Host, o install.Options, prefix, indent string, compact bool) []byte {
	return install.Marshal(h.generation().entry(o), prefix, indent, compact)
}
