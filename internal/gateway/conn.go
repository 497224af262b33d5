package gateway

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/promtext"
)

// ServeOptions configures [Server.Serve].
type ServeOptions struct {
	// MaxConns is the most connections open at once. At the limit, the
	// connection idle longest is closed to make room for a new one; when
	// none is idle, new connections wait in the kernel's accept queue
	// until one closes. Zero means 1024, or fewer when the process's
	// open-file limit is lower: 64 files are kept for DeepSeek, Redis and
	// the tokens file.
	MaxConns int
	// ShutdownTimeout is how long calls in flight may finish once Serve's
	// context ends, before they are cancelled. Zero means 10 seconds.
	ShutdownTimeout time.Duration

	// The deadlines (zero: the defaults below); tests shorten them.
	headerTimeout, bodyTimeout, idleTimeout, evictNewAfter time.Duration
}

const (
	defaultMaxConns        = 1024
	reservedFiles          = 64
	defaultShutdownTimeout = 10 * time.Second
	// A request's headers, then its body, must arrive within these. An
	// MCP request is a few kilobytes of JSON.
	defaultHeaderTimeout = 10 * time.Second
	defaultBodyTimeout   = 30 * time.Second
	// An idle keep-alive connection is closed after this: longer than
	// the reverse proxies' own (nginx 60 s, Caddy 2 minutes), so that a
	// proxy never sends a request on a connection the gateway is closing.
	defaultIdleTimeout = 3 * time.Minute
	// At the MaxConns limit, a new connection still without its first
	// request's headers after this may be closed to make room.
	defaultEvictNewAfter = time.Second
	// A reply to a request whose body was not read waits this long for
	// the rest of the body: read in time, it keeps the connection for the
	// client's next request; not, the connection is closed.
	closeGrace = 500 * time.Millisecond
)

func (o ServeOptions) withDefaults(logf func(string, ...any)) ServeOptions {
	limit, known := openFileLimit()
	switch {
	case o.MaxConns <= 0:
		o.MaxConns = defaultMaxConns
		if known && limit < defaultMaxConns+reservedFiles {
			o.MaxConns = max(int(limit)-reservedFiles, int(limit)/2, 1)
			logf("gateway: at most %d connections at once: this process may open %d files (ulimit -n)", o.MaxConns, limit)
		}
	case known && uint64(o.MaxConns)+reservedFiles > limit:
		logf("gateway: warning: %d connections would leave fewer than %d of the %d files this process may open (ulimit -n) for DeepSeek, Redis and the tokens file; raise the limit or lower the connections allowed", o.MaxConns, reservedFiles, limit)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ShutdownTimeout, defaultShutdownTimeout)
	def(&o.headerTimeout, defaultHeaderTimeout)
	def(&o.bodyTimeout, defaultBodyTimeout)
	def(&o.idleTimeout, defaultIdleTimeout)
	def(&o.evictNewAfter, defaultEvictNewAfter)
	return o
}

// Serve answers HTTP on ln until ctx ends, then stops accepting, lets
// calls in flight finish within o.ShutdownTimeout, cancels the rest and
// returns nil; before that, it returns the error that stopped it
// accepting.
//
// It bounds what a client, with a token or without, can hold: a
// request's headers must arrive within 10 seconds and its body within 30,
// an idle keep-alive connection is closed after 3 minutes, a reply to a
// request whose body was not read (a 401, a 403) waits at most half a
// second for the rest of the body before it closes the connection, and
// at most o.MaxConns connections are open at once. Nothing bounds how long an answer takes
// to write: calls answer as Server-Sent Events, for a minute or more.
func (s *Server) Serve(ctx context.Context, ln net.Listener, o ServeOptions) error {
	o = o.withDefaults(s.opts.Logf)
	k := newConnCap(o, s.metrics.Connections, s.opts.Logf)
	hs := &http.Server{
		Handler:           bodyDeadline(s.handler, o.bodyTimeout),
		ReadHeaderTimeout: o.headerTimeout,
		IdleTimeout:       o.idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ConnState:         k.state,
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(&capListener{Listener: ln, k: k}) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	s.opts.Logf("stopping: no new connections; calls in flight have %s to finish", o.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		s.Close()
		_ = hs.Close()
		s.opts.Logf("calls still in flight after %s were cancelled", o.ShutdownTimeout)
	}
	return nil
}

// bodyDeadline gives a request's body d to arrive, and only closeGrace
// once a reply starts before the body was read to its end: net/http reads
// up to 256 KiB of the rest before it replies, to reuse the connection,
// and a 401 to a body that never finishes would otherwise wait for d. Once the body has been read,
// net/http lifts the deadline as it starts reading in the background
// (to see the client go away) while the answer streams.
func bodyDeadline(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(d))
		b := &doneBody{ReadCloser: r.Body}
		r.Body = b
		next.ServeHTTP(&replyWriter{ResponseWriter: w, rc: rc, body: b}, r)
	})
}

// doneBody notes when the body has been read to its end.
type doneBody struct {
	io.ReadCloser
	done atomic.Bool
}

func (b *doneBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.done.Store(true)
	}
	return n, err
}

// replyWriter cuts the body's deadline to closeGrace when a reply starts
// before the request's body was read to its end.
type replyWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	body    *doneBody
	started sync.Once
}

func (w *replyWriter) start(code int) {
	if code < 200 {
		return
	}
	w.started.Do(func() {
		if w.body.done.Load() {
			return
		}
		// net/http reads what is left of the body (up to 256 KiB) before
		// it writes the reply, to keep the connection: a body already sent
		// is read at once and the connection stays open for the next
		// request; one that is not all there within closeGrace fails the
		// read, and net/http answers with "Connection: close" and closes.
		_ = w.rc.SetReadDeadline(time.Now().Add(closeGrace))
	})
}

func (w *replyWriter) WriteHeader(code int) {
	w.start(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *replyWriter) Write(p []byte) (int, error) {
	w.start(http.StatusOK)
	return w.ResponseWriter.Write(p)
}

// Flush sends what is written so far (the SDK flushes each event).
func (w *replyWriter) Flush() {
	w.start(http.StatusOK)
	_ = w.rc.Flush()
}

// Unwrap is for http.ResponseController.
func (w *replyWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// connCap holds the connections open at once to MaxConns: a listener
// that accepts only when a slot is free, and at the limit closes the
// connection idle longest (or a new one still without its first
// request's headers after evictNewAfter) to free one.
type connCap struct {
	slots         chan struct{}
	wake          chan struct{} // a connection went idle
	done          chan struct{} // the listener is closed
	closeOnce     sync.Once
	evictNewAfter time.Duration
	open          *promtext.Gauge
	// full says the limit was reached, at most once a minute: a flood
	// reaches it at every connection.
	full *rareLog

	mu    sync.Mutex
	conns map[*capConn]struct{}
}

func newConnCap(o ServeOptions, open *promtext.Gauge, logf func(string, ...any)) *connCap {
	return &connCap{
		slots: make(chan struct{}, o.MaxConns), wake: make(chan struct{}, 1), done: make(chan struct{}),
		evictNewAfter: o.evictNewAfter, open: open, full: newRareLog(logf, time.Minute),
		conns: map[*capConn]struct{}{},
	}
}

// capConn is an open connection: its slot is freed when it closes.
type capConn struct {
	net.Conn
	k    *connCap
	once sync.Once
	// state and since (when it became idle, or was accepted) are
	// guarded by k.mu.
	state http.ConnState
	since time.Time
}

// CloseWrite half-closes a TCP connection, as net/http does before it
// closes one whose request body it did not read: the client sees the FIN
// at once and does not send its next request on a connection about to be
// reset. Without it, the wrapper hid the method and net/http skipped the
// half-close.
func (c *capConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *capConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.k.mu.Lock()
		delete(c.k.conns, c)
		c.k.mu.Unlock()
		c.k.open.Add(-1)
		<-c.k.slots
	})
	return err
}

// state is the http.Server's ConnState hook.
func (k *connCap) state(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*capConn)
	if !ok {
		return
	}
	k.mu.Lock()
	if _, open := k.conns[c]; open && c.state != st {
		c.state = st
		if st == http.StateIdle {
			c.since = time.Now()
		}
	}
	k.mu.Unlock()
	if st == http.StateIdle {
		select {
		case k.wake <- struct{}{}:
		default:
		}
	}
}

// acquire takes a slot, closing a connection to free one at the limit;
// it fails once the listener is closed.
func (k *connCap) acquire() error {
	select {
	case k.slots <- struct{}{}:
		return nil
	case <-k.done:
		return net.ErrClosed
	default:
	}
	k.full.printf("full", "gateway: %d connections open, the most allowed: idle ones are closed to make room, new ones wait (serve --max-conns)", cap(k.slots))
	tick := time.NewTicker(k.evictNewAfter)
	defer tick.Stop()
	for {
		if c := k.closable(); c != nil {
			_ = c.Close()
		}
		select {
		case k.slots <- struct{}{}:
			return nil
		case <-k.done:
			return net.ErrClosed
		case <-k.wake:
		case <-tick.C:
		}
	}
}

// closable is the connection to close to make room: the one idle
// longest, or a new one without its first request after evictNewAfter;
// nil when there is none.
func (k *connCap) closable() *capConn {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := time.Now()
	var oldest *capConn
	for c := range k.conns {
		ok := c.state == http.StateIdle || c.state == http.StateNew && now.Sub(c.since) >= k.evictNewAfter
		if ok && (oldest == nil || c.since.Before(oldest.since)) {
			oldest = c
		}
	}
	return oldest
}

// capListener accepts a connection when connCap has a slot for it.
type capListener struct {
	net.Listener
	k *connCap
}

func (l *capListener) Accept() (net.Conn, error) {
	if err := l.k.acquire(); err != nil {
		return nil, err
	}
	nc, err := l.Listener.Accept()
	if err != nil {
		<-l.k.slots
		return nil, err
	}
	c := &capConn{Conn: nc, k: l.k, state: http.StateNew, since: time.Now()}
	l.k.mu.Lock()
	l.k.conns[c] = struct{}{}
	l.k.mu.Unlock()
	l.k.open.Add(1)
	return c, nil
}

func (l *capListener) Close() error {
	l.k.closeOnce.Do(func() { close(l.k.done) })
	return l.Listener.Close()
}
