package opencode

import (
	"io/fs"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// Request describes an init.
type Request struct {
	// Env locates the config directories.
	Env Env
	// Scope selects the global or a project config. Zero means ScopeGlobal.
	Scope install.Scope
	// Dir is the project directory for ScopeProject; empty means Env.WorkDir.
	Dir string
	// Host selects the config shape. Zero means HostOpenCode (2.x).
	Host Host
	// Options are written into the entry; see [Options].
	Options install.Options
	// Plugin holds the plugin directory's files; its top-level regular
	// files are copied. It must contain package.json and core.wasm.
	Plugin fs.FS
	// Version is this installer's version, kept in the record.
	Version string
	// Found is the version of the OpenCode found on PATH, empty when none
	// was read; the plan warns when Host's shape does not match it.
	Found string
}

// UninstallRequest describes an uninstall.
type UninstallRequest struct {
	// Env locates the config directories.
	Env Env
	// Scope selects the global or a project config. Zero means ScopeGlobal.
	Scope install.Scope
	// Dir is the project directory for ScopeProject; empty means Env.WorkDir.
	Dir string
}

// The change kinds this adapter uses.
const (
	// KindConfig is the OpenCode config file.
	KindConfig = install.KindConfig
	// KindPlugin is a vendored plugin file.
	KindPlugin = install.KindFile
	// KindRecord is the install record.
	KindRecord = install.KindRecord
	// KindDir is a directory.
	KindDir = install.KindDir
)

// Change is one file-system step of a Plan; see [install.Change].
type Change = install.Change

// The operations of a Change.
const (
	OpCreate = install.OpCreate // create a file or directory
	OpUpdate = install.OpUpdate // replace a file's content
	OpDelete = install.OpDelete // delete a file or an empty directory
)

func newPlan(command string, scope install.Scope, host Host, dir string) *Plan {
	return &Plan{Command: command, Scope: string(scope), Host: host.label(), ConfigDir: dir, APIKeyEnv: DefaultAPIKeyEnv}
}
