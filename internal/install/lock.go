package install

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/filelock"
)

// ErrLocked is returned by Lock when another init or uninstall holds the
// lock on the same directory for longer than the wait.
var ErrLocked = errors.New("another deepseek-web-retrieval init or uninstall is running")

// lockWait is how long Lock waits for another run to finish.
var lockWait = 30 * time.Second

// Lock takes the exclusive lock of the config directory dir for a whole
// plan and apply, and returns the function that releases it. The lock is
// an operating-system file lock ([filelock.Lock]: flock(2); LockFileEx on
// Windows) on a file named after dir in a private directory of this user
// under the system's temporary directory: the kernel drops it when the
// process ends, so a crash never leaves a stale lock, and nothing is
// created in the config directory itself. A run that finds the lock held
// waits up to lockWait, then fails with ErrLocked.
func Lock(dir string) (unlock func(), err error) {
	base, err := lockDir()
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	name := filepath.Join(base, SHA([]byte(filepath.Clean(dir)))[:24]+".lock")
	unlock, err = filelock.Lock(name, lockWait)
	if errors.Is(err, filelock.ErrHeld) {
		return nil, fmt.Errorf("%w on %s (waited %s); wait for it to finish, then run the command again", ErrLocked, dir, lockWait)
	}
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	return unlock, nil
}

// LockRun takes every lock a run needs and finishes an interrupted run:
// the lock of stateDir first, then those of dirs (sorted, so that two runs
// never wait for each other in opposite orders), then [Recover] on
// stateDir. It returns the function that releases them all; rec and found
// are what Recover found, also when err is not nil.
func LockRun(stateDir string, dirs []string) (release func(), rec Recovery, found bool, err error) {
	locks := []string{stateDir}
	sorted := slices.Clone(dirs)
	slices.Sort(sorted)
	for _, d := range sorted {
		if d != "" && !slices.Contains(locks, d) {
			locks = append(locks, d)
		}
	}
	var unlocks []func()
	release = func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
	for _, l := range locks {
		unlock, err := Lock(l)
		if err != nil {
			release()
			return nil, Recovery{}, false, err
		}
		unlocks = append(unlocks, unlock)
	}
	rec, found, err = Recover(stateDir)
	if err != nil {
		release()
		return nil, rec, found, err
	}
	return release, rec, found, nil
}
