//go:build windows

package install

import (
	"os"
	"path/filepath"
)

// lockDir is the lock directory under the temporary directory, which on
// Windows is already this user's own (%TEMP%, guarded by its ACL).
func lockDir() (string, error) {
	base := filepath.Join(os.TempDir(), Name+"-locks")
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	return base, nil
}
