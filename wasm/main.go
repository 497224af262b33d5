//go:build wasip1

package main

import (
	"errors"
	"strconv"
	"unsafe"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/opencode"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tool"
)

// main never runs in a reactor; _initialize sets up the runtime.
func main() {}

// maxAlloc bounds one host buffer: a 5 MiB body plus generous slack.
const maxAlloc = 64 << 20

var (
	engine = core.NewEngine(newEnv())
	// buffers keeps host input buffers alive (Go's GC does not move them)
	// until start or resume consumes them or the host frees them.
	buffers = map[uint32][]byte{}
	// out is the last reply; it stays valid until the next call, which
	// reuses its memory (as resultFor reuses scratch's) unless it is large.
	out     []byte
	scratch []byte
	// kinds remembers which ABI kind started each handle, to render its
	// result.
	kinds = map[core.Handle]string{}
	// configs caches resolved options by their JSON text.
	configs = map[string]resolved{}
)

type resolved struct {
	cfg      *core.Config
	warnings []string
	err      error
}

//go:wasmexport abi_version
func abiVersion() uint32 { return abi.Version }

//go:wasmexport in_flight
func inFlight() uint32 { return uint32(engine.InFlight()) }

//go:wasmexport alloc
func alloc(size uint32) (ptr uint32) {
	defer func() {
		if recover() != nil {
			ptr = 0
		}
	}()
	if size > maxAlloc {
		return 0
	}
	b := spareBuffer(int(max(size, 1)))
	ptr = uint32(uintptr(unsafe.Pointer(&b[0])))
	buffers[ptr] = b
	return ptr
}

//go:wasmexport free
func free(ptr uint32) { delete(buffers, ptr) }

// Input buffers are used again: a new one (made, zeroed, later collected)
// for the envelope and the body of every call was about a twentieth of a
// search step. take notes the buffers a call consumes in taken, and emit,
// once the reply is written to out, hands them to spare for alloc. Nothing
// the module keeps after a call views its input: decoded strings are
// copies, abi.DecodeCoreReply copies its header views, and the Messages
// backend copies the blocks of a paused turn (core.Reply states the rule;
// TestSpareBuffers and TestPausedTurnKeepsItsBlocks check it).
var taken, spare [4][]byte

// spareBuffer returns a buffer of n bytes, a spare one when one is large
// enough. Its contents are whatever they were: the host writes the bytes
// it passes, and take cuts the buffer to them.
func spareBuffer(n int) []byte {
	for i, b := range spare {
		if cap(b) >= n {
			spare[i] = nil
			return b[:n]
		}
	}
	return make([]byte, n)
}

// recycle moves the buffers in taken to spare, up to reuseMax bytes each.
func recycle() {
	for k, b := range taken {
		for i := range spare {
			if spare[i] == nil && cap(b) <= reuseMax {
				spare[i] = b
				break
			}
		}
		taken[k] = nil
	}
}

//go:wasmexport start
func start(ptr, size uint32) (packed uint64) {
	defer yieldToCollector()
	defer guard(&packed)
	in, err := take(ptr, size)
	if err != nil {
		return emit(abiError(0, err.Error()))
	}
	s, err := abi.DecodeStart(in)
	if err != nil {
		return emit(abiError(0, "start: invalid JSON: "+err.Error()))
	}
	if s.V != abi.Version {
		return emit(abiError(0, "start: unsupported ABI version "+strconv.Itoa(s.V)+" (this module speaks "+strconv.Itoa(abi.Version)+")"))
	}
	return emit(startOp(&s))
}

func startOp(s *abi.Start) abi.Step {
	r := resolve(s.Options)
	if r.err != nil {
		return done(0, nil, &abi.Error{Code: string(core.CodeInvalidInput), Message: "deepseek-web-retrieval: " + r.err.Error()})
	}
	key := r.cfg.ResolveKey(func(string) string { return s.APIKey })
	var op core.Operation
	switch s.Kind {
	case abi.KindPlan:
		var in abi.PlanInput
		if err := decodeInput(s.Input, &in); err != nil {
			return abiError(0, err.Error())
		}
		plan, err := opencode.NewPlan(in.Host, r.cfg, r.warnings)
		if err != nil {
			return done(0, nil, &abi.Error{Code: string(core.CodeInvalidInput), Message: err.Error()})
		}
		return done(0, plan.AppendJSON(nil), nil)
	case abi.KindSearch:
		var in abi.SearchInput
		if err := decodeInput(s.Input, &in); err != nil {
			return abiError(0, err.Error())
		}
		op = core.Operation{Kind: core.KindSearch, Query: in.Query, OriQuestion: in.OriQuestion}
	case abi.KindFetch:
		var in abi.FetchInput
		if err := decodeInput(s.Input, &in); err != nil {
			return abiError(0, err.Error())
		}
		op = core.Operation{Kind: core.KindFetch, URL: in.URL, Format: in.Format, Offset: in.Offset}
	case abi.KindWebsearch:
		var in abi.WebsearchInput
		if err := decodeInput(s.Input, &in); err != nil {
			return abiError(0, err.Error())
		}
		op = core.Operation{Kind: core.KindSearch, Query: in.Query}
	case abi.KindTool:
		var in abi.ToolInput
		if err := decodeInput(s.Input, &in); err != nil {
			return abiError(0, err.Error())
		}
		ops, err := opencode.ToolCall(in.Tool, in.Args, r.cfg)
		if err != nil {
			return done(0, nil, &abi.Error{Code: string(core.CodeInvalidInput), Message: err.Error()})
		}
		for i := range ops {
			ops[i].APIKey = key
		}
		if len(ops) > 1 {
			return startBatch(ops)
		}
		op = ops[0]
	default:
		return abiError(0, "start: unknown kind "+strconv.Quote(s.Kind))
	}
	if op.Config == nil {
		op.Config = r.cfg
	}
	op.APIKey = key
	step := engine.Start(op)
	if !step.Done {
		kinds[step.Handle] = s.Kind
	}
	return render(s.Kind, step)
}

//go:wasmexport resume
func resume(handle, metaPtr, metaSize, bodyPtr, bodySize uint32) (packed uint64) {
	defer yieldToCollector()
	defer guard(&packed)
	meta, err := take(metaPtr, metaSize)
	if err != nil {
		return emit(abiError(handle, err.Error()))
	}
	var body []byte
	if bodyPtr != 0 || bodySize != 0 {
		if body, err = take(bodyPtr, bodySize); err != nil {
			return emit(abiError(handle, err.Error()))
		}
	}
	v, reply, err := abi.DecodeCoreReply(meta, body)
	if err != nil {
		return emit(abiError(handle, "resume: invalid JSON: "+err.Error()))
	}
	if v != abi.Version {
		return emit(abiError(handle, "resume: unsupported ABI version "+strconv.Itoa(v)+" (this module speaks "+strconv.Itoa(abi.Version)+")"))
	}
	h := core.Handle(handle)
	if b := partOf[h]; b != nil {
		return emit(b.next(h, engine.Resume(h, reply)))
	}
	kind := kinds[h]
	step := engine.Resume(h, reply)
	if step.Done {
		delete(kinds, h)
	}
	return emit(render(kind, step))
}

//go:wasmexport cancel
func cancel(handle uint32) (packed uint64) {
	defer guard(&packed)
	h := core.Handle(handle)
	if b := partOf[h]; b != nil {
		return emit(b.next(h, engine.Cancel(h)))
	}
	kind := kinds[h]
	delete(kinds, h)
	return emit(render(kind, engine.Cancel(h)))
}

// resolve parses and validates options, caching by their text.
func resolve(raw []byte) resolved {
	if r, ok := configs[string(raw)]; ok { // no copy of raw for a lookup
		return r
	}
	k := string(raw)
	o, warnings, err := core.ParseOptions(raw)
	r := resolved{err: err}
	if err == nil {
		var more []string
		r.cfg, more, r.err = core.NewConfig(o)
		r.warnings = append(warnings, more...)
	}
	if len(configs) >= 64 {
		clear(configs)
	}
	configs[k] = r
	return r
}

func decodeInput(raw []byte, v any) error {
	if len(raw) == 0 {
		return errors.New("start: missing input")
	}
	if err := abi.DecodeInput(raw, v); err != nil {
		return errors.New("start: invalid input: " + err.Error())
	}
	return nil
}

// take claims a host buffer written through alloc.
func take(ptr, size uint32) ([]byte, error) {
	b, ok := buffers[ptr]
	if !ok {
		return nil, errors.New("no buffer was allocated at " + strconv.FormatUint(uint64(ptr), 10))
	}
	delete(buffers, ptr)
	for i := range taken {
		if taken[i] == nil {
			taken[i] = b
			break
		}
	}
	if int(size) > len(b) {
		return nil, errors.New("length " + strconv.FormatUint(uint64(size), 10) + " exceeds the " + strconv.Itoa(len(b)) + "-byte buffer at " + strconv.FormatUint(uint64(ptr), 10))
	}
	return b[:size], nil
}

func render(kind string, s core.Step) abi.Step {
	h := uint32(s.Handle)
	if !s.Done {
		wire.Set(s.Request)
		return abi.Step{V: abi.Version, Handle: h, Step: abi.StepHTTP, Request: &wire}
	}
	if s.Err != nil {
		return done(h, nil, &abi.Error{Code: string(s.Err.Code), Message: s.Err.Message, Status: s.Err.Status})
	}
	b, err := resultFor(kind, s.Result)
	if err != nil {
		return done(h, nil, &abi.Error{Code: string(core.CodeInternal), Message: "deepseek-web-retrieval: encode result: " + err.Error()})
	}
	return done(h, b, nil)
}

// wire is the wire form of the request of the "http" step being emitted,
// reused from step to step (abi.Request.Set). It stays valid until emit
// has written it, which then clears it.
var wire = abi.Request{Headers: make([][2]string, 0, 8)}

// resultFor writes the result of an operation of kind as JSON, into
// scratch's memory.
func resultFor(kind string, r *core.Result) ([]byte, error) {
	b, err := reuse(scratch), error(nil)
	switch {
	case kind == abi.KindWebsearch:
		b = opencode.AppendWebsearchJSON(b, r.Search)
	case kind == abi.KindTool:
		res := tool.OutputOf(r)
		b = res.AppendJSON(b)
	case r.Fetch != nil:
		b = r.Fetch.AppendJSON(b)
	default:
		b, err = r.Search.AppendJSON(b)
	}
	if cap(b) <= reuseMax {
		scratch = b
	}
	return b, err
}

// reuseMax is the largest buffer kept for the next call.
const reuseMax = 256 << 10

// reuse returns b emptied, or nil when it is too large to keep.
func reuse(b []byte) []byte {
	if cap(b) > reuseMax {
		return nil
	}
	return b[:0]
}

// done is a done step with a result (JSON text) or an error.
func done(h uint32, result []byte, e *abi.Error) abi.Step {
	return abi.Step{V: abi.Version, Handle: h, Step: abi.StepDone, Error: e, Result: result}
}

func abiError(h uint32, msg string) abi.Step {
	return done(h, nil, &abi.Error{Code: abi.CodeABI, Message: "deepseek-web-retrieval ABI: " + msg})
}

// emit stores the reply and returns its packed address and length.
func emit(s abi.Step) uint64 {
	out = s.AppendJSON(reuse(out))
	recycle()
	if s.Request == &wire { // keep neither the body nor the headers (one holds the API key)
		clear(wire.Headers)
		wire.Headers, wire.Body, wire.URL = wire.Headers[:0], "", ""
	}
	for _, p := range s.Steps { // a batch's first requests, made for it
		clear(p.Request.Headers)
	}
	return uint64(uintptr(unsafe.Pointer(&out[0])))<<32 | uint64(len(out))
}

// guard turns a panic into an error step so no trap reaches the host. The
// cache is dropped: a panic may have left it half-updated.
func guard(packed *uint64) {
	if v := recover(); v != nil {
		engine.DropCache()
		taken = [len(taken)][]byte{} // not used again after a panic
		*packed = emit(done(0, nil, &abi.Error{Code: string(core.CodeInternal), Message: "deepseek-web-retrieval: internal error: " + panicText(v)}))
	}
}
