// Package opencode plans and applies the installation of the
// deepseek-web-retrieval plugin into an OpenCode configuration, and reverses
// it.
//
// It is one adapter behind the install.Host interface ([Plugins]: 2.x's
// "plugins" key and 1.x's "plugin" key); the registry, internal/install/hosts, lists
// it. Its PlanInit and PlanUninstall only read the file system and return
// an install.Plan listing every file they would create, change or delete;
// the engine's transaction then applies exactly that plan.
//
// # What init writes
//
//   - the plugin files, copied to vendor/deepseek-web-retrieval/ beside the
//     config file (never into the auto-loaded plugin/ or plugins/ directory).
//     A project-scope install goes to the project's .opencode/ directory
//     instead of its root when the root's vendor/ belongs to another tool
//     (a Go module, Composer), see configDir;
//   - one entry in the config's "plugins" array (OpenCode 2.x):
//     {"package": "./vendor/deepseek-web-retrieval", "options": {...}}, or
//     in its "plugin" array (OpenCode 1.x):
//     ["./vendor/deepseek-web-retrieval", {...}];
//   - the install record, vendor/deepseek-web-retrieval.install.json (see
//     [Record]), which holds a snapshot of the config as it was before and
//     what was added, so uninstall can reverse exactly that.
//
// Existing JSONC is edited in place: comments, formatting and every other
// entry are kept, arrays are appended to, never replaced. The API key is
// never written anywhere.
package opencodehost

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// pluginName is the plugin's name: the vendored directory and the entry's path end in it.
const pluginName = install.Name

// packagePath is the plugin path written into the config entry. OpenCode
// resolves "./" paths from the directory of the config file holding them.
const packagePath = "./vendor/" + pluginName

// defaultAPIKeyEnv is the environment variable the plugin reads the key from
// unless the apiKeyEnv option names another one.
const defaultAPIKeyEnv = install.DefaultAPIKeyEnv

const (
	vendorDir  = "vendor"
	pluginDir  = vendorDir + "/" + pluginName                   // relative to the config dir, slash-separated
	recordFile = vendorDir + "/" + pluginName + ".install.json" // relative to the config dir
)

// Host is the OpenCode generation whose config shape is written.
type Host string

const (
	// HostV2 is OpenCode 2.x: a "plugins" array of
	// {"package", "options"} objects. It is spelt "opencode" because it is
	// the user's name for it (--host opencode, the current OpenCode) and
	// the install record's; parseHost also takes "opencode2", the spelling
	// of opencode.V2 (internal/opencode) and of the plugin's plan requests.
	HostV2 Host = "opencode"
	// HostV1 is OpenCode 1.x: a "plugin" array of strings or
	// [name, options] tuples.
	HostV1 Host = "opencode1"
)

// generation is what sets one OpenCode generation's config shape apart
// (opencode2.go, opencode1.go).
type generation struct {
	key      string                                   // the config key of the plugin list
	label    string                                   // the host, for a person
	form     string                                   // the entry's form, as entries names it
	planHost string                                   // the stored plan's name of the host
	entry    func(name string, o install.Options) any // the entry init writes, naming name
}

// generation returns h's generation; anything but HostV1 is 2.x.
func (h Host) generation() generation {
	if h == HostV1 {
		return openCode1
	}
	return openCode2
}

// Key returns the config key holding the plugin list for h.
func (h Host) Key() string { return h.generation().key }

func (h Host) label() string { return h.generation().label }

// form is the entry form h writes.
func (h Host) form() string { return h.generation().form }

// parseHost parses "opencode" (2.x, also accepted as "opencode2") or "opencode1".
func parseHost(s string) (Host, error) {
	switch s {
	case "opencode", "opencode2":
		return HostV2, nil
	case "opencode1":
		return HostV1, nil
	}
	return "", fmt.Errorf("unknown host %q (want opencode, opencode1 or auto)", s)
}

// errNoConfigDir is returned when the global config directory cannot be
// determined (no OPENCODE_CONFIG_DIR, XDG_CONFIG_HOME or home directory).
var errNoConfigDir = errors.New("cannot determine the OpenCode config directory: set HOME, XDG_CONFIG_HOME or OPENCODE_CONFIG_DIR")

// configDir returns the directory whose config file an install edits: for
// ScopeGlobal the global OpenCode config directory, for ScopeProject dir
// (or env.WorkDir when dir is empty) or its .opencode/ subdirectory: that
// one when it already holds a config or an install, or when the project is
// a Go module or a Composer project, whose tools own a root vendor/. The
// result is absolute.
func configDir(env install.Env, scope install.Scope, dir string) (string, error) {
	var d string
	switch scope {
	case install.ScopeGlobal:
		switch {
		case env.Getenv("OPENCODE_CONFIG_DIR") != "":
			d = env.Getenv("OPENCODE_CONFIG_DIR")
		case env.Getenv("XDG_CONFIG_HOME") != "":
			d = filepath.Join(env.Getenv("XDG_CONFIG_HOME"), "opencode")
		case env.Home != "":
			d = filepath.Join(env.Home, ".config", "opencode")
		default:
			return "", errNoConfigDir
		}
	case install.ScopeProject:
		d = dir
		if d == "" {
			d = env.WorkDir
		}
		if d == "" {
			return "", errors.New("no project directory: pass --dir")
		}
	default:
		return "", fmt.Errorf("unknown scope %q", scope)
	}
	if !filepath.IsAbs(d) {
		if env.WorkDir == "" {
			return "", fmt.Errorf("config directory %q is relative and the working directory is unknown", d)
		}
		d = filepath.Join(env.WorkDir, d)
	}
	d = filepath.Clean(d)
	if scope == install.ScopeProject {
		d = projectConfigDir(d)
	}
	return d, nil
}

// projectConfigDir picks where a project-scope install lives: the project
// root, or its .opencode/ directory (which OpenCode reads as well) when a
// vendor/ directory at the root would mean something else to the project's
// own tools. A Go module with a root vendor/ switches `go build` to vendor
// mode ("inconsistent vendoring"), and Composer owns vendor/ in PHP projects
// (and ignores it in git). An existing install is found where it is.
func projectConfigDir(root string) string {
	dot := filepath.Join(root, ".opencode")
	switch {
	case exists(filepath.Join(dot, recordFile)):
		return dot
	case exists(filepath.Join(root, recordFile)):
		return root
	case exists(filepath.Join(dot, "opencode.jsonc")), exists(filepath.Join(dot, "opencode.json")):
		return dot
	}
	for _, marker := range []string{"go.mod", "composer.json", "vendor/modules.txt"} {
		if exists(filepath.Join(root, marker)) {
			return dot
		}
	}
	return root
}

func refuse(reason string, manual ...string) error { return install.Refuse(reason, manual...) }

func exists(p string) bool { return install.Exists(p) }
