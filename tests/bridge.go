package tests

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/wasm/abi"
)

// Bridge performs the HTTP requests that "http" steps ask for, with
// net/http, the way plugin/ does with fetch: no redirects followed, the
// step's timeout bounding the whole attempt (connect, headers and body), the
// body read up to the step's byte cap and no further.
//
// It does not wait a step's delayMs: it records it (see [Bridge.Delays]), so
// tests never sleep through a real backoff. A host that serves users must
// wait it, and treat a cancel during the wait as a cancel.
type Bridge struct {
	// Client performs the requests. NewBridge's client never follows
	// redirects.
	Client *http.Client

	mu     sync.Mutex
	delays []int64
}

// NewBridge returns a bridge with its own transport.
func NewBridge() *Bridge {
	return &Bridge{Client: &http.Client{
		Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}}
}

// Delays returns every delayMs requested so far, in order.
func (b *Bridge) Delays() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int64(nil), b.delays...)
}

// Close releases idle connections.
func (b *Bridge) Close() { b.Client.CloseIdleConnections() }

// Do performs r and returns the reply metadata for resume and the response
// body (nil unless the kind is "response"). When ctx is cancelled (the host
// cancelled the operation) the reply is "cancelled"; the host then calls
// cancel rather than resume.
func (b *Bridge) Do(ctx context.Context, r *abi.Request) (abi.Reply, []byte) {
	b.mu.Lock()
	b.delays = append(b.delays, r.DelayMs)
	b.mu.Unlock()

	attempt, stop := context.WithTimeout(ctx, time.Duration(r.TimeoutMs)*time.Millisecond)
	defer stop()
	fail := func(err error) (abi.Reply, []byte) {
		switch {
		case ctx.Err() != nil:
			return abi.Reply{V: abi.Version, Kind: "cancelled"}, nil
		case errors.Is(attempt.Err(), context.DeadlineExceeded):
			return abi.Reply{V: abi.Version, Kind: "timeout"}, nil
		}
		return abi.Reply{V: abi.Version, Kind: "network", Message: err.Error()}, nil
	}
	req, err := http.NewRequestWithContext(attempt, r.Method, r.URL, strings.NewReader(r.Body))
	if err != nil {
		return fail(err)
	}
	for _, h := range r.Headers {
		req.Header.Add(h[0], h[1])
	}
	resp, err := b.Client.Do(req)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, r.MaxBytes+1))
	if err != nil {
		return fail(err)
	}
	if int64(len(body)) > r.MaxBytes {
		return abi.Reply{V: abi.Version, Kind: "too_large"}, nil
	}
	rep := abi.Reply{V: abi.Version, Kind: "response", Status: resp.StatusCode, Headers: map[string]string{}}
	for name, values := range resp.Header {
		rep.Headers[strings.ToLower(name)] = strings.Join(values, ", ")
	}
	return rep, body
}
