package mcphosts

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// launchSpec is how a host would start an entry's server: the command, its
// arguments and the whole environment the server gets, each worked out the
// way that host reads its config.
type launchSpec struct {
	// Command is the program as the host would run it (after its variable
	// expansion); Args follow it.
	Command string
	Args    []string
	// Env is the server's environment, KEY=VALUE, sorted.
	Env []string
	// Dir is the working directory: the entry's cwd, else the host's own
	// (the project directory, or doctor's for the global scope).
	Dir string
	// Notes are what the launch could not reproduce (an env value Pi gets
	// by running a command, which doctor does not run).
	Notes []string
}

// lookup returns a variable of the server's environment.
func (l launchSpec) lookup(name string) (string, bool) {
	for _, kv := range l.Env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v, true
		}
	}
	return "", false
}

// expand replaces each match of re in s with what value returns for it.
func expand(re *regexp.Regexp, s string, value func(m []string) string) string {
	return re.ReplaceAllStringFunc(s, func(match string) string { return value(re.FindStringSubmatch(match)) })
}

// braceVar is ${VAR} alone (Kiro's and Amp's syntax).
var braceVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandSet expands each ${VAR} in s set in env, leaving the others as
// written.
func expandSet(s string, env map[string]string) string {
	return expand(braceVar, s, func(m []string) string {
		if v, ok := env[m[1]]; ok {
			return v
		}
		return m[0]
	})
}

// inherit gives the server the host's whole environment but the
// variables drop names (nil: none dropped), then the entry's env, and
// runs x (the host's expansion) over the command, the arguments and the
// env values.
func (c *launching) inherit(drop func(name string) bool, x func(string) string) {
	for k, v := range c.parent {
		if drop == nil || !drop(k) {
			c.env[k] = v
		}
	}
	c.command = x(c.command)
	for i := range c.args {
		c.args[i] = x(c.args[i])
	}
	for k, v := range c.envCfg {
		c.env[k] = x(v)
	}
}

// launching is one launch being worked out by a host's launch function:
// the entry as written, the environment the host is started from, and what
// the server gets.
type launching struct {
	entry   map[string]any    // the plain JSON or TOML value of our entry
	parent  map[string]string // the environment the host is started from
	envCfg  map[string]string // the entry's env, as written
	command string            // the program, as the host will run it
	args    []string          // its arguments, as the host will pass them
	env     map[string]string // the server's environment
	launch  *launchSpec       // Notes collects what cannot be reproduced
	// rs is the request doctor checks (nil outside doctor): a host whose
	// launch depends on other files of the user's reads them through it.
	rs *resolved
}

// hostLaunch works out how host h starts entry (the plain JSON or TOML
// value of our server's entry), run from an environment parent (the one
// doctor runs in, standing for the one the host is started from) in the
// directory dir. Each host's rules are in its launch function, cited there.
func hostLaunch(h Host, entry map[string]any, parent map[string]string, dir string) (launchSpec, error) {
	return launchFor(h, nil, entry, parent, dir)
}

// launchFor is hostLaunch for doctor's request rs (nil for none).
func launchFor(h Host, rs *resolved, entry map[string]any, parent map[string]string, dir string) (launchSpec, error) {
	a, ok := adapters[h]
	if !ok {
		return launchSpec{}, fmt.Errorf("unknown MCP host %q", h)
	}
	entry = flatEntry(h, entry)
	command, _ := entry["command"].(string)
	if command == "" {
		return launchSpec{}, fmt.Errorf("the entry has no command (not a stdio server)")
	}
	l := launchSpec{Dir: dir}
	c := launching{entry: entry, parent: parent, envCfg: map[string]string{}, command: command, args: stringList(entry["args"]), env: map[string]string{}, launch: &l, rs: rs}
	if m, ok := entry["env"].(map[string]any); ok {
		for k, v := range m {
			if s, ok := v.(string); ok {
				c.envCfg[k] = s
			}
		}
	}
	if cwd, ok := entry["cwd"].(string); ok && cwd != "" && !a.cwdIgnored {
		l.Dir = cwd
	}
	a.launch(&c)
	l.Command, l.Args = c.command, c.args
	for k, v := range c.env {
		l.Env = append(l.Env, k+"="+v)
	}
	sort.Strings(l.Env)
	return l, nil
}

// stringList returns the strings of a plain array (Codex's env_vars may
// also hold { name = "…" } tables).
func stringList(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		switch x := e.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			if s, ok := x["name"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// envMap turns KEY=VALUE pairs (os.Environ) into a map; a later pair wins.
func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[k] = v
		}
	}
	return m
}
