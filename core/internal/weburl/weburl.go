// Package weburl splits a URL exactly as net/url.Parse does and prints it
// back exactly as net/url's URL.String does, for the core, which must not
// link net/url (it pulls fmt, and fmt pulls reflect and os, into the
// WebAssembly module).
//
// The fields mean what net/url's fields of the same names mean; a fuzz
// target (FuzzParseMatchesNetURL) checks, for arbitrary input, that Parse
// fails exactly when net/url.Parse fails and otherwise yields the same
// fields, Hostname, EscapedPath and String. Go's GODEBUG urlstrictcolons=0
// (colons in http(s) hosts) is not honoured: hosts are always strict.
//
// This is not a WHATWG URL parser: it splits a URL the way Go's HTTP stack
// reads it. The fetch URL policy reads hosts the WHATWG way with package
// host and uses Parse to check that both readings agree.
package weburl

import (
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/ipaddr"
)

// URL is a parsed URL reference, as net/url.URL.
type URL struct {
	Scheme      string // lower-case
	Opaque      string // everything after "scheme:" when no "/" follows it
	User        *Userinfo
	Host        string // "host" or "host:port", percent-decoded
	Path        string // percent-decoded
	RawPath     string // the path as written, when Path re-escaped differs
	RawQuery    string // as written, without "?"
	ForceQuery  bool   // a "?" with nothing after it
	Fragment    string // percent-decoded, without "#"
	RawFragment string // as written, when Fragment re-escaped differs
	OmitHost    bool   // "scheme:/path": no "//" authority at all
}

// Userinfo is the user name and optional password before "@", decoded.
type Userinfo struct {
	Username    string
	Password    string
	PasswordSet bool
}

// String is the userinfo escaped as "user[:password]".
func (u *Userinfo) String() string {
	s := escape(u.Username, encodeUserPassword)
	if u.PasswordSet {
		s += ":" + escape(u.Password, encodeUserPassword)
	}
	return s
}

// Parse splits raw into a URL, or reports false where net/url.Parse returns
// an error.
func Parse(raw string) (*URL, bool) {
	u := new(URL)
	if !u.Parse(raw) {
		return nil, false
	}
	return u, true
}

// Parse sets u to raw split as [Parse] splits it and reports whether it
// could; u is then all zero when it could not. It is Parse without an
// allocation, for a caller that keeps the URL in a variable: a search step
// read ten result URLs, and every allocation is dear in WebAssembly.
func (u *URL) Parse(raw string) bool {
	*u = URL{}
	rest, frag, _ := strings.Cut(raw, "#")
	ok := u.parse(rest)
	if ok && frag != "" {
		if u.Fragment, ok = unescape(frag, encodeFragment); ok && escape(u.Fragment, encodeFragment) != frag {
			u.RawFragment = frag
		}
	}
	if !ok {
		*u = URL{}
	}
	return ok
}

func (u *URL) parse(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] < ' ' || raw[i] == 0x7f {
			return false
		}
	}
	if raw == "*" {
		u.Path = "*"
		return true
	}
	scheme, rest, ok := splitScheme(raw)
	if !ok {
		return false
	}
	u.Scheme = strings.ToLower(scheme)

	if strings.HasSuffix(rest, "?") && strings.Count(rest, "?") == 1 {
		u.ForceQuery = true
		rest = rest[:len(rest)-1]
	} else {
		rest, u.RawQuery, _ = strings.Cut(rest, "?")
	}

	if !strings.HasPrefix(rest, "/") {
		if u.Scheme != "" {
			u.Opaque = rest // "mailto:x", "http:example.com"
			return true
		}
		// A relative path whose first segment has a colon would read as
		// a scheme.
		if segment, _, _ := strings.Cut(rest, "/"); strings.Contains(segment, ":") {
			return false
		}
	}

	switch {
	case strings.HasPrefix(rest, "//") && (u.Scheme != "" || !strings.HasPrefix(rest, "///")):
		authority := rest[2:]
		rest = ""
		if i := strings.IndexByte(authority, '/'); i >= 0 {
			authority, rest = authority[:i], authority[i:]
		}
		if u.User, u.Host, ok = parseAuthority(u.Scheme, authority); !ok {
			return false
		}
	case u.Scheme != "" && strings.HasPrefix(rest, "/"):
		u.OmitHost = true
	}

	if u.Path, ok = unescape(rest, encodePath); !ok {
		return false
	}
	if escape(u.Path, encodePath) != rest {
		u.RawPath = rest
	}
	return true
}

// splitScheme splits "scheme:rest". A string that does not start with a
// scheme is all rest; one that starts with ":" is an error.
func splitScheme(raw string) (scheme, rest string, ok bool) {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return "", raw, true
			}
		case c == ':':
			if i == 0 {
				return "", "", false
			}
			return raw[:i], raw[i+1:], true
		default:
			return "", raw, true
		}
	}
	return "", raw, true
}

// parseAuthority splits "[userinfo@]host[:port]" at the last "@".
func parseAuthority(scheme, authority string) (*Userinfo, string, bool) {
	at := strings.LastIndexByte(authority, '@')
	h, ok := parseHost(scheme, authority[at+1:])
	if !ok {
		return nil, "", false
	}
	if at < 0 {
		return nil, h, true
	}
	info := authority[:at]
	if !validUserinfo(info) {
		return nil, "", false
	}
	user := new(Userinfo)
	name, password, hasPassword := strings.Cut(info, ":")
	if user.Username, ok = unescape(name, encodeUserPassword); !ok {
		return nil, "", false
	}
	if hasPassword {
		if user.Password, ok = unescape(password, encodeUserPassword); !ok {
			return nil, "", false
		}
		user.PasswordSet = true
	}
	return user, h, true
}

// validUserinfo accepts RFC 3986 userinfo characters and, as net/url does,
// "@".
func validUserinfo(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlnum(c) || strings.IndexByte("-._:~!$&'()*+,;=%@", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// parseHost checks and decodes "host[:port]": an IP literal in brackets
// (with an optional "%25" zone) that must be an IPv6 address, or a name in
// which percent-encoding may only spell non-ASCII bytes. For http and
// https a name has at most one ":".
func parseHost(scheme, h string) (string, bool) {
	open := strings.LastIndexByte(h, '[')
	switch {
	case open > 0:
		return "", false
	case open == 0:
		end := strings.LastIndexByte(h, ']')
		if end < 0 {
			return "", false
		}
		port := h[end+1:]
		if !validOptionalPort(port) {
			return "", false
		}
		literal := h[1:end]
		var addr string
		if zone := strings.Index(literal, "%25"); zone >= 0 {
			a, ok1 := unescape(literal[:zone], encodeHost)
			z, ok2 := unescape(literal[zone:], encodeZone)
			if !ok1 || !ok2 {
				return "", false
			}
			addr = a + z
		} else {
			var ok bool
			if addr, ok = unescape(literal, encodeHost); !ok {
				return "", false
			}
		}
		if a, ok := ipaddr.Parse(addr); !ok || a.Is4() {
			return "", false
		}
		return "[" + addr + "]" + port, true
	}
	if colon := strings.IndexByte(h, ':'); colon >= 0 {
		if scheme != "http" && scheme != "https" {
			colon = strings.LastIndexByte(h, ':')
		}
		if !validOptionalPort(h[colon:]) {
			return "", false
		}
	}
	return unescape(h, encodeHost)
}

// validOptionalPort accepts "" and ":" followed by digits.
func validOptionalPort(port string) bool {
	if port == "" {
		return true
	}
	if port[0] != ':' {
		return false
	}
	for i := 1; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

// Hostname is Host without its port and without the brackets of an IP
// literal.
func (u *URL) Hostname() string {
	h := u.Host
	if colon := strings.LastIndexByte(h, ':'); colon >= 0 && validOptionalPort(h[colon:]) {
		h = h[:colon]
	}
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	return h
}

// EscapedPath is the path as written when that is a valid spelling of
// Path, else Path escaped.
func (u *URL) EscapedPath() string {
	if u.RawPath != "" && validEncoded(u.RawPath, encodePath) {
		if p, ok := unescape(u.RawPath, encodePath); ok && p == u.Path {
			return u.RawPath
		}
	}
	if u.Path == "*" {
		return "*"
	}
	return escape(u.Path, encodePath)
}

// EscapedFragment is EscapedPath for the fragment.
func (u *URL) EscapedFragment() string {
	if u.RawFragment != "" && validEncoded(u.RawFragment, encodeFragment) {
		if f, ok := unescape(u.RawFragment, encodeFragment); ok && f == u.Fragment {
			return u.RawFragment
		}
	}
	return escape(u.Fragment, encodeFragment)
}

// String reassembles the URL: "scheme:opaque?query#fragment" or
// "scheme://userinfo@host/path?query#fragment", leaving out what is empty,
// with the host and userinfo escaped.
func (u *URL) String() string {
	var b strings.Builder
	b.Grow(len(u.Scheme) + len(u.Opaque) + len(u.Host) + len(u.Path) + len(u.RawQuery) + len(u.RawFragment) + 16)
	if u.Scheme != "" {
		b.WriteString(u.Scheme)
		b.WriteByte(':')
	}
	if u.Opaque != "" {
		b.WriteString(u.Opaque)
	} else {
		if (u.Scheme != "" || u.Host != "" || u.User != nil) && !(u.OmitHost && u.Host == "" && u.User == nil) {
			if u.Host != "" || u.Path != "" || u.User != nil {
				b.WriteString("//")
			}
			if u.User != nil {
				b.WriteString(u.User.String())
				b.WriteByte('@')
			}
			b.WriteString(escape(u.Host, encodeHost))
		}
		path := u.EscapedPath()
		if path != "" && path[0] != '/' && u.Host != "" {
			b.WriteByte('/')
		}
		if b.Len() == 0 {
			// "./" keeps a first segment with a colon from reading as a
			// scheme.
			if segment, _, _ := strings.Cut(path, "/"); strings.Contains(segment, ":") {
				b.WriteString("./")
			}
		}
		b.WriteString(path)
	}
	if u.ForceQuery || u.RawQuery != "" {
		b.WriteByte('?')
		b.WriteString(u.RawQuery)
	}
	if u.Fragment != "" {
		b.WriteByte('#')
		b.WriteString(u.EscapedFragment())
	}
	return b.String()
}

// PlainHTTP reports whether raw is an http or https URL written exactly as
// String writes it back: a lower-case scheme, "//", a host of lower-case
// letters, digits, dots and hyphens with an optional ":" and port digits,
// a path (from the first "/") of bytes String leaves as they are and no
// "%", then any query without a control byte, then any fragment (from the
// first "#") without a "%". For such a raw that Parse accepts, the parsed
// URL, fragment dropped and scheme and host lower-cased, prints as raw up
// to its first "#" (FuzzResultKey in package core checks it). It also
// returns the host as written, port left out: u.Hostname().
//
// It lets a search step key its results for de-duplication, and read
// their hosts, without parsing and printing each URL again (see core's
// resultHostKey).
func PlainHTTP(raw string) (host string, ok bool) {
	rest, ok := strings.CutPrefix(raw, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(raw, "https://"); !ok {
			return "", false
		}
	}
	end, port := len(rest), len(rest) // of the host, of its port's colon
	query := false
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '#':
			if strings.IndexByte(rest[i:], '%') >= 0 {
				return "", false // an escape Parse checks
			}
			return rest[:min(end, port, i)], true
		case query:
			if c < ' ' || c == 0x7f {
				return "", false // Parse refuses it
			}
		case c == '?':
			query, end = true, min(end, i)
		case c == '/':
			end = min(end, i)
		case end < len(rest):
			if c == '%' || shouldEscape(c, encodePath) {
				return "", false
			}
		case port < len(rest):
			if c < '0' || c > '9' {
				return "", false
			}
		case c == ':':
			port = i
		case !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-'):
			return "", false
		}
	}
	return rest[:min(end, port)], true
}
