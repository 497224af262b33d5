package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrLocked is returned by Lock when another init or uninstall holds the
// lock on the same directory for longer than the wait.
var ErrLocked = errors.New("another deepseek-web-retrieval init or uninstall is running")

// LockWait is how long Lock waits for another run to finish.
var LockWait = 10 * time.Second

// Lock takes the exclusive lock of the config directory dir for a whole
// plan and apply, and returns the function that releases it. The lock is
// an flock(2) on a file named after dir in a private directory of this user
// under the system's temporary directory: the kernel drops it when the
// process ends, so a crash never leaves a stale lock, and nothing is
// created in the config directory itself. A run that finds the lock held
// waits up to LockWait, then fails with ErrLocked.
func Lock(dir string) (unlock func(), err error) {
	base := filepath.Join(os.TempDir(), fmt.Sprintf("%s-locks-%d", Name, os.Getuid()))
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if fi, err := os.Lstat(base); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("lock: %s is not a private directory", base)
	}
	name := filepath.Join(base, SHA([]byte(filepath.Clean(dir)))[:24]+".lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	deadline := time.Now().Add(LockWait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock: %w", err)
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w on %s (waited %s); wait for it to finish, then run the command again", ErrLocked, dir, LockWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
