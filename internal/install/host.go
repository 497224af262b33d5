package install

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"time"
)

// Env is the part of the process environment the host adapters depend on.
// No adapter reads the process environment itself: the CLI fills this in
// once per run, and tests build one.
type Env struct {
	// Home is the user's home directory.
	Home string
	// WorkDir is the current directory: the default project.
	WorkDir string
	// GOOS is the operating system the hosts run on (runtime.GOOS).
	GOOS string
	// Environ is the environment as os.Environ returns it, standing for
	// the one the hosts are started from.
	Environ []string
	// LookPath finds a program on PATH; nil finds none.
	LookPath func(string) (string, error)
	// Program finds a host's program on PATH and reads its version (see
	// [FindProgram]); nil finds none. The CLI asks each program once per
	// run, however many hosts ask.
	Program func(name string) Program
}

// Getenv returns the value of the variable key in e.Environ ("" when
// unset); of two, the first, as os.Getenv.
func (e Env) Getenv(key string) string {
	for _, kv := range e.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// Find reports where the program name is on PATH.
func (e Env) Find(name string) (string, bool) {
	if e.LookPath == nil {
		return "", false
	}
	p, err := e.LookPath(name)
	return p, err == nil
}

// FindProgram returns the program name as e.Program finds it.
func (e Env) FindProgram(name string) Program {
	if e.Program == nil {
		return Program{}
	}
	return e.Program(name)
}

// Program is a host's program found on PATH. Path is empty when there is
// none; Version is its version when it could be read, else Err says why not.
type Program struct {
	Path    string
	Version string
	Err     error
}

// versionPattern finds the version in `PROGRAM --version`'s output.
var versionPattern = regexp.MustCompile(`\d+\.\d+\.\d+`)

// FindProgram looks for the program name with lookPath and asks it for its
// version (run(path, "--version")), waiting at most timeout.
func FindProgram(name string, lookPath func(string) (string, error), run func(ctx context.Context, path string, args ...string) ([]byte, error), timeout time.Duration) Program {
	path, err := lookPath(name)
	if err != nil {
		return Program{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := run(ctx, path, "--version")
	if ctx.Err() != nil {
		return Program{Path: path, Err: fmt.Errorf("%s --version did not answer within %s", path, timeout)}
	}
	if err != nil {
		return Program{Path: path, Err: fmt.Errorf("%s --version failed: %v", path, err)}
	}
	v := versionPattern.FindString(strings.TrimSpace(string(out)))
	if v == "" {
		return Program{Path: path, Err: fmt.Errorf("%s --version printed no version", path)}
	}
	return Program{Path: path, Version: v}
}

// Request describes one init, uninstall or doctor run, the same for every
// host; each host uses the parts that apply to it.
type Request struct {
	// Env is the process environment.
	Env Env
	// Scope is global or project. Zero means global.
	Scope Scope
	// Dir is the project directory for the project scope (default
	// Env.WorkDir).
	Dir string
	// Options are the server's or the plugin's options (init only).
	Options Options
	// Binary is the absolute path of the installed binary MCP hosts
	// start (init without Remote).
	Binary string
	// Remote, when set, points the hosts at a team gateway instead of
	// starting the binary; only the tiers of Options then apply.
	Remote *Remote
	// Plugin holds the OpenCode plugin's files, vendored by init unless
	// Package is set.
	Plugin fs.FS
	// Package, when set, is the npm spec OpenCode's entry names instead
	// of the vendored plugin.
	Package string
	// Version is this installer's version, kept in the records.
	Version string
	// Run names (by --host value) every host whose plan is made in the
	// same run as this one (this host included), as the registry sets it.
	// Hosts that read one file with one entry (a project's .mcp.json is
	// Claude Code's and Copilot CLI's) plan the same change to it when
	// both are in the run; a host not in the run keeps its part, and
	// its record, as they are.
	Run []string
}

// Check is one section of doctor's report: what it found for one host in
// one scope.
type Check struct {
	// Title heads the section, e.g. "codex (global)".
	Title string
	// Lines are facts; Traps are what will go wrong although the entry
	// loads (the host's warnings for the entry's options, a version that
	// does not match); Problems are what stops it from working.
	Lines, Traps, Problems []string
	// Installed reports whether our entry is there.
	Installed bool
	// KeyEnv is the variable an installed entry reads the DeepSeek key
	// from; TokenEnv the one a gateway entry sends the member's token
	// from (empty for an entry that starts the server).
	KeyEnv, TokenEnv string
	// Absent reports a host not found on this machine, with nothing of
	// ours in its files: the check has no section, and doctor names the
	// host among those not found.
	Absent bool
}

// Host is one coding agent the installer writes into: an adapter package
// implements it, and the registry (internal/install/hosts) lists every one.
type Host interface {
	// Name is the host's --host value ("codex"), as records and messages
	// name it.
	Name() string
	// Detect reports, for --host auto, whether the host is on this
	// machine (its program on PATH, its config directory). It returns the
	// host to plan for, nil when not found: a host whose config shape
	// depends on the version found may return another generation of
	// itself, with a note telling the user which and why. An error means
	// the host is here but auto cannot choose.
	Detect(req Request) (h Host, note string, err error)
	// Remote reports whether the host itself can connect to a team
	// gateway (init --remote) rather than only start the server as a
	// command.
	Remote() bool
	// ConfigDir is the directory of the config file holding the entry for
	// the request's scope: a run locks it.
	ConfigDir(req Request) (string, error)
	// Installed reports whether an install record of this host exists for
	// the request's scope.
	Installed(req Request) bool
	// PlanInit plans installing into the host. It only reads.
	PlanInit(req Request) (*Plan, error)
	// PlanUninstall plans reversing what init did. With nothing installed
	// the plan is empty.
	PlanUninstall(req Request) (*Plan, error)
	// Doctor inspects the global scope and the project Dir, one Check
	// each (none for a scope with nothing to say), traps included. It
	// changes nothing.
	Doctor(ctx context.Context, req Request) []Check
}

// PendingCheck is doctor's check of the installer's own state: a run
// that was interrupted before it finished leaves its journal in stateDir.
// ok is false when there is nothing to say.
func PendingCheck(stateDir string) (c Check, ok bool) {
	c.Title = "Installer state"
	r, found, err := Pending(stateDir)
	switch {
	case err != nil:
		c.Problems = []string{err.Error()}
	case found:
		c.Problems = []string{fmt.Sprintf(
			"an %s (process %d, started %s) was interrupted before it finished; run `deepseek-web-retrieval %s --yes` (with the same --host and --scope) and it reverses what the interrupted run did first",
			r.Command, r.PID, r.Started, r.Command)}
	default:
		return c, false
	}
	return c, true
}
