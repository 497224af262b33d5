package install

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseRemote(t *testing.T) {
	cases := []struct {
		url, env string
		want     *Remote
		err      string
	}{
		{"https://gw.example.com", "", &Remote{URL: "https://gw.example.com/mcp", TokenEnv: DefaultTokenEnv}, ""},
		{"https://gw.example.com/", "TEAM_TOKEN", &Remote{URL: "https://gw.example.com/mcp", TokenEnv: "TEAM_TOKEN"}, ""},
		{"https://gw.example.com:8443/team/mcp", "T", &Remote{URL: "https://gw.example.com:8443/team/mcp", TokenEnv: "T"}, ""},
		{"http://127.0.0.1:8787/mcp", "", &Remote{URL: "http://127.0.0.1:8787/mcp", TokenEnv: DefaultTokenEnv}, ""},
		{"http://localhost:8787", "", &Remote{URL: "http://localhost:8787/mcp", TokenEnv: DefaultTokenEnv}, ""},
		{"http://[::1]:8787/mcp", "", &Remote{URL: "http://[::1]:8787/mcp", TokenEnv: DefaultTokenEnv}, ""},
		{"http://gw.example.com/mcp", "", nil, `--remote "http://gw.example.com/mcp": plain http would send the token unencrypted to gw.example.com; use https (put the gateway behind a TLS proxy), or http only on a loopback address`},
		{"http://localhoſt:8787/mcp", "", nil, `--remote "http://localhoſt:8787/mcp": plain http would send the token unencrypted to localhoſt; use https (put the gateway behind a TLS proxy), or http only on a loopback address`},
		{"http://localhost.:8787/mcp", "", nil, `--remote "http://localhost.:8787/mcp": plain http would send the token unencrypted to localhost.; use https (put the gateway behind a TLS proxy), or http only on a loopback address`},
		{"http://LOCALHOST:8787/mcp", "", &Remote{URL: "http://LOCALHOST:8787/mcp", TokenEnv: DefaultTokenEnv}, ""},
		{"ftp://gw.example.com/", "", nil, `--remote "ftp://gw.example.com/": the scheme must be https (or http on a loopback address), not "ftp"`},
		{"gw.example.com/mcp", "", nil, `--remote "gw.example.com/mcp" is not an absolute http:// or https:// URL`},
		{"https:///mcp", "", nil, `--remote "https:///mcp" is not an absolute http:// or https:// URL`},
		{"https://bob:pw@gw.example.com/mcp", "", nil, "--remote: the URL carries a user name or password; members authenticate with the token in --token-env instead"},
		{"https://gw.example.com/mcp?token=abc", "", nil, `--remote: the URL's query has "token", which looks like a credential; the token goes in --token-env`},
		{"https://gw.example.com/mcp#x", "", nil, `--remote "https://gw.example.com/mcp#x": a URL with a #fragment is not an endpoint`},
		{"https://gw.example.com/mcp", "1TOKEN", nil, `--token-env "1TOKEN" is not an environment variable name (letters, digits and _, not starting with a digit)`},
		{"https://gw.example.com/mcp", "A-B", nil, `--token-env "A-B" is not an environment variable name (letters, digits and _, not starting with a digit)`},
	}
	for _, tc := range cases {
		t.Run(tc.url+" "+tc.env, func(t *testing.T) {
			got, err := ParseRemote(tc.url, tc.env)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// An Authorization header naming a variable, as init writes for a gateway,
// is not a credential; one holding a value is.
func TestAuthorizationReferences(t *testing.T) {
	for value, secret := range map[string]bool{
		"Bearer ${DEEPSEEK_WEB_RETRIEVAL_TOKEN:-}":    false,
		"Bearer ${TEAM_TOKEN}":                        false,
		"Bearer $TEAM_TOKEN":                          false,
		"Bearer ${env:TEAM_TOKEN}":                    false,
		"Bearer {env:TEAM_TOKEN}":                     false,
		"Bearer dwr_4f9a8c7e6d5b4a39281706f5e4d3c2b1": true,
		"Bearer ${TEAM_TOKEN}x":                       true,
		"Basic dXNlcjpwYXNzd29yZA==":                  true,
	} {
		require.Equal(t, secret, secretAt("headers", "Authorization", value), value)
		require.Equal(t, secret, len(Secrets("settings.json", []byte(`{"headers": {"Authorization": "`+value+`"}}`))) > 0, value)
	}
}
