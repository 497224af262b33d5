// Package oidctest runs a real OpenID provider for tests: zitadel/oidc's
// op package over the in-memory storage its module ships, issuing JWT
// access tokens for one audience, approving every sign-in at once as the
// user the test names, with keys the test can rotate.
package oidctest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// ClientID is the provider's one client: a native (public, PKCE) client
// whose redirect URI is RedirectURL.
const (
	ClientID    = "deepseek-web-retrieval-test"
	RedirectURL = "http://localhost/callback"
	password    = "verysecure"
)

// Provider is a running OpenID provider.
type Provider struct {
	// URL is the issuer.
	URL string
	srv *httptest.Server
	st  *store
	op  *op.Provider

	mu   sync.Mutex
	user string
}

// Start runs a provider whose access tokens name audience in "aud", with
// the users of emails (each signs in with its email). It stops when the
// test ends.
func Start(t testing.TB, audience string, emails ...string) *Provider {
	t.Helper()
	p, err := New(audience, emails...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// New is Start for a program that is not a test (cmd/oidc-provider);
// Close stops the provider.
func New(audience string, emails ...string) (*Provider, error) {
	users := userStore{}
	for i, e := range emails {
		users[e] = &storage.User{ID: fmt.Sprintf("user%d", i+1), Username: e, Password: password, Email: e, EmailVerified: true, PreferredLanguage: language.English}
	}
	client := storage.NativeClient(ClientID, RedirectURL)
	st := &store{Storage: storage.NewStorageWithClients(users, map[string]*storage.Client{ClientID: client}), users: users, audience: audience}
	st.rotate()
	p := &Provider{st: st}
	mux := http.NewServeMux()
	p.srv = httptest.NewServer(mux)
	p.URL = p.srv.URL
	key := sha256.Sum256([]byte("oidctest"))
	provider, err := op.NewProvider(&op.Config{CryptoKey: key, CodeMethodS256: true, AuthMethodPost: true, GrantTypeRefreshToken: true},
		st, op.StaticIssuer(p.URL), op.WithAllowInsecure(), op.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		p.srv.Close()
		return nil, err
	}
	p.op = provider
	// The login page approves at once, as the user the test chose.
	mux.HandleFunc("/login/username", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("authRequestID")
		if err := st.CheckUsernamePassword(p.User(), password, id); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		http.Redirect(w, r, op.AuthCallbackURL(provider)(r.Context(), id), http.StatusFound)
	})
	mux.Handle("/", provider)
	return p, nil
}

// Close stops the provider.
func (p *Provider) Close() { p.srv.Close() }

// SignInAs makes email the user every sign-in approves.
func (p *Provider) SignInAs(email string) {
	p.mu.Lock()
	p.user = email
	p.mu.Unlock()
}

// SetGroups puts groups in the "groups" claim of email's tokens.
func (p *Provider) SetGroups(email string, groups ...string) {
	p.st.gmu.Lock()
	defer p.st.gmu.Unlock()
	if p.st.groups == nil {
		p.st.groups = map[string][]string{}
	}
	p.st.groups[email] = groups
}

// User is the user sign-ins approve.
func (p *Provider) User() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.user
}

// Rotate signs with a new key from now on and publishes only it: tokens
// signed with the old key no longer verify once a verifier reads the key
// set again.
func (p *Provider) Rotate() { p.st.rotate() }

// Fetch is an auth.AuthorizationCodeFetcher: it follows the authorization
// URL through the provider's approval to the redirect, and returns the
// code and state the redirect carries.
func (p *Provider) Fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	c := &http.Client{CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(r.URL.String(), RedirectURL) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), RedirectURL) {
		return nil, fmt.Errorf("oidctest: the sign-in ended at HTTP %d, %q, not the redirect", resp.StatusCode, resp.Header.Get("Location"))
	}
	q := loc.Query()
	if e := q.Get("error"); e != "" {
		return nil, errors.New("oidctest: " + e + ": " + q.Get("error_description"))
	}
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state")}, nil
}

// Sign signs claims as a token of this provider would be, with its
// current key, for the cases a sign-in does not produce (expired, another
// audience, …).
func (p *Provider) Sign(claims map[string]any) string {
	k := p.st.current()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k.private, KeyID: k.id}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		panic(err)
	}
	return sign(s, claims)
}

// PublicKey is the current key's public half, which anyone can read from
// the key set.
func (p *Provider) PublicKey() *rsa.PublicKey { return &p.st.current().private.PublicKey }

// Claims returns the claims of a token from this provider for email, valid
// now for lifetime, with the configured audience.
func (p *Provider) Claims(email string, lifetime time.Duration) map[string]any {
	now := time.Now()
	return map[string]any{"iss": p.URL, "sub": "user", "aud": []string{p.st.audience}, "email": email,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(lifetime).Unix()}
}

// SignWith signs claims with another algorithm and key (HS256 with the
// public key's bytes, say).
func SignWith(alg jose.SignatureAlgorithm, key any, claims map[string]any) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		panic(err)
	}
	return sign(s, claims)
}

func sign(s jose.Signer, claims map[string]any) string {
	payload, err := json.Marshal(claims)
	if err != nil {
		panic(err)
	}
	obj, err := s.Sign(payload)
	if err != nil {
		panic(err)
	}
	out, err := obj.CompactSerialize()
	if err != nil {
		panic(err)
	}
	return out
}

// userStore is the provider's users by email.
type userStore map[string]*storage.User

func (u userStore) GetUserByID(id string) *storage.User {
	for _, x := range u {
		if x.ID == id {
			return x
		}
	}
	return nil
}
func (u userStore) GetUserByUsername(name string) *storage.User { return u[name] }
func (u userStore) ExampleClientID() string                     { return "service" }

// store is the example storage with JWT access tokens for the audience,
// the user's email in them, and rotating keys.
type store struct {
	*storage.Storage
	users    userStore
	audience string

	gmu    sync.Mutex
	groups map[string][]string // by email

	mu  sync.Mutex
	key *key
}

type key struct {
	id      string
	private *rsa.PrivateKey
}

func (k *key) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *key) Key() any                                    { return k.private }
func (k *key) ID() string                                  { return k.id }

type publicKey struct{ *key }

func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.private.PublicKey }

func (s *store) rotate() {
	pk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 1
	if s.key != nil {
		fmt.Sscanf(s.key.id, "key%d", &n)
		n++
	}
	s.key = &key{id: fmt.Sprintf("key%d", n), private: pk}
}

func (s *store) current() *key {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.key
}

func (s *store) SigningKey(context.Context) (op.SigningKey, error) { return s.current(), nil }
func (s *store) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}
func (s *store) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{publicKey{s.current()}}, nil
}

// GetClientByClientID hands out the client with JWT access tokens.
func (s *store) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil {
		return nil, err
	}
	return jwtClient{c}, nil
}

type jwtClient struct{ op.Client }

func (jwtClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }

// AuthRequestByCode names the gateway as the token's audience.
func (s *store) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	r, err := s.Storage.AuthRequestByCode(ctx, code)
	if err != nil {
		return nil, err
	}
	return audienceRequest{r, s.audience}, nil
}

type audienceRequest struct {
	op.AuthRequest
	audience string
}

func (r audienceRequest) GetAudience() []string { return []string{r.audience} }

// GetPrivateClaimsFromScopes puts the user's email, and their groups if
// any, in the access token.
func (s *store) GetPrivateClaimsFromScopes(_ context.Context, userID, _ string, _ []string) (map[string]any, error) {
	u := s.users.GetUserByID(userID)
	if u == nil {
		return nil, nil
	}
	claims := map[string]any{"email": u.Email}
	s.gmu.Lock()
	if g := s.groups[u.Email]; g != nil {
		claims["groups"] = g
	}
	s.gmu.Unlock()
	return claims, nil
}
