package gateway

import (
	"context"
	"net"
	"time"
)

// BodyGate reports, for the tests, the bytes of request bodies the server
// holds now, the most it held at once, and the requests waiting for room.
func (s *Server) BodyGate() (held, peak int64, waiting int) {
	s.bodies.mu.Lock()
	defer s.bodies.mu.Unlock()
	return s.bodies.held, s.bodies.peak, s.bodies.waiting
}

// SetBodyWait sets how long a request waits for room for its body, until
// the returned function restores it.
func SetBodyWait(d time.Duration) (restore func()) {
	old := bodyWait
	bodyWait = d
	return func() { bodyWait = old }
}

// SetRefusalLogEvery sets the interval of s's refusal log lines.
func (s *Server) SetRefusalLogEvery(d time.Duration) {
	s.refusals.mu.Lock()
	defer s.refusals.mu.Unlock()
	s.refusals.every = d
}

// EndRefusalInterval makes s's refusal log end its interval now, as its
// timer would when the interval is over.
func (s *Server) EndRefusalInterval() {
	s.refusals.mu.Lock()
	defer s.refusals.mu.Unlock()
	s.refusals.start = time.Now().Add(-s.refusals.every)
	if s.refusals.timer != nil {
		s.refusals.timer.Reset(0)
	}
}

// WithDeadlines returns o with its deadlines set: the headers', the
// body's, an idle connection's, and how long a new connection keeps its
// slot at the MaxConns limit. Tests shorten them.
func WithDeadlines(o ServeOptions, header, body, idle, evictNew time.Duration) ServeOptions {
	o.headerTimeout, o.bodyTimeout, o.idleTimeout, o.evictNewAfter = header, body, idle, evictNew
	return o
}

// HostAllowed is whether the Host check of a gateway with publicURLs lets
// a request with Host header host through a socket whose local address
// is local.
func HostAllowed(publicURLs []string, host string, local net.Addr) (bool, error) {
	h, err := newHostCheck(publicURLs)
	if err != nil {
		return false, err
	}
	return h.allowed(host, local), nil
}

// BodyDeadline is bodyDeadline: d for the body to arrive, and the
// connection closed after a reply that starts before it has.
var BodyDeadline = bodyDeadline

// Key is storeKey, for the tests.
var Key = storeKey

// NewToken is newToken, for the tests.
var NewToken = newToken

// Get returns the cached answer for identity. A store error, and an entry
// that fails its check, are a miss.
func (c *Cache) Get(ctx context.Context, identity []byte) ([]byte, bool) {
	return c.get(ctx, storeKey(identity))
}

// Set caches value for identity for ttl (at least 1 s). A store error is
// logged and otherwise ignored: the answer is simply not cached; so is a
// value over 8 MiB, larger than any answer a tool gives.
func (c *Cache) Set(ctx context.Context, identity []byte, value []byte, ttl time.Duration) {
	c.put(ctx, storeKey(identity), value, ttl)
}
