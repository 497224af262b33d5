//go:build !windows

package filelock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openLockFile opens (creating) the lock file, never through a symlink.
func openLockFile(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
}

// checkLockFile refuses a lock file that is not a regular file, or that
// another user than this one or root owns: that user could hold its lock
// for ever.
func checkLockFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("lock file %s is not a regular file; remove it", f.Name())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() && st.Uid != 0 {
		return fmt.Errorf("lock file %s belongs to uid %d, not to you (uid %d) or root; remove it", f.Name(), st.Uid, os.Geteuid())
	}
	return nil
}

// tryLock takes f's exclusive lock without waiting; held reports that
// another holder has it.
func tryLock(f *os.File) (held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
