package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/rpcid"
)

// MaxLineBytes is the longest line the stdio transport accepts (16 MiB, the
// SDK's default); a longer one is answered with a JSON-RPC error and skipped.
const MaxLineBytes = sdk.DefaultMaxLineLength

// JSON-RPC error codes the transport answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = rpcid.CodeInvalidRequest
	codeInternalError  = -32603
	// codeNotInitialized answers a call sent before initialize, as LSP's
	// ServerNotInitialized does (JSON-RPC leaves -32000 to -32099 to
	// servers).
	codeNotInitialized = -32002
)

// Defaults of the transport's backpressure (see [StdioTransport]).
const (
	// DefaultMaxPending is how many calls may be read and not yet answered.
	DefaultMaxPending = 64
	// DefaultMaxPendingBytes bounds the bytes of the lines of those calls
	// (32 MiB); one call is always let through, up to MaxLineBytes.
	DefaultMaxPendingBytes = 32 << 20
)

// StdioTransport is newline-delimited JSON-RPC over r and w that survives bad
// input. The SDK's own stdio transport ends the session at the first line
// that is not a JSON-RPC message; this one answers such a line with a
// JSON-RPC error (parse error, invalid request) and keeps serving: one
// malformed line from a host must not end every later call of the
// session. Batches (JSON arrays) are answered the same way: no MCP host
// sends them, and 2025-06-18 removed them.
//
// Ids are answered exactly as sent: a numeric id that is not a whole
// number within ±(2^53-1) (1.5, 1e30, 1.0), which the SDK would read as a
// float and answer under another number, gets an invalid-request error
// that echoes it byte for byte; a call reusing the id of one in flight gets
// an invalid-request error with a null id. A call sent before initialize is
// answered with code -32002 (not initialized).
//
// Backpressure: at most MaxPending calls (and MaxPendingBytes of their
// lines) are read and not yet answered. Beyond that the transport stops
// reading until an answer has been written, so a client that writes
// without reading its answers fills its own pipe, and the server's memory
// stays flat.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxPending is how many calls may be read and not yet answered; 0
	// means DefaultMaxPending.
	MaxPending int
	// MaxPendingBytes bounds the lines of those calls, in bytes; 0 means
	// DefaultMaxPendingBytes.
	MaxPendingBytes int64
}

// Connect implements sdk.Transport.
func (t *StdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	w := &lockedWriter{w: t.Writer}
	pr, pw := io.Pipe()
	go filterLines(t.Reader, pw, w)
	conn, err := (&sdk.IOTransport{Reader: pr, Writer: w, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	g := &gate{maxN: t.MaxPending, maxBytes: t.MaxPendingBytes}
	if g.maxN <= 0 {
		g.maxN = DefaultMaxPending
	}
	if g.maxBytes <= 0 {
		g.maxBytes = DefaultMaxPendingBytes
	}
	return &quietCancel{Connection: conn, inFlight: map[string]*pending{}, gate: g, errw: w}, nil
}

// gate counts the calls read and not yet answered, and the bytes of their
// lines.
type gate struct {
	maxN     int
	maxBytes int64
	mu       sync.Mutex
	n        int
	bytes    int64
	wake     chan struct{} // closed at the next release
}

// acquire waits until a call of size bytes fits, or ctx ends.
func (g *gate) acquire(ctx context.Context, size int64) error {
	for {
		g.mu.Lock()
		if g.n == 0 || g.n < g.maxN && g.bytes+size <= g.maxBytes {
			g.n++
			g.bytes += size
			g.mu.Unlock()
			return nil
		}
		if g.wake == nil {
			g.wake = make(chan struct{})
		}
		wake := g.wake
		g.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (g *gate) release(size int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	g.bytes -= size
	if g.wake != nil {
		close(g.wake)
		g.wake = nil
	}
}

// quietCancel drops the response to a request the client cancelled: the
// spec says the receiver of notifications/cancelled should not answer it,
// and clients log an answer to an id they forgot ("unknown message ID").
// The SDK answers every call, so the transport holds that answer back. Only
// calls still in flight can be cancelled (MCP forbids reusing an id).
//
// It is also where backpressure and duplicate ids are handled: Read holds a
// call back until the gate has room for it, Write releases the room when
// the call is answered.
type quietCancel struct {
	sdk.Connection
	gate     *gate
	errw     io.Writer // answers what the SDK must not see
	mu       sync.Mutex
	inFlight map[string]*pending // call ids (idKey)
}

// pending is a call read and not yet answered.
type pending struct {
	size      int64 // what it holds in the gate
	cancelled bool
}

func (c *quietCancel) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok {
			return msg, err
		}
		if !req.IsCall() {
			c.notification(req)
			return msg, nil
		}
		k := idKey(req.ID)
		c.mu.Lock()
		_, dup := c.inFlight[k]
		c.mu.Unlock()
		if dup {
			// The SDK would answer it with a null id too, but only after
			// taking it for the call in flight.
			if _, werr := c.errw.Write(errorLine(json.RawMessage("null"), codeInvalidRequest,
				"invalid request: the id "+clipID(req.ID)+" belongs to a call still in flight; use a new id for each call")); werr != nil {
				return nil, werr
			}
			continue
		}
		size := int64(len(req.Params) + len(req.Method) + 64)
		if err := c.gate.acquire(ctx, size); err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.inFlight[k] = &pending{size: size}
		c.mu.Unlock()
		return msg, nil
	}
}

// notification marks the call a notifications/cancelled names.
func (c *quietCancel) notification(req *jsonrpc.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.Method == "notifications/cancelled" {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				if p := c.inFlight[idKey(id)]; p != nil {
					p.cancelled = true
				}
			}
		}
	}
}

func (c *quietCancel) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.Connection.Write(ctx, msg)
	}
	c.mu.Lock()
	p := c.inFlight[idKey(resp.ID)]
	delete(c.inFlight, idKey(resp.ID))
	c.mu.Unlock()
	if p != nil {
		// Released once the answer is out (or dropped): while stdout is
		// not read, Write blocks and Read stays held back.
		defer c.gate.release(p.size)
		if p.cancelled {
			return nil
		}
	}
	if resp.Error != nil {
		resp = withCode(resp)
	}
	return c.Connection.Write(ctx, resp)
}

// withCode gives an error the SDK answers without a JSON-RPC code (code 0)
// a proper one: -32002 for a call before initialize, else internal error.
func withCode(resp *jsonrpc.Response) *jsonrpc.Response {
	var we *jsonrpc.Error
	if errors.As(resp.Error, &we) && we.Code != 0 {
		return resp
	}
	msg := resp.Error.Error()
	code := int64(codeInternalError)
	if method, ok := strings.CutPrefix(msg, "method "); ok && strings.HasSuffix(method, " is invalid during session initialization") {
		code = codeNotInitialized
		msg = "server not initialized: " + strings.TrimSuffix(method, " is invalid during session initialization") +
			" was sent before initialize; send initialize, then notifications/initialized, first"
	}
	return &jsonrpc.Response{ID: resp.ID, Error: &jsonrpc.Error{Code: code, Message: msg}}
}

// clipID prints an id for a message, at most 40 characters.
func clipID(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// idKey tells the string id "1" from the number 1.
func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// lockedWriter serialises whole messages from the SDK and from filterLines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// filterLines copies the JSON-RPC messages of in to out, one per line, and
// answers every other non-blank line on errw. It closes out at the end of
// in, which ends the session.
func filterLines(in io.Reader, out *io.PipeWriter, errw io.Writer) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if t := bytes.TrimSpace(line); len(t) > 0 || tooLong {
			if code, msg := rejectLine(t, tooLong); code != 0 {
				if _, werr := errw.Write(errorResponse(t, code, msg)); werr != nil {
					out.CloseWithError(werr)
					return
				}
			} else if _, werr := out.Write(append(t, '\n')); werr != nil {
				return // the session closed its end
			}
		}
		if err != nil {
			out.Close()
			return
		}
	}
}

// readLine returns the next line without its newline; past MaxLineBytes it
// discards the rest of the line and reports tooLong.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxLineBytes {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// rejectLine says why line is not one JSON-RPC message, or returns code 0.
func rejectLine(line []byte, tooLong bool) (int, string) {
	switch {
	case tooLong:
		return codeInvalidRequest, "invalid request: the line is longer than 16 MiB"
	case !json.Valid(line):
		return codeParseError, "parse error: the line is not JSON"
	case line[0] == '[':
		return codeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message per line"
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return codeInvalidRequest, "invalid request: not a JSON-RPC 2.0 request, notification or response"
	}
	if _, text := rpcid.Refusal(line); text != "" {
		return codeInvalidRequest, text
	}
	return 0, ""
}

// errorResponse is the JSON-RPC error answering line, with its id as sent
// when it has a usable one.
func errorResponse(line []byte, code int, msg string) []byte {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	id := json.RawMessage("null")
	if json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 {
		var v any
		if json.Unmarshal(probe.ID, &v) == nil {
			switch v.(type) {
			case string, float64:
				id = probe.ID
			}
		}
	}
	return errorLine(id, code, msg)
}

// errorLine is a JSON-RPC error response with id, as a line.
func errorLine(id json.RawMessage, code int, msg string) []byte {
	return rpcid.ErrorLine(id, code, msg)
}
