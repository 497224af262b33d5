package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes is the longest line the stdio transport accepts (16 MiB, the
// SDK's default); a longer one is answered with a JSON-RPC error and skipped.
const MaxLineBytes = sdk.DefaultMaxLineLength

// JSON-RPC error codes the transport answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// StdioTransport is newline-delimited JSON-RPC over r and w that survives bad
// input. The SDK's own stdio transport ends the session at the first line
// that is not a JSON-RPC message; this one answers such a line with a
// JSON-RPC error (parse error, invalid request) and keeps serving, as the
// issue requires of "malformed requests". Batches (JSON arrays) are answered
// the same way: no MCP host sends them, and 2025-06-18 removed them.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
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
	return &quietCancel{Connection: conn, inFlight: map[string]bool{}}, nil
}

// quietCancel drops the response to a request the client cancelled: the
// spec says the receiver of notifications/cancelled should not answer it,
// and clients log an answer to an id they forgot ("unknown message ID").
// The SDK answers every call, so the transport holds that answer back. Only
// calls still in flight can be cancelled (MCP forbids reusing an id).
type quietCancel struct {
	sdk.Connection
	mu       sync.Mutex
	inFlight map[string]bool // call ids (idKey) → cancelled
}

func (c *quietCancel) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok {
		return msg, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.IsCall() {
		c.inFlight[idKey(req.ID)] = false
	} else if req.Method == "notifications/cancelled" {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				if _, ok := c.inFlight[idKey(id)]; ok {
					c.inFlight[idKey(id)] = true
				}
			}
		}
	}
	return msg, nil
}

func (c *quietCancel) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		drop := c.inFlight[idKey(resp.ID)]
		delete(c.inFlight, idKey(resp.ID))
		c.mu.Unlock()
		if drop {
			return nil
		}
	}
	return c.Connection.Write(ctx, msg)
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
			if code, msg := check(t, tooLong); code != 0 {
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

// check says why line is not one JSON-RPC message, or returns code 0.
func check(line []byte, tooLong bool) (int, string) {
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
	return 0, ""
}

// errorResponse is the JSON-RPC error answering line, with its id when it
// has a usable one.
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
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return append(b, '\n')
}
