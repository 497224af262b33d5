package core

// The URL handling the core had when it still linked net/url, kept as the
// reference that the net/url-free code is checked against
// (urlref_fuzz_test.go): same verdicts, same messages, same URLs sent, same
// dedup and cache keys, same base URLs.

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/host"
)

func refuseNetURL(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrURLRefused}, args...)...)
}

func checkURLNetURL(raw string, allowed, blocked []string) (string, *url.URL, error) {
	if n := utf8.RuneCountInString(raw); n > MaxURLChars {
		return "", nil, refuseNetURL("the URL is %s characters long (the limit is %s)", thousands(n), thousands(MaxURLChars))
	}
	if raw == "" {
		return "", nil, refuseNetURL("the URL is empty")
	}
	if !utf8.ValidString(raw) {
		return "", nil, refuseNetURL("the URL is not valid UTF-8")
	}
	for _, r := range raw {
		if r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0 {
			return "", nil, refuseNetURL("the URL contains a control character such as a tab or newline")
		}
	}
	if strings.TrimSpace(raw) != raw {
		return "", nil, refuseNetURL("the URL starts or ends with spaces")
	}

	colon := strings.IndexByte(raw, ':')
	if colon <= 0 || !validScheme(raw[:colon]) {
		return "", nil, refuseNetURL("the URL is not absolute; it must start with http:// or https://")
	}
	scheme := strings.ToLower(raw[:colon])
	if scheme != "http" && scheme != "https" {
		return "", nil, refuseNetURL("only http:// and https:// URLs can be fetched (got %q)", clipEntry(scheme))
	}
	rest := raw[colon+1:]
	if !strings.HasPrefix(rest, "//") {
		return "", nil, refuseNetURL("the URL must start with %s:// (two forward slashes)", scheme)
	}
	rest = rest[2:]
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	if strings.ContainsRune(authority, '\\') {
		return "", nil, refuseNetURL("the URL has a backslash before its path; browsers read it as \"/\", so the host is ambiguous")
	}
	if strings.ContainsRune(authority, '@') {
		return "", nil, refuseNetURL("URLs with a user name or password are not fetched")
	}
	hostPart, port := splitHostPort(authority)
	if hostPart == "" {
		return "", nil, refuseNetURL("the URL has no host")
	}
	quoted := clipEntry(hostPart)
	if !validPort(port) {
		return "", nil, refuseNetURL("host %q has an invalid port (a port is a number from 0 to 65535)", quoted)
	}
	h, err := host.Parse(hostPart)
	if err != nil {
		reason := "it cannot be parsed"
		var he *host.Error
		if errors.As(err, &he) {
			reason = he.Reason
		}
		return "", nil, refuseNetURL("host %q is not a valid host: %s", quoted, reason)
	}

	var key string // the host as domain lists spell it
	if h.IsAddr() {
		if why := privateAddr(h.Addr()); why != "" {
			return "", nil, refuseNetURL("host %q is %s; %s", quoted, why, privateNote)
		}
		key = h.Addr().String()
	} else {
		if why := privateHost(h.Name()); why != "" {
			return "", nil, refuseNetURL("host %q %s", quoted, why)
		}
		key = h.Name()
	}
	for _, d := range blocked {
		if matchDomain(key, d) {
			return "", nil, refuseNetURL("host %q is in blockedDomains (%q)", clipEntry(key), clipEntry(d))
		}
	}
	if len(allowed) > 0 {
		ok := false
		for _, d := range allowed {
			if matchDomain(key, d) {
				ok = true
				break
			}
		}
		if !ok {
			return "", nil, refuseNetURL("host %q is not in allowedDomains", clipEntry(key))
		}
	}

	if hostPart[0] != '[' && strings.IndexByte(hostPart, '%') >= 0 {
		// WHATWG percent-decodes the host; net/url refuses %XX for ASCII in
		// a host. Spell it as a WHATWG parser serializes it, keeping a
		// trailing dot, and check that spelling below.
		canon := h.String()
		if !h.IsAddr() && hasTrailingDot(percentDecodeAll(hostPart)) {
			canon += "."
		}
		raw = raw[:colon+3] + canon + authority[len(hostPart):] + rest[len(authority):]
	}
	u, err := url.Parse(raw)
	if err != nil {
		// net/url's error repeats the whole URL; say only what kind of problem.
		return "", nil, refuseNetURL("the URL is malformed")
	}
	// Defence in depth: net/url must read the same host.
	uh := u.Hostname()
	if strings.Contains(uh, ":") {
		uh = "[" + uh + "]"
	}
	if again, err := host.Parse(uh); err != nil || again != h || u.User != nil || u.Opaque != "" {
		return "", nil, refuseNetURL("host %q is read differently by different URL parsers, so it is not fetched", quoted)
	}
	return raw, u, nil
}

// resultURLNetURL is resultURL as it was.
func resultURLNetURL(raw string) (*url.URL, string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > MaxURLChars {
		return nil, "", false
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return nil, "", false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return nil, "", false
	}
	return u, canonicalHost(host), true
}

// dedupKeyNetURL is dedupKey as it was.
func dedupKeyNetURL(u *url.URL) string {
	c := *u
	c.Scheme = strings.ToLower(c.Scheme)
	c.Host = strings.ToLower(c.Host)
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// fetchPageKeyNetURL is the page part of fetchKey as it was.
func fetchPageKeyNetURL(raw string) string {
	page := raw
	if u, err := url.Parse(raw); err == nil {
		page = dedupKeyNetURL(u)
	}
	return page
}

// checkBaseURLNetURL is checkBaseURL as it was.
func checkBaseURLNetURL(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("%s is not an absolute URL", quoteForMessage(s, 80))
	}
	if u.User != nil {
		return "", fmt.Errorf("must not contain a user name or password")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("must not contain a query or fragment")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !IsLoopbackHost(u.Hostname()) {
			return "", fmt.Errorf("must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got %s", quoteForMessage(s, 80))
		}
	default:
		return "", fmt.Errorf("must use https, got %s", quoteForMessage(s, 80))
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}
