package core

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/host"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/ipaddr"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/weburl"
)

// ErrURLRefused is wrapped by every error [CheckFetchURL] returns: the URL
// breaks a local fetch rule (SPEC §3.1–3.3) and no request is made for it.
// Test with errors.Is.
var ErrURLRefused = errors.New("url refused")

// privateNote ends every message about a private or local host.
const privateNote = "private and local addresses never leave this machine"

// urlRefusedError is a fetch URL rule's refusal: "url refused: " and the
// reason; it wraps [ErrURLRefused].
type urlRefusedError struct{ reason string }

func (e *urlRefusedError) Error() string { return ErrURLRefused.Error() + ": " + e.reason }
func (e *urlRefusedError) Unwrap() error { return ErrURLRefused }

func refuse(reason string) error { return &urlRefusedError{reason: reason} }

// CheckFetchURL applies the local fetch URL rules of SPEC §3.1–3.3 to raw
// and returns the URL to send to DeepSeek Fetch: raw, except that a
// percent-encoded host is sent the way a WHATWG parser serializes it
// ("https://ex%61mple.com/" as "https://example.com/"), which is also the
// only spelling Go's net/url accepts. allowed
// and blocked are normalized domain lists (see normalizeDomain); an empty
// allowed list allows every public host.
//
// The rules, in order: at most [MaxURLChars] code points; no control
// characters (tab, newline, …; WHATWG parsers silently drop some of them,
// so the URL is refused rather than guessed at) and no surrounding spaces;
// an http or https scheme (any case) followed by "//"; no backslash in the
// authority (browsers read it as "/"); no user name or password, not even
// an empty "@"; a host, parsed by host.Parse so that every spelling is
// judged by the address a browser would read ("127.1", "0x7f.0.0.1",
// "%31%32%37.0.0.1", "127。0。0。1", "[::ffff:7f00:1]", …); a valid port;
// no private or local host (see privateHost and privateAddr); not in
// blocked; in allowed when allowed is set; and finally split by package
// weburl as Go's net/url splits it, which must read the same host.
//
// Every error wraps [ErrURLRefused] and names only the scheme or host, never
// the path or query, which may hold secrets.
func CheckFetchURL(raw string, allowed, blocked []string) (string, error) {
	if n := utf8.RuneCountInString(raw); n > MaxURLChars {
		return "", refuse("the URL is " + thousands(n) + " characters long (the limit is " + thousands(MaxURLChars) + ")")
	}
	if raw == "" {
		return "", refuse("the URL is empty")
	}
	if !utf8.ValidString(raw) {
		return "", refuse("the URL is not valid UTF-8")
	}
	for _, r := range raw {
		if r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0 {
			return "", refuse("the URL contains a control character such as a tab or newline")
		}
	}
	if strings.TrimSpace(raw) != raw {
		return "", refuse("the URL starts or ends with spaces")
	}

	colon := strings.IndexByte(raw, ':')
	if colon <= 0 || !validScheme(raw[:colon]) {
		return "", refuse("the URL is not absolute; it must start with http:// or https://")
	}
	scheme := strings.ToLower(raw[:colon])
	if scheme != "http" && scheme != "https" {
		return "", refuse("only http:// and https:// URLs can be fetched (got " + strconv.Quote(clipEntry(scheme)) + ")")
	}
	rest := raw[colon+1:]
	if !strings.HasPrefix(rest, "//") {
		return "", refuse("the URL must start with " + scheme + ":// (two forward slashes)")
	}
	rest = rest[2:]
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	if strings.ContainsRune(authority, '\\') {
		return "", refuse("the URL has a backslash before its path; browsers read it as \"/\", so the host is ambiguous")
	}
	if strings.ContainsRune(authority, '@') {
		return "", refuse("URLs with a user name or password are not fetched")
	}
	hostPart, port := splitHostPort(authority)
	if hostPart == "" {
		return "", refuse("the URL has no host")
	}
	quoted := strconv.Quote(clipEntry(hostPart))
	if !validPort(port) {
		return "", refuse("host " + quoted + " has an invalid port (a port is a number from 0 to 65535)")
	}
	h, err := host.Parse(hostPart)
	if err != nil {
		reason := "it cannot be parsed"
		if he, ok := errors.AsType[*host.Error](err); ok {
			reason = he.Reason
		}
		return "", refuse("host " + quoted + " is not a valid host: " + reason)
	}

	var key string // the host as domain lists spell it
	if h.IsAddr() {
		if why := privateAddr(h.Addr()); why != "" {
			return "", refuse("host " + quoted + " is " + why + "; " + privateNote)
		}
		key = h.Addr().String()
	} else {
		if why := privateHost(h.Name()); why != "" {
			return "", refuse("host " + quoted + " " + why)
		}
		key = h.Name()
	}
	for _, d := range blocked {
		if matchDomain(key, d) {
			return "", refuse("host " + strconv.Quote(clipEntry(key)) + " is in blockedDomains (" + strconv.Quote(clipEntry(d)) + ")")
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
			return "", refuse("host " + strconv.Quote(clipEntry(key)) + " is not in allowedDomains")
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
	u, ok := weburl.Parse(raw)
	if !ok {
		return "", refuse("the URL is malformed")
	}
	// Defence in depth: Go's URL parser must read the same host.
	uh := u.Hostname()
	if strings.Contains(uh, ":") {
		uh = "[" + uh + "]"
	}
	if again, err := host.Parse(uh); err != nil || again != h || u.User != nil || u.Opaque != "" {
		return "", refuse("host " + quoted + " is read differently by different URL parsers, so it is not fetched")
	}
	return raw, nil
}

// hasTrailingDot reports whether a decoded host ends in a dot, full-width
// forms included.
func hasTrailingDot(h string) bool {
	for _, dot := range []string{".", "\u3002", "\uff0e", "\uff61"} {
		if strings.HasSuffix(h, dot) {
			return true
		}
	}
	return false
}

// validScheme reports whether s is an RFC 3986 scheme.
func validScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// splitHostPort splits an authority at the first ':' outside brackets, as
// the WHATWG host state does. port is "" when absent or empty.
func splitHostPort(authority string) (hostPart, port string) {
	inBrackets := false
	for i := 0; i < len(authority); i++ {
		switch authority[i] {
		case '[':
			inBrackets = true
		case ']':
			inBrackets = false
		case ':':
			if !inBrackets {
				return authority[:i], authority[i+1:]
			}
		}
	}
	return authority, ""
}

// validPort accepts "" and decimal numbers up to 65535 (leading zeros are
// allowed, as in WHATWG).
func validPort(p string) bool {
	v := 0
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
		v = v*10 + int(p[i]-'0')
		if v > 65535 {
			return false
		}
	}
	return true
}

// thousands formats n with comma separators: 8192 → "8,192".
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// privateHost explains why a domain name (lower-case, no trailing dot) only
// has meaning on the local machine or network, or returns "". The text
// follows the quoted host in the message.
func privateHost(name string) string {
	const local = "which only resolves on a local network"
	switch {
	case name == "localhost":
		return "is the local machine; " + privateNote
	case strings.HasSuffix(name, ".localhost"):
		return "is under .localhost, which always means the local machine; " + privateNote
	case !strings.Contains(name, "."):
		return "is a single-label name, " + local
	}
	for _, suffix := range []string{"local", "internal", "lan", "home.arpa"} {
		if name == suffix || strings.HasSuffix(name, "."+suffix) {
			return "is a ." + suffix + " name, " + local
		}
	}
	return ""
}

// addrRange is one block of addresses that must not be fetched; what reads
// "is <what> <address>".
type addrRange struct {
	prefix ipaddr.Prefix
	what   string
}

var (
	privateV4 = []addrRange{
		{ipaddr.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
		{ipaddr.MustParsePrefix("169.254.169.254/32"), "the link-local cloud metadata address"},
		{ipaddr.MustParsePrefix("127.0.0.1/32"), "the loopback address"},
		{ipaddr.MustParsePrefix("0.0.0.0/32"), "the unspecified address"},
		{ipaddr.MustParsePrefix("0.0.0.0/8"), "a \"this network\" address"},
		{ipaddr.MustParsePrefix("10.0.0.0/8"), "a private-network (RFC 1918) address"},
		{ipaddr.MustParsePrefix("100.64.0.0/10"), "a carrier-grade NAT (shared) address"},
		{ipaddr.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
		{ipaddr.MustParsePrefix("169.254.0.0/16"), "a link-local address"},
		{ipaddr.MustParsePrefix("172.16.0.0/12"), "a private-network (RFC 1918) address"},
		{ipaddr.MustParsePrefix("192.0.0.0/24"), "an IETF protocol assignment address"},
		{ipaddr.MustParsePrefix("192.0.2.0/24"), "a documentation address"},
		{ipaddr.MustParsePrefix("192.88.99.0/24"), "a 6to4 relay anycast address"},
		{ipaddr.MustParsePrefix("192.168.0.0/16"), "a private-network (RFC 1918) address"},
		{ipaddr.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
		{ipaddr.MustParsePrefix("198.51.100.0/24"), "a documentation address"},
		{ipaddr.MustParsePrefix("203.0.113.0/24"), "a documentation address"},
		{ipaddr.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
		{ipaddr.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	}
	// privateV6 is checked after the forms that embed IPv4 (see privateAddr).
	privateV6 = []addrRange{
		{ipaddr.MustParsePrefix("::/128"), "the unspecified address"},
		{ipaddr.MustParsePrefix("::1/128"), "the loopback address"},
		{ipaddr.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 address"},
		{ipaddr.MustParsePrefix("100::/64"), "a discard-only address"},
		{ipaddr.MustParsePrefix("2001::/32"), "a Teredo address"},
		{ipaddr.MustParsePrefix("2001:db8::/32"), "a documentation address"},
		{ipaddr.MustParsePrefix("2001::/23"), "an IETF protocol assignment address"},
		{ipaddr.MustParsePrefix("3fff::/20"), "a documentation address"},
		{ipaddr.MustParsePrefix("fc00::/7"), "a unique local (private) address"},
		{ipaddr.MustParsePrefix("fe80::/10"), "a link-local address"},
		{ipaddr.MustParsePrefix("fec0::/10"), "a site-local address"},
		{ipaddr.MustParsePrefix("ff00::/8"), "a multicast address"},
	}
	// embedsV4 lists IPv6 forms judged by the IPv4 address they carry.
	embedsV4 = []struct {
		prefix ipaddr.Prefix
		what   string
		at     int // byte offset of the IPv4 address
	}{
		{ipaddr.MustParsePrefix("::ffff:0:0/96"), "an IPv4-mapped address", 12},
		{ipaddr.MustParsePrefix("::/96"), "an IPv4-compatible address", 12},
		{ipaddr.MustParsePrefix("64:ff9b::/96"), "a NAT64 address", 12},
		{ipaddr.MustParsePrefix("2002::/16"), "a 6to4 address", 2},
	}
	globalUnicastV6 = ipaddr.MustParsePrefix("2000::/3")
)

// privateAddr explains why a is not a globally routable address, as
// "<what> <address>", or returns "". IPv6 forms that carry an IPv4 address
// (mapped, compatible, NAT64, 6to4) are judged by that address; other IPv6
// addresses outside 2000::/3 are all refused.
func privateAddr(a ipaddr.Addr) string {
	if a.Is4() {
		return privateV4Addr(a)
	}
	for _, r := range privateV6[:2] { // :: and ::1 before ::/96
		if r.prefix.Contains(a) {
			return r.what + " " + a.String()
		}
	}
	for _, e := range embedsV4 {
		if e.prefix.Contains(a) {
			b := a.As16()
			v4 := ipaddr.From4([4]byte(b[e.at : e.at+4]))
			if why := privateV4Addr(v4); why != "" {
				return e.what + " " + a.String() + " that embeds " + why
			}
			return ""
		}
	}
	for _, r := range privateV6[2:] {
		if r.prefix.Contains(a) {
			return r.what + " " + a.String()
		}
	}
	if !globalUnicastV6.Contains(a) {
		return "a reserved address " + a.String() + " (outside the global unicast range 2000::/3)"
	}
	return ""
}

func privateV4Addr(a ipaddr.Addr) string {
	for _, r := range privateV4 {
		if r.prefix.Contains(a) {
			return r.what + " " + a.String()
		}
	}
	return ""
}
