package docs

// The checks of configuration blocks: they parse, the options they set are
// options, and the command lines they hold for the binary parse.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"
	"go.yaml.in/yaml/v3"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// checkConfig parses a json, jsonc, jsonl, toml or yaml block and walks it.
func (c *checker) checkConfig(b block) error {
	if b.check != "" {
		return fmt.Errorf("a %s block takes no check, got %q", b.lang, b.check)
	}
	var docs []any
	switch b.lang {
	case "json", "jsonc":
		text := []byte(b.text)
		if b.lang == "jsonc" {
			std, err := hujson.Standardize(text)
			if err != nil {
				return fmt.Errorf("jsonc: %w", err)
			}
			text = std
		}
		var v any
		if err := json.Unmarshal(text, &v); err != nil {
			return fmt.Errorf("invalid %s: %w", b.lang, err)
		}
		docs = append(docs, v)
	case "jsonl":
		for _, l := range strings.Split(b.text, "\n") {
			if strings.TrimSpace(l) == "" {
				continue
			}
			var v any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				return fmt.Errorf("invalid JSON line: %w", err)
			}
			docs = append(docs, v)
		}
	case "toml":
		var v map[string]any
		if _, err := toml.Decode(b.text, &v); err != nil {
			return fmt.Errorf("toml: %w", err)
		}
		docs = append(docs, v)
	case "yaml":
		var v any
		if err := yaml.Unmarshal([]byte(b.text), &v); err != nil {
			return fmt.Errorf("yaml: %w", err)
		}
		docs = append(docs, v)
	}
	for _, d := range docs {
		if err := c.walk(d); err != nil {
			return err
		}
	}
	return nil
}

// walk checks what a configuration says of us:
//   - "options" objects (OpenCode 2.x "plugins" entries) hold options only;
//   - an OpenCode 1.x "plugin" pair ["…deepseek-web-retrieval…", {options}] too;
//   - a command of the binary ("command" with "args", cmd/args, or a
//     "command" array) parses with its flags;
//   - a DEEPSEEK_WEB_RETRIEVAL_ key of "env" is a flag's variable.
func (c *checker) walk(v any) error {
	switch v := v.(type) {
	case map[string]any:
		if opts, ok := v["options"].(map[string]any); ok {
			if err := checkOptions(opts); err != nil {
				return err
			}
		}
		if err := c.commandOf(v); err != nil {
			return err
		}
		for _, k := range []string{"env", "environment"} {
			if env, ok := v[k].(map[string]any); ok {
				for name := range env {
					if err := c.checkVariable(name); err != nil {
						return err
					}
				}
			}
		}
		for _, e := range v {
			if err := c.walk(e); err != nil {
				return err
			}
		}
	case []any:
		if len(v) == 2 {
			if s, ok := v[0].(string); ok && strings.Contains(s, binary) {
				if opts, ok := v[1].(map[string]any); ok {
					if err := checkOptions(opts); err != nil {
						return err
					}
				}
			}
		}
		for _, e := range v {
			if err := c.walk(e); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkOptions(opts map[string]any) error {
	for name := range opts {
		if _, ok := core.LookupOption(name); !ok {
			return fmt.Errorf("%q is no option (core/optiontable.go)", name)
		}
	}
	return nil
}

// commandOf checks the binary's command line in an MCP server entry.
func (c *checker) commandOf(v map[string]any) error {
	var words []string
	switch cmd := v["command"].(type) {
	case string:
		words = []string{cmd}
	case []any:
		words = strs(cmd)
	}
	if cmd, ok := v["cmd"].(string); ok {
		words = []string{cmd}
	}
	if len(words) == 0 || filepath.Base(words[0]) != binary {
		return nil
	}
	if args, ok := v["args"].([]any); ok {
		words = append(words, strs(args)...)
	}
	return c.runHelp(words[1:])
}

func strs(v []any) []string {
	var out []string
	for _, e := range v {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// composeServices are the services of deploy/compose.yaml.
func composeServices(t *testing.T) map[string]bool {
	b, err := os.ReadFile(filepath.Join("..", "deploy", "compose.yaml"))
	require.NoError(t, err)
	var f struct{ Services map[string]any }
	require.NoError(t, yaml.Unmarshal(b, &f))
	out := map[string]bool{}
	for n := range f.Services {
		out[n] = true
	}
	return out
}
