//go:build !windows

package install

import (
	"fmt"
	"os"
	"path/filepath"
)

// lockDir is this user's private lock directory under the temporary
// directory, named with the user id; it must not be writable by others.
func lockDir() (string, error) {
	base := filepath.Join(os.TempDir(), fmt.Sprintf("%s-locks-%d", Name, os.Getuid()))
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	if fi, err := os.Lstat(base); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("%s is not a private directory", base)
	}
	return base, nil
}
