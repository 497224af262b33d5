package tests

import (
	"context"
	"net/http"
	"sync"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/httpdriver"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
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

	// The wait is recorded, not slept: the driver does the rest as the CLI does.
	req := r.Core()
	req.DelayMs = 0
	return abi.FromReply(httpdriver.Perform(ctx, b.Client, &req))
}
