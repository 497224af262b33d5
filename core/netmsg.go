package core

import (
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/weburl"
)

// netCodes maps the error codes JavaScript runtimes give a failed request
// (Node's libuv and undici codes, Bun's names) to what failed, as the
// native host words it (package httpdriver): "resolve" (the name could
// not be looked up), "connect", "tls" or "connection" (it broke after
// connecting), with the kind of failure.
var netCodes = []struct{ code, what, kind string }{
	{"ENOTFOUND", "resolve", "no such host"},
	{"EAI_AGAIN", "resolve", "temporary failure in name resolution"},
	{"EAI_FAIL", "resolve", "lookup failed"},
	{"DNSException", "resolve", "lookup failed"},
	{"ECONNREFUSED", "connect", "connection refused"},
	{"ConnectionRefused", "connect", "connection refused"},
	{"EHOSTUNREACH", "connect", "host unreachable"},
	{"ENETUNREACH", "connect", "network unreachable"},
	{"UND_ERR_CONNECT_TIMEOUT", "connect", "timed out"},
	{"ETIMEDOUT", "connect", "timed out"},
	{"CERT_HAS_EXPIRED", "tls", "the certificate has expired"},
	{"ERR_TLS_CERT_ALTNAME_INVALID", "tls", "the certificate is not valid for this host"},
	{"DEPTH_ZERO_SELF_SIGNED_CERT", "tls", "certificate signed by an unknown authority"},
	{"SELF_SIGNED_CERT_IN_CHAIN", "tls", "certificate signed by an unknown authority"},
	{"UNABLE_TO_VERIFY_LEAF_SIGNATURE", "tls", "certificate signed by an unknown authority"},
	{"UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "tls", "certificate signed by an unknown authority"},
	{"ECONNRESET", "connection", "connection reset"},
	{"ConnectionClosed", "connection", "the connection closed before the answer was complete"},
	{"UND_ERR_SOCKET", "connection", "the connection closed before the answer was complete"},
}

// describeNetwork words a host's message for a failed request the way the
// native host does: what failed, at which host of the request, and the
// kind of failure ("cannot connect to api.deepseek.com (connection
// refused)"), never the address a name resolved to or the resolver's:
// Node's "connect ECONNREFUSED 10.1.2.3:443" tells a model about the
// network it runs in and nothing it can use. A message with none of the
// known codes is returned as it is.
func describeNetwork(msg, rawURL string) string {
	u, ok := weburl.Parse(rawURL)
	if !ok {
		return msg
	}
	host := u.Host
	for _, c := range netCodes {
		if !hasWord(msg, c.code) {
			continue
		}
		switch c.what {
		case "resolve":
			return "cannot resolve " + u.Hostname() + " (" + c.kind + ")"
		case "connect":
			return "cannot connect to " + host + " (" + c.kind + ")"
		case "tls":
			return "TLS with " + host + " failed (" + c.kind + ")"
		}
		return "connection to " + host + " failed (" + c.kind + ")"
	}
	return msg
}

// hasWord reports whether word occurs in s with no letter, digit or '_'
// on either side.
func hasWord(s, word string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !wordByte(s[start-1])) && (end == len(s) || !wordByte(s[end])) {
			return true
		}
		i = start + 1
	}
}

func wordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}
