package opencode

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// Program is the opencode found on PATH. Path is empty when there is none;
// Version is its version when it could be read, else Err says why not.
type Program struct {
	Path    string
	Version string
	Err     error
}

// versionPattern finds the version in `opencode --version`'s output.
var versionPattern = regexp.MustCompile(`\d+\.\d+\.\d+`)

// FindProgram looks for opencode with lookPath and asks it for its version
// (run(path, "--version")), waiting at most timeout.
func FindProgram(lookPath func(string) (string, error), run func(ctx context.Context, path string, args ...string) ([]byte, error), timeout time.Duration) Program {
	path, err := lookPath("opencode")
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

// HostOf returns the generation whose key OpenCode version v reads.
func HostOf(version string) Host {
	if strings.HasPrefix(version, "1.") {
		return HostV1
	}
	return HostV2
}

// AutoChoice is what --host auto decides for OpenCode.
type AutoChoice struct {
	// Host is the host to plan for; empty when OpenCode is not here.
	Host Host
	// Found is the version of the opencode on PATH, when it was read.
	Found string
	// Why is a line telling the user how Host was chosen, or empty.
	Why string
}

// Auto decides, for --host auto, whether OpenCode is here (its program on
// PATH, its global config directory, or a config file in the project) and
// which generation's key to write: the one the version of the program on
// PATH reads, else the key the config already has. When neither tells, it
// fails with a message rather than guess. For an uninstall the install
// record says which, so any OpenCode found is HostV2.
func Auto(env Env, scope install.Scope, dir string, prog Program, uninstall bool) (AutoChoice, error) {
	cfgDir, _ := ConfigDir(env, scope, dir)
	here := prog.Path != "" || (scope == install.ScopeGlobal && exists(cfgDir)) ||
		exists(filepath.Join(cfgDir, "opencode.jsonc")) || exists(filepath.Join(cfgDir, "opencode.json"))
	shape, shapeOK := ConfigShape(env, scope, dir)
	switch {
	case !here:
		return AutoChoice{}, nil
	case uninstall:
		return AutoChoice{Host: HostV2}, nil
	case prog.Version != "":
		h := HostOf(prog.Version)
		return AutoChoice{Host: h, Found: prog.Version, Why: fmt.Sprintf("%s is OpenCode %s; using --host %s", prog.Path, prog.Version, h)}, nil
	case shapeOK:
		why := "no opencode on PATH"
		if prog.Err != nil {
			why = prog.Err.Error()
		}
		return AutoChoice{Host: shape, Why: fmt.Sprintf("%s; the config already uses the key of --host %s, so init keeps it", why, shape)}, nil
	case prog.Err != nil:
		return AutoChoice{}, fmt.Errorf("--host auto: could not read the OpenCode version (%v), and the config has no plugin key to go by: pass --host opencode (2.x, \"plugins\") or --host opencode1 (1.x, \"plugin\")", prog.Err)
	default:
		return AutoChoice{}, fmt.Errorf("--host auto: found OpenCode's config directory %s but no opencode on PATH and no plugin key in the config: pass --host opencode (2.x, \"plugins\") or --host opencode1 (1.x, \"plugin\")", cfgDir)
	}
}
