package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Sign-in through the organisation's identity provider: the gateway is an
// OAuth 2.1 resource server (the MCP authorization spec, 2025-06-18 and
// 2025-11-25). It publishes RFC 9728 protected-resource metadata naming
// the provider, and accepts JWT access tokens the provider signed for the
// gateway's canonical URL (RFC 8707). go-oidc finds the provider's keys
// through discovery and checks the signature, the issuer, the audience and
// the algorithm; exp and nbf are checked here, with Skew.

// OIDCOptions configures [NewOIDC].
type OIDCOptions struct {
	// Issuer is the provider's issuer URL (--oidc-issuer); its discovery
	// document is at Issuer + "/.well-known/openid-configuration".
	Issuer string
	// Audience is the gateway's canonical URL, e.g.
	// https://gw.example.com/mcp (--audience): a token must name it in
	// "aud", and the metadata's "resource" is it.
	Audience string
	// MemberClaim is the claim that names the member (--member-claim);
	// "" means "email". Its value must be a valid member name.
	MemberClaim string
	// GroupClaim is the claim that lists the member's groups
	// (--group-claim): an array of strings, or one string of names
	// separated by spaces. Classes maps them to quota classes.
	GroupClaim string
	Classes    *Classes
	// Client fetches discovery and keys; nil means a client with a 10 s
	// timeout.
	Client *http.Client
	// KeysTTL is how long fetched keys are trusted before the key set is
	// read again, so a key the provider removed stops working even when no
	// token with a new key arrives (a new key is fetched at once). Zero
	// means 10 minutes.
	KeysTTL time.Duration
	// Skew is the clock difference tolerated on exp and nbf. Zero means
	// 60 s.
	Skew time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// SigningAlgs are the algorithms a token may be signed with: asymmetric
// only, so "none" and an HS256 token made with the provider's public key
// as its secret are refused.
var signingAlgs = []string{
	oidc.RS256, oidc.RS384, oidc.RS512, oidc.PS256, oidc.PS384, oidc.PS512,
	oidc.ES256, oidc.ES384, oidc.ES512, oidc.EdDSA,
}

// OIDC verifies members' access tokens. Discovery happens on the first
// token, and again after a failure, so a gateway starts while its provider
// is down.
type OIDC struct {
	o OIDCOptions

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier
}

// NewOIDC checks o and returns an OIDC; nothing is fetched yet.
func NewOIDC(o OIDCOptions) (*OIDC, error) {
	for _, f := range []struct{ flag, v string }{{"--oidc-issuer", o.Issuer}, {"--audience", o.Audience}} {
		u, err := url.Parse(f.v)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
			return nil, fmt.Errorf("%s %q: want an absolute http:// or https:// URL", f.flag, f.v)
		}
	}
	if o.MemberClaim == "" {
		o.MemberClaim = "email"
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.KeysTTL <= 0 {
		o.KeysTTL = 10 * time.Minute
	}
	if o.Skew <= 0 {
		o.Skew = 60 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &OIDC{o: o}, nil
}

// MetadataPath is where the gateway serves its protected-resource metadata
// (RFC 9728 §3.1: the well-known path, then the resource's path).
func (v *OIDC) MetadataPath() string {
	u, _ := url.Parse(v.o.Audience)
	return "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.Path, "/")
}

// MetadataURL is the metadata's public URL, for WWW-Authenticate.
func (v *OIDC) MetadataURL() string {
	u, _ := url.Parse(v.o.Audience)
	return u.Scheme + "://" + u.Host + v.MetadataPath()
}

// Metadata is the gateway's protected-resource metadata.
func (v *OIDC) Metadata() *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               v.o.Audience,
		AuthorizationServers:   []string{v.o.Issuer},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "DeepSeek Web Retrieval",
		ScopesSupported:        []string{"openid", v.o.MemberClaim},
	}
}

// ErrProvider wraps a failure to reach the identity provider: the token
// could not be checked, which is not the member's fault.
var ErrProvider = errors.New("the identity provider could not be reached")

// Identity is who a verified token names.
type Identity struct {
	Member  string
	Expires time.Time
	// Class is the quota class the member's groups choose; nil for the
	// gateway's own quotas.
	Class *Class
}

// Verify checks token and returns who it names. A refusal wraps
// auth.ErrInvalidToken; a provider that cannot be reached, ErrProvider.
func (v *OIDC) Verify(ctx context.Context, token string) (Identity, error) {
	member, expires, groups, err := v.verify(ctx, token)
	if err != nil {
		return Identity{}, err
	}
	return Identity{Member: member, Expires: expires, Class: v.o.Classes.For(groups)}, nil
}

func (v *OIDC) verify(ctx context.Context, token string) (member string, expires time.Time, groups []string, err error) {
	verifier, err := v.load(ctx)
	if err != nil {
		return "", time.Time{}, nil, err
	}
	t, err := verifier.Verify(oidc.ClientContext(ctx, v.o.Client), token)
	if err != nil {
		// go-oidc v3.21.0 (oidc/jwks.go) says "fetching keys …" when the
		// key set could not be read, and flattens the error on the way
		// out (verify.go uses %v): the text is all there is to go by.
		if strings.Contains(err.Error(), "fetching keys") {
			return "", time.Time{}, nil, fmt.Errorf("%w: %v", ErrProvider, err)
		}
		return "", time.Time{}, nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	var claims struct {
		NotBefore *float64 `json:"nbf"`
	}
	all := map[string]any{}
	if err := t.Claims(&claims); err != nil {
		return "", time.Time{}, nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	if err := t.Claims(&all); err != nil {
		return "", time.Time{}, nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	now := v.o.Now()
	switch {
	case t.Expiry.IsZero():
		return "", time.Time{}, nil, fmt.Errorf("%w: the token has no exp", auth.ErrInvalidToken)
	case now.After(t.Expiry.Add(v.o.Skew)):
		return "", time.Time{}, nil, fmt.Errorf("%w: the token expired at %s", auth.ErrInvalidToken, t.Expiry.UTC().Format(time.RFC3339))
	case claims.NotBefore != nil && now.Add(v.o.Skew).Before(time.Unix(int64(*claims.NotBefore), 0)):
		return "", time.Time{}, nil, fmt.Errorf("%w: the token is not valid before %s", auth.ErrInvalidToken, time.Unix(int64(*claims.NotBefore), 0).UTC().Format(time.RFC3339))
	}
	name, _ := all[v.o.MemberClaim].(string)
	if err := CheckMemberName(name); err != nil {
		return "", time.Time{}, nil, fmt.Errorf("%w: claim %q: %v", auth.ErrInvalidToken, v.o.MemberClaim, err)
	}
	return name, t.Expiry, groupsOf(all[v.o.GroupClaim]), nil
}

// groupsOf reads a group claim: an array of strings, or one string of
// names separated by spaces.
func groupsOf(v any) []string {
	switch g := v.(type) {
	case string:
		return strings.Fields(g)
	case []any:
		var out []string
		for _, x := range g {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// load returns the verifier, discovering the provider first if need be.
func (v *OIDC) load(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.verifier != nil {
		return v.verifier, nil
	}
	dctx, cancel := context.WithTimeout(oidc.ClientContext(context.WithoutCancel(ctx), v.o.Client), 10*time.Second)
	defer cancel()
	p, err := oidc.NewProvider(dctx, v.o.Issuer)
	if err != nil {
		return nil, fmt.Errorf("%w: discovery at %s: %v", ErrProvider, v.o.Issuer, err)
	}
	var doc struct {
		JWKS string `json:"jwks_uri"`
	}
	if err := p.Claims(&doc); err != nil || doc.JWKS == "" {
		return nil, fmt.Errorf("%w: discovery at %s names no jwks_uri", ErrProvider, v.o.Issuer)
	}
	keys := &renewedKeys{url: doc.JWKS, ttl: v.o.KeysTTL, client: v.o.Client, now: v.o.Now}
	v.verifier = oidc.NewVerifier(v.o.Issuer, keys, &oidc.Config{
		ClientID:             v.o.Audience,
		SupportedSigningAlgs: signingAlgs,
		SkipExpiryCheck:      true, // Verify checks exp and nbf with Skew
	})
	return v.verifier, nil
}

// renewedKeys is go-oidc's remote key set, made again every ttl: the
// remote set keeps the keys it fetched for as long as tokens name them, so
// a key the provider removed would work until a token with a new key
// came.
type renewedKeys struct {
	url    string
	ttl    time.Duration
	client *http.Client
	now    func() time.Time

	mu   sync.Mutex
	set  *oidc.RemoteKeySet
	made time.Time
}

func (k *renewedKeys) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	k.mu.Lock()
	if k.set == nil || k.now().Sub(k.made) >= k.ttl {
		k.set = oidc.NewRemoteKeySet(oidc.ClientContext(context.Background(), k.client), k.url)
		k.made = k.now()
	}
	set := k.set
	k.mu.Unlock()
	return set.VerifySignature(ctx, jwt)
}
