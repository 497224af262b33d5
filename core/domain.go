package core

import (
	"errors"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/host"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/ipaddr"
)

// normalizeDomain turns one user-configured domain list entry
// (includeDomains, allowedDomains, blockedDomains) into the form
// matchDomain compares: trimmed, lower-case, without a leading "*." or "."
// and without one trailing dot, spelled the way host.Parse spells URL hosts
// (full-width forms mapped, non-ASCII labels in Punycode, IPv4 in
// dotted-decimal). An IP address entry is kept as the canonical address
// ("93.184.216.34", "2606:4700::1111"; brackets are optional for IPv6).
// Entries that are not a bare host name (a URL, a path, a port, user info,
// spaces, wildcards other than a leading "*.") are errors that quote the
// entry.
func normalizeDomain(s string) (string, error) {
	d := strings.ToLower(strings.TrimSpace(s))
	if d == "" {
		return "", errors.New("domain " + strconv.Quote(s) + " is empty")
	}
	if a, ok := ipaddr.Parse(strings.TrimSuffix(strings.TrimPrefix(d, "["), "]")); ok && a.Is6() {
		if a.Zone() != "" {
			return "", errors.New("domain " + shownEntry(s) + " has an IPv6 zone, which cannot appear in a URL")
		}
		return a.String(), nil
	}
	if strings.Contains(d, "://") {
		return "", errors.New("domain " + shownEntry(s) + " is a URL; write just the host name, like \"example.com\"")
	}
	switch {
	case strings.HasPrefix(d, "*."):
		d = d[2:]
	case strings.HasPrefix(d, "."):
		d = d[1:]
	}
	if strings.HasSuffix(d, ".") {
		d = d[:len(d)-1]
	}
	if d == "" {
		return "", errors.New("domain " + shownEntry(s) + " has no name in it")
	}
	for _, r := range d {
		if bad := badDomainRune(r); bad != "" {
			return "", errors.New("domain " + shownEntry(s) + " contains " + bad + "; write just the host name, like \"example.com\"")
		}
	}
	h, err := host.Parse(d)
	if err != nil {
		if he, ok := errors.AsType[*host.Error](err); ok {
			return "", errors.New("domain " + shownEntry(s) + " is not a valid host name: " + he.Reason)
		}
		return "", errors.New("domain " + shownEntry(s) + " is not a valid host name")
	}
	if h.IsAddr() {
		return h.Addr().String(), nil
	}
	return h.Name(), nil
}

// badDomainRune describes a character that has no place in a domain list
// entry, or returns "".
func badDomainRune(r rune) string {
	switch {
	case r == ' ' || r == '\u3000':
		return "a space"
	case r < 0x20 || r == 0x7f:
		return "a control character"
	}
	switch r {
	case '/', ':', '@', '?', '#', '\\', '*', '%', '[', ']', '<', '>', '|', '^', '"', '\'', ',', ';', '=', '&', '!', '$', '(', ')', '+', '{', '}', '`', '~':
		return strconv.QuoteRune(r)
	}
	if r >= 0x80 && strings.ContainsRune("\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f", r) {
		return "a space"
	}
	return ""
}

// clipEntry shortens a quoted entry or host to about 100 characters.
func clipEntry(s string) string {
	const max = 100
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// matchDomain reports whether host equals domain or is a subdomain of it.
// Both must already be normalized (normalizeDomain, or a URL host
// lower-cased without a trailing dot). An IP address host only matches an
// identical entry: "10.1.2.3" is not a "subdomain" of "2.3".
func matchDomain(host, domain string) bool {
	if host == "" || domain == "" {
		return false
	}
	if host == domain {
		return true
	}
	if !strings.HasSuffix(host, domain) || host[len(host)-len(domain)-1] != '.' {
		return false
	}
	if _, ok := ipaddr.Parse(host); ok {
		return false
	}
	return true
}
