package core

import (
	"errors"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/ipaddr"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/weburl"
)

// checkBaseURL validates a baseURL option and returns it without a trailing
// slash.
func checkBaseURL(s string) (string, error) {
	u, ok := weburl.Parse(strings.TrimSpace(s))
	if !ok || u.Host == "" || u.Opaque != "" {
		return "", errors.New(shown(s, 80) + " is not an absolute URL")
	}
	if u.User != nil {
		return "", errors.New("must not contain a user name or password")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("must not contain a query or fragment")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopbackHost(u.Hostname()) {
			return "", errors.New("must use https (plain http is allowed only for loopback hosts), got " + shown(s, 80))
		}
	default:
		return "", errors.New("must use https, got " + shown(s, 80))
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

// isLoopbackHost reports whether h is localhost, a name under .localhost,
// or a loopback address.
func isLoopbackHost(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	a, ok := ipaddr.Parse(h)
	return ok && a.IsLoopback()
}
