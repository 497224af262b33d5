package gateway_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
)

// served is a gateway answering through Server.Serve on loopback, with
// one member, alice.
type served struct {
	addr, token string
	ln          *countingListener
	gw          *gateway.Server
}

// serveGateway serves a gateway on a mock DeepSeek whose Fetch is fetch
// (nil: it answers fetchAnswer at once), with the serve options o.
func serveGateway(t *testing.T, o gateway.ServeOptions, fetch http.HandlerFunc) *served {
	t.Helper()
	d := deepseektest.New(t, gwKey)
	d.Fetch = fetch
	if fetch == nil {
		d.Fetch = deepseektest.Answer(200, fetchAnswer)
	}
	tokens, _, toks := newTokens(t, "alice")
	cfg, _, err := core.NewConfig(core.Options{BaseURL: d.URL})
	require.NoError(t, err)
	gw, err := gateway.NewServer(gateway.ServerOptions{
		MCP:      mcp.Options{Config: cfg, Getenv: func(string) string { return gwKey }},
		Tokens:   tokens,
		CacheTTL: time.Second,
		Logf:     func(string, ...any) {}, // a 401 line for each of hundreds of refusals
	})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	cl := &countingListener{Listener: ln}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gw.Serve(ctx, cl, o) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return within 30 s of its context's end")
		}
		gw.Close()
	})
	return &served{addr: ln.Addr().String(), token: toks["alice"], ln: cl, gw: gw}
}

// countingListener counts the connections the server holds open, and
// the most it held at once.
type countingListener struct {
	net.Listener
	mu         sync.Mutex
	open, most int
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.most = max(l.most, l.open)
	l.mu.Unlock()
	return &countedConn{Conn: c, l: l}, nil
}

func (l *countingListener) counts() (open, most int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open, l.most
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// dialRaw opens a connection the test writes by hand; it is closed when
// the test ends.
func dialRaw(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c, bufio.NewReader(c)
}

// closedWithin reports whether the server closes c within d, dropping
// what it sends meanwhile.
func closedWithin(c net.Conn, r io.Reader, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, r)
	var ne net.Error
	return !errors.As(err, &ne) || !ne.Timeout()
}

// slowBody is a POST to /mcp whose 200000-byte body never comes: the
// headers, then the first bytes of JSON.
func slowBody(headers string) string {
	return "POST /mcp HTTP/1.1\r\n" + headers + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 200000\r\n\r\n{\"jsonrpc\":"
}

// memberFetch is one member's deepseek_fetch on its own connection (the
// stateless gateway needs no initialize first): the answer's text.
func memberFetch(ctx context.Context, addr, token string) (string, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deepseek_fetch","arguments":{"url":"https://go.dev/doc/effective_go"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", resp.Status, b)
	}
	return string(b), err
}

// A request refused before its body is read (401 without a token, 403
// for a foreign Origin or a rebinding Host) is answered at once and its
// connection closed, however slowly the body comes; net/http would first
// read up to 256 KiB of the body, and wait for it for ever.
func TestServeRefusalDoesNotWaitForBody(t *testing.T) {
	// The body's own deadline is far off: only the refusal closes.
	s := serveGateway(t, gateway.WithDeadlines(gateway.ServeOptions{ShutdownTimeout: time.Second}, 0, time.Minute, time.Minute, 0), nil)
	for _, tc := range []struct {
		name, headers string
		status        int
	}{
		{"no token", "Host: 127.0.0.1\r\n", http.StatusUnauthorized},
		{"foreign Origin", "Host: 127.0.0.1\r\nAuthorization: Bearer " + s.token + "\r\nOrigin: https://evil.example.com\r\n", http.StatusForbidden},
		{"rebinding Host", "Host: evil.example\r\nAuthorization: Bearer " + s.token + "\r\n", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, br := dialRaw(t, s.addr)
			_, err := io.WriteString(c, slowBody(tc.headers))
			require.NoError(t, err)
			_ = c.SetReadDeadline(time.Now().Add(15 * time.Second))
			resp, err := http.ReadResponse(br, nil)
			require.NoError(t, err, "no answer within 15 s while the body is unfinished")
			_, _ = io.Copy(io.Discard, resp.Body)
			require.Equal(t, tc.status, resp.StatusCode)
			require.True(t, resp.Close, "Connection: close")
			require.True(t, closedWithin(c, br, 15*time.Second), "the connection is still open 15 s after the answer")
		})
	}
}

// A refusal to a request whose body was sent whole keeps the connection:
// the client's next request on it is answered. Clients that pool
// connections (Bun's fetch) send the next request on the same one, and
// got a reset when every refusal closed it.
func TestServeRefusalKeepsAWholeRequestsConnection(t *testing.T) {
	s := serveGateway(t, gateway.ServeOptions{ShutdownTimeout: time.Second}, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tc := range []struct {
		name, headers string
		status        int
	}{
		{"no token", "Host: 127.0.0.1\r\n", http.StatusUnauthorized},
		{"foreign Origin", "Host: 127.0.0.1\r\nAuthorization: Bearer " + s.token + "\r\nOrigin: https://evil.example.com\r\n", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, br := dialRaw(t, s.addr)
			_ = c.SetDeadline(time.Now().Add(15 * time.Second))
			_, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\n%sContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", tc.headers, len(body), body)
			require.NoError(t, err)
			resp, err := http.ReadResponse(br, nil)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			require.Equal(t, tc.status, resp.StatusCode)
			require.False(t, resp.Close, "the refusal closes a connection whose request was whole")

			_, err = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
			require.NoError(t, err)
			resp, err = http.ReadResponse(br, nil)
			require.NoError(t, err, "the next request on the connection is not answered")
			_, _ = io.Copy(io.Discard, resp.Body)
			require.Equal(t, http.StatusOK, resp.StatusCode)
		})
	}
}

// Deadlines close what a client holds without finishing it: an idle
// keep-alive connection, headers that never end, a member's body that
// never ends.
func TestServeDeadlinesCloseConnections(t *testing.T) {
	const d = 300 * time.Millisecond
	s := serveGateway(t, gateway.WithDeadlines(gateway.ServeOptions{ShutdownTimeout: time.Second}, d, d, d, 0), nil)
	for _, tc := range []struct {
		name, send string
		status     int // of the answer read first; 0: none is read
	}{
		{"idle keep-alive", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", http.StatusOK},
		{"headers never end", "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl", 0},
		{"a member's body never ends", slowBody("Host: 127.0.0.1\r\nAuthorization: Bearer " + s.token + "\r\n"), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, br := dialRaw(t, s.addr)
			_, err := io.WriteString(c, tc.send)
			require.NoError(t, err)
			if tc.status != 0 {
				_ = c.SetReadDeadline(time.Now().Add(15 * time.Second))
				resp, err := http.ReadResponse(br, nil)
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				require.Equal(t, tc.status, resp.StatusCode)
				require.False(t, resp.Close, "kept alive")
			}
			require.True(t, closedWithin(c, br, 15*time.Second), "the connection is still open after 15 s")
		})
	}
}

// The deadlines are on reading the request, none on writing the answer:
// one that takes many times longer than all of them to come from
// DeepSeek still reaches the member.
func TestServeSlowAnswerOutlivesDeadlines(t *testing.T) {
	const d = 200 * time.Millisecond
	slow := func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(10 * d)
		deepseektest.WriteJSON(w, 200, fetchAnswer)
	}
	s := serveGateway(t, gateway.WithDeadlines(gateway.ServeOptions{ShutdownTimeout: time.Second}, d, d, d, d), slow)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	text, err := memberFetch(ctx, s.addr, s.token)
	require.NoError(t, err)
	require.Contains(t, text, "Effective Go is a guide.")
}

// Once the body has arrived its deadline is lifted (net/http does it
// when it starts reading in the background to see the client go away):
// a handler that answers long after it still has a live request context.
func TestBodyDeadlineLiftedAtEOF(t *testing.T) {
	const d = 100 * time.Millisecond
	h := gateway.BodyDeadline(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		time.Sleep(10 * d)
		fmt.Fprintf(w, "%s: %v", body, r.Context().Err())
	}), d)
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Post(srv.URL, "text/plain", strings.NewReader("body"))
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "body: <nil>", string(b))
}

// The acceptance test of the deadlines: 300 connections without a token
// (bodies that never end, headers that never end, idle keep-alive after
// a 401) do not keep a member's call from answering, and every one of
// them is closed by a deadline within 30 s.
func TestServeConnectionFlood(t *testing.T) {
	const n, d = 300, 2 * time.Second
	s := serveGateway(t, gateway.WithDeadlines(gateway.ServeOptions{ShutdownTimeout: time.Second}, d, d, d, 0), nil)
	start := time.Now()
	var open atomic.Int32
	closed := make(chan bool, n) // false: still open after 30 s
	for i := range n {
		c, br := dialRaw(t, s.addr)
		send := []string{
			slowBody("Host: 127.0.0.1\r\n"),
			"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty",
			"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", // 401, then idle
		}[i%3]
		_, err := io.WriteString(c, send)
		require.NoError(t, err)
		open.Add(1)
		go func() {
			ok := closedWithin(c, br, 30*time.Second-time.Since(start))
			open.Add(-1)
			closed <- ok
		}()
	}
	held, _ := s.ln.counts()
	t.Logf("%d connections opened in %s; the server holds %d", n, time.Since(start).Round(time.Millisecond), held)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	text, err := memberFetch(ctx, s.addr, s.token)
	require.NoError(t, err, "the member's call during the flood")
	require.Contains(t, text, "Effective Go is a guide.")

	stillOpen := 0
	for range n {
		if !<-closed {
			stillOpen++
		}
	}
	held, _ = s.ln.counts()
	t.Logf("after %s: %d of %d connections closed by the server; it holds %d", time.Since(start).Round(time.Millisecond), n-stillOpen, n, held)
	require.Zero(t, stillOpen, "connections still open 30 s after they were opened")
	require.Eventually(t, func() bool { held, _ := s.ln.counts(); return held == 0 }, 10*time.Second, 20*time.Millisecond, "the server still holds connections")
}

// At MaxConns the server holds no more: it closes an idle connection,
// or a new one still without headers, to make room for a member's call;
// when every connection is busy, the call waits until one closes.
func TestServeCapsConnections(t *testing.T) {
	const max = 8
	opts := gateway.WithDeadlines(gateway.ServeOptions{MaxConns: max, ShutdownTimeout: time.Second}, time.Minute, time.Minute, time.Minute, 200*time.Millisecond)
	for _, tc := range []struct {
		name string
		hold func(t *testing.T, s *served) net.Conn // opens one connection the server holds
		busy bool                                   // none of them can be closed to make room
	}{
		{"idle keep-alive", func(t *testing.T, s *served) net.Conn {
			c, br := dialRaw(t, s.addr)
			_, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
			require.NoError(t, err)
			resp, err := http.ReadResponse(br, nil)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			return c
		}, false},
		{"no headers yet", func(t *testing.T, s *served) net.Conn {
			c, _ := dialRaw(t, s.addr)
			return c
		}, false},
		{"members' bodies in progress", func(t *testing.T, s *served) net.Conn {
			c, _ := dialRaw(t, s.addr)
			_, err := io.WriteString(c, slowBody("Host: 127.0.0.1\r\nAuthorization: Bearer "+s.token+"\r\n"))
			require.NoError(t, err)
			return c
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serveGateway(t, opts, nil)
			var held []net.Conn
			for range max {
				held = append(held, tc.hold(t, s))
			}
			// At the limit, one that can be closed is, to keep a slot free.
			require.Eventually(t, func() bool { _, most := s.ln.counts(); return most == max }, 10*time.Second, 10*time.Millisecond)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				text, err := memberFetch(ctx, s.addr, s.token)
				if err == nil && !strings.Contains(text, "Effective Go is a guide.") {
					err = fmt.Errorf("unexpected answer %q", text)
				}
				done <- err
			}()
			if tc.busy {
				select {
				case err := <-done:
					t.Fatalf("the call was answered while %d connections were busy (%v)", max, err)
				case <-time.After(time.Second):
				}
				_ = held[0].Close()
			}
			require.NoError(t, <-done)
			_, most := s.ln.counts()
			require.LessOrEqual(t, most, max, "connections open at once")
		})
	}
}
