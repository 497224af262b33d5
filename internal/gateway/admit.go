package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/semaphore"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/rpcid"
)

// Admission before parsing: a POST to /mcp takes its member's in-flight
// slot, then room for its body among every body the replica holds, and
// only then is its body read. A member cannot make the replica hold more
// than their in-flight limit's worth of bodies, nor all members together
// more than ServerOptions.BodyBudget.
const (
	// maxBody is the largest body read: the SDK's limit (4 MiB), which
	// answers 413 beyond it.
	maxBody = sdk.DefaultMaxRequestBodyBytes
	// smallBody is the largest body read for a member already at their
	// in-flight limit, so that a tool call gets the "busy" sentence as
	// its result, as before the slot was taken ahead of reading. A
	// larger body, or one of unknown length, gets HTTP 429 unread.
	smallBody = 64 << 10
	// defaultBodyBudget is ServerOptions.BodyBudget's default.
	defaultBodyBudget = 16 << 20
)

// bodyWait is how long a request waits for room for its body before it
// gets HTTP 503 (a variable for the tests).
var bodyWait = 10 * time.Second

// codeBusy is the JSON-RPC error code of a request refused before its
// body was read (JSON-RPC leaves -32000 to -32099 to servers).
const codeBusy = -32000

// request is one POST to /mcp as guard passed it on. The SDK runs the call
// it carries in a context that keeps the values of the request's context
// but not its cancellation (before protocol 2026-07-28), so around finds
// the request there.
type request struct {
	// gone ends when the client disconnects, or once it is answered.
	gone context.Context
	// busy is the refusal of the member's in-flight slot, when the body
	// was small enough to read anyway: the request's calls get it as
	// their result.
	busy Decision

	// claimed is set once a call has taken the request's slot; a batch's
	// other calls take slots of their own.
	claimed atomic.Bool
	// refs counts guard and the call that hold the slot; the last to let
	// go releases it.
	refs    atomic.Int32
	release func()
}

type requestKey struct{}

// requestOf returns the request ctx's call came in, or nil.
func requestOf(ctx context.Context) *request {
	rq, _ := ctx.Value(requestKey{}).(*request)
	return rq
}

// claim gives the request's in-flight slot to its first call, and reports
// whether it did.
func (rq *request) claim() bool {
	if rq == nil || !rq.claimed.CompareAndSwap(false, true) {
		return false
	}
	for {
		n := rq.refs.Load()
		if n <= 0 {
			return false // guard let go already: the slot is gone
		}
		if rq.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// drop lets go of the request's slot once.
func (rq *request) drop() {
	if rq.refs.Add(-1) == 0 && rq.release != nil {
		rq.release()
	}
}

// admit takes, for a POST to /mcp, member's in-flight slot, then room for
// the body, then reads the body. It answers the refusals itself and
// returns nil then; otherwise the caller must call done once the request
// is answered.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, member string) (rq *request, body []byte, done func()) {
	size := r.ContentLength
	if size > maxBody {
		http.Error(w, fmt.Sprintf("request body exceeds %d bytes", maxBody), http.StatusRequestEntityTooLarge)
		return nil, nil, nil
	}
	rq = &request{gone: r.Context()}
	rq.refs.Store(1)
	release, d := s.limiter.takeSlot(r.Context(), member)
	if !d.OK() {
		if size < 0 || size > smallBody {
			s.refuse(w, http.StatusTooManyRequests, d.Text())
			return nil, nil, nil
		}
		rq.busy = d
	}
	rq.release = release
	weight := size
	if weight < 0 {
		weight = maxBody // unknown length: room for the largest
	}
	wctx, cancel := context.WithTimeout(r.Context(), bodyWait)
	err := s.bodies.acquire(wctx, weight)
	cancel()
	if err != nil {
		rq.drop()
		if r.Context().Err() == nil {
			s.refuse(w, http.StatusServiceUnavailable, fmt.Sprintf("busy: the gateway is at its limit of %s of requests at once; retry in a few seconds", mib(s.bodies.size)))
		}
		return nil, nil, nil
	}
	done = func() {
		s.bodies.release(weight)
		rq.drop()
	}
	body, err = readBody(r.Body, size)
	if err != nil {
		done()
		if errors.Is(err, errBodyTooLarge) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", maxBody), http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "failed to read body", http.StatusBadRequest)
		}
		return nil, nil, nil
	}
	return rq, body, done
}

var errBodyTooLarge = errors.New("body too large")

// readBody reads a body of size bytes (-1: unknown, up to maxBody).
func readBody(r io.Reader, size int64) ([]byte, error) {
	if size >= 0 {
		b := make([]byte, size)
		_, err := io.ReadFull(r, b)
		return b, err
	}
	b, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err == nil && len(b) > maxBody {
		err = errBodyTooLarge
	}
	return b, err
}

// checkIDs answers 400 to a request whose call (or one of a batch's
// calls) has an id the SDK would answer under another id, with the stdio
// server's error, and reports whether it did.
func (s *Server) checkIDs(w http.ResponseWriter, body []byte) bool {
	msgs := []json.RawMessage{body}
	if b := bytes.TrimLeft(body, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		if json.Unmarshal(b, &msgs) != nil {
			return false // the SDK answers what is not JSON-RPC
		}
	}
	for _, m := range msgs {
		if id, text := rpcid.Refusal(m); text != "" {
			s.metrics.Calls.Inc("", string(OutcomeInvalid))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(rpcid.ErrorLine(id, rpcid.CodeInvalidRequest, text))
			return true
		}
	}
	return false
}

// heldBody hands a body read by admit to the SDK, and lets go of it once
// read: the SDK keeps a copy of its own.
type heldBody struct {
	b []byte
}

func (h *heldBody) Read(p []byte) (int, error) {
	if len(h.b) == 0 {
		h.b = nil
		return 0, io.EOF
	}
	n := copy(p, h.b)
	h.b = h.b[n:]
	return n, nil
}

func (h *heldBody) Close() error {
	h.b = nil
	return nil
}

// refuse answers a request refused before its body was read: status, a
// Retry-After and a JSON-RPC error with msg (its id is unknown: null).
func (s *Server) refuse(w http.ResponseWriter, status int, msg string) {
	s.metrics.Calls.Inc("", string(OutcomeBusy))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(status)
	_, _ = w.Write(rpcid.ErrorLine(nil, codeBusy, msg))
}

// bodyGate bounds the bytes of the request bodies a replica holds at once,
// from before they are read until they are answered. Requests wait for
// room in the order they came.
type bodyGate struct {
	sem  *semaphore.Weighted
	size int64

	mu         sync.Mutex
	held, peak int64
	waiting    int
}

func newBodyGate(size int64) *bodyGate {
	return &bodyGate{sem: semaphore.NewWeighted(size), size: size}
}

// acquire waits for room for n bytes (at most the gate's size) until ctx
// ends.
func (g *bodyGate) acquire(ctx context.Context, n int64) error {
	n = min(n, g.size)
	g.mu.Lock()
	g.waiting++
	g.mu.Unlock()
	err := g.sem.Acquire(ctx, n)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.waiting--
	if err != nil {
		return err
	}
	g.held += n
	g.peak = max(g.peak, g.held)
	return nil
}

func (g *bodyGate) release(n int64) {
	n = min(n, g.size)
	g.mu.Lock()
	g.held -= n
	g.mu.Unlock()
	g.sem.Release(n)
}

// mib prints n bytes in MiB, as a whole number when it is one.
func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
