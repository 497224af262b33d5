package opencode

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// entryJSON returns the config entry for host h, formatted as indented JSON
// whose continuation lines start with prefix (indent is one level), or as
// compact JSON when compact is set.
func entryJSON(h Host, o install.Options, prefix, indent string, compact bool) []byte {
	var v any
	if h == HostOpenCode1 {
		v = []any{PackagePath, o}
	} else {
		v = struct {
			Package string          `json:"package"`
			Options install.Options `json:"options"`
		}{PackagePath, o}
	}
	return install.Marshal(v, prefix, indent, compact)
}
