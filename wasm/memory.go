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
