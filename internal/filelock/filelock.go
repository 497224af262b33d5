// Package filelock is the one cross-process lock of this module: an
// operating-system lock (flock(2); LockFileEx on Windows) on a lock file.
// The kernel drops the lock when its holder's process ends, so a lock is
// held exactly while its holder lives: there is no staleness rule, and no
// crash leaves a lock behind. See RATIONALE.md ("Why a lock outside the
// config directory?").
package filelock

import (
	"errors"
	"fmt"
	"time"
)

// ErrHeld is returned by [Lock] when another holder keeps the lock for
// longer than the wait.
var ErrHeld = errors.New("the lock is held by another process")

// poll is how often Lock tries again while another holder has the lock.
const poll = 50 * time.Millisecond

// Lock takes the exclusive lock of the file name, creating it (mode 0600)
// if it does not exist, and returns the function that releases it. On
// Unix the file is never opened through a symbolic link, and one that
// belongs to another user than this one or root is refused. While another
// process (or another Lock in this one) holds the lock, Lock tries again
// every 50 ms for up to wait, then fails with [ErrHeld]; a wait of 0 tries
// once.
//
// The lock file stays when the lock is released: removing it would let
// a later Lock create and lock a new file while a waiter that opened the
// old one takes the old one's lock, two holders at once.
func Lock(name string, wait time.Duration) (unlock func(), err error) {
	f, err := openLockFile(name)
	if err != nil {
		return nil, err
	}
	if err := checkLockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		if !held {
			return func() { unlockFile(f); f.Close() }, nil
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, ErrHeld
		}
		time.Sleep(poll)
	}
}
