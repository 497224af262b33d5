//go:build unix

// Package peak reads an exited child process's peak resident set, for the
// load benchmarks' tables.
package peak

import (
	"os"
	"runtime"
	"syscall"
)

// KB is the exited child's peak resident set (getrusage's ru_maxrss, the
// VmHWM of /proc/PID/status on Linux), in KiB; -1 when it is unknown.
func KB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return -1
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) >> 10 // bytes there
	}
	return int64(ru.Maxrss)
}
