package opencodehost

import (
	"io/fs"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// request describes an init.
type request struct {
	// Env locates the config directories.
	Env install.Env
	// Scope selects the global or a project config. Zero means ScopeGlobal.
	Scope install.Scope
	// Dir is the project directory for ScopeProject; empty means Env.WorkDir.
	Dir string
	// Host selects the config shape. Zero means HostV2 (2.x).
	Host Host
	// Options are written into the entry; see install.Options.
	Options install.Options
	// Plugin holds the plugin directory's files; its top-level regular
	// files are copied. It must contain package.json and core.wasm, unless
	// Package is set.
	Plugin fs.FS
	// Package, when set, is the exact npm spec the entry names instead of
	// the vendored path (see [PackageSpec]): nothing is vendored, and
	// OpenCode installs the package itself. An install vendored earlier is
	// switched over (its files deleted), and back when Package is empty.
	Package string
	// Version is this installer's version, kept in the record.
	Version string
	// Found is the version of the OpenCode found on PATH, empty when none
	// was read; the plan warns when Host's shape does not match it.
	Found string
}

// uninstallRequest describes an uninstall.
type uninstallRequest struct {
	// Env locates the config directories.
	Env install.Env
	// Scope selects the global or a project config. Zero means ScopeGlobal.
	Scope install.Scope
	// Dir is the project directory for ScopeProject; empty means Env.WorkDir.
	Dir string
}

func newPlan(command string, scope install.Scope, host Host, dir string) *install.Plan {
	return &install.Plan{Command: command, Scope: string(scope), Host: host.label(), ConfigDir: dir, APIKeyEnv: defaultAPIKeyEnv}
}
