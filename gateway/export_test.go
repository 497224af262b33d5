package gateway

import "time"

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
