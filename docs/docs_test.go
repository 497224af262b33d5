// Package docs tests the documentation: README.md and docs/*.md. Every code
// block is run, compiled or checked against the binary, the Makefile, the
// module and the option table; docs/README.md says how each kind is. The
// package has only tests.
package docs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/clitest"
)

// bin is the deepseek-web-retrieval binary TestMain builds.
var bin string

func TestMain(m *testing.M) { clitest.Main(m, "../cmd/deepseek-web-retrieval", &bin) }

// langs are the info strings a block may have. A block without one, or with
// another, fails: a new kind of block needs a check first.
var langs = map[string]bool{
	"sh": true, "go": true, "json": true, "jsonc": true, "jsonl": true, "toml": true, "yaml": true,
	"caddyfile": true, "nginx": true, "text": true,
}

// checkBlock checks one block and returns what is wrong with it, nil when
// nothing is.
func (c *checker) checkBlock(b block) error {
	if !langs[b.lang] {
		return fmt.Errorf("%s: a block needs a known info string (text for output), not %q", b, b.lang)
	}
	var err error
	switch b.lang {
	case "sh":
		err = c.checkShell(b)
	case "go":
		err = c.checkGo(b)
	case "json", "jsonc", "jsonl", "toml", "yaml":
		err = c.checkConfig(b)
	case "caddyfile", "nginx":
		err = checkProxyBlock(b)
	case "text":
		if b.check != "" {
			err = errors.New("a text block takes no check")
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", b, err)
	}
	return nil
}

func allBlocks(t *testing.T) []block {
	files, err := docFiles()
	require.NoError(t, err)
	var out []block
	for _, f := range files {
		src, err := readDoc(f)
		require.NoError(t, err)
		out = append(out, parseBlocks(f, src)...)
	}
	return out
}

// TestBlocks checks every code block of README.md and docs/*.md.
func TestBlocks(t *testing.T) {
	blocks := allBlocks(t)
	require.NotEmpty(t, blocks)
	c := newChecker(t)
	for _, b := range blocks {
		t.Run(b.file+":"+fmt.Sprint(b.line), func(t *testing.T) {
			require.NoError(t, c.checkBlock(b))
		})
	}
	// The README keeps its two commands.
	var readme []string
	for _, b := range blocks {
		if b.file == "README.md" && b.lang == "sh" {
			readme = append(readme, b.text)
		}
	}
	require.Contains(t, readme, "make install")
	require.Contains(t, readme, "make test")
}

// TestChecksFail proves the checks are not vacuous: each of these blocks
// must be refused, with a reason naming what is wrong.
func TestChecksFail(t *testing.T) {
	c := newChecker(t)
	tests := []struct {
		name, lang, check, text, want string
	}{
		{"unknown flag, run", "sh", "", "deepseek-web-retrieval search --no-such-flag go", "no-such-flag"},
		{"unknown flag, bin/", "sh", "", "bin/deepseek-web-retrieval fetch https://go.dev/ --no-such-flag", "no-such-flag"},
		{"unknown flag, flags", "sh", "flags", "deepseek-web-retrieval serve --tokens t.json --no-such-flag 1", "no-such-flag"},
		{"unknown flag, synopsis", "sh", "synopsis", "deepseek-web-retrieval serve usage [--no-such-flag N]", "no-such-flag"},
		{"unknown command", "sh", "", "deepseek-web-retrieval frobnicate", "frobnicate"},
		{"unknown flag after npx", "sh", "", "npx -y deepseek-web-retrieval install --no-such-flag", "no-such-flag"},
		{"unknown flag in INSTALL_FLAGS", "sh", "", `make install INSTALL_FLAGS="--no-such-flag 1"`, "no-such-flag"},
		{"unknown flag after claude's --", "sh", "", "claude mcp add x -- deepseek-web-retrieval mcp --no-such-flag", "no-such-flag"},
		{"unknown flag after the image", "sh", "", "docker run --rm deepseek-web-retrieval --no-such-flag", "no-such-flag"},
		{"unknown variable", "sh", "", "export DEEPSEEK_WEB_RETRIEVAL_NO_SUCH=1", "NO_SUCH"},
		{"make target", "sh", "", "make no-such-target", "no-such-target"},
		{"make variable", "sh", "", "make install NO_SUCH_VAR=1", "NO_SUCH_VAR"},
		{"go install of a library", "sh", "", "go install github.com/deepseek-web-retrieval/deepseek-web-retrieval/core@latest", "not a main package"},
		{"go test of no test", "sh", "", "go test ./core -run TestNoSuchTest", "TestNoSuchTest"},
		{"go test of no package", "sh", "", "go test ./no/such/dir", "no/such/dir"},
		{"npm package", "sh", "", "npm i -g left-pad", "left-pad"},
		{"unknown tool", "sh", "", "rm -rf /", "rm"},
		{"compose service", "sh", "", "docker compose run --rm nosuch", "nosuch"},
		{"a failing run", "sh", "", "deepseek-web-retrieval fetch http://127.0.0.1/", "exit status"},
		{"unknown option, jsonc", "jsonc", "", `{"plugins": [{"package": "x", "options": {"noSuchOption": 1}}]}`, "noSuchOption"},
		{"unknown option, OpenCode 1.x", "json", "", `{"plugin": [["./vendor/deepseek-web-retrieval", {"maxResult": 5}]]}`, "maxResult"},
		{"unknown flag, toml args", "toml", "", "[mcp_servers.x]\ncommand = \"deepseek-web-retrieval\"\nargs = [\"mcp\", \"--no-such-flag\"]", "no-such-flag"},
		{"unknown flag, yaml args", "yaml", "", "extensions:\n  x:\n    cmd: deepseek-web-retrieval\n    args: [mcp, --no-such-flag]", "no-such-flag"},
		{"unknown variable, env", "json", "", `{"env": {"DEEPSEEK_WEB_RETRIEVAL_NO_SUCH": "1"}}`, "NO_SUCH"},
		{"broken json", "json", "", `{"a": }`, "invalid"},
		{"broken toml", "toml", "", "a = = 1", "toml"},
		{"no info string", "", "", "deepseek-web-retrieval version", "info string"},
		{"go without its example", "go", "", `fmt.Println("hi")`, "example"},
		{"go unlike its example", "go", "example core/example_test.go ExampleNewEngine", `fmt.Println("hi")`, "differs"},
		{"unknown check", "sh", "maybe", "deepseek-web-retrieval version", "maybe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.checkBlock(block{file: "docs/bad.md", line: 1, lang: tt.lang, check: tt.check, text: tt.text})
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.want)
		})
	}
	// And the same checker passes blocks that are right.
	for _, b := range []block{
		{file: "docs/good.md", line: 1, lang: "sh", text: "deepseek-web-retrieval version\nmake test"},
		{file: "docs/good.md", line: 1, lang: "jsonc", text: `{"plugins": [{"package": "x", "options": {"maxResults": 5}}]}`},
	} {
		require.NoError(t, c.checkBlock(b))
	}
}

// TestOptionTables: every row of a table headed "option" names a real
// option (core/optiontable_test.go checks that the tables name them all).
func TestOptionTables(t *testing.T) {
	files, err := docFiles()
	require.NoError(t, err)
	n := 0
	for _, f := range files {
		src, err := readDoc(f)
		require.NoError(t, err)
		for _, name := range optionTableNames(src) {
			_, ok := core.LookupOption(name)
			require.True(t, ok, "%s: the option table names %q, which is no option", f, name)
			n++
		}
	}
	require.Equal(t, len(core.OptionSpecs()), n, "every option has one row")
	require.Equal(t, []string{"maxResult"}, func() []string {
		var bad []string
		for _, name := range optionTableNames("| option | default |\n|---|---|\n| `maxResult` | 10 |\n| `search` | x |\n") {
			if _, ok := core.LookupOption(name); !ok {
				bad = append(bad, name)
			}
		}
		return bad
	}())
}

// TestLinks: every relative link of README.md and docs/*.md names a file
// that exists, and a heading that the target has.
func TestLinks(t *testing.T) {
	files, err := docFiles()
	require.NoError(t, err)
	for _, f := range files {
		src, err := readDoc(f)
		require.NoError(t, err)
		require.Empty(t, checkLinks(f, src))
	}
	require.Len(t, checkLinks("docs/bad.md", "[a](no-such.md) [b](gateway.md#no-such-heading) [c](gateway.md#quick-start)"), 2)
}

// TestIndexListsEveryDoc: docs/README.md links every page of docs/.
func TestIndexListsEveryDoc(t *testing.T) {
	files, err := docFiles()
	require.NoError(t, err)
	index, err := readDoc("docs/README.md")
	require.NoError(t, err)
	for _, f := range files {
		if f == "README.md" || f == "docs/README.md" {
			continue
		}
		require.Contains(t, index, "("+strings.TrimPrefix(f, "docs/")+")", "docs/README.md does not list %s", f)
	}
}

var inlineFlag = regexp.MustCompile("`[^`\n]*`")
var flagWord = regexp.MustCompile(`(?:^|[\s\[(])(--[a-z][a-z0-9-]*)`)

// foreignFlags are flags of other programs that the prose names.
var foreignFlags = map[string]bool{
	"--omit": true, "--ignore-missing": true, "--user": true, "--rm": true, "--help": true,
}

// TestProseFlags: every flag the prose names in code (`--max-results 5`,
// `init --remote URL --sign-in`) is a flag of some command of the binary.
func TestProseFlags(t *testing.T) {
	c := newChecker(t)
	files, err := docFiles()
	require.NoError(t, err)
	seen := map[string]string{}
	for _, f := range files {
		src, err := readDoc(f)
		require.NoError(t, err)
		for _, span := range inlineFlag.FindAllString(prose(src), -1) {
			for _, m := range flagWord.FindAllStringSubmatch(span, -1) {
				if !foreignFlags[m[1]] {
					seen[m[1]] = f
				}
			}
		}
	}
	require.NotEmpty(t, seen)
	for flag, f := range seen {
		require.True(t, c.anyCommandHas(flag), "%s names %s, which no command of the binary has", f, flag)
	}
	require.False(t, c.anyCommandHas("--no-such-flag"))
}

var envName = regexp.MustCompile(`\b` + core.OptionEnvPrefix + `[A-Z0-9_]+\b`)

// TestProseVariables: every DEEPSEEK_WEB_RETRIEVAL_ variable the docs name
// is a flag's variable, or one of the few that are no flag.
func TestProseVariables(t *testing.T) {
	c := newChecker(t)
	files, err := docFiles()
	require.NoError(t, err)
	for _, f := range files {
		src, err := readDoc(f)
		require.NoError(t, err)
		for _, v := range envName.FindAllString(src, -1) {
			require.NoError(t, c.checkVariable(v), f)
		}
	}
	require.Error(t, c.checkVariable(core.OptionEnvPrefix+"NO_SUCH"))
}

// checkProxyBlock: the reverse-proxy examples are run under the real nginx
// and Caddy by cmd/deepseek-web-retrieval's TestReadmeProxyExamples, which
// reads them from docs/gateway.md.
func checkProxyBlock(b block) error {
	if b.file != "docs/gateway.md" {
		return errors.New("proxy configurations are checked only in docs/gateway.md, where cmd/deepseek-web-retrieval/proxy_test.go reads them")
	}
	src, err := os.ReadFile(filepath.Join("..", "cmd", "deepseek-web-retrieval", "proxy_test.go"))
	if err != nil {
		return err
	}
	if !strings.Contains(string(src), `"docs", "gateway.md"`) {
		return errors.New("cmd/deepseek-web-retrieval/proxy_test.go does not read docs/gateway.md")
	}
	return nil
}

// goTest runs go test in the repository root (a result go test cached
// counts).
func goTest(args ...string) error {
	cmd := exec.Command("go", append([]string{"test"}, args...)...)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go test %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}
