//go:build wasip1

package main

import (
	"math/rand/v2"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// clockTimeGet is WASI's clock_time_get: it writes the time of clock id in
// nanoseconds to *ns and returns an errno, 0 on success. The module reads
// the wall clock itself rather than through package time, whose
// initialisation and parser would add about 350 KB (RATIONALE.md).
//
//go:wasmimport wasi_snapshot_preview1 clock_time_get
//go:noescape
func clockTimeGet(id uint32, precision uint64, ns *uint64) uint32

// clockRealtime is WASI's wall clock.
const clockRealtime = 0

// lastNow is the last good reading of the wall clock, in Unix milliseconds.
var lastNow int64

// wallClock reads the host's wall clock in Unix milliseconds; false when the
// host reports an error.
func wallClock() (int64, bool) {
	var ns uint64
	if clockTimeGet(clockRealtime, 0, &ns) != 0 {
		return 0, false
	}
	return int64(ns / 1e6), true
}

// now is the engine's clock: the wall clock in Unix milliseconds, or the
// last good reading when a read fails (the cache then ages by nothing).
func now() int64 {
	if ms, ok := wallClock(); ok {
		lastNow = ms
	}
	return lastNow
}

// newEnv is the engine's clock and randomness. A host whose wall clock
// fails at start gets an engine without one, which, like any Env without
// Now, caches nothing and ignores a Retry-After HTTP-date in favour of
// backoff (package time trapped instead).
func newEnv() core.Env {
	env := core.Env{Random: rand.Float64}
	if _, ok := wallClock(); ok {
		env.Now = now
	}
	return env
}
