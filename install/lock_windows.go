//go:build windows

package install

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
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

func openLockFile(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
}

var (
	kernel32     = syscall.NewLazyDLL("kernel32.dll")
	lockFileEx   = kernel32.NewProc("LockFileEx")
	unlockFileEx = kernel32.NewProc("UnlockFileEx")
)

const (
	lockfileFailImmediately = 0x1
	lockfileExclusiveLock   = 0x2
	errorLockViolation      = syscall.Errno(33)
)

// tryLock takes f's exclusive lock (its first byte) without waiting; held
// reports that another process has it.
func tryLock(f *os.File) (held bool, err error) {
	var ov syscall.Overlapped
	r, _, e := lockFileEx.Call(f.Fd(), lockfileExclusiveLock|lockfileFailImmediately, 0, 1, 0, uintptr(unsafe.Pointer(&ov)))
	if r != 0 {
		return false, nil
	}
	if errors.Is(e, errorLockViolation) {
		return true, nil
	}
	return false, e
}

func unlockFile(f *os.File) {
	var ov syscall.Overlapped
	_, _, _ = unlockFileEx.Call(f.Fd(), 0, 1, 0, uintptr(unsafe.Pointer(&ov)))
}
