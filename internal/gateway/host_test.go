package gateway_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
)

func TestPublicURLErrors(t *testing.T) {
	for _, tc := range []struct{ url, err string }{
		{"gw.example.com", `public URL "gw.example.com": want https://host[:port], the address members reach the gateway at`},
		{"ftp://gw.example.com", `public URL "ftp://gw.example.com": want https://host[:port], the address members reach the gateway at`},
		{"https://", `public URL "https://": want https://host[:port], the address members reach the gateway at`},
		{"https://alice:pw@gw.example.com", `public URL "https://alice:pw@gw.example.com" holds a user name or password: want https://host[:port], the address members reach the gateway at`},
		{"https://gw.example.com/?team=1", `public URL "https://gw.example.com/?team=1" has a query or a fragment: want https://host[:port], the address members reach the gateway at`},
		{"https://*.example.com", `public URL "https://*.example.com": "*.example.com" is not a host name or an IP address (write an international name in its xn-- form)`},
		{"https://bücher.example", `public URL "https://bücher.example": "bücher.example" is not a host name or an IP address (write an international name in its xn-- form)`},
		{"http://gw.example.com", `public URL "http://gw.example.com" is plain http: members reach a gateway beyond loopback over https (init --remote refuses plain http), so write https://gw.example.com`},
	} {
		_, err := gateway.HostAllowed([]string{tc.url}, "", nil)
		require.EqualError(t, err, tc.err, tc.url)
	}
	for _, ok := range []string{"https://gw.example.com", "https://GW.example.com:8443/mcp", "https://[2001:db8::1]/", "https://192.0.2.1", "http://127.0.0.1:8787"} {
		_, err := gateway.HostAllowed([]string{ok}, "", nil)
		require.NoError(t, err, ok)
	}
}

func TestHostAllowed(t *testing.T) {
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8787}
	public := []string{"https://gw.example.com", "https://[2001:db8::1]:8443"}
	for _, tc := range []struct {
		host  string
		local net.Addr
		ok    bool
	}{
		{"127.0.0.1:8787", loopback, true},
		{"localhost", loopback, true},
		{"LOCALHOST:8787", loopback, true},
		{"[::1]:8787", &net.TCPAddr{IP: net.IPv6loopback, Port: 8787}, true},
		{"gw.example.com", loopback, true},
		{"gw.example.com:443", loopback, true},
		{"GW.Example.COM.:8443", loopback, true},
		{"[2001:db8::1]", loopback, true},
		{"[2001:DB8:0::1]:8443", loopback, true},
		{"evil.example", loopback, false},
		{"gw.example.com.evil.example", loopback, false},
		{"evil.example:8787", &net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1"), Port: 8787}, false},
		{"", loopback, false},
		{"localhost.", loopback, false},
		{"evil.example", &net.TCPAddr{IP: net.IPv4(10, 0, 0, 11), Port: 8787}, true}, // no rebinding reaches it through loopback
		{"evil.example", nil, true},
	} {
		ok, err := gateway.HostAllowed(public, tc.host, tc.local)
		require.NoError(t, err)
		require.Equal(t, tc.ok, ok, "Host %q on %v", tc.host, tc.local)
	}
}

// FuzzHostAllowed: on loopback, a Host header passes only if it names
// loopback or the public host, whatever its case, port or brackets.
func FuzzHostAllowed(f *testing.F) {
	for _, s := range []string{"gw.example.com", "gw.example.com:443", "[::1]:80", "localhost", "evil.example", "", "[", "gw.example.com.", "127.0.0.1:99999", "%00"} {
		f.Add(s)
	}
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8787}
	f.Fuzz(func(t *testing.T, host string) {
		ok, err := gateway.HostAllowed([]string{"https://gw.example.com"}, host, loopback)
		require.NoError(t, err)
		if !ok {
			return
		}
		name := host
		if h, _, err := net.SplitHostPort(host); err == nil {
			name = h
		}
		name = strings.TrimSuffix(strings.ToLower(strings.Trim(name, "[]")), ".")
		ip := net.ParseIP(name)
		require.True(t, name == "localhost" || name == "gw.example.com" || ip != nil && ip.IsLoopback(), "Host %q passed", host)
	})
}

// A proxy on this machine passing the public Host reaches the tools; a
// page rebinding another name to 127.0.0.1 gets 403, counted, and
// logged as the 401s are: five lines every 10 s, then a count.
func TestGatewayRebindingHost(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	tokens, _, toks := newTokens(t, "alice")
	var logs logBuf
	r := startReplica(t, d, tokens, nil, func(o *gateway.ServerOptions) {
		o.PublicURLs = []string{"https://gw.example.com"}
		o.Logf = logs.Logf
	})
	post := func(host string) (int, string) {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		req, err := http.NewRequest(http.MethodPost, r.srv.URL+"/mcp", strings.NewReader(body))
		require.NoError(t, err)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+toks["alice"])
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, host := range []string{"gw.example.com", "gw.example.com:8443", strings.TrimPrefix(r.srv.URL, "http://")} {
		code, body := post(host)
		require.Equal(t, http.StatusOK, code, "Host %s: %s", host, body)
	}
	r.gw.SetRefusalLogEvery(time.Hour)
	for range 7 {
		code, body := post("evil.example")
		require.Equal(t, http.StatusForbidden, code)
		require.Equal(t, "Forbidden: invalid Host header \"evil.example\"\n", body)
	}
	lines := strings.Split(logs.String(), "\n")
	require.Len(t, lines, 5, "five log lines for seven refusals")
	require.Regexp(t, `^gateway: 403 for 127\.0\.0\.1:\d+: the Host header "evil.example" is neither loopback nor the host of a public URL \(serve --public-url\)$`, lines[0])
	r.gw.Close()
	require.Contains(t, logs.String(), "gateway: 2 more refused requests were not logged")

	resp, err := http.Get(r.srv.URL + "/metrics")
	require.NoError(t, err)
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(metrics), `dwr_calls_total{tool="",outcome="forbidden_host"} 7`)
}
