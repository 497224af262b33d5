package opencodehost

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// Plugins returns the OpenCode plugin hosts as install.Host values: 2.x
// ("opencode", the "plugins" key) first, then 1.x ("opencode1", "plugin").
// Detect of either picks the generation for the opencode on PATH.
func Plugins() []install.Host { return []install.Host{plugin{HostV2}, plugin{HostV1}} }

// plugin is the OpenCode plugin of one generation behind install.Host.
type plugin struct{ h Host }

// Name returns the --host value: "opencode" or "opencode1".
func (p plugin) Name() string { return string(p.h) }

// Remote reports false: the plugin runs inside OpenCode. A gateway entry
// for OpenCode is internal/install/mcphosts' (its Gateway).
func (plugin) Remote() bool { return false }

// Detect decides, for --host auto, whether OpenCode is here and which
// generation's key to write (see auto).
func (plugin) Detect(req install.Request) (install.Host, string, error) {
	c, err := auto(req.Env, scopeOf(req), req.Dir, req.Env.FindProgram("opencode"), false)
	if err != nil || c.Host == "" {
		return nil, "", err
	}
	return plugin{c.Host}, c.Why, nil
}

func (plugin) ConfigDir(req install.Request) (string, error) {
	return configDir(req.Env, scopeOf(req), req.Dir)
}

func (plugin) Installed(req install.Request) bool { return hasInstall(req.Env, scopeOf(req), req.Dir) }

func (p plugin) PlanInit(req install.Request) (*install.Plan, error) {
	return planInit(request{
		Env: req.Env, Scope: req.Scope, Dir: req.Dir, Host: p.h, Options: req.Options, Plugin: req.Plugin,
		Package: req.Package, Version: req.Version, Found: req.Env.FindProgram("opencode").Version,
	})
}

func (plugin) PlanUninstall(req install.Request) (*install.Plan, error) {
	return planUninstall(uninstallRequest{Env: req.Env, Scope: req.Scope, Dir: req.Dir})
}

// Doctor checks the global config, and the project's when it has an
// install or a problem: the opencode on PATH, the entry, the vendored
// plugin, and the traps: a plugin of another version than this binary, an
// entry with no install record, a key the OpenCode on PATH does not read.
func (plugin) Doctor(_ context.Context, req install.Request) []install.Check {
	prog := req.Env.FindProgram("opencode")
	var progLines []string
	switch {
	case prog.Path == "":
		progLines = append(progLines, "no opencode on PATH")
	case prog.Err != nil:
		progLines = append(progLines, "could not read the version: "+prog.Err.Error())
	default:
		progLines = append(progLines, fmt.Sprintf("%s is OpenCode %s", prog.Path, prog.Version))
	}
	var out []install.Check
	for _, sc := range []install.Scope{install.ScopeGlobal, install.ScopeProject} {
		c := doctor(req.Env, sc, req.Dir)
		if sc == install.ScopeProject && !c.Installed && len(c.Problems) == 0 {
			continue
		}
		ic := install.Check{Title: fmt.Sprintf("OpenCode (%s: %s)", sc, c.Dir), Lines: slices.Concat(progLines, c.Lines), Problems: c.Problems, Installed: c.Installed}
		progLines = nil
		if c.Installed {
			ic.KeyEnv = c.Options.APIKeyVar()
			ic.Traps = c.traps(req, sc, prog.Version)
		}
		out = append(out, ic)
	}
	return out
}

// traps are what will go wrong with an installed entry although OpenCode
// loads it.
func (c check) traps(req install.Request, sc install.Scope, found string) []string {
	var traps []string
	switch {
	case c.PluginVersion == "" || c.PluginVersion == core.Version:
	case c.NPMSpec != "":
		traps = append(traps, fmt.Sprintf("the entry pins the plugin package to version %s, and this binary is %s: run `deepseek-web-retrieval init --yes --plugin-source npm` (with the same --host and --scope) from this binary to pin its version", c.PluginVersion, core.Version))
	default:
		traps = append(traps, fmt.Sprintf("the vendored plugin is version %s, and this binary is %s: run `deepseek-web-retrieval init --yes` (with the same --host and --scope) from this binary to vendor its plugin", c.PluginVersion, core.Version))
	}
	if c.Unrecorded {
		project := ""
		if sc == install.ScopeProject {
			project = req.Env.WorkDir
			if req.Dir != "" {
				project, _ = filepath.Abs(req.Dir)
			}
		}
		traps = append(traps, fmt.Sprintf("no install record for this entry (written by hand, or by an install that was interrupted), so uninstall will refuse: run `%s` to adopt it, or remove %s from %q in %s",
			install.InitCommand(string(c.Host), project, install.OptionFlags(c.Options)), packagePath, c.Host.Key(), filepath.Join(c.Dir, c.File)))
	}
	if found != "" && hostOf(found) != c.Host {
		traps = append(traps, fmt.Sprintf("the config uses the %q key, which OpenCode %s does not read: run init --host auto", c.Host.Key(), found))
	}
	return traps
}

func scopeOf(req install.Request) install.Scope {
	if req.Scope == "" {
		return install.ScopeGlobal
	}
	return req.Scope
}
