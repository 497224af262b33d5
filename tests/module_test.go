// Package tests drives the built WebAssembly module (wasm/, built exactly as
// the Makefile builds plugin/core.wasm) under wazero, the way the OpenCode
// plugin drives it under Node or Bun: [Module] is a Go client of the ABI in
// wasm/doc.go, and [Bridge] performs the "http" steps with net/http.
//
// The tests build the module once per run (TestMain), compile it once with a
// wazero compilation cache, and give every test a fresh instance.
package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

// Exports lists the module's ABI exports (wasm/doc.go), by their export
// names. _initialize and memory come from the Go toolchain and are not
// listed.
var Exports = []string{"abi_version", "alloc", "free", "start", "resume", "cancel", "in_flight", "idle"}

// Module is one instance of the core module. Its methods serialize calls
// (calls into one instance must not overlap) and copy every reply out of
// linear memory at once, before the next call can overwrite it.
type Module struct {
	mu  sync.Mutex
	mod api.Module
	fn  map[string]api.Function

	// Output collects what the module wrote to stdout and stderr.
	Output *SyncBuffer
}

// SyncBuffer is a bytes.Buffer safe for concurrent writes.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Instantiate makes a new instance of compiled in r, which must already have
// wasi_snapshot_preview1 instantiated. It runs _initialize, gives the module
// the host's real clocks (an HTTP-date Retry-After is judged against the
// wall clock) and the environment hosts give it (GOMEMLIMIT, wasm/doc.go),
// and captures stdout and stderr.
func Instantiate(ctx context.Context, r wazero.Runtime, compiled wazero.CompiledModule) (*Module, error) {
	out := &SyncBuffer{}
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions("_initialize").
		WithEnv("GOMEMLIMIT", "80MiB").
		WithSysWalltime().
		WithSysNanotime().
		WithStdout(out).
		WithStderr(out)
	mod, err := r.InstantiateModule(ctx, compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiate: %w", err)
	}
	m := &Module{mod: mod, fn: map[string]api.Function{}, Output: out}
	for _, name := range Exports {
		f := mod.ExportedFunction(name)
		if f == nil {
			mod.Close(ctx)
			return nil, fmt.Errorf("the module does not export %q", name)
		}
		m.fn[name] = f
	}
	return m, nil
}

// Close releases the instance.
func (m *Module) Close(ctx context.Context) error { return m.mod.Close(ctx) }

// MemorySize is the size of the instance's linear memory in bytes.
func (m *Module) MemorySize() uint32 { return m.mod.Memory().Size() }

// Call calls an export with raw parameters, serialized with every other
// call.
func (m *Module) Call(ctx context.Context, name string, params ...uint64) ([]uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.call(ctx, name, params...)
}

func (m *Module) call(ctx context.Context, name string, params ...uint64) ([]uint64, error) {
	f := m.fn[name]
	if f == nil {
		return nil, fmt.Errorf("no export %q", name)
	}
	res, err := f.Call(ctx, params...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return res, nil
}

// ABIVersion calls abi_version.
func (m *Module) ABIVersion(ctx context.Context) (uint32, error) {
	res, err := m.Call(ctx, "abi_version")
	if err != nil {
		return 0, err
	}
	return uint32(res[0]), nil
}

// InFlight calls in_flight.
func (m *Module) InFlight(ctx context.Context) (uint32, error) {
	res, err := m.Call(ctx, "in_flight")
	if err != nil {
		return 0, err
	}
	return uint32(res[0]), nil
}

// Idle calls idle: the module collects its garbage.
func (m *Module) Idle(ctx context.Context) error {
	_, err := m.Call(ctx, "idle")
	return err
}

// Alloc calls alloc and copies b into the buffer it returns. The caller
// must hold m.mu.
func (m *Module) alloc(ctx context.Context, b []byte) (uint32, error) {
	res, err := m.call(ctx, "alloc", uint64(len(b)))
	if err != nil {
		return 0, err
	}
	ptr := uint32(res[0])
	if ptr == 0 {
		return 0, fmt.Errorf("alloc(%d) refused", len(b))
	}
	if !m.mod.Memory().Write(ptr, b) {
		return 0, fmt.Errorf("alloc(%d) returned %d, outside memory", len(b), ptr)
	}
	return ptr, nil
}

// reply copies the packed (ptr<<32 | len) reply out of memory.
func (m *Module) reply(packed uint64) ([]byte, error) {
	ptr, n := uint32(packed>>32), uint32(packed)
	b, ok := m.mod.Memory().Read(ptr, n)
	if !ok {
		return nil, fmt.Errorf("reply %d+%d is outside memory", ptr, n)
	}
	return bytes.Clone(b), nil
}

// StartJSON writes the start envelope in and calls start. It returns the
// reply as raw JSON.
func (m *Module) StartJSON(ctx context.Context, in []byte) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ptr, err := m.alloc(ctx, in)
	if err != nil {
		return nil, err
	}
	res, err := m.call(ctx, "start", uint64(ptr), uint64(len(in)))
	if err != nil {
		return nil, err
	}
	return m.reply(res[0])
}

// ResumeJSON writes the reply metadata and body and calls resume. It
// returns the next step as raw JSON. A nil body is passed as (0, 0).
func (m *Module) ResumeJSON(ctx context.Context, handle uint32, meta, body []byte) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	metaPtr, err := m.alloc(ctx, meta)
	if err != nil {
		return nil, err
	}
	var bodyPtr uint32
	if body != nil {
		if bodyPtr, err = m.alloc(ctx, body); err != nil {
			return nil, err
		}
	}
	res, err := m.call(ctx, "resume", uint64(handle), uint64(metaPtr), uint64(len(meta)), uint64(bodyPtr), uint64(len(body)))
	if err != nil {
		return nil, err
	}
	return m.reply(res[0])
}

// CancelJSON calls cancel and returns the reply as raw JSON.
func (m *Module) CancelJSON(ctx context.Context, handle uint32) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	res, err := m.call(ctx, "cancel", uint64(handle))
	if err != nil {
		return nil, err
	}
	return m.reply(res[0])
}

// CallPacked calls an export whose result is a packed reply, with raw
// parameters (for deliberately malformed calls), and returns the reply.
func (m *Module) CallPacked(ctx context.Context, name string, params ...uint64) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	res, err := m.call(ctx, name, params...)
	if err != nil {
		return nil, err
	}
	return m.reply(res[0])
}

// Start starts an operation.
func (m *Module) Start(ctx context.Context, s abi.Start) (Reply, error) {
	if s.V == 0 {
		s.V = abi.Version
	}
	in, err := json.Marshal(s)
	if err != nil {
		return Reply{}, err
	}
	return decode(m.StartJSON(ctx, in))
}

// Resume hands the module the outcome of a step's request.
func (m *Module) Resume(ctx context.Context, handle uint32, r abi.Reply, body []byte) (Reply, error) {
	if r.V == 0 {
		r.V = abi.Version
	}
	meta, err := json.Marshal(r)
	if err != nil {
		return Reply{}, err
	}
	return decode(m.ResumeJSON(ctx, handle, meta, body))
}

// Cancel cancels an operation.
func (m *Module) Cancel(ctx context.Context, handle uint32) (Reply, error) {
	return decode(m.CancelJSON(ctx, handle))
}

// Reply is a decoded step and the JSON it was decoded from.
type Reply struct {
	abi.Step
	Raw []byte
}

func decode(raw []byte, err error) (Reply, error) {
	if err != nil {
		return Reply{}, err
	}
	r := Reply{Raw: raw}
	if err := json.Unmarshal(raw, &r.Step); err != nil {
		return r, fmt.Errorf("decode step %s: %w", raw, err)
	}
	return r, nil
}

// MaxSteps bounds the steps [Run] takes for one operation: at most 6
// attempts (maxRetries 5) can happen, so more means the module loops. A
// batch may take it for each of its parts.
const MaxSteps = 32

// Run starts an operation and drives it to its "done" step, performing each
// "http" step with b. It returns every reply in order; the last is "done".
// A "batch" step's parts are driven in turn, one request each, as a host
// drives them at once.
func Run(ctx context.Context, m *Module, b *Bridge, s abi.Start) ([]Reply, error) {
	r, err := m.Start(ctx, s)
	if err != nil {
		return nil, err
	}
	steps := []Reply{r}
	limit := MaxSteps
	var queue []abi.Step // the parts' steps that ask for a request
	switch r.Step.Step {
	case abi.StepHTTP:
		queue = []abi.Step{r.Step}
	case abi.StepBatch:
		queue, limit = r.Steps, MaxSteps*core.MaxBatchURLs
	}
	for len(queue) > 0 {
		part := queue[0]
		queue = queue[1:]
		if len(steps) > limit {
			m.Cancel(ctx, part.Handle)
			return steps, fmt.Errorf("the operation took more than %d steps; last: %s", limit, steps[len(steps)-1].Raw)
		}
		rep, body := b.Do(ctx, part.Request)
		if r, err = m.Resume(ctx, part.Handle, rep, body); err != nil {
			return steps, err
		}
		steps = append(steps, r)
		switch r.Step.Step {
		case abi.StepHTTP:
			queue = append(queue, r.Step)
		case abi.StepBatch:
			queue = append(queue, r.Steps...)
		case abi.StepPending, abi.StepDone:
		default:
			return steps, fmt.Errorf("unexpected step %q: %s", r.Step.Step, r.Raw)
		}
	}
	if r.Step.Step != abi.StepDone {
		return steps, fmt.Errorf("unexpected step %q: %s", r.Step.Step, r.Raw)
	}
	return steps, nil
}
