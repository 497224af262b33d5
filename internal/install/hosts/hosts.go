// Package hosts is the registry of every host the installer writes into:
// it lists the adapters (internal/install/opencodehost, internal/install/mcphosts), turns
// --host into the hosts a run plans for, and decides between hosts whose
// entries must not sit side by side. The CLI loops over what it returns;
// adding a host is one adapter file and a line here.
package hosts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install/mcphosts"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install/opencodehost"
)

// plugins, mcp and gateway are fresh host values on every call: the
// registry has no state.
func plugins() []install.Host { return opencodehost.Plugins() }
func mcp() []install.Host     { return mcphosts.Hosts() }
func gateway() install.Host   { return mcphosts.Gateway() }

// detectable returns the hosts --host auto looks for, in the order plans
// are shown: OpenCode's plugin once (its Detect picks the generation),
// then the MCP hosts.
func detectable() []install.Host { return append([]install.Host{plugins()[0]}, mcp()...) }

// named returns the hosts --host names, in the order of Names.
func named() []install.Host { return append(plugins(), mcp()...) }

// Names returns every --host value but auto, in the order usage lists them.
func Names() []string {
	var out []string
	for _, h := range named() {
		out = append(out, h.Name())
	}
	return out
}

// lookup finds the host --host names; "opencode2" is "opencode".
func lookup(name string) (install.Host, bool) {
	if name == "opencode2" {
		name = "opencode"
	}
	for _, h := range named() {
		if h.Name() == name {
			return h, true
		}
	}
	return nil, false
}

// CheckName checks a --host value.
func CheckName(name string) error {
	if _, ok := lookup(name); ok || name == "auto" {
		return nil
	}
	return fmt.Errorf("unknown host %q (want one of %s, auto)", name, strings.Join(Names(), ", "))
}

// Job is one host's part of a run: the name messages give it, the
// directory the run locks, and how to make its plan (called under the
// lock).
type Job struct {
	Host string
	Dir  string
	Plan func() (*install.Plan, error)
}

// errNoHost is --host auto finding no coding agent at all.
var errNoHost = errors.New("--host auto: found no coding agent this installer writes into on this machine (no program on PATH, no config directory)")

// NoHost reports whether err is --host auto finding no host to install
// into. init then has nothing to do, which is not a failure: make install
// has already put the binary in place, and a later init finds the agent.
func NoHost(err error) bool { return errors.Is(err, errNoHost) }

// Init returns the jobs of an init: the host --host names, or with auto
// every host found on this machine (OpenCode's generation picked by the
// version on PATH). With req.Remote, each host is replaced by the one that
// writes its gateway entry, and a host that cannot connect to a gateway is
// an error when named and left out when found. note receives what the
// user is told about these choices.
func Init(req install.Request, name string, note func(string)) ([]Job, error) {
	var found []install.Host
	if name == "auto" {
		for _, h := range detectable() {
			got, why, err := h.Detect(req)
			if err != nil {
				return nil, err
			}
			if why != "" {
				note("--host auto: " + why)
			}
			if got != nil {
				found = append(found, got)
			}
		}
	} else {
		h, _ := lookup(name)
		found = []install.Host{h}
	}
	var jobs []Job
	var targets []install.Host
	for _, h := range found {
		target := h
		why := ""
		switch l, _ := h.(limited); {
		case req.Scope == install.ScopeProject && l != nil && l.NoProject() != "":
			why = h.Name() + " cannot be installed into a project (--scope project): " + l.NoProject()
		case req.Remote != nil:
			if target = gatewayOf(h); target == nil {
				why = h.Name() + " cannot connect to a team gateway (--remote): it starts MCP servers only as commands"
				if l != nil && l.NoRemote() != "" {
					why = h.Name() + " cannot connect to a team gateway (--remote): " + l.NoRemote()
				}
			}
		}
		if r, ok := h.(refusing); ok && why == "" {
			if err := r.Refusal(req); err != nil {
				if name != "auto" {
					return nil, err
				}
				why = h.Name() + ": " + err.Error()
				if re := (*install.RefusedError)(nil); errors.As(err, &re) {
					why = h.Name() + ": " + re.Reason
				}
			}
		}
		if why != "" {
			if name != "auto" {
				return nil, errors.New(why)
			}
			note("--host auto: left out " + why)
			continue
		}
		jobs = append(jobs, Job{Host: h.Name()})
		targets = append(targets, target)
	}
	if len(jobs) == 0 {
		return nil, errNoHost
	}
	req.Run = runNames(targets)
	for i, h := range targets {
		jobs[i] = initJob(jobs[i].Host, h, req)
	}
	return jobs, nil
}

// limited is a host that says what it cannot do, for the sentences that
// leave it out: why it cannot connect to a gateway, why it has no
// project scope ("" for what it can do).
type limited interface {
	NoRemote() string
	NoProject() string
}

// refusing is a host that refuses some requests for what it finds on
// disk (Kilo Code in a project whose OpenCode config loads our plugin).
type refusing interface {
	Refusal(install.Request) error
}

// runNames returns the --host values of the hosts a run plans for: what
// Request.Run holds.
func runNames(hs []install.Host) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name()
	}
	return out
}

// Uninstall returns the jobs of an uninstall: with auto every host, so
// nothing of ours is missed; named, that host, or for OpenCode its gateway
// entry when that is what is installed.
func Uninstall(req install.Request, name string) []Job {
	if name == "auto" {
		all := append([]install.Host{plugins()[0], gateway()}, mcp()...)
		req.Run = runNames(all)
		var jobs []Job
		for _, h := range all {
			jobs = append(jobs, uninstallJob(h.Name(), h, req))
		}
		return jobs
	}
	h, _ := lookup(name)
	if g := gateway(); isPlugin(h) && g.Installed(req) {
		req.Run = runNames([]install.Host{g})
		return []Job{uninstallJob(g.Name(), g, req)}
	}
	req.Run = runNames([]install.Host{h})
	return []Job{uninstallJob(name, h, req)}
}

// Doctor checks the installer's state (a run interrupted before it
// finished), then every host: OpenCode's plugin, the MCP hosts, then
// OpenCode's gateway entry.
func Doctor(ctx context.Context, req install.Request) []install.Check {
	var out []install.Check
	if c, ok := install.PendingCheck(install.StateDir(req.Env.Home, req.Env.Getenv("XDG_STATE_HOME"))); ok {
		out = append(out, c)
	}
	for _, h := range append(detectable(), gateway()) {
		out = append(out, h.Doctor(ctx, req)...)
	}
	return out
}

// initJob is h's init, refused while an entry it excludes is installed.
func initJob(name string, h install.Host, req install.Request) Job {
	dir, _ := h.ConfigDir(req)
	return Job{Host: name, Dir: dir, Plan: func() (*install.Plan, error) {
		for _, x := range exclusions() {
			if x.of(h) && x.other.Installed(req) {
				return nil, install.Refuse(x.reason, x.manual)
			}
		}
		return h.PlanInit(req)
	}}
}

// uninstallJob is h's uninstall.
func uninstallJob(name string, h install.Host, req install.Request) Job {
	dir, _ := h.ConfigDir(req)
	return Job{Host: name, Dir: dir, Plan: func() (*install.Plan, error) { return h.PlanUninstall(req) }}
}

// exclusion is an entry that must not sit beside another one in the same
// config: init refuses to write it while the other is installed.
type exclusion struct {
	of             func(install.Host) bool
	other          install.Host
	reason, manual string
}

// exclusions lists the entries that exclude each other: OpenCode's plugin
// and its gateway entry (init --remote), which would offer every tool
// twice.
func exclusions() []exclusion {
	return []exclusion{
		{of: isPlugin, other: gateway(),
			reason: "this OpenCode config has a gateway entry (init --remote), and the plugin beside it would offer every tool twice",
			manual: "run `deepseek-web-retrieval uninstall --host opencode` first, then init again"},
		{of: isGateway, other: plugins()[0],
			reason: "the OpenCode plugin is installed in this config, and a gateway entry beside it would offer every tool twice",
			manual: "run `deepseek-web-retrieval uninstall --host opencode` first, then init --remote again"},
	}
}

// gatewayOf returns the host that writes h's gateway entry: h itself when
// it can connect to a gateway, OpenCode's gateway entry for its plugin,
// else nil.
func gatewayOf(h install.Host) install.Host {
	if h.Remote() {
		return h
	}
	if isPlugin(h) {
		return gateway()
	}
	return nil
}

func isPlugin(h install.Host) bool {
	for _, p := range plugins() {
		if h.Name() == p.Name() {
			return true
		}
	}
	return false
}

func isGateway(h install.Host) bool { return h.Name() == gateway().Name() }

// PluginPackage turns --plugin-source into Request.Package: "" for vendor
// (the default), the plugin's npm package pinned to version for npm.
func PluginPackage(source, version string) (string, error) {
	switch source {
	case "", "vendor":
		return "", nil
	case "npm":
		return opencodehost.PackageSpec(version)
	}
	return "", fmt.Errorf("unknown source %q (want vendor or npm)", source)
}

// Variables returns the variables doctor reports on for the checks: the
// key's of every installed entry that starts the server, and the token's
// of every gateway entry, each once. A member whose every entry points at
// a gateway needs no key, only the token; with nothing installed, the
// default key variable is reported.
func Variables(checks []install.Check) (keys, tokenEnvs []string) {
	for _, c := range checks {
		switch {
		case !c.Installed:
		case c.TokenEnv != "":
			if !slices.Contains(tokenEnvs, c.TokenEnv) {
				tokenEnvs = append(tokenEnvs, c.TokenEnv)
			}
		default:
			k := c.KeyEnv
			if k == "" {
				k = install.DefaultAPIKeyEnv
			}
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 && len(tokenEnvs) == 0 {
		keys = []string{install.DefaultAPIKeyEnv}
	}
	return keys, tokenEnvs
}
