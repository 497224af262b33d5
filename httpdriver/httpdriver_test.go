package httpdriver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

const testKey = "sk-driver0123456789abcdef"

// recordingProxy is a hostile HTTP proxy: it answers every request itself
// and records the Authorization header of each one it saw.
func recordingProxy(t *testing.T) (proxyURL *url.URL, seen func() []string) {
	var mu sync.Mutex
	var auths []string
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Method+" "+r.Host+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "proxy", http.StatusBadGateway)
	}))
	t.Cleanup(p.Close)
	u, err := url.Parse(p.URL)
	require.NoError(t, err)
	return u, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), auths...)
	}
}

func request(u string) *core.Request {
	return &core.Request{Method: http.MethodPost, URL: u, TimeoutMs: 5000, MaxBytes: 1 << 20,
		Header: []core.HeaderField{{Name: "Authorization", Value: "Bearer " + testKey}}}
}

// Loopback goes straight to the loopback address, whatever the proxy
// settings: a proxy given every other request never sees the key in
// plain text. Names under .localhost are dialled at loopback without DNS
// (the core refuses them as base URLs; the driver does not depend on it).
func TestLoopbackIsNeverProxied(t *testing.T) {
	var got []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Host+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		_, _ = io.WriteString(w, "{}")
	}))
	defer srv.Close()
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	proxyURL, seen := recordingProxy(t)
	client := newClient(http.ProxyURL(proxyURL))
	hosts := []string{"localhost", "LOCALHOST", "localhost.", "evil.localhost", "a.b.Localhost.", "127.0.0.1"}
	for _, h := range hosts {
		r := Perform(context.Background(), client, request("http://"+net.JoinHostPort(h, port)+"/v1/tools/search"))
		require.Equal(t, core.ReplyResponse, r.Kind, "%s: %s", h, r.Message)
		require.Equal(t, 200, r.Status, h)
	}
	require.Empty(t, seen(), "the proxy received a loopback request")
	require.Len(t, got, len(hosts))
	for _, g := range got {
		require.True(t, strings.HasSuffix(g, " Bearer "+testKey), g)
	}
	// Anything else does go through the proxy (it answers 502 itself).
	r := Perform(context.Background(), client, request("http://api.example.com/v1/tools/search"))
	require.Equal(t, 502, r.Status)
	require.Equal(t, []string{"POST api.example.com Bearer " + testKey}, seen())
}

func TestIsLoopbackName(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost": true, "LocalHost.": true, "x.localhost": true, "127.0.0.1": true, "127.8.9.10": true,
		"::1": true, "::ffff:127.0.0.1": true, "localhost.example.com": false, "mylocalhost": false,
		"10.0.0.1": false, "169.254.169.254": false, "api.deepseek.com": false, "": false,
	} {
		require.Equal(t, want, isLoopbackName(h), h)
	}
}

// Network errors name the host and the kind of failure, never the
// resolver's address or the address a name resolved to.
func TestDescribeNetworkErrors(t *testing.T) {
	wrap := func(op string, err error) error {
		return &url.Error{Op: "Post", URL: "https://api.deepseek.com/v1/tools/search",
			Err: &net.OpError{Op: op, Net: "tcp", Addr: &net.TCPAddr{IP: net.IP{10, 1, 2, 3}, Port: 443}, Err: err}}
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"no such host", wrap("dial", &net.DNSError{Err: "no such host", Name: "api.deepseek.com", Server: "10.255.255.53:53", IsNotFound: true}),
			"cannot resolve api.deepseek.com (no such host)"},
		{"dns timeout", wrap("dial", &net.DNSError{Err: "i/o timeout", Name: "api.deepseek.com", Server: "10.255.255.53:53", IsTimeout: true}),
			"cannot resolve api.deepseek.com (timed out)"},
		{"server misbehaving", wrap("dial", &net.DNSError{Err: "server misbehaving", Name: "api.deepseek.com", Server: "10.255.255.53:53"}),
			"cannot resolve api.deepseek.com (server misbehaving)"},
		{"dns error quoting an address", wrap("dial", &net.DNSError{Err: "read udp 10.0.0.2:5353->10.255.255.53:53: oops", Name: "api.deepseek.com"}),
			"cannot resolve api.deepseek.com (lookup failed)"},
		{"refused", wrap("dial", os.NewSyscallError("connect", syscall.ECONNREFUSED)),
			"cannot connect to api.deepseek.com:443 (connection refused)"},
		{"unreachable", wrap("dial", os.NewSyscallError("connect", syscall.EHOSTUNREACH)),
			"cannot connect to api.deepseek.com:443 (host unreachable)"},
		{"reset while reading", wrap("read", os.NewSyscallError("read", syscall.ECONNRESET)),
			"connection to api.deepseek.com:443 failed (connection reset)"},
		{"proxy refused", wrap("proxyconnect", os.NewSyscallError("connect", syscall.ECONNREFUSED)),
			"cannot connect to the proxy for api.deepseek.com:443 (connection refused)"},
		{"eof", &url.Error{Op: "Post", URL: "https://api.deepseek.com/", Err: io.EOF},
			"connection to api.deepseek.com:443 failed (the connection closed before the answer was complete)"},
		{"unknown authority", &url.Error{Op: "Post", URL: "https://api.deepseek.com/", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}},
			"TLS with api.deepseek.com:443 failed (certificate signed by an unknown authority)"},
		{"wrong name", &url.Error{Op: "Post", URL: "https://api.deepseek.com/", Err: &tls.CertificateVerificationError{Err: x509.HostnameError{Certificate: &x509.Certificate{}, Host: "api.deepseek.com"}}},
			"TLS with api.deepseek.com:443 failed (the certificate is not valid for api.deepseek.com)"},
		{"expired", &url.Error{Op: "Post", URL: "https://api.deepseek.com/", Err: &tls.CertificateVerificationError{Err: x509.CertificateInvalidError{Reason: x509.Expired}}},
			"TLS with api.deepseek.com:443 failed (the certificate is not valid: expired, not yet valid or not for this use)"},
		{"not tls", &url.Error{Op: "Post", URL: "https://api.deepseek.com/", Err: tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}},
			"TLS with api.deepseek.com:443 failed (the server did not answer with TLS)"},
		{"alert", wrap("remote error", tls.AlertError(40)),
			"TLS with api.deepseek.com:443 failed (the server refused the handshake: handshake failure)"},
		{"other", &url.Error{Op: "Post", URL: "https://api.deepseek.com/", Err: errors.New("something odd")},
			"request to api.deepseek.com:443 failed: something odd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := describe(tt.err, "api.deepseek.com:443")
			require.Equal(t, tt.want, got)
			require.NotContains(t, got, "10.")
		})
	}
}

// Real failures, end to end through Perform.
func TestPerformNetworkErrors(t *testing.T) {
	client := NewClient()
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().String()
	require.NoError(t, l.Close())
	r := Perform(context.Background(), client, request("http://"+closed+"/v1/tools/search"))
	require.Equal(t, core.ReplyNetwork, r.Kind)
	require.Equal(t, "cannot connect to "+closed+" (connection refused)", r.Message)

	// TLS to a server whose certificate nobody trusts.
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0)
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	host := strings.TrimPrefix(tlsSrv.URL, "https://")
	r = Perform(context.Background(), client, request(tlsSrv.URL+"/v1/tools/search"))
	require.Equal(t, core.ReplyNetwork, r.Kind)
	require.Equal(t, "TLS with "+host+" failed (certificate signed by an unknown authority)", r.Message)

	// https to a server that speaks plain http.
	plain := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer plain.Close()
	host = strings.TrimPrefix(plain.URL, "http://")
	r = Perform(context.Background(), client, request("https://"+host+"/v1/tools/search"))
	require.Equal(t, core.ReplyNetwork, r.Kind)
	require.Equal(t, "TLS with "+host+" failed (the server did not answer with TLS)", r.Message)
}
