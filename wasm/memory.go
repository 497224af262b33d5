//go:build wasip1

package main

import "runtime"

// A collection runs on the host's main thread inside whichever call happens
// to cross the heap goal (about 5 ms under Node 20 with a small heap, every
// few searches). The host calls idle when no call has come for a while, and
// the garbage is collected then instead, so calls rarely pay for one.
//
// The heap's bound is the runtime's own soft memory limit, which hosts set
// with GOMEMLIMIT=80MiB in the module's environment (wasm/doc.go):
// runtime/debug.SetMemoryLimit would do it from here, but runtime/debug links
// fmt, os and reflect into the module.

// idle collects the garbage made since the last collection. The host calls
// it after its warm-up and once after each quiet spell; it changes nothing a
// call can observe.
//
//go:wasmexport idle
func idle() { runtime.GC() }

// A collection the runtime starts inside a call is meant to be marked mostly
// by the collector's own worker goroutine, and a reactor's goroutine never
// yields to it: the mark phase then went on for 8–23 ms of wall clock
// (GODEBUG=gctrace=1; 0.4 ms of it was work), a quarter to a third of all
// calls ran with write barriers on, and their allocations did the marking as
// assists. Every collectorTurn-th call yields once as it ends, which lets the
// worker finish the mark in 0.3–0.5 ms. Yielding on every call costs about
// 5 µs of scheduler work, clock reads through WASI among it.
const collectorTurn = 16

var calls uint32

// yieldToCollector ends every collectorTurn-th start or resume.
func yieldToCollector() {
	if calls++; calls%collectorTurn == 0 {
		runtime.Gosched()
	}
}
