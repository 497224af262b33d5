//go:build !unix

package main

import "os"

// peakKB is -1 where getrusage is unavailable: the peak is not measured.
func peakKB(*os.ProcessState) int64 { return -1 }
