// Package install is the host-neutral machinery of the installer: a [Plan]
// of file-system [Change]s that is computed first (reading only), rendered
// for a person with a unified diff of every config file (credentials
// masked), and then applied exactly, under an exclusive lock, atomically per
// file, with a rollback that touches only what the run wrote.
//
// Host adapters (install/opencode for the OpenCode plugin, install/mcphosts
// for the MCP hosts, one file per host) decide which files they own and what
// goes in them; they share one [Options] type, the JSONC editor ([JSONC]), the TOML table editor ([TOMLDoc]), the
// secret detector ([Secrets]), path confinement ([Confine]), the
// hash-anchored reverse patch ([MakePatch]) and the lock ([Lock]).
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
