// Package install is the host-neutral machinery of the installer: a [Plan]
// of file-system [Change]s that is computed first (reading only), rendered
// for a person with a unified diff of every config file (credentials
// masked), and then applied exactly, under an exclusive lock, atomically per
// file, with a rollback that touches only what the run wrote.
//
// Every coding agent it writes into is a [Host]: name, detection, the
// config directory a run locks, whether an install is recorded, plan init,
// plan uninstall, and doctor (its [Check]s carry the traps). Every host
// takes the same [Request] and [Env]; no adapter reads the process
// environment itself. The adapters (internal/install/opencodehost for the OpenCode
// plugin, internal/install/mcphosts for the MCP hosts and OpenCode's gateway entry,
// one file per host) decide which files they own and what goes in them;
// they share one [Options] type, the JSONC editor ([JSONC]), the TOML table
// editor ([TOMLDoc]), the secret detector ([Secrets]), path confinement
// ([Confine]), the hash-anchored reverse patch ([MakePatch]) and the lock
// ([Lock]).
//
// The registry, internal/install/hosts, lists every adapter (it cannot live here:
// the adapters import this package), turns --host into the hosts a run
// plans for, and decides between hosts whose entries exclude each other.
// Two plans of one run that change the same file are refused when the run
// applies (see [Tx]). The CLI only parses flags, loops over the registry's
// jobs and prints.
package install

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Name is the tool's name: the MCP server name in every host, the vendored
// plugin directory's name, and the prefix of every file the installer owns.
const Name = "deepseek-web-retrieval"

// DefaultAPIKeyEnv is the environment variable the key is read from unless
// the apiKeyEnv option names another one.
const DefaultAPIKeyEnv = "DEEPSEEK_API_KEY"

// RefusedError is returned by planners when the requested change cannot be
// made safely. Reason says why; Manual lists steps to do it by hand.
type RefusedError struct {
	Reason string
	Manual []string
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	b.WriteString("refused: ")
	b.WriteString(e.Reason)
	if len(e.Manual) > 0 {
		b.WriteString("\nTo do it by hand:")
		for _, m := range e.Manual {
			b.WriteString("\n  - ")
			b.WriteString(m)
		}
	}
	return b.String()
}

// Refuse returns a *RefusedError.
func Refuse(reason string, manual ...string) error {
	return &RefusedError{Reason: reason, Manual: manual}
}

// SHA returns the hex SHA-256 of b.
func SHA(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
