package gateway_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/oidctest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/syncbuf"
)

// signedIn is a gateway that takes sign-in from a real OpenID provider.
type signedIn struct {
	idp      *oidctest.Provider
	gw       *gateway.Server
	srv      *httptest.Server
	audience string
	audit    *syncbuf.Buffer
}

// startSignedIn runs a provider for alice and bob and a gateway whose
// audience is its own /mcp URL, with static tokens too when tokens is set.
func startSignedIn(t *testing.T, d *deepseektest.Server, tokens *gateway.Tokens, limits gateway.Limits, adjust ...func(*gateway.OIDCOptions)) *signedIn {
	t.Helper()
	s := &signedIn{audit: &syncbuf.Buffer{}}
	var h http.Handler = http.NotFoundHandler()
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(s.srv.Close)
	s.audience = s.srv.URL + "/mcp"
	s.idp = oidctest.Start(t, s.audience, "alice@example.com", "bob@example.com")
	s.idp.SignInAs("alice@example.com")
	o := gateway.OIDCOptions{Issuer: s.idp.URL, Audience: s.audience, KeysTTL: time.Hour}
	for _, f := range adjust {
		f(&o)
	}
	v, err := gateway.NewOIDC(o)
	require.NoError(t, err)
	cfg, _, err := core.NewConfig(core.Options{BaseURL: d.URL})
	require.NoError(t, err)
	s.gw, err = gateway.NewServer(gateway.ServerOptions{
		MCP:    mcp.Options{Config: cfg, Getenv: func(string) string { return gwKey }},
		Tokens: tokens, OIDC: v, Limits: limits, CacheTTL: time.Minute,
		Audit: gateway.NewAudit(s.audit, core.NewRedactor(gwKey).Mask), Logf: t.Logf,
	})
	require.NoError(t, err)
	t.Cleanup(s.gw.Close)
	h = s.gw.Handler()
	return s
}

// signIn connects the go-sdk's OAuth client: it finds the provider
// through the gateway's metadata, signs in with the authorization code
// flow and PKCE, and calls with the token.
func (s *signedIn) signIn(t *testing.T) *sdk.ClientSession {
	t.Helper()
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient:      &oauthex.ClientCredentials{ClientID: oidctest.ClientID},
		RedirectURL:              oidctest.RedirectURL,
		AuthorizationCodeFetcher: s.idp.Fetch,
	})
	require.NoError(t, err)
	c := sdk.NewClient(&sdk.Implementation{Name: "oauth-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: s.audience, OAuthHandler: h, MaxRetries: -1}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// post sends one tools/list with token and returns the response.
func (s *signedIn) post(t *testing.T, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.audience, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp
}

func TestOIDCSignIn(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	d.Search = deepseektest.Answer(200, map[string]any{"results": []any{map[string]any{"url": "https://go.dev/", "title": "Go", "summary": "The Go language."}}})
	file := filepath.Join(t.TempDir(), "tokens.json")
	carol, err := gateway.AddToken(file, "carol", time.Now())
	require.NoError(t, err)
	tokens, err := gateway.OpenTokens(file, t.Logf)
	require.NoError(t, err)
	s := startSignedIn(t, d, tokens, gateway.Limits{})

	// The metadata names the provider and the gateway's public URL.
	resp, err := http.Get(s.srv.URL + "/.well-known/oauth-protected-resource/mcp")
	require.NoError(t, err)
	var meta oauthex.ProtectedResourceMetadata
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&meta))
	resp.Body.Close()
	require.Equal(t, s.audience, meta.Resource)
	require.Equal(t, []string{s.idp.URL}, meta.AuthorizationServers)

	// No token: 401, pointing at the metadata.
	resp = s.post(t, "")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Equal(t, `Bearer resource_metadata="`+s.srv.URL+`/.well-known/oauth-protected-resource/mcp"`, resp.Header.Get("WWW-Authenticate"))

	// Sign in, then both tools.
	t.Logf("401 without a token: WWW-Authenticate: %s", resp.Header.Get("WWW-Authenticate"))
	t.Logf("metadata: resource %s, authorization_servers %v", meta.Resource, meta.AuthorizationServers)
	cs := s.signIn(t)
	for _, call := range []sdk.CallToolParams{
		{Name: "deepseek_fetch", Arguments: map[string]any{"url": "https://go.dev/doc/effective_go"}},
		{Name: "deepseek_search", Arguments: map[string]any{"query": "go"}},
	} {
		res, err := cs.CallTool(context.Background(), &call)
		require.NoError(t, err)
		require.False(t, res.IsError, res.Content[0].(*sdk.TextContent).Text)
	}
	require.Contains(t, s.audit.String(), `"member":"alice@example.com"`)
	t.Logf("signed in; the gateway's audit lines:\n%s", s.audit.String())

	// The static member tokens still work beside sign-in.
	require.Equal(t, http.StatusOK, s.post(t, carol).StatusCode)
	require.Equal(t, http.StatusUnauthorized, s.post(t, carol+"x").StatusCode)
}

// Each token a verifier must refuse is refused with 401 and the metadata
// header; rotating the provider's keys keeps sign-in working and retires
// the old key.
func TestOIDCRefusals(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	s := startSignedIn(t, d, nil, gateway.Limits{})
	claims := func(change func(map[string]any)) map[string]any {
		c := s.idp.Claims("alice@example.com", time.Hour)
		if change != nil {
			change(c)
		}
		return c
	}
	good := s.idp.Sign(claims(nil))
	require.Equal(t, http.StatusOK, s.post(t, good).StatusCode, "a well-formed token of the provider")

	pub, err := json.Marshal(jose.JSONWebKey{Key: s.idp.PublicKey()})
	require.NoError(t, err)
	for _, tt := range []struct{ name, token string }{
		{"expired", s.idp.Sign(claims(func(c map[string]any) { c["exp"] = time.Now().Add(-5 * time.Minute).Unix() }))},
		{"not yet valid", s.idp.Sign(claims(func(c map[string]any) { c["nbf"] = time.Now().Add(10 * time.Minute).Unix() }))},
		{"no exp", s.idp.Sign(claims(func(c map[string]any) { delete(c, "exp") }))},
		{"wrong audience", s.idp.Sign(claims(func(c map[string]any) { c["aud"] = []string{"https://other.example/mcp"} }))},
		{"wrong issuer", s.idp.Sign(claims(func(c map[string]any) { c["iss"] = "https://evil.example" }))},
		{"no member claim", s.idp.Sign(claims(func(c map[string]any) { delete(c, "email") }))},
		{"alg none", unsigned(t, claims(nil))},
		{"HS256 with the public key", oidctest.SignWith(jose.HS256, pub, claims(nil))},
		{"not a JWT", "abc.def.ghi"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := s.post(t, tt.token)
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			require.Contains(t, resp.Header.Get("WWW-Authenticate"), `resource_metadata="`)
		})
	}

	t.Run("rotation", func(t *testing.T) {
		s.idp.Rotate()
		fresh := s.idp.Sign(claims(nil))
		require.Equal(t, http.StatusOK, s.post(t, fresh).StatusCode, "a token signed with the new key")
		require.Equal(t, http.StatusUnauthorized, s.post(t, good).StatusCode, "a token signed with the key the provider removed")
		cs := s.signIn(t)
		_, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
	})
}

// unsigned is claims as a JWT with alg "none" and no signature.
func unsigned(t *testing.T, claims map[string]any) string {
	b, err := json.Marshal(claims)
	require.NoError(t, err)
	enc := func(b []byte) string { return strings.TrimRight(base64URL(b), "=") }
	return enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc(b) + "."
}

// Quotas apply per signed-in member, as to token members.
func TestOIDCQuotaPerMember(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	s := startSignedIn(t, d, nil, gateway.Limits{PerDay: 1})
	call := func(cs *sdk.ClientSession, url string) *sdk.CallToolResult {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "deepseek_fetch", Arguments: map[string]any{"url": url}})
		require.NoError(t, err)
		return res
	}
	alice := s.signIn(t)
	require.False(t, call(alice, "https://go.dev/a").IsError)
	res := call(alice, "https://go.dev/b")
	require.True(t, res.IsError)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "alice@example.com")
	s.idp.SignInAs("bob@example.com")
	bob := s.signIn(t)
	require.False(t, call(bob, "https://go.dev/c").IsError, "bob has his own quota")
}

func base64URL(b []byte) string { return base64.URLEncoding.EncodeToString(b) }

// A provider that cannot be reached is not the member's fault: 503, try
// again (discovery is tried again on the next token).
func TestOIDCProviderDown(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	down := httptest.NewServer(http.NotFoundHandler())
	issuer := down.URL
	down.Close()
	v, err := gateway.NewOIDC(gateway.OIDCOptions{Issuer: issuer, Audience: "https://gw.example.com/mcp"})
	require.NoError(t, err)
	r := startReplica(t, d, nil, nil, func(o *gateway.ServerOptions) { o.OIDC = v })
	s := &signedIn{srv: r.srv, audience: r.srv.URL + "/mcp"}
	resp := s.post(t, "aaa.bbb.ccc")
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, "1", resp.Header.Get("Retry-After"))
}

// A member's groups choose their quota class: alice, in "research", gets
// the heavy class's 3 calls a day; bob, in no mapped group, the gateway's
// one.
func TestOIDCQuotaClasses(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	classes, err := gateway.ParseClasses([]byte(`{
		// comments are allowed
		"classes": {"heavy": {"perDay": 3}, "trial": {"perDay": 2}},
		"groups": {"research": "heavy", "staff": "trial"},
	}`))
	require.NoError(t, err)
	s := startSignedIn(t, d, nil, gateway.Limits{PerDay: 1}, func(o *gateway.OIDCOptions) { o.GroupClaim, o.Classes = "groups", classes })
	s.idp.SetGroups("alice@example.com", "staff", "research")
	s.idp.SetGroups("bob@example.com", "sales")
	calls := func(cs *sdk.ClientSession) (ok int) {
		for i := range 5 {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "deepseek_fetch", Arguments: map[string]any{"url": fmt.Sprintf("https://go.dev/%p/%d", cs, i)}})
			require.NoError(t, err)
			if !res.IsError {
				ok++
			}
		}
		return ok
	}
	require.Equal(t, 3, calls(s.signIn(t)), "alice: the most generous of her classes")
	s.idp.SignInAs("bob@example.com")
	require.Equal(t, 1, calls(s.signIn(t)), "bob: the gateway's quota")
}

func TestParseClasses(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{`{"classes": {"a": {"perDay": -1}}}`, `class "a": perDay is 0 (no quota) or more, inFlight 1 or more`},
		{`{"classes": {"a": {"inFlight": 0}}}`, `class "a": perDay is 0 (no quota) or more, inFlight 1 or more`},
		{`{"groups": {"eng": "gold"}}`, `group "eng" names the class "gold", which "classes" does not define`},
		{`{"classes": {"a": {"perWeek": 1}}}`, `unknown field "perWeek"`},
		{`{"classes": {"a": null}}`, `class "a": want an object`},
		{`[`, `not JSON`},
	} {
		_, err := gateway.ParseClasses([]byte(tc.in))
		require.ErrorContains(t, err, tc.err, tc.in)
	}
}
