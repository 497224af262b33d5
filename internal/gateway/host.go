package gateway

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// hostCheck is the gateway's protection against DNS rebinding, in place
// of the MCP SDK's: on a loopback socket, /mcp answers 403 to a Host
// header that names neither this machine nor a public URL's host. The
// SDK's own check knows no public URL, so a reverse proxy on the same
// machine that passes the public Host (nginx's "proxy_set_header Host
// $host", Caddy by default) got 403 on every call.
type hostCheck struct {
	// hosts are the public URLs' host names (normalHost).
	hosts []string
}

// newHostCheck checks the public URLs and returns their check.
func newHostCheck(publicURLs []string) (*hostCheck, error) {
	h := &hostCheck{}
	for _, u := range publicURLs {
		host, err := publicHost(u)
		if err != nil {
			return nil, err
		}
		h.hosts = append(h.hosts, host)
	}
	return h, nil
}

// publicHost is the host name of a public URL, or an error that says
// what is wrong with it.
func publicHost(raw string) (string, error) {
	const want = "want https://host[:port], the address members reach the gateway at"
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Opaque != "" || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return "", fmt.Errorf("public URL %q: %s", raw, want)
	case u.User != nil:
		return "", fmt.Errorf("public URL %q holds a user name or password: %s", raw, want)
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", fmt.Errorf("public URL %q has a query or a fragment: %s", raw, want)
	}
	name := u.Hostname()
	if !validHostName(name) {
		return "", fmt.Errorf("public URL %q: %q is not a host name or an IP address (write an international name in its xn-- form)", raw, name)
	}
	if u.Scheme == "http" && !core.IsLoopbackHost(name) {
		return "", fmt.Errorf("public URL %q is plain http: members reach a gateway beyond loopback over https (init --remote refuses plain http), so write https://%s", raw, u.Host)
	}
	return normalHost(name), nil
}

// validHostName reports whether h is an IP address or a DNS name in
// ASCII: labels of letters, digits, '-' and '_', separated by dots.
func validHostName(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if h == "" || len(h) > 254 || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return false
	}
	for _, c := range []byte(h) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// normalHost is a host name as hostCheck compares them: an IP address
// in its canonical form, a name in lower case (DNS names are
// case-insensitive) without a trailing dot.
func normalHost(h string) string {
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.String()
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// hostName is the host name in a Host header (host, host:port, [v6]
// or [v6]:port), for normalHost.
func hostName(header string) string {
	if h, _, err := net.SplitHostPort(header); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(header, "["), "]")
}

// allowed reports whether a request with this Host header may pass on
// a socket whose local address is local: always beyond loopback (the
// SDK's rule: a rebinding attack reaches a loopback socket), and on
// loopback when the Host names this machine or a public URL's host.
// The port is not compared: nginx's $host drops it, and a page that
// rebinds a name it controls cannot make the browser send another name.
func (h *hostCheck) allowed(host string, local net.Addr) bool {
	if !isLoopbackAddr(local) {
		return true
	}
	name := hostName(host)
	if core.IsLoopbackHost(name) {
		return true
	}
	name = normalHost(name)
	for _, p := range h.hosts {
		if name == p {
			return true
		}
	}
	return false
}

// isLoopbackAddr reports whether a is a loopback IP address (IPv4,
// IPv6, or IPv4 mapped in IPv6).
func isLoopbackAddr(a net.Addr) bool {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a != nil && a.IP.IsLoopback()
	case nil:
		return false
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// wrap refuses, before next sees it, a request allowed refuses: 403,
// counted in m as dwr_calls_total{outcome="forbidden_host"} and logged
// through logf (the server's refusal log, which keeps to a few lines
// every 10 s however many there are).
func (h *hostCheck) wrap(next http.Handler, m *Metrics, logf func(string, ...any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if h.allowed(r.Host, local) {
			next.ServeHTTP(w, r)
			return
		}
		m.Calls.Inc("", string(OutcomeForbiddenHost))
		logf("gateway: 403 for %s: the Host header %q is neither loopback nor the host of a public URL (serve --public-url)", r.RemoteAddr, clip(r.Host, 100))
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", clip(r.Host, 100)), http.StatusForbidden)
	})
}

// clip cuts s to at most n bytes, for a log line.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
