//go:build wasip1

// Command wasm is the WebAssembly module around the core: a wasip1 reactor
// (GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared) that the OpenCode
// plugin and the tests drive through the exports below. world.wit describes
// the same exports; tests check the two agree.
//
// # Lifecycle
//
// Instantiate with exactly GOMEMLIMIT=80MiB in the WASI environment (the Go
// runtime's soft memory limit: linear memory never shrinks, and without it a
// full 64 MiB page cache lets the heap grow to about twice that; nothing of
// the host's own environment belongs there), call _initialize once, then call
// the exports; calls must not overlap. A trap is never expected (every
// export recovers and answers with an error step), but a host should replace
// an instance that traps.
//
// # Exports
//
//	abi_version() -> u32                    the ABI version, 1
//	alloc(size u32) -> u32                  a buffer for the host to fill; 0 if refused (size > 64 MiB)
//	free(ptr u32)                           release a buffer the host did not pass on
//	start(ptr u32, len u32) -> u64          start an operation; JSON abi.Start in
//	resume(handle u32, meta_ptr u32, meta_len u32, body_ptr u32, body_len u32) -> u64
//	                                        the outcome of a step's request: JSON abi.Reply
//	                                        plus the raw response body (body_ptr 0 and
//	                                        body_len 0 for none)
//	cancel(handle u32) -> u64               cancel an operation in flight
//	in_flight() -> u32                      operations not yet done (for leak checks)
//	idle()                                  the host has nothing for the module now: it
//	                                        collects its garbage (wasm/memory.go); call it
//	                                        after a warm-up and after a while without calls
//
// # Memory
//
// Input buffers come from alloc and are consumed by the start or resume call
// they are passed to (do not reuse or free them afterwards). Every u64 result
// packs the reply's address and length as ptr<<32 | len; the reply is JSON
// abi.Step, owned by the module and valid only until the next call: copy it
// at once. A pointer that alloc did not return, or a length beyond its
// buffer, is answered with an error step of code "abi"; nothing is read.
//
// # Steps
//
// Every reply is {"v":1,"handle":N,"step":"http"|"done"|"batch"|"pending",...}:
//
//	{"v":1,"handle":3,"step":"http","request":{"delayMs":0,"method":"POST",
//	  "url":"https://api.deepseek.com/v1/tools/search","headers":[["Authorization","Bearer …"],…],
//	  "body":"{…}","timeoutMs":30000,"maxBytes":5242880,"redirect":"manual","attempt":1}}
//	{"v":1,"handle":3,"step":"done","result":{…}}
//	{"v":1,"handle":3,"step":"done","error":{"code":"api","message":"DeepSeek Search failed: HTTP 402: Insufficient Balance","status":402}}
//
// On "http", wait delayMs (a cancel during the wait ends the operation: call
// cancel), send the request without following redirects, stop reading the
// body past maxBytes (reply "too_large"), and bound the whole attempt by
// timeoutMs (reply "timeout"). Then call resume with {"v":1,"kind":
// "response","status":200,"headers":{"retry-after":"2"}} and the body, or
// with kind "network" (and a "message"), "timeout", "too_large" or
// "cancelled". A handle is released when its "done" step is returned.
//
// A tool call of several queries or pages ("opencode.tool" with "queries"
// or "urls") runs as a batch of parts, one operation each:
//
//	{"v":1,"handle":2147483649,"step":"batch","steps":[{"v":1,"handle":4,"step":"http",…},{"v":1,"handle":5,"step":"http",…}]}
//
// Drive every part at once, each by its own handle, as above. Resuming or
// cancelling a part that ends returns {"step":"pending"} (other parts still
// run), another "batch" of parts that could not start before (the engine's
// maxCalls was reached), or, for the part that ends last, the call's "done"
// step under the batch's handle. Cancel a batch by cancelling its parts.
//
// Error codes are core's (invalid_input, url_refused, missing_key, api,
// redirect, timeout, network, too_large, malformed, no_content, cancelled,
// internal) plus "abi" for a malformed call. Hosts branch on codes, never on
// message text.
//
// # Kinds
//
// The "kind" of abi.Start selects the operation; see the Kind constants of
// package abi for each one's input and result: "search", "fetch",
// "opencode.plan" (the registration plan for a host, done at once),
// "opencode.websearch" (a 2.x provider call: result {"results": [{url,
// title, content, time: {published?}}]}) and "opencode.tool" (a tool call:
// result {content, title, metadata}). "options" carries the plugin options as the
// user wrote them; "apiKey" the key the host read from the variable the plan
// names (plan.keyEnv), at call time.
package main
