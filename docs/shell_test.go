package docs

// The checks of ```sh blocks: the binary's command lines are run (or their
// flags checked), the other tools' lines checked against the repository.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

const (
	module = "github.com/deepseek-web-retrieval/deepseek-web-retrieval"
	binary = "deepseek-web-retrieval"
	// key is the fake key the sandbox runs with; the mocks accept only it.
	key = "sk-docstest0123456789abcdef"
)

// checker holds what the checks compare with: the mocks the binary's runs
// call, the Makefile's targets and variables, the npm names.
type checker struct {
	t        *testing.T
	deepseek *deepseektest.Server
	messages *httptest.Server
	targets  map[string]bool
	makeVars map[string]bool
	npmNames map[string]bool
	services map[string]bool

	mu    sync.Mutex
	flags map[string]bool // "sub sub --flag" → exists
}

func newChecker(t *testing.T) *checker {
	c := &checker{t: t, flags: map[string]bool{}}
	c.deepseek = deepseektest.New(t, key)
	c.deepseek.Search = deepseektest.Answer(200, map[string]any{"results": []any{map[string]any{
		"url": "https://github.com/WebAssembly/WASI", "title": "WASI", "summary": "The WebAssembly System Interface.",
		"rerank_score": 2.1, "authority": 3, "date": "2024-01-25T00:00:00Z", "site_name": "GitHub",
	}}})
	// A long page, so that the documented offsets fall inside it.
	c.deepseek.Fetch = deepseektest.Answer(200, map[string]any{"title": "Go 1.26 Release Notes",
		"content": strings.Repeat("Go 1.26 is released. The release notes follow.\n\n", 2000)})
	c.deepseek.Balance = deepseektest.Answer(200, map[string]any{"is_available": true, "balance_infos": []any{
		map[string]any{"currency": "CNY", "total_balance": "110.00", "granted_balance": "10.00", "topped_up_balance": "100.00"}}})
	answer, err := os.ReadFile(filepath.Join("..", "core", "testdata", "messages", "multi.json"))
	require.NoError(t, err)
	c.messages = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/messages" || r.Header.Get("x-api-key") != key {
			http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"no"}}`, 404)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	t.Cleanup(c.messages.Close)

	mk, err := os.ReadFile(filepath.Join("..", "Makefile"))
	require.NoError(t, err)
	c.targets, c.makeVars = map[string]bool{}, map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`).FindAllStringSubmatch(string(mk), -1) {
		c.targets[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`(?m)^([A-Z][A-Z0-9_]*)\s*[?:]?=`).FindAllStringSubmatch(string(mk), -1) {
		c.makeVars[m[1]] = true
	}
	c.npmNames = npmNames(t)
	c.services = composeServices(t)
	return c
}

// npmNames are our npm packages (npm/packages.json) and the hosts the tests
// pin (tests/hosts/package.json).
func npmNames(t *testing.T) map[string]bool {
	names := map[string]bool{}
	var ours struct {
		Launcher, Plugin string
		Platforms        []struct{ Package string }
	}
	b, err := os.ReadFile(filepath.Join("..", "npm", "packages.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &ours))
	names[ours.Launcher], names[ours.Plugin] = true, true
	for _, p := range ours.Platforms {
		names[p.Package] = true
	}
	var hosts struct{ Dependencies, DevDependencies map[string]string }
	b, err = os.ReadFile(filepath.Join("..", "tests", "hosts", "package.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &hosts))
	for n := range hosts.Dependencies {
		names[n] = true
	}
	for n := range hosts.DevDependencies {
		names[n] = true
	}
	return names
}

// line is one logical line of a shell block: continuations joined, the
// comment dropped, split in commands at && ; and |.
type line struct {
	text string
	cmds [][]string
}

// shellLines splits a block into its lines and each line's words, as sh
// would (quotes, backslashes, comments), without expansions.
func shellLines(text string) ([]line, error) {
	var out []line
	var cur strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if strings.HasSuffix(l, "\\") {
			cur.WriteString(strings.TrimSuffix(l, "\\") + " ")
			continue
		}
		cur.WriteString(l)
		s := cur.String()
		cur.Reset()
		if strings.TrimSpace(s) == "" {
			continue
		}
		cmds, err := words(s)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", s, err)
		}
		if len(cmds) > 0 {
			out = append(out, line{strings.TrimSpace(s), cmds})
		}
	}
	return out, nil
}

func words(s string) ([][]string, error) {
	var cmds [][]string
	var cmd []string
	var w strings.Builder
	inWord := false
	end := func() {
		if inWord {
			cmd = append(cmd, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t':
			end()
		case ch == '#' && !inWord:
			i = len(s)
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated '")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				w.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New(`unterminated "`)
			}
			inWord = true
		case ch == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case ch == '&' && strings.HasPrefix(s[i:], "&&"), ch == ';', ch == '|':
			end()
			if len(cmd) > 0 {
				cmds = append(cmds, cmd)
			}
			cmd = nil
			if ch == '&' || (ch == '|' && strings.HasPrefix(s[i:], "||")) {
				i++
			}
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	end()
	if len(cmd) > 0 {
		cmds = append(cmds, cmd)
	}
	return cmds, nil
}

var assignment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

// checkShell checks each command of a ```sh block. Modes (the annotation):
// "" runs the binary's command lines in a sandbox and wants exit 0 (serve
// until it serves, then SIGTERM); "flags" runs them with --help appended, so
// the subcommand and every flag must exist; "synopsis" reads usage lines
// ([--flag ARG], a|b) and checks each flag.
func (c *checker) checkShell(b block) error {
	switch b.check {
	case "", "flags", "synopsis":
	default:
		return fmt.Errorf("unknown check %q (want flags or synopsis)", b.check)
	}
	if b.check == "synopsis" {
		for _, l := range strings.Split(b.text, "\n") {
			w := strings.Fields(l)
			if len(w) == 0 {
				continue
			}
			if w[0] != binary {
				return fmt.Errorf("%q: a synopsis line starts with %s", l, binary)
			}
			if err := c.checkSynopsis(w[1:]); err != nil {
				return fmt.Errorf("%q: %w", l, err)
			}
		}
		return nil
	}
	lines, err := shellLines(b.text)
	if err != nil {
		return err
	}
	sb := c.sandbox()
	cwd := ".."
	for _, l := range lines {
		for _, cmd := range l.cmds {
			if err := c.checkCommand(b.check, sb, &cwd, cmd); err != nil {
				return fmt.Errorf("%q: %w", l.text, err)
			}
		}
	}
	return nil
}

func (c *checker) checkCommand(mode string, sb *sandbox, cwd *string, cmd []string) error {
	var env []string
	for len(cmd) > 0 && assignment.MatchString(cmd[0]) {
		env = append(env, cmd[0])
		cmd = cmd[1:]
	}
	for _, e := range env {
		if err := c.checkVariable(strings.SplitN(e, "=", 2)[0]); err != nil && strings.HasPrefix(e, core.OptionEnvPrefix) {
			return err
		}
	}
	if len(cmd) == 0 {
		return nil
	}
	var args []string
	for _, a := range cmd {
		if strings.HasPrefix(a, "<") || strings.HasPrefix(a, ">") || strings.HasPrefix(a, "2>") {
			continue // a redirection
		}
		args = append(args, a)
	}
	name, args := args[0], args[1:]
	switch {
	case name == binary || name == "bin/"+binary:
		return c.ours(mode, sb, env, args)
	case name == "export":
		for _, a := range args {
			if err := c.checkVariable(strings.SplitN(a, "=", 2)[0]); err != nil {
				return err
			}
		}
		return nil
	case name == "make":
		return c.checkMake(args)
	case name == "go":
		return checkGoCommand(args)
	case name == "npm" || name == "npx":
		return c.checkNpm(mode, name, args)
	case name == "claude":
		if i := slices.Index(args, "--"); i >= 0 && i+1 < len(args) && args[i+1] == binary {
			return c.ours("flags", nil, nil, args[i+2:])
		}
		return nil
	case name == "docker":
		return c.checkDocker(args)
	case name == "cd":
		dir := filepath.Join(*cwd, args[0])
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("cd: no directory %s in the repository", args[0])
		}
		*cwd = dir
		return nil
	case name == "cp":
		if _, err := os.Stat(filepath.Join(*cwd, args[0])); err != nil {
			return fmt.Errorf("cp: no file %s", args[0])
		}
		return nil
	case name == "chmod", name == "sha256sum", name == "tar", name == "codex", name == "pi", name == "curl":
		return nil // another program's own arguments
	}
	return fmt.Errorf("no check for the command %s: add one to docs/shell_test.go", name)
}

// ours checks one command line of the binary.
func (c *checker) ours(mode string, sb *sandbox, env, args []string) error {
	switch mode {
	case "synopsis":
		return c.checkSynopsis(args)
	case "flags":
		return c.runHelp(args)
	}
	return sb.run(env, args)
}

// runHelp runs the command line with --help: every word before it must
// parse, as the subcommand and its flags. Each --flag is also looked up on
// its own (install answers --help before it parses).
func (c *checker) runHelp(args []string) error {
	r := c.exec(append(slices.Clone(args), "--help"))
	if r.code != 0 {
		return fmt.Errorf("%s %s --help: exit status %d: %s", binary, strings.Join(args, " "), r.code, firstLine(r.stderr))
	}
	sub := subcommand(args)
	for _, a := range args[len(sub):] {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			flag, _, _ := strings.Cut(a, "=")
			if !c.has(sub, flag) {
				return fmt.Errorf("%s %s has no flag %s", binary, strings.Join(sub, " "), flag)
			}
		}
	}
	return nil
}

// subcommand is the command words that start args: "serve usage", "cache stats".
func subcommand(args []string) []string {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil
	}
	if len(args) > 1 && (args[0] == "serve" && (args[1] == "usage" || args[1] == "token") || args[0] == "cache") {
		if args[0] == "serve" && args[1] == "token" && len(args) > 2 && !strings.HasPrefix(args[2], "-") {
			return args[:3]
		}
		return args[:2]
	}
	return args[:1]
}

var synWord = regexp.MustCompile(`^[a-z][a-z|]*$`)

// checkSynopsis reads a usage line: its leading words are the subcommand (a
// word a|b|c is each of them), and every --flag in it must be one of the
// subcommand's.
func (c *checker) checkSynopsis(args []string) error {
	var subs [][]string
	subs = append(subs, nil)
	i := 0
	for ; i < len(args) && synWord.MatchString(args[i]); i++ {
		var next [][]string
		for _, s := range subs {
			for _, alt := range strings.Split(args[i], "|") {
				next = append(next, append(slices.Clone(s), alt))
			}
		}
		subs = next
	}
	for _, sub := range subs {
		if err := c.runHelp(sub); err != nil {
			return err
		}
		for _, a := range args[i:] {
			for _, m := range regexp.MustCompile(`--[a-z][a-z0-9-]*`).FindAllString(a, -1) {
				if !c.has(sub, m) {
					return fmt.Errorf("%s %s has no flag %s", binary, strings.Join(sub, " "), m)
				}
			}
		}
	}
	return nil
}

// has says whether the command sub has the flag: the binary is run with
// --flag=x --help, which refuses an unknown flag by name and otherwise
// fails on the value or prints the help.
func (c *checker) has(sub []string, flag string) bool {
	k := strings.Join(append(slices.Clone(sub), flag), " ")
	c.mu.Lock()
	v, ok := c.flags[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	if len(sub) == 1 && sub[0] == "install" {
		// install takes --bin-dir and init's flags, and answers --help before it parses.
		if flag == "--bin-dir" {
			return strings.Contains(c.exec([]string{"install", "--help"}).stdout, "--bin-dir")
		}
		return c.has([]string{"init"}, flag)
	}
	r := c.exec(append(slices.Clone(sub), flag+"=x", "--help"))
	v = !strings.Contains(r.stderr, "flag provided but not defined") && !strings.Contains(r.stderr, "unknown command")
	c.mu.Lock()
	c.flags[k] = v
	c.mu.Unlock()
	return v
}

// commands are the binary's commands, for flags named without one.
var commands = [][]string{
	{"init"}, {"uninstall"}, {"doctor"}, {"search"}, {"fetch"}, {"mcp"}, {"serve"}, {"serve", "usage"},
	{"cache", "stats"}, {"usage"}, {"install"},
}

func (c *checker) anyCommandHas(flag string) bool {
	if c.exec([]string{flag}).code == 0 { // a flag of the binary itself: --version
		return true
	}
	for _, sub := range commands {
		if c.has(sub, flag) {
			return true
		}
	}
	return false
}

// checkVariable: a DEEPSEEK_WEB_RETRIEVAL_ variable is a flag's (the flag
// in upper case) or one of those that are no flag.
func (c *checker) checkVariable(name string) error {
	if !strings.HasPrefix(name, core.OptionEnvPrefix) {
		return nil
	}
	switch strings.TrimPrefix(name, core.OptionEnvPrefix) {
	case "TOKEN", "BINARY":
		return nil
	}
	flag := "--" + strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, core.OptionEnvPrefix), "_", "-"))
	if c.has([]string{"mcp"}, flag) || c.has([]string{"serve"}, flag) {
		return nil
	}
	return fmt.Errorf("%s is the variable of %s, which neither mcp nor serve has", name, flag)
}

func (c *checker) checkMake(args []string) error {
	if len(args) == 0 {
		return errors.New("make without a target")
	}
	for _, a := range args {
		if m := assignment.FindStringSubmatch(a); m != nil {
			if !c.makeVars[m[1]] {
				return fmt.Errorf("the Makefile has no variable %s", m[1])
			}
			if m[1] == "INSTALL_FLAGS" {
				if err := c.runHelp(append([]string{"install"}, strings.Fields(m[2])...)); err != nil {
					return err
				}
			}
			continue
		}
		if !c.targets[a] {
			return fmt.Errorf("the Makefile has no target %s", a)
		}
	}
	return nil
}

// checkGoCommand: the packages of go install, run, build, test and vet are
// this module's; install, run and build name main packages, and -run names
// a test of the package.
func checkGoCommand(args []string) error {
	if len(args) == 0 {
		return errors.New("go without a command")
	}
	sub := args[0]
	var pkgs []string
	var run string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-run" && i+1 < len(args):
			run = args[i+1]
			i++
		case strings.HasPrefix(a, "-"):
		default:
			pkgs = append(pkgs, a)
		}
	}
	for _, p := range pkgs {
		p, _, _ = strings.Cut(p, "@")
		dir := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		if strings.HasPrefix(p, "./") {
			dir = strings.TrimPrefix(p, "./")
		} else if !strings.HasPrefix(p, module) {
			return fmt.Errorf("go %s %s: not a package of this module", sub, p)
		}
		if dir == "..." || dir == "" {
			continue
		}
		dir = strings.TrimSuffix(dir, "/...")
		files, _ := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if len(files) == 0 {
			return fmt.Errorf("go %s: no Go package %s", sub, dir)
		}
		src := ""
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			src += string(b)
		}
		switch sub {
		case "install", "run", "build":
			if !regexp.MustCompile(`(?m)^package main$`).MatchString(src) {
				return fmt.Errorf("go %s %s: not a main package", sub, p)
			}
		case "test":
			if run != "" && !regexp.MustCompile(`(?m)^func `+regexp.QuoteMeta(strings.Trim(run, "^$"))).MatchString(src) {
				return fmt.Errorf("go test %s -run %s: the package has no test %s", p, run, run)
			}
		}
	}
	return nil
}

// checkNpm: the packages are ours or the hosts the tests pin, and npx runs
// our launcher with the binary's command line.
func (c *checker) checkNpm(mode, name string, args []string) error {
	var pkgs []string
	i := 0
	if name == "npm" {
		if len(args) == 0 {
			return errors.New("npm without a command")
		}
		switch args[0] {
		case "i", "install":
		case "publish":
			return nil // a file of dist/npm
		default:
			return fmt.Errorf("no check for npm %s", args[0])
		}
		i = 1
	}
	for ; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") {
			continue
		}
		pkg := args[i]
		if at := strings.LastIndexByte(pkg, '@'); at > 0 {
			pkg = pkg[:at]
		}
		if !c.npmNames[pkg] {
			return fmt.Errorf("%s names %s, which is neither ours (npm/packages.json) nor a host of tests/hosts/package.json", name, pkg)
		}
		pkgs = append(pkgs, pkg)
		if name == "npx" {
			if pkg != binary {
				return fmt.Errorf("npx runs %s, not our launcher", pkg)
			}
			if mode == "" {
				mode = "flags"
			}
			return c.ours(mode, c.sandbox(), nil, args[i+1:])
		}
	}
	if len(pkgs) == 0 {
		return fmt.Errorf("%s names no package", name)
	}
	return nil
}

// checkDocker: the image's entrypoint is serve, so the words after the
// image are serve's; compose runs services of deploy/compose.yaml.
func (c *checker) checkDocker(args []string) error {
	if len(args) == 0 {
		return errors.New("docker without a command")
	}
	switch args[0] {
	case "run":
		for i, a := range args {
			if a == binary && i > 0 && args[i-1] != "-t" {
				return c.runHelp(append([]string{"serve"}, args[i+1:]...))
			}
		}
		return errors.New("docker run of another image than " + binary)
	case "compose":
		if len(args) > 1 && args[1] == "run" {
			for _, a := range args[2:] {
				if !strings.HasPrefix(a, "-") {
					if !c.services[a] {
						return fmt.Errorf("deploy/compose.yaml has no service %s", a)
					}
					return nil
				}
			}
		}
		return nil
	case "build", "volume":
		return nil
	}
	return fmt.Errorf("no check for docker %s", args[0])
}

// checkGo: a ```go block is the body of an Example function that go test
// compiles and runs; the annotation names it: <!-- check: example FILE FUNC -->.
func (c *checker) checkGo(b block) error {
	f := strings.Fields(b.check)
	if len(f) != 3 || f[0] != "example" {
		return errors.New(`a go block copies an Example function: annotate it <!-- check: example FILE FUNC -->`)
	}
	body, err := exampleBody(filepath.Join("..", filepath.FromSlash(f[1])), f[2])
	if err != nil {
		return err
	}
	if strings.TrimSpace(body) != strings.TrimSpace(b.text) {
		return fmt.Errorf("the block differs from the body of %s in %s", f[2], f[1])
	}
	return goTest("-run", "^"+f[2]+"$", "./"+filepath.ToSlash(filepath.Dir(f[1])))
}

// exampleBody is the body of the function name in file, one tab less.
func exampleBody(file, name string) (string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, d := range af.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name && fd.Recv == nil {
			body := string(src[fset.Position(fd.Body.Lbrace).Offset+1 : fset.Position(fd.Body.Rbrace).Offset])
			var out []string
			for _, l := range strings.Split(strings.Trim(body, "\n"), "\n") {
				out = append(out, strings.TrimPrefix(l, "\t"))
			}
			return strings.Join(out, "\n"), nil
		}
	}
	return "", fmt.Errorf("%s has no function %s", file, name)
}

// sandbox is where a block's command lines run: a home of its own, the
// fake key, DeepSeek and the Messages endpoint played by the checker's
// mocks. The lines of one block share it, in order.
type sandbox struct {
	c    *checker
	home string
	dir  string
}

func (c *checker) sandbox() *sandbox {
	dir := c.t.TempDir()
	home := filepath.Join(dir, "home")
	require.NoError(c.t, os.MkdirAll(filepath.Join(home, "src", "app"), 0o755))
	require.NoError(c.t, os.MkdirAll(filepath.Join(dir, "work"), 0o755))
	return &sandbox{c: c, home: home, dir: filepath.Join(dir, "work")}
}

func (s *sandbox) env() []string {
	return []string{
		"HOME=" + s.home, "PATH=/usr/bin:/bin", "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(s.home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(s.home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(s.home, ".local", "state"), "XDG_DATA_HOME=" + filepath.Join(s.home, ".local", "share"),
		"DEEPSEEK_API_KEY=" + key,
		core.OptionEnvPrefix + "BASE_URL=" + s.c.deepseek.URL,
		core.OptionEnvPrefix + "MESSAGES_BASE_URL=" + s.c.messages.URL,
	}
}

type result struct {
	code           int
	stdout, stderr string
}

// exec runs the binary in a sandbox of its own with args, stdin empty.
func (c *checker) exec(args []string) result {
	s := c.sandbox()
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = s.env(), s.dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	return result{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
}

// run runs one command line of the binary: ~ is the sandbox's home, the
// gateway's documented port 8787 a free one. A command that serves (serve)
// is stopped with SIGTERM once it says it is serving, and must exit 0 too.
func (s *sandbox) run(env, args []string) error {
	args = slices.Clone(args)
	for i, a := range args {
		if a == "~" || strings.HasPrefix(a, "~/") {
			args[i] = s.home + a[1:]
		}
		args[i] = strings.ReplaceAll(args[i], ":8787", ":"+freePort(s.c.t))
	}
	// The gateway refuses to start without its tokens file: the lines that
	// serve one run where a member's token was added, as in the quick start.
	if args[0] == "serve" && slices.Contains(args, "tokens.json") && (len(args) < 2 || args[1] != "token") {
		if _, err := os.Stat(filepath.Join(s.dir, "tokens.json")); err != nil {
			if err := s.run(nil, []string{"serve", "token", "add", "alice", "--tokens", "tokens.json"}); err != nil {
				return err
			}
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(s.env(), env...)
	cmd.Dir = s.dir
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var errText strings.Builder
	serving := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			errText.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), ": serving ") && len(args) > 0 && args[0] == "serve" {
				select {
				case serving <- struct{}{}:
				default:
				}
			}
		}
	}()
	wait := make(chan error, 1)
	go func() { <-done; wait <- cmd.Wait() }()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case <-serving:
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case err := <-wait:
			if strings.Contains(out.String()+errText.String(), key) {
				return errors.New("the key was printed")
			}
			if err != nil {
				return fmt.Errorf("%s %s: %v: %s", binary, strings.Join(args, " "), err, strings.TrimSpace(errText.String()))
			}
			return nil
		case <-timeout:
			_ = cmd.Process.Kill()
			return fmt.Errorf("%s %s: still running after 60s", binary, strings.Join(args, " "))
		}
	}
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
