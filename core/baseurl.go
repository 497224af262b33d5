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
		return "", errors.New(quoteForMessage(s, 80) + " is not an absolute URL")
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
		if !IsLoopbackHost(u.Hostname()) {
			return "", errors.New("must use https; " + plainHTTPRule + ", got " + quoteForMessage(s, 80))
		}
	default:
		return "", errors.New("must use https, got " + quoteForMessage(s, 80))
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

// plainHTTPRule is the rule IsLoopbackHost enforces, for error messages.
const plainHTTPRule = "plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1])"

// IsLoopbackHost reports whether plain http may go to h (the key, or a
// gateway member's token, would cross no network): the name
// localhost (any case, no trailing dot) or a loopback IP literal without a
// zone. Nothing else, not even a name under .localhost or "localhost.":
// such names are resolved by DNS and may be sent through a proxy, and the
// key would then cross the network in plain text. Hosts dial localhost at
// the loopback address without DNS and never through a proxy
// (httpdriver.NewClient).
func IsLoopbackHost(h string) bool {
	// Not strings.EqualFold: it matches "localhoſt" (U+017F folds to s).
	if len(h) == len("localhost") && strings.ToLower(h) == "localhost" {
		return true
	}
	a, ok := ipaddr.Parse(h)
	return ok && a.Zone() == "" && a.IsLoopback()
}
