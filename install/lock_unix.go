//go:build !windows

package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
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

// openLockFile opens (creating) the lock file, never through a symlink.
func openLockFile(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
}

// tryLock takes f's exclusive lock without waiting; held reports that
// another process has it.
func tryLock(f *os.File) (held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
