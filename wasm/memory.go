//go:build wasip1

package main

import (
	"runtime"
	"runtime/metrics"
)

// The module paces its own garbage collection, for two reasons:
//
//   - Linear memory never shrinks, and with Go's default pacing a heap holding
//     a full 64 MiB page cache grows to about twice that (156 MB measured).
//     runtime/debug.SetMemoryLimit would bound it, but runtime/debug links fmt,
//     os and reflect into the module, so the bound is kept by hand: after
//     every call, a heap past memoryLimit is collected at once.
//   - A collection runs on the host's main thread inside whichever call
//     happens to cross the heap goal (about 5 ms under Node 20 with a small
//     heap, every few searches). The host calls idle when no call has come for
//     a while, and the garbage is collected then instead, so calls rarely pay
//     for a collection.
const (
	// memoryLimit is the heap size past which a call ends with a collection
	// (a 5 MiB response on top of a full cache still fits: the bound is
	// soft, checked between calls).
	memoryLimit = 80 << 20
	// idleGarbage is the least garbage worth an idle collection.
	idleGarbage = 256 << 10
)

var heapSamples = []metrics.Sample{
	{Name: "/memory/classes/heap/objects:bytes"}, // live and not yet swept
	{Name: "/gc/heap/live:bytes"},                // live at the last collection
}

// heap reports the bytes of heap objects now and those live at the last
// collection.
func heap() (objects, live uint64) {
	metrics.Read(heapSamples)
	return heapSamples[0].Value.Uint64(), heapSamples[1].Value.Uint64()
}

// keepUnderLimit collects when the heap has grown past memoryLimit.
func keepUnderLimit() {
	if objects, _ := heap(); objects > memoryLimit {
		runtime.GC()
	}
}

// idle collects the garbage made since the last collection, if there is
// enough to be worth it. The host calls it after its warm-up and whenever it
// has been idle for a while; it changes nothing a call can observe.
//
//go:wasmexport idle
func idle() {
	if objects, live := heap(); objects > live+idleGarbage {
		runtime.GC()
	}
}
