package install

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// DefaultTokenEnv is the variable a host reads a member's gateway token
// from when init is given no --token-env.
const DefaultTokenEnv = "DEEPSEEK_WEB_RETRIEVAL_TOKEN"

// Remote is a team gateway (`deepseek-web-retrieval serve`) that a host
// connects to instead of starting the server itself: its MCP endpoint, and
// the environment variable holding the member's token. The token is never
// written into a config: each host's entry names the variable in that
// host's own syntax.
type Remote struct {
	// URL is the gateway's MCP endpoint, https (or http on a loopback
	// address), ending in /mcp unless given with another path.
	URL string
	// TokenEnv names the variable holding the member's token.
	TokenEnv string
	// SignIn says the gateway signs members in through the organisation's
	// identity provider (serve --oidc-issuer): a host that runs the MCP
	// authorization flow itself gets an entry with no token, and signs in
	// when it first connects; the others keep TokenEnv.
	SignIn bool
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParseRemote checks a gateway URL and token variable as given to
// `init --remote URL --token-env VAR`. A URL without a path gets /mcp, the
// gateway's endpoint. Plain http is refused except on loopback (the
// core's rule for the key, core.IsLoopbackHost), where no one else can
// read the token; so are URLs carrying credentials.
func ParseRemote(rawURL, tokenEnv string) (*Remote, error) {
	if tokenEnv == "" {
		tokenEnv = DefaultTokenEnv
	}
	if !envName.MatchString(tokenEnv) {
		return nil, fmt.Errorf("--token-env %q is not an environment variable name (letters, digits and _, not starting with a digit)", tokenEnv)
	}
	u, err := url.Parse(rawURL)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return nil, fmt.Errorf("--remote %q is not an absolute http:// or https:// URL", rawURL)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("--remote %q: the scheme must be https (or http on a loopback address), not %q", rawURL, u.Scheme)
	case u.Scheme == "http" && !core.IsLoopbackHost(u.Hostname()):
		return nil, fmt.Errorf("--remote %q: plain http would send the token unencrypted to %s; use https (put the gateway behind a TLS proxy), or http only on a loopback address", rawURL, u.Hostname())
	case u.User != nil:
		return nil, errors.New("--remote: the URL carries a user name or password; members authenticate with the token in --token-env instead")
	case u.Fragment != "" || strings.HasSuffix(rawURL, "#"):
		return nil, fmt.Errorf("--remote %q: a URL with a #fragment is not an endpoint", rawURL)
	}
	for k := range u.Query() {
		if LooksSecretName(k) {
			return nil, fmt.Errorf("--remote: the URL's query has %q, which looks like a credential; the token goes in --token-env", k)
		}
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/mcp"
	}
	return &Remote{URL: u.String(), TokenEnv: tokenEnv}, nil
}

// RemoteOptions refuses options a gateway entry cannot carry: only the
// tiers stay the host's (they turn its built-in tools off); every other
// option is the gateway's, set on `serve`.
func RemoteOptions(o Options) error {
	o.Search, o.Fetch = "", ""
	if extra := OptionFlags(o)[4:]; len(extra) > 0 {
		return fmt.Errorf("%s is the gateway's setting: with --remote, only --search and --fetch (which turn the host's built-in tools off) apply here; pass the rest to `deepseek-web-retrieval serve`", extra[0])
	}
	return nil
}
