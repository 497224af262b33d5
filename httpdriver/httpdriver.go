// Package httpdriver runs the core's steps with net/http: it is the host side
// of the sans-IO loop for native programs (the CLI) and for the tests that
// drive the WebAssembly module.
package httpdriver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// NewClient returns an http.Client that never follows redirects and honours
// HTTPS_PROXY / NO_PROXY from the environment.
func NewClient() *http.Client {
	return &http.Client{
		Transport: http.DefaultTransport,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// Perform executes one request: it waits DelayMs (ctx cancels the wait),
// bounds the whole attempt including the body by TimeoutMs, reads at most
// MaxBytes of body, and never follows redirects (client must not; use
// [NewClient]). It describes how the attempt ended as a core.Reply.
func Perform(ctx context.Context, client *http.Client, r *core.Request) core.Reply {
	if r.DelayMs > 0 {
		t := time.NewTimer(time.Duration(r.DelayMs) * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return core.Reply{Kind: core.ReplyCancelled}
		case <-t.C:
		}
	}
	if ctx.Err() != nil {
		return core.Reply{Kind: core.ReplyCancelled}
	}
	actx, cancel := context.WithTimeout(ctx, time.Duration(r.TimeoutMs)*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, r.Method, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return core.Reply{Kind: core.ReplyNetwork, Message: err.Error()}
	}
	for _, h := range r.Header {
		req.Header.Set(h.Name, h.Value)
	}
	ended := func(err error) core.Reply {
		switch {
		case ctx.Err() != nil:
			return core.Reply{Kind: core.ReplyCancelled}
		case errors.Is(actx.Err(), context.DeadlineExceeded):
			return core.Reply{Kind: core.ReplyTimeout}
		}
		return core.Reply{Kind: core.ReplyNetwork, Message: scrub(err)}
	}
	resp, err := client.Do(req)
	if err != nil {
		return ended(err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > r.MaxBytes {
		return core.Reply{Kind: core.ReplyTooLarge}
	}
	body, err := readBody(resp, r.MaxBytes)
	if err != nil {
		return ended(err)
	}
	if int64(len(body)) > r.MaxBytes {
		return core.Reply{Kind: core.ReplyTooLarge}
	}
	reply := core.Reply{Kind: core.ReplyResponse, Status: resp.StatusCode, Body: body}
	for name, values := range resp.Header {
		if len(values) > 0 {
			reply.Header = append(reply.Header, core.HeaderField{Name: strings.ToLower(name), Value: values[0]})
		}
	}
	return reply
}

// readBody reads at most maxBytes+1 bytes of resp's body. A body whose
// length is announced is read into one buffer of that size, where
// io.ReadAll would grow one by doubling and leave about as much again
// behind for the collector: under load the garbage, not the bodies, is
// most of the memory.
func readBody(resp *http.Response, maxBytes int64) ([]byte, error) {
	if n := resp.ContentLength; n >= 0 && n <= maxBytes {
		buf := make([]byte, n+1) // one byte more shows a body longer than announced
		m, err := io.ReadFull(resp.Body, buf)
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF) && int64(m) == n:
			return buf[:m], nil
		case err == nil:
			// Longer than announced: read on, up to the cap.
			rest, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1-int64(m)))
			return append(buf[:m], rest...), err
		case errors.Is(err, io.EOF) && n == 0:
			return buf[:0], nil
		default:
			return nil, err
		}
	}
	var b bytes.Buffer
	_, err := b.ReadFrom(io.LimitReader(resp.Body, maxBytes+1))
	return b.Bytes(), err
}

// scrub keeps a transport error's message without the request URL that
// net/http prefixes it with.
func scrub(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner.Error()
		}
	}
	return err.Error()
}

// Run drives op to its end on eng, performing every request with client.
// Cancelling ctx cancels the operation and returns its cancelled step.
// While the engine is at its limits (core.CodeBusy), the call waits for
// room as [Driver] does; use a Driver to also share identical calls.
func Run(ctx context.Context, client *http.Client, eng *core.Engine, op core.Operation) core.Step {
	return (&Driver{Engine: eng, Client: client}).run(ctx, op, nil)
}
