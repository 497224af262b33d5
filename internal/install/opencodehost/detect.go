package opencodehost

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// hostOf returns the generation whose key OpenCode version v reads.
func hostOf(version string) Host {
	if strings.HasPrefix(version, "1.") {
		return HostV1
	}
	return HostV2
}

// autoChoice is what --host auto decides for OpenCode.
type autoChoice struct {
	// Host is the host to plan for; empty when OpenCode is not here.
	Host Host
	// Found is the version of the opencode on PATH, when it was read.
	Found string
	// Why is a line telling the user how Host was chosen, or empty.
	Why string
}

// auto decides, for --host auto, whether OpenCode is here (its program on
// PATH, its global config directory, or a config file in the project) and
// which generation's key to write: the one the version of the program on
// PATH reads, else the key the config already has. When neither tells, it
// fails with a message rather than guess. For an uninstall the install
// record says which, so any OpenCode found is HostV2.
func auto(env install.Env, scope install.Scope, dir string, prog install.Program, uninstall bool) (autoChoice, error) {
	cfgDir, _ := configDir(env, scope, dir)
	here := prog.Path != "" || (scope == install.ScopeGlobal && exists(cfgDir)) ||
		exists(filepath.Join(cfgDir, "opencode.jsonc")) || exists(filepath.Join(cfgDir, "opencode.json"))
	shape, shapeOK := configShape(env, scope, dir)
	switch {
	case !here:
		return autoChoice{}, nil
	case uninstall:
		return autoChoice{Host: HostV2}, nil
	case prog.Version != "":
		h := hostOf(prog.Version)
		return autoChoice{Host: h, Found: prog.Version, Why: fmt.Sprintf("%s is OpenCode %s; using --host %s", prog.Path, prog.Version, h)}, nil
	case shapeOK:
		why := "no opencode on PATH"
		if prog.Err != nil {
			why = prog.Err.Error()
		}
		return autoChoice{Host: shape, Why: fmt.Sprintf("%s; the config already uses the key of --host %s, so init keeps it", why, shape)}, nil
	case prog.Err != nil:
		return autoChoice{}, fmt.Errorf("--host auto: could not read the OpenCode version (%v), and the config has no plugin key to go by: pass --host opencode (2.x, \"plugins\") or --host opencode1 (1.x, \"plugin\")", prog.Err)
	default:
		return autoChoice{}, fmt.Errorf("--host auto: found OpenCode's config directory %s but no opencode on PATH and no plugin key in the config: pass --host opencode (2.x, \"plugins\") or --host opencode1 (1.x, \"plugin\")", cfgDir)
	}
}
