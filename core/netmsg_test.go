package core

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The JavaScript runtimes' messages for a failed request are worded as the
// native host words them, by the request's host, without the address a
// name resolved to (a network error names the host and the kind
// of failure).
func TestDescribeNetwork(t *testing.T) {
	const api = "https://api.deepseek.com/v1/tools/search"
	tests := []struct{ msg, url, want string }{
		{"getaddrinfo ENOTFOUND api.deepseek.com", api, "cannot resolve api.deepseek.com (no such host)"},
		{"ENOTFOUND: getaddrinfo ENOTFOUND api.deepseek.com", api, "cannot resolve api.deepseek.com (no such host)"},
		{"getaddrinfo EAI_AGAIN api.deepseek.com", api, "cannot resolve api.deepseek.com (temporary failure in name resolution)"},
		{"connect ECONNREFUSED 10.1.2.3:443", api, "cannot connect to api.deepseek.com (connection refused)"},
		{"connect ECONNREFUSED ::1:18080", "http://localhost:18080/v1/tools/fetch", "cannot connect to localhost:18080 (connection refused)"},
		{"ConnectionRefused: Unable to connect. Is the computer able to access the url?", api, "cannot connect to api.deepseek.com (connection refused)"},
		{"connect ETIMEDOUT 10.1.2.3:443", api, "cannot connect to api.deepseek.com (timed out)"},
		{"UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error (attempted address: 10.1.2.3:443, timeout: 10000ms)", api, "cannot connect to api.deepseek.com (timed out)"},
		{"CERT_HAS_EXPIRED: certificate has expired", api, "TLS with api.deepseek.com failed (the certificate has expired)"},
		{"self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)", "https://127.0.0.1:8443/v1/messages", "TLS with 127.0.0.1:8443 failed (certificate signed by an unknown authority)"},
		{"read ECONNRESET", api, "connection to api.deepseek.com failed (connection reset)"},
		{"UND_ERR_SOCKET: other side closed", api, "connection to api.deepseek.com failed (the connection closed before the answer was complete)"},
		// Already worded by the native host, or unknown: as it is.
		{"cannot connect to 127.0.0.1:9 (connection refused)", "http://127.0.0.1:9/v1/tools/search", "cannot connect to 127.0.0.1:9 (connection refused)"},
		{"fetch failed", api, "fetch failed"},
		{"XECONNREFUSED", api, "XECONNREFUSED"},
	}
	for _, tc := range tests {
		t.Run(tc.msg, func(t *testing.T) {
			require.Equal(t, tc.want, describeNetwork(tc.msg, tc.url))
		})
	}
}

// FuzzDescribeNetwork: any message and URL give a result without a panic,
// and a result that is not the message names a failure of the host.
func FuzzDescribeNetwork(f *testing.F) {
	f.Add("connect ECONNREFUSED 10.1.2.3:443", "https://api.deepseek.com/v1")
	f.Add("getaddrinfo ENOTFOUND x", "http://[::1]:80/")
	f.Fuzz(func(t *testing.T, msg, url string) {
		got := describeNetwork(msg, url)
		if got != msg {
			require.Regexp(t, `^(cannot resolve|cannot connect to|TLS with|connection to) `, got)
		}
	})
}
