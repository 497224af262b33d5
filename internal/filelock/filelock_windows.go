package filelock

import (
	"errors"
	"os"
	"syscall"
	"unsafe"
)

func openLockFile(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
}

// checkLockFile checks nothing on Windows: access control lists, not
// owners and modes, decide who can open the file.
func checkLockFile(*os.File) error { return nil }

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
// reports that another holder has it.
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
