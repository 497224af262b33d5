//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakKB is the exited child's peak resident set (getrusage's ru_maxrss,
// the VmHWM of /proc/PID/status on Linux), in KiB.
func peakKB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return -1
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) >> 10 // bytes there
	}
	return int64(ru.Maxrss)
}
