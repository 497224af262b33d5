// Package abi holds the JSON envelopes that cross the WebAssembly boundary
// between the module in wasm/ and its hosts (the JavaScript shim in plugin/,
// the Go tests in tests/): the operation kinds, their inputs, the steps, and
// their codec. The results a step carries are package tool's and package
// opencode's. wasm/doc.go describes the exports that carry them.
//
// Fields are only ever added (with omitempty), never renamed; Version changes
// only for an incompatible change.
package abi

import (
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// Version is the ABI version: the abi_version export returns it and every
// envelope carries it as "v".
const Version = 1

// Operation kinds accepted by the start export, with the type of their
// result (package tool or package opencode).
const (
	KindSearch    = "search"             // input: SearchInput; result: core.SearchResult
	KindFetch     = "fetch"              // input: FetchInput; result: core.FetchResult
	KindPlan      = "opencode.plan"      // input: PlanInput; result: opencode.Plan (done at once)
	KindWebsearch = "opencode.websearch" // input: WebsearchInput; result: opencode.WebsearchResult
	KindTool      = "opencode.tool"      // input: ToolInput; result: tool.Output
)

// Start is the envelope passed to the start export. Options and Input hold
// JSON text; Start marshals and unmarshals with encoding/json as if they
// were json.RawMessage.
type Start struct {
	V    int    `json:"v"`
	Kind string `json:"kind"`
	// Options is the plugin's options object as the user wrote it.
	Options []byte `json:"options,omitempty"`
	// APIKey is the key the host resolved from the environment variable the
	// plan named; "" when unset.
	APIKey string `json:"apiKey,omitempty"`
	// Input is the kind's input object.
	Input []byte `json:"input,omitempty"`
}

// SearchInput is the input of KindSearch.
type SearchInput struct {
	Query       string `json:"query"`
	OriQuestion string `json:"oriQuestion,omitempty"`
}

// FetchInput is the input of KindFetch.
type FetchInput struct {
	URL    string `json:"url"`
	Format string `json:"format,omitempty"`
	// Offset is where the part to return starts, in code points (0: the
	// start).
	Offset int `json:"offset,omitempty"`
}

// PlanInput is the input of KindPlan.
type PlanInput struct {
	// Host is "opencode2" or "opencode1".
	Host string `json:"host"`
}

// WebsearchInput is the input of KindWebsearch: what OpenCode 2.x hands a
// websearch provider.
type WebsearchInput struct {
	Query string `json:"query"`
}

// ToolInput is the input of KindTool. Args holds JSON text; ToolInput
// marshals and unmarshals with encoding/json as if it were json.RawMessage.
type ToolInput struct {
	// Tool is the tool's name, e.g. "deepseek_fetch".
	Tool string `json:"tool"`
	// Args is the tool input the model wrote, unvalidated.
	Args []byte `json:"args"`
}

// Reply is the metadata passed to the resume export; the response body
// travels beside it as raw bytes.
type Reply struct {
	V int `json:"v"`
	// Kind is "response", "network", "timeout", "too_large" or "cancelled".
	Kind   string `json:"kind"`
	Status int    `json:"status,omitempty"`
	// Headers holds response headers; names are matched case-insensitively.
	Headers map[string]string `json:"headers,omitempty"`
	// Message describes a network failure.
	Message string `json:"message,omitempty"`
}

// Step is what start, resume and cancel return. Result holds JSON text;
// Step marshals and unmarshals with encoding/json as if it were
// json.RawMessage.
type Step struct {
	V      int    `json:"v"`
	Handle uint32 `json:"handle,omitempty"`
	// Step is "http" (perform Request, then resume), "done", "batch" or
	// "pending".
	Step    string   `json:"step"`
	Request *Request `json:"request,omitempty"`
	Result  []byte   `json:"result,omitempty"`
	Error   *Error   `json:"error,omitempty"`
	// Warnings are option warnings the host should show the user.
	Warnings []string `json:"warnings,omitempty"`
	// Steps are the "http" steps of a "batch" step's parts.
	Steps []Step `json:"steps,omitempty"`
}

// Step names. A tool call of several queries or pages runs as a batch of
// parts, one operation each: its "batch" step lists the "http" steps of
// the parts that could start, which the host drives at once, each by its
// own handle. Resuming a part that ends returns "pending" (the batch goes
// on), another "batch" (parts that could not start before now can), or,
// for the part that ends last, the batch's "done" step under the batch's
// handle.
const (
	StepHTTP    = "http"
	StepDone    = "done"
	StepBatch   = "batch"
	StepPending = "pending"
)

// Request is an HTTP attempt for the host to perform.
type Request struct {
	// DelayMs is the wait before sending, in milliseconds.
	DelayMs int64  `json:"delayMs"`
	Method  string `json:"method"`
	URL     string `json:"url"`
	// Headers in the order to send them.
	Headers [][2]string `json:"headers"`
	// Body is the request body (UTF-8 JSON text).
	Body string `json:"body"`
	// TimeoutMs bounds the attempt, body included.
	TimeoutMs int64 `json:"timeoutMs"`
	// MaxBytes is the body cap; a larger body is reported as "too_large".
	MaxBytes int64 `json:"maxBytes"`
	// Redirect is always "manual": a 3xx is reported, never followed.
	Redirect string `json:"redirect"`
	Attempt  int    `json:"attempt"`
}

// Error is a failed operation, or a malformed call.
type Error struct {
	// Code is one of core's codes, or "abi" for a malformed call.
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status,omitempty"`
}

// CodeABI marks a malformed call into the module: bad pointer or length,
// invalid JSON, unknown kind or version.
const CodeABI = "abi"

// Set makes w the wire form of r, reusing w's header list. w.Body views
// r.Body rather than copying it, so w is valid while r.Body is unchanged:
// the module writes one request per "http" step this way, without the
// three allocations a new Request, header list and body copy cost.
func (w *Request) Set(r *core.Request) {
	w.DelayMs, w.Method, w.URL, w.Redirect = r.DelayMs, r.Method, r.URL, "manual"
	w.TimeoutMs, w.MaxBytes, w.Attempt = r.TimeoutMs, r.MaxBytes, r.Attempt
	w.Body = stringView(r.Body)
	w.Headers = w.Headers[:0]
	for _, f := range r.Header {
		w.Headers = append(w.Headers, [2]string{f.Name, f.Value})
	}
}

// Core converts a wire request back to the core's form (for hosts written
// in Go that perform it with package httpdriver).
func (r *Request) Core() core.Request {
	req := core.Request{
		DelayMs: r.DelayMs, Method: r.Method, URL: r.URL, Body: []byte(r.Body),
		TimeoutMs: r.TimeoutMs, MaxBytes: r.MaxBytes, Attempt: r.Attempt,
	}
	for _, h := range r.Headers {
		req.Header = append(req.Header, core.HeaderField{Name: h[0], Value: h[1]})
	}
	return req
}

// Core converts reply metadata and its body to the core's form.
func (r Reply) Core(body []byte) core.Reply {
	reply := core.Reply{Kind: core.ReplyKind(r.Kind), Status: r.Status, Body: body, Message: r.Message}
	for name, value := range r.Headers {
		reply.Header = append(reply.Header, core.HeaderField{Name: name, Value: value})
	}
	return reply
}

// FromReply converts a core reply to the metadata and body resume takes.
func FromReply(r core.Reply) (Reply, []byte) {
	rep := Reply{V: Version, Kind: string(r.Kind), Status: r.Status, Message: r.Message}
	if len(r.Header) > 0 {
		rep.Headers = make(map[string]string, len(r.Header))
		for _, h := range r.Header {
			rep.Headers[strings.ToLower(h.Name)] = h.Value
		}
	}
	return rep, r.Body
}
