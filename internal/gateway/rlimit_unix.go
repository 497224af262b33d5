//go:build unix

package gateway

import "syscall"

// openFileLimit is how many files this process may open (the soft
// RLIMIT_NOFILE, which the Go runtime raises to the hard one at start).
func openFileLimit() (uint64, bool) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, false
	}
	return uint64(l.Cur), true
}
