package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/oidctest"
)

// routed reaches publicHost through the proxy at port, with TLS the pool
// trusts, and everything else (the identity provider) directly.
func routed(pool *x509.CertPool, port int) *http.Transport {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	return &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if host, _, _ := net.SplitHostPort(addr); host == publicHost {
				addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			}
			return dialer.DialContext(ctx, network, addr)
		},
		TLSClientConfig: &tls.Config{RootCAs: pool},
	}
}

// A member signs in to replicas behind each of docs/gateway.md's proxy
// examples: the metadata the proxy passes on names the public URL as the
// resource, and the go-sdk's OAuth client signs in through it and calls the
// tools.
func TestSignInBehindProxy(t *testing.T) {
	for _, pc := range []struct {
		name  string
		lang  string
		start func(t *testing.T, example string, upstreams [2]string, cert, key string, port int) int
	}{{"Caddy", "caddyfile", startCaddy}, {"nginx", "nginx", startNginx}} {
		t.Run(pc.name, func(t *testing.T) { signInBehind(t, pc.lang, pc.start) })
	}
}

func signInBehind(t *testing.T, lang string, start func(t *testing.T, example string, upstreams [2]string, cert, key string, port int) int) {
	t.Setenv("DEEPSEEK_API_KEY", cliKey)
	d := newMock(t)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	port := freePort(t)
	public := fmt.Sprintf("https://%s:%d", publicHost, port)
	idp := oidctest.Start(t, public+"/mcp", "alice@example.com")
	idp.SignInAs("alice@example.com")
	var upstreams [2]string
	for i := range upstreams {
		upstreams[i] = startReplica(t, "--oidc-issuer", idp.URL, "--audience", public+"/mcp", "--public-url", public, "--base-url", d.URL, "--audit", "off")
	}
	cert, key, pool := selfSigned(t, t.TempDir(), publicHost)
	start(t, readmeBlock(t, lang), upstreams, cert, key, port)
	client := &http.Client{Transport: routed(pool, port)}

	resp, err := client.Get(public + "/.well-known/oauth-protected-resource/mcp")
	require.NoError(t, err)
	var meta oauthex.ProtectedResourceMetadata
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&meta))
	resp.Body.Close()
	require.Equal(t, public+"/mcp", meta.Resource, "the public URL, not the replica's")
	require.Equal(t, []string{idp.URL}, meta.AuthorizationServers)

	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient:      &oauthex.ClientCredentials{ClientID: oidctest.ClientID},
		RedirectURL:              oidctest.RedirectURL,
		AuthorizationCodeFetcher: idp.Fetch,
		Client:                   client,
	})
	require.NoError(t, err)
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: public + "/mcp", HTTPClient: client, OAuthHandler: h, MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()
	for i := range 2 {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "deepseek_fetch", Arguments: map[string]any{"url": fmt.Sprintf("https://go.dev/%d", i)}})
		require.NoError(t, err)
		require.False(t, res.IsError, "%+v", res.Content)
	}
}
