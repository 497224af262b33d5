package install

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/tailscale/hujson"
)

// The secret detector. A config file often holds credentials of other
// tools (an MCP server's env, an HTTP header, a token in a command line);
// the installer must never print them (the plan's diff) nor copy them (an
// install record). A string is taken for a credential by where it is or by
// what it looks like:
//
//   - any string under a member named env, environment, headers,
//     http_headers or env_http_headers (the places hosts keep credentials);
//   - a member whose name says so: key, token, secret, password, passwd,
//     auth, credential, private, cookie (but not names ending in Env / _var /
//     _name, which hold variable names);
//   - a value shaped like one: a known prefix (sk-, ghp_, github_pat_,
//     glpat-, xoxb-, AKIA, AIza, hf_, npm_, Bearer …, a private key block, a
//     JWT), credentials in a URL, or a long high-entropy token.
//
// References to variables (${VAR}, $VAR, {env:VAR}, ${env:VAR}, $env:VAR,
// Continue's ${{ secrets.VAR }}) are not credentials, nor are VS Code's
// input variables (${input:ID}, a value VS Code asks for and keeps in its
// secret storage).

var (
	secretName    = regexp.MustCompile(`(?i)(key|token|secret|passw|auth|credential|private|cookie)`)
	notSecretName = regexp.MustCompile(`(?i)(env|_?vars?|_?name|keys|keybindings?|keymap)$`)
	secretParents = map[string]bool{"env": true, "environment": true, "headers": true, "http_headers": true, "env_http_headers": true}
	inputRef      = regexp.MustCompile(`^\$\{input:[^}\s]+\}$`)
	envReference  = regexp.MustCompile(`^(\$\{(env:)?[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}|\$[A-Za-z_][A-Za-z0-9_]*|\{env:[A-Za-z_][A-Za-z0-9_]*\}|\$env:[A-Za-z_][A-Za-z0-9_]*|\$\{\{\s*secrets\.[A-Za-z_][A-Za-z0-9_]*\s*\}\})$`)
	secretShape   = regexp.MustCompile(`(^|[^A-Za-z0-9])(sk-[A-Za-z0-9_-]{8,}|sk_(live|test)_[A-Za-z0-9]{8,}|(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|glpat-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|(AKIA|ASIA)[A-Z0-9]{12,}|AIza[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{16,}|npm_[A-Za-z0-9]{20,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)`)
	bearer        = regexp.MustCompile(`(?i)^(bearer|basic|token)\s+\S{8,}`)
	urlCreds      = regexp.MustCompile(`[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@`)
	tokenChars    = regexp.MustCompile(`^[A-Za-z0-9+/=_.-]+$`)
)

// IsEnvReference reports whether s only names an environment variable.
func IsEnvReference(s string) bool { return envReference.MatchString(strings.TrimSpace(s)) }

// authReference matches an Authorization value whose credential is a
// variable reference: "Bearer ${TOKEN}", as init writes for a gateway.
var authReference = regexp.MustCompile(`(?i)^(bearer|basic|token)\s+(\S+|\$\{\{[^}]*\}\})$`)

// isReference reports whether s names a variable instead of holding a
// value: a bare reference, or an authorization scheme and a reference.
func isReference(s string) bool {
	s = strings.TrimSpace(s)
	if m := authReference.FindStringSubmatch(s); m != nil {
		s = m[2]
	}
	return IsEnvReference(s) || inputRef.MatchString(s)
}

// LooksSecretName reports whether a member (or query parameter) of this
// name holds a credential by its name alone: "apiKey", "token", not
// "apiKeyEnv" or "bearer_token_env_var".
func LooksSecretName(name string) bool {
	return secretName.MatchString(name) && !notSecretName.MatchString(name)
}

// LooksSecret reports whether a string value is a credential by its shape
// alone.
func LooksSecret(s string) bool {
	if isReference(s) {
		return false
	}
	if secretShape.MatchString(s) || bearer.MatchString(s) || urlCreds.MatchString(s) || strings.Contains(s, "-----BEGIN") {
		return true
	}
	return highEntropy(s)
}

// highEntropy: 24+ token characters that are either 32+ hex digits or
// mixed-case letters with digits at ≥ 3.5 bits a character; a string with
// "/" counts only with base64's "+" or "=" (paths and model names are not
// secrets).
func highEntropy(s string) bool {
	if len(s) < 24 || !tokenChars.MatchString(s) || strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") {
		return false
	}
	if len(s) >= 32 && strings.Trim(strings.ToLower(s), "0123456789abcdef") == "" {
		return true
	}
	if strings.Contains(s, "/") && !strings.ContainsAny(s, "+=") {
		return false
	}
	if !strings.ContainsAny(s, "0123456789") || !strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") || !strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return false
	}
	var n [256]int
	for i := 0; i < len(s); i++ {
		n[s[i]]++
	}
	h := 0.0
	for _, c := range n {
		if c > 0 {
			p := float64(c) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h >= 3.5
}

// secretAt reports whether the string value at a member named name, inside
// a member named parent, is a credential.
func secretAt(parent, name, value string) bool {
	if isReference(value) || strings.TrimSpace(value) == "" {
		return false
	}
	if LooksSecret(value) {
		return true
	}
	if secretParents[strings.ToLower(parent)] && len(value) >= 4 {
		return true
	}
	return name != "" && len(value) >= 4 && LooksSecretName(name)
}

// Secrets returns every credential in a config file's content, as the
// strings to mask: the decoded value and, for JSON, its text as written.
// path's extension picks the syntax (.toml is TOML, .yaml and .yml YAML,
// anything else JSONC).
// Content that does not parse, or is nested deeper than a config may be
// (see checkConfig; no parser sees it), yields the shape-detected strings
// alone.
func Secrets(path string, data []byte) [][]byte {
	var out [][]byte
	add := func(s string) {
		if s != "" {
			out = append(out, []byte(s))
		}
	}
	if isYAML(path) {
		_, body := SplitBOM(data)
		var v any
		doc, err := parseYAMLNode(body)
		if err == nil && doc != nil {
			err = doc.Decode(&v)
		}
		if err == nil {
			walkSecrets("", "", yamlPlain(v), func(s string) { add(s) })
		} else {
			out = append(out, shapeSecrets(data)...)
		}
	} else if checkDepth(data, isTOML(path)) != nil {
		out = shapeSecrets(data)
	} else if isTOML(path) {
		var m map[string]any
		if _, err := toml.Decode(string(data), &m); err == nil {
			walkSecrets("", "", m, func(s string) { add(s) })
		} else {
			out = append(out, shapeSecrets(data)...)
		}
	} else {
		_, body := SplitBOM(data)
		v, err := hujson.Parse(body)
		if err != nil {
			out = append(out, shapeSecrets(data)...)
		} else {
			walkJSONSecrets("", "", v, func(raw hujson.Literal) {
				add(string(raw[1 : len(raw)-1]))
				add(raw.String())
			})
		}
	}
	// Longest first, so a secret that contains another is masked whole.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

func walkSecrets(parent, name string, v any, found func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			walkSecrets(name, k, e, found)
		}
	case []map[string]any:
		for _, e := range x {
			walkSecrets(parent, name, e, found)
		}
	case []any:
		for _, e := range x {
			walkSecrets(parent, name, e, found)
		}
	case string:
		if secretAt(parent, name, x) {
			found(x)
		}
	}
}

func walkJSONSecrets(parent, name string, v hujson.Value, found func(hujson.Literal)) {
	switch x := v.Value.(type) {
	case *hujson.Object:
		for _, m := range x.Members {
			k := ""
			if lit, ok := m.Name.Value.(hujson.Literal); ok {
				k = lit.String()
			}
			walkJSONSecrets(name, k, m.Value, found)
		}
	case *hujson.Array:
		for _, e := range x.Elements {
			walkJSONSecrets(parent, name, e, found)
		}
	case hujson.Literal:
		if x.Kind() == '"' && secretAt(parent, name, x.String()) {
			found(x)
		}
	}
}

// shapeSecrets finds credential-shaped quoted strings in unparsable text.
func shapeSecrets(data []byte) [][]byte {
	var out [][]byte
	for _, m := range regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)'`).FindAllSubmatch(data, -1) {
		s := m[1]
		if s == nil {
			s = m[2]
		}
		var dec string
		if json.Unmarshal(append(append([]byte{'"'}, s...), '"'), &dec) != nil {
			dec = string(s)
		}
		if LooksSecret(dec) {
			out = append(out, bytes.Clone(s))
		}
	}
	return out
}

// Mask replaces every occurrence of each secret in b with <redacted>.
func Mask(b []byte, secrets [][]byte) []byte {
	if len(secrets) == 0 {
		return b
	}
	sort.SliceStable(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	for _, s := range secrets {
		if len(s) == 0 {
			continue
		}
		b = bytes.ReplaceAll(b, s, []byte("<redacted>"))
	}
	return b
}

// HasSecrets reports whether any of the texts contains one of the secrets.
func HasSecrets(secrets [][]byte, texts ...string) bool {
	for _, t := range texts {
		for _, s := range secrets {
			if len(s) > 0 && strings.Contains(t, string(s)) {
				return true
			}
		}
	}
	return false
}
