package install

import (
	"bytes"
	"regexp"
	"sort"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/tailscale/hujson"
)

// secretName matches member names whose string values are credentials.
var secretName = regexp.MustCompile(`(?i)^(api[-_]?key|apikey|token|access[-_]?token|secret|client[-_]?secret|password|authorization)$`)

// secrets returns the raw text (as written in the file, quotes included) of
// every credential-looking literal in a config: string members named like
// apiKey, token or password whose value is not a ${VAR} / {env:VAR}
// reference. The installer never prints them and never copies them.
func secrets(data []byte) [][]byte {
	v, err := hujson.Parse(data)
	if err != nil {
		return nil
	}
	var out [][]byte
	for x := range v.All() {
		obj, ok := x.Value.(*hujson.Object)
		if !ok {
			continue
		}
		for _, m := range obj.Members {
			name, ok := m.Name.Value.(hujson.Literal)
			if !ok || !secretName.MatchString(name.String()) {
				continue
			}
			lit, ok := m.Value.Value.(hujson.Literal)
			if !ok || lit.Kind() != '"' || len(lit.String()) < 4 || core.IsEnvReference(lit.String()) {
				continue
			}
			out = append(out, bytes.Clone(lit))
		}
	}
	// Longest first, so a secret that contains another is masked whole.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// redact replaces each secret in b with a placeholder.
func redact(b []byte, secrets [][]byte) []byte {
	for _, s := range secrets {
		b = bytes.ReplaceAll(b, s, []byte(`"<redacted>"`))
	}
	return b
}

// emptyObject reports whether data is an object with no members and no
// comments: what is left of a config init created once the entry is gone.
func emptyObject(data []byte) bool {
	v, err := hujson.Parse(data)
	if err != nil {
		return false
	}
	obj, ok := v.Value.(*hujson.Object)
	return ok && len(obj.Members) == 0 && isBlank(obj.AfterExtra) && isBlank(v.BeforeExtra) && isBlank(v.AfterExtra)
}
