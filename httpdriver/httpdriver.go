// Package httpdriver runs the core's steps with net/http: it is the host side
// of the sans-IO loop for native programs (the CLI) and for the tests that
// drive the WebAssembly module.
package httpdriver

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// NewClient returns an http.Client that never follows redirects, honours
// HTTPS_PROXY / HTTP_PROXY / NO_PROXY from the environment, and keeps
// loopback off the network: localhost (and any name under .localhost) is
// dialled at 127.0.0.1 or ::1 without DNS, and a loopback host is never
// sent through a proxy. The core allows plain http only to localhost and
// loopback literals; this holds that promise even for a name a resolver or
// a proxy would send elsewhere, where the key would cross the network in
// plain text.
func NewClient() *http.Client { return newClient(http.ProxyFromEnvironment) }

// newClient is NewClient with the proxy chosen by proxy for every host but
// loopback ones.
func newClient(proxy func(*http.Request) (*url.URL, error)) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = func(r *http.Request) (*url.URL, error) {
		if isLoopbackName(r.URL.Hostname()) {
			return nil, nil
		}
		return proxy(r)
	}
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil || !isLocalhostName(host) {
			return d.DialContext(ctx, network, addr)
		}
		c, err := d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
		if err != nil {
			if c6, err6 := d.DialContext(ctx, network, net.JoinHostPort("::1", port)); err6 == nil {
				return c6, nil
			}
		}
		return c, err
	}
	return &http.Client{
		Transport: t,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// isLocalhostName reports whether h is localhost or a name under
// .localhost (RFC 6761: they mean the loopback address), in any case, with
// or without a trailing dot.
func isLocalhostName(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// isLoopbackName reports whether h is a localhost name or a loopback IP
// address.
func isLoopbackName(h string) bool {
	if isLocalhostName(h) {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
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
		return core.Reply{Kind: core.ReplyNetwork, Message: describe(err, req.URL.Host)}
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

// describe says what failed and where, in words a user (or a model) can act
// on: the host asked for and the kind of failure, e.g. "cannot resolve
// api.deepseek.com (no such host)", "cannot connect to localhost:9
// (connection refused)", "TLS with api.deepseek.com failed (certificate
// signed by an unknown authority)". Never the resolver's address or the
// address a name resolved to: "lookup api.deepseek.com on 10.255.255.53:53"
// tells the model about the network it runs in, and nothing it can use.
func describe(err error, host string) string {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		name := dns.Name
		if name == "" {
			name = host
		}
		kind := "lookup failed"
		switch {
		case dns.IsNotFound:
			kind = "no such host"
		case dns.IsTimeout:
			kind = "timed out"
		case dns.Err != "" && !strings.ContainsAny(dns.Err, ":[]"):
			kind = dns.Err
		}
		return "cannot resolve " + name + " (" + kind + ")"
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "proxyconnect" {
		host = "the proxy for " + host
	}
	if kind := tlsKind(err, host); kind != "" {
		return "TLS with " + host + " failed (" + kind + ")"
	}
	kind := netKind(err)
	if op != nil && op.Op == "dial" || op != nil && op.Op == "proxyconnect" {
		if kind == "" {
			kind = "connection failed"
		}
		return "cannot connect to " + host + " (" + kind + ")"
	}
	if kind != "" {
		return "connection to " + host + " failed (" + kind + ")"
	}
	return "request to " + host + " failed: " + withoutRequestURL(err)
}

// netKind names a socket-level failure, or returns "".
func netKind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "refused"):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "host unreachable"
	case errors.Is(err, syscall.ENETUNREACH):
		return "network unreachable"
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed before the answer was complete"
	}
	return ""
}

// tlsKind names a TLS failure, or returns "".
func tlsKind(err error, host string) string {
	var (
		unknown x509.UnknownAuthorityError
		name    x509.HostnameError
		invalid x509.CertificateInvalidError
		verify  *tls.CertificateVerificationError
		record  tls.RecordHeaderError
		alert   tls.AlertError
	)
	switch {
	case errors.As(err, &unknown):
		return "certificate signed by an unknown authority"
	case errors.As(err, &name):
		return "the certificate is not valid for " + hostOnly(host)
	case errors.As(err, &invalid):
		return "the certificate is not valid: expired, not yet valid or not for this use"
	case errors.As(err, &verify):
		return "the certificate could not be verified"
	case errors.As(err, &record) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		// net/http turns the record error into a text of its own.
		return "the server did not answer with TLS"
	case errors.As(err, &alert):
		return "the server refused the handshake: " + strings.TrimPrefix(alert.Error(), "tls: ")
	}
	return ""
}

// hostOnly drops the port of host[:port].
func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
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

// withoutRequestURL returns a transport error's message without the request
// URL that net/http prefixes it with.
func withoutRequestURL(err error) string {
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
	return (&Driver{Engine: eng, Client: client}).run(ctx, op, nil, nil)
}
