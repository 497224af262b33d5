// Package mcphosts installs the deepseek-web-retrieval MCP server into the
// MCP hosts people use: Codex, Claude Code, Gemini CLI, Pi (through
// pi-mcp-adapter), Cursor, and the hosts registered by the other files
// (Amp, Cline, Continue, Copilot CLI, Crush, Goose, Junie, Kilo Code,
// Kiro, Qwen Code, Roo Code, VS Code, Windsurf, Zed). Each host
// is a small adapter (codex.go, claude.go, …) saying which files it owns
// and what goes in them; the plan, the edit, the record and the exact
// uninstall are shared (this file and package install). [Hosts] and [Gateway] (OpenCode's gateway entry, init
// --remote) are the install.Host values the registry, internal/install/hosts, lists.
//
// The server entry is named deepseek-web-retrieval in every host (no "_",
// which Gemini's policy parser splits on) and starts
// `<absolute path of the binary> mcp --search T --fetch T [options]`. The
// API key is never written: each host is told to pass the variable through
// from the environment, in the way that host needs.
//
// A file two hosts read with one entry is shared between them (a
// project's .mcp.json: Claude Code and GitHub Copilot CLI): one entry, one
// record per host, left until the last host's uninstall (see shared.go).
package mcphosts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// Host names an MCP host.
type Host string

// The MCP hosts.
const (
	Codex  Host = "codex"
	Claude Host = "claude"
	Gemini Host = "gemini"
	Pi     Host = "pi"
	Cursor Host = "cursor"
)

// all lists the MCP hosts in the order plans are made and shown.
var all = []Host{Codex, Claude, Gemini, Pi, Cursor}

// request describes an init, uninstall or doctor for one MCP host.
type request struct {
	install.Request
	Host Host
}

// parseHost parses an MCP host name.
func parseHost(s string) (Host, bool) {
	for _, h := range all {
		if string(h) == s {
			return h, true
		}
	}
	return "", false
}

// target is one file an adapter owns a part of.
type target struct {
	path string
	toml bool
	// yaml is the form of the entry in a YAML file: install.YAMLMember
	// (serverPath[1] in the mapping serverPath[0]) or install.YAMLItem
	// (the item of the sequence serverPath[0] whose name is
	// serverPath[1]); "" for a JSON or TOML file.
	yaml string
	// skeleton is what a YAML file init creates holds besides the entry
	// (the fields the host requires of a file); uninstall deletes the file
	// when only that is left.
	skeleton string
	// server: the entry goes here, at serverPath (a JSON member path, or
	// the TOML table path).
	server     bool
	serverPath []string
	entry      any              // JSON value of the entry
	tomlKVs    []install.TOMLKV // the TOML entry's keys and values
	// adds are strings added to arrays (built-in tools turned off).
	adds []addEdit
	// topKey is a TOML top-level key line (Codex's web_search).
	topKey *topKeyEdit
	// hostOwned are top-level members the host adds by itself to a file
	// it loads (Qwen Code's "$version", Kilo's "$schema"): a file init
	// created that holds nothing else after uninstall is deleted.
	hostOwned []string
	// shared names the other hosts that read this same file with this
	// same entry (a project's .mcp.json: Claude Code and Copilot CLI);
	// see shared.go.
	shared []Host
}

type addEdit struct {
	Path  []string `json:"path"`
	Items []string `json:"items"`
	why   string
}

type topKeyEdit struct {
	Key  string `json:"key"`
	Line string `json:"line"`
	why  string
}

// adapter is what a host contributes.
type adapter struct {
	label string
	// targets returns the files for the scope, the server's file first.
	targets func(r *resolved) []target
	// traps adds the host's warnings and notes to the plan; cfgs are the
	// parsed target files (nil when absent or unparsable).
	traps func(r *resolved, p *install.Plan, cfgs []parsed)
	// detect reports whether the host looks installed.
	detect func(env install.Env) bool
	// launch works out how the host starts our server, for doctor.
	launch func(c *launching)
	// cwdIgnored is set for a host that does not honour an entry's cwd.
	cwdIgnored bool
	// remote is set for a host that connects to a streamable HTTP server
	// (init --remote); signIn for one that also signs in to it through
	// the MCP authorization flow (OAuth 2.1 with protected-resource
	// metadata), so an init --remote --sign-in entry holds no token.
	remote, signIn bool
	// urlKey is the member of a remote entry holding the gateway's URL
	// ("url" when empty).
	urlKey string
	// noRemote says why a host that is not remote cannot connect to a
	// gateway, when the generic reason (it starts MCP servers only as
	// commands) is not the true one.
	noRemote string
	// refuse, when set, says why init cannot write the host's entry for
	// this request when that depends on what is on disk (Kilo Code in a
	// project whose OpenCode config loads our plugin); nil when it can.
	refuse func(r *resolved) error
	// noProject, set for a host with no project-scope config, says why:
	// init refuses --scope project with it, uninstall and doctor have
	// nothing to do there.
	noProject string
	// command turns the host's entry (its plain JSON or YAML value) into
	// the flat form hostLaunch and doctor read: {command, args, env, cwd}
	// for a server started as a command, {urlKey, headers} for a remote
	// one; nil for a host whose entry has that form already.
	command func(entry map[string]any) map[string]any
}

var adapters = map[Host]adapter{}

// register adds a host: its adapter and the name messages give it. The
// hosts registered this way follow the first five in the order of their
// files' names (Go runs a package's init functions in that order).
func register(h Host, name string, a adapter) {
	adapters[h] = a
	names[h] = name
	if !slices.Contains(all, h) {
		all = append(all, h)
	}
}

// resolved is a request with its directories worked out.
type resolved struct {
	request
	root string // the home (global) or the project directory
	args []string
	key  string // the key's variable
}

func resolve(req request) (*resolved, error) {
	if req.Scope == "" {
		req.Scope = install.ScopeGlobal
	}
	if _, ok := adapters[req.Host]; !ok {
		return nil, fmt.Errorf("unknown MCP host %q", req.Host)
	}
	r := &resolved{request: req}
	switch req.Scope {
	case install.ScopeGlobal:
		if req.Env.Home == "" {
			return nil, errors.New("cannot determine the home directory: set HOME")
		}
		r.root = req.Env.Home
	case install.ScopeProject:
		d := req.Dir
		if d == "" {
			d = req.Env.WorkDir
		}
		if d == "" {
			return nil, errors.New("no project directory: pass --dir")
		}
		if !filepath.IsAbs(d) && !(req.Env.GOOS == "windows" && isWindowsAbs(d)) {
			d = filepath.Join(req.Env.WorkDir, d)
		}
		r.root = filepath.Clean(d)
	default:
		return nil, fmt.Errorf("unknown scope %q", req.Scope)
	}
	r.key = req.Options.APIKeyVar()
	return r, nil
}

// home returns a path under the home directory.
func (r *resolved) home(parts ...string) string {
	return r.join(append([]string{r.Env.Home}, parts...)...)
}

// project returns a path under the project directory.
func (r *resolved) project(parts ...string) string {
	return r.join(append([]string{r.root}, parts...)...)
}

func (r *resolved) global() bool { return r.Scope != install.ScopeProject }

// signsIn reports an init --remote --sign-in entry for a host that signs
// in itself: it holds no token.
func (r *resolved) signsIn() bool {
	return r.Remote != nil && r.Remote.SignIn && adapters[r.Host].signIn
}

// parsed is a target file as read.
type parsed struct {
	data   []byte
	exists bool
	json   *install.JSONC
	toml   *install.TOMLDoc
	tomlV  map[string]any
	yaml   *install.YAMLDoc
	plain  any // the whole file as plain values
	err    error
}

func readTarget(t target) (parsed, fs.FileMode, error) {
	data, mode, exists, err := install.ReadConfig(t.path)
	if err != nil {
		return parsed{}, 0, err
	}
	p := parsed{data: data, exists: exists}
	_, body := install.SplitBOM(data)
	if t.toml {
		p.toml, p.tomlV, p.err = install.ParseTOML(body)
		p.plain = p.tomlV
		return p, mode, nil
	}
	if t.yaml != "" {
		p.yaml, p.plain, p.err = install.ParseYAML(body)
		return p, mode, nil
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		eol := install.DetectEOL(body)
		body = []byte("{" + eol + "}" + eol)
	}
	p.json, p.err = install.ParseJSONC(body)
	if p.err == nil {
		p.plain, _ = install.Normalize(body)
	}
	return p, mode, nil
}

// ordered builds a JSON object with its keys in the given order.
func ordered(kv ...any) json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[i])
		v, _ := json.Marshal(kv[i+1])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

// serverArgs returns the server's command line after the binary: "mcp",
// then the options as flags (see install.OptionFlags).
func serverArgs(o install.Options) []string {
	return append([]string{"mcp"}, install.OptionFlags(o)...)
}

// recordPath is where the record of an install into this host and scope
// lives: in the user's state directory, never in the project, so a cloned
// repository cannot bring one.
func (r *resolved) recordPath(main string) string {
	state := r.Env.Getenv("XDG_STATE_HOME")
	if state == "" {
		state = filepath.Join(r.Env.Home, ".local", "state")
	}
	return filepath.Join(state, install.Name, "installs", fmt.Sprintf("%s-%s-%s.json", r.Host, r.Scope, install.SHA([]byte(main))[:16]))
}

func (r *resolved) rel(p string) string {
	if rel, err := filepath.Rel(r.root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

func (r *resolved) newPlan(command string, ts []target) *install.Plan {
	a := adapters[r.Host]
	p := &install.Plan{
		Command: command, Host: a.label, Scope: string(r.Scope), ConfigDir: r.root,
		ConfigFile: r.rel(ts[0].path), APIKeyEnv: r.key, Reader: "The MCP server",
	}
	if r.Remote != nil {
		p.Reader, p.TokenEnv = names[r.Host], r.Remote.TokenEnv
	}
	switch {
	case r.signsIn():
		p.SignIn, p.TokenEnv = true, ""
	case r.Remote != nil && r.Remote.SignIn:
		p.Notes = append(p.Notes, names[r.Host]+" cannot sign in through an identity provider itself: its entry sends a member token from $"+r.Remote.TokenEnv+" (the gateway's admin makes one with `serve token add`)")
	}
	return p
}

// equalExcept reports whether two plain documents are equal once the
// parts the installer owns are removed from both.
func equalExcept(a, b any, ts target) bool {
	return reflect.DeepEqual(strip(a, ts), strip(b, ts))
}

// strip removes the installer's parts from a plain document copy.
func strip(v any, t target) any {
	raw, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	if m == nil {
		m = map[string]any{}
	}
	if t.server && t.yaml == install.YAMLItem {
		if list, ok := m[t.serverPath[0]].([]any); ok {
			m[t.serverPath[0]] = slices.DeleteFunc(list, func(e any) bool { return t.itemNamed(e) })
		}
	} else if t.server {
		deletePath(m, t.serverPath)
	}
	if t.yaml != "" {
		// A YAML parent left null or empty is the same as none (init
		// writes into "extensions:" alone, and a removal can leave "{}").
		if v, ok := m[t.serverPath[0]]; ok && install.EmptyValue(v) {
			delete(m, t.serverPath[0])
		}
	}
	for _, a := range t.adds {
		removeItems(m, a.Path, a.Items)
	}
	if t.topKey != nil {
		delete(m, t.topKey.Key)
	}
	return m
}

func deletePath(m map[string]any, path []string) {
	if len(path) == 1 {
		delete(m, path[0])
		return
	}
	sub, ok := m[path[0]].(map[string]any)
	if !ok {
		return
	}
	deletePath(sub, path[1:])
	if len(sub) == 0 {
		delete(m, path[0])
	}
}

func removeItems(m map[string]any, path []string, items []string) {
	if len(path) == 1 {
		arr, ok := m[path[0]].([]any)
		if !ok {
			return
		}
		var keep []any
		for _, e := range arr {
			if s, ok := e.(string); ok && slices.Contains(items, s) {
				continue
			}
			keep = append(keep, e)
		}
		if len(keep) == 0 {
			delete(m, path[0])
		} else {
			m[path[0]] = keep
		}
		return
	}
	sub, ok := m[path[0]].(map[string]any)
	if !ok {
		return
	}
	removeItems(sub, path[1:], items)
	if len(sub) == 0 {
		delete(m, path[0])
	}
}

// entryIn returns our entry in the plain document v of the target's
// file, nil when there is none.
func (t target) entryIn(v any) map[string]any {
	if t.yaml == install.YAMLItem {
		list, _ := lookup(v, t.serverPath[0]).([]any)
		for _, e := range list {
			if t.itemNamed(e) {
				return e.(map[string]any)
			}
		}
		return nil
	}
	e, _ := lookup(v, t.serverPath...).(map[string]any)
	return e
}

// itemNamed reports whether e is our item of a YAML sequence.
func (t target) itemNamed(e any) bool {
	m, ok := e.(map[string]any)
	return ok && m["name"] == t.serverPath[1]
}

// entryName names the entry for messages: "mcpServers.deepseek-web-
// retrieval", or for a sequence item "the mcpServers item named …".
func (t target) entryName() string {
	if t.yaml == install.YAMLItem {
		return fmt.Sprintf("the %s item named %s", t.serverPath[0], t.serverPath[1])
	}
	return strings.Join(t.serverPath, ".")
}

// flatEntry returns host h's entry in the flat {command, args, env, cwd}
// form (see adapter.command).
func flatEntry(h Host, entry map[string]any) map[string]any {
	if f := adapters[h].command; f != nil && entry != nil {
		return f(entry)
	}
	return entry
}

// lookup returns the plain value at path.
func lookup(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func exists(p string) bool { return install.Exists(p) }

func (r *resolved) searchForced() bool { return r.Options.Search == "forced" }
func (r *resolved) fetchForced() bool  { return r.Options.Fetch == "forced" }

// detect reports whether the host looks installed: its program on PATH or
// its user config directory present.
func detect(h Host, env install.Env) bool { return adapters[h].detect(env) }
