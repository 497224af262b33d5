package gateway

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/httpdriver"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
)

// LocalMember is the member name of every call to a gateway that runs
// without tokens (on loopback only: see ServerOptions.Tokens).
const LocalMember = "local"

// ServerOptions configures [NewServer].
type ServerOptions struct {
	// MCP configures the tools as for the stdio server: their options and
	// tiers, how the key is read, the HTTP client. Around is the
	// gateway's own and must be nil.
	MCP mcp.Options
	// Tokens authenticates members. Nil (and no OIDC) serves everyone as
	// LocalMember, which only a gateway bound to loopback may do (the
	// serve command refuses anything else).
	Tokens *Tokens
	// Usage, when set, counts every call for its member, day and tool.
	Usage UsageBook
	// Tracing, when set, makes OpenTelemetry spans of the calls.
	Tracing *Tracing
	// OIDC, when set, also accepts access tokens from the organisation's
	// identity provider, and the gateway publishes its protected-resource
	// metadata. A token with TokenPrefix is still a member token.
	OIDC *OIDC
	// AllowOrigins are the browser origins (scheme://host[:port]) allowed
	// to call /mcp. A request with any other Origin header gets 403: the
	// MCP transport's protection against DNS rebinding. Requests without
	// an Origin header (every MCP host that is not a browser) pass.
	AllowOrigins []string
	// Store holds what replicas share: the cache, the coalescing locks,
	// the quota and rate counters. Nil means an in-process MemStore (one
	// replica).
	Store Store
	// Limits are the members' quotas and the team's rates.
	Limits Limits
	// CacheTTL is how long an answer is kept in Store for any replica to
	// serve. Below a second it is a second: long enough for the identical
	// calls waiting on an answer to read it.
	CacheTTL time.Duration
	// Audit writes one line per call; nil writes none.
	Audit *Audit
	// Metrics counts what /metrics serves; nil means NewMetrics().
	Metrics *Metrics
	// Logf reports refusals (at most 5 lines every 10 s, then a count)
	// and store trouble; nil means log.Printf. Its lines hold no key and
	// no token.
	Logf func(format string, args ...any)
	// BodyBudget bounds the bytes of the request bodies the server holds
	// at once, summed over every request from before its body is read
	// until it is answered (one of unknown length counts as 4 MiB, the
	// most a body may be). A request that does not fit waits up to 10 s
	// for room, then gets HTTP 503 and a "busy" sentence. Zero means
	// 16 MiB.
	BodyBudget int64
	// PublicURLs are the URLs members reach the gateway at through a
	// reverse proxy (https://gw.example.com). On a loopback socket, /mcp
	// answers 403 to a Host header that names neither this machine nor
	// one of their hosts: the MCP transport's protection against DNS
	// rebinding, which a proxy on the same machine passing the public
	// Host would otherwise trip.
	PublicURLs []string
}

// Server is the team gateway's HTTP side: the MCP tools at /mcp over
// streamable HTTP, /healthz and /metrics. Every tool call is authenticated,
// admitted by the member's limits, answered from the shared cache or an
// identical call in flight when it can be, held to the team's rate before
// each DeepSeek request, audited and counted.
type Server struct {
	opts    ServerOptions
	limiter *Limiter
	cache   *Cache
	metrics *Metrics
	handler http.Handler
	// bodies holds the request bodies being read or answered to
	// ServerOptions.BodyBudget.
	bodies *bodyGate
	// refusals logs refused requests (401s) at a bounded pace.
	refusals *refusalLog
	// usageErrs logs the counts the UsageBook did not take, once a minute.
	usageErrs *rareLog

	// closing is closed by Close: every call in flight is cancelled.
	closing   chan struct{}
	closeOnce sync.Once
}

// NewServer checks o and returns a Server.
func NewServer(o ServerOptions) (*Server, error) {
	if o.MCP.Around != nil {
		return nil, errors.New("gateway: ServerOptions.MCP.Around is the gateway's own")
	}
	for _, origin := range o.AllowOrigins {
		if err := checkOrigin(origin); err != nil {
			return nil, err
		}
	}
	if o.Logf == nil {
		o.Logf = log.Printf
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	if o.Store == nil {
		o.Store = NewMemStore(MemStoreOptions{})
	}
	if o.BodyBudget < 0 {
		return nil, fmt.Errorf("gateway: a body budget of %d bytes; want 0 (the default, 16 MiB) or more", o.BodyBudget)
	}
	if o.BodyBudget == 0 {
		o.BodyBudget = defaultBodyBudget
	}
	lim, err := NewLimiter(o.Store, o.Limits, LimiterOptions{Metrics: o.Metrics, Logf: o.Logf})
	if err != nil {
		return nil, err
	}
	hosts, err := newHostCheck(o.PublicURLs)
	if err != nil {
		return nil, err
	}
	// A replica that dies mid-call holds its coalescing lock until it
	// expires, and identical calls on the others wait that long: 3 s,
	// renewed every second while the owner works.
	s := &Server{opts: o, limiter: lim, metrics: o.Metrics, cache: NewCache(o.Store, CacheOptions{Logf: o.Logf, LockTTL: 3 * time.Second, Secret: cacheSecret(o.MCP)}),
		bodies: newBodyGate(o.BodyBudget), refusals: newRefusalLog(o.Logf), usageErrs: newRareLog(o.Logf, time.Minute)}
	s.closing = make(chan struct{})

	mo := o.MCP
	mo.Around = s.around
	client := mo.Client
	if client == nil {
		client = httpdriver.NewClient()
	}
	metered := *client
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	metered.Transport = &meteredTransport{base: base, s: s}
	mo.Client = &metered
	srv := mcp.NewServer(mo)

	// Stateless: no session lives on a replica, so any replica behind any
	// load balancer can answer any request of a member's session. The SDK
	// ties a call to its POST only from protocol 2026-07-28 on; around does
	// it for every version (see request). hosts replaces the SDK's
	// DNS-rebinding check, which knows no public URL (host.go).
	streamable := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true, DisableLocalhostProtection: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", hosts.wrap(s.guard(streamable), s.metrics, s.refusals.printf))
	if o.OIDC != nil {
		meta := auth.ProtectedResourceMetadataHandler(o.OIDC.Metadata())
		mux.Handle("/.well-known/oauth-protected-resource", meta)
		if p := o.OIDC.MetadataPath(); p != "/.well-known/oauth-protected-resource" {
			mux.Handle(p, meta)
		}
	}
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET /metrics", s.metrics.Registry)
	s.handler = mux
	return s, nil
}

// Handler returns the gateway's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Metrics returns the metrics the server counts.
func (s *Server) Metrics() *Metrics { return s.metrics }

// Close cancels every call in flight; their members get a cancelled
// result, and logs how many refusals went unlogged. It does not close
// connections (http.Server.Shutdown does).
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closing) })
	s.refusals.flush()
}

func checkOrigin(origin string) error {
	scheme, rest, ok := strings.Cut(origin, "://")
	if !ok || (scheme != "http" && scheme != "https") || rest == "" || strings.ContainsAny(rest, "/?#@ ") {
		return fmt.Errorf("allowed origin %q: want scheme://host[:port], as a browser sends it in Origin", origin)
	}
	return nil
}

// memberKey holds, in a request's context, the member guard authenticated.
type memberKey struct{}

// guard answers 403 to a foreign Origin and 401 (no detail) to a request
// without a valid member token, before the MCP handler sees it. It
// authenticates once; the SDK's bearer middleware then only hands the
// member on as auth.TokenInfo, so tool calls see it in req.Extra and the
// SDK keeps one member's session from another. Then it admits a POST
// before reading its body (see admit), refuses an id the SDK would not
// echo (as the stdio server does) and hands the request to the call in
// its context.
func (s *Server) guard(next http.Handler) http.Handler {
	var verified http.Handler = next
	signIn := s.opts.Tokens != nil || s.opts.OIDC != nil
	if signIn {
		verified = auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
			member, ok := r.Context().Value(memberKey{}).(string)
			if !ok {
				return nil, auth.ErrInvalidToken
			}
			// Members' tokens do not expire; the SDK wants an expiry.
			return &auth.TokenInfo{UserID: member, Expiration: time.Now().Add(time.Hour)}, nil
		}, nil)(next)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !slices.Contains(s.opts.AllowOrigins, origin) {
			s.metrics.Calls.Inc("", string(OutcomeForbidden))
			w.WriteHeader(http.StatusForbidden)
			return
		}
		member := LocalMember
		if signIn {
			var (
				class *Class
				err   error
			)
			if member, class, err = s.authenticate(r); err != nil {
				if errors.Is(err, ErrProvider) {
					s.refusals.printf("gateway: 503 for %s: %v", r.RemoteAddr, err)
					s.refuse(w, http.StatusServiceUnavailable, "deepseek-web-retrieval gateway: the identity provider could not be reached to check the token; try again shortly")
					return
				}
				s.refusals.printf("gateway: 401 for %s: %v", r.RemoteAddr, err)
				s.metrics.Calls.Inc("", string(OutcomeUnauthorized))
				challenge := `Bearer realm="deepseek-web-retrieval"`
				if s.opts.OIDC != nil {
					challenge = `Bearer resource_metadata="` + s.opts.OIDC.MetadataURL() + `"`
				}
				w.Header().Set("WWW-Authenticate", challenge)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			r = r.WithContext(withClass(context.WithValue(r.Context(), memberKey{}, member), class))
		}
		if r.Method != http.MethodPost {
			verified.ServeHTTP(w, r) // no body, no call: the SDK answers 405
			return
		}
		rq, body, done := s.admit(w, r, member)
		if rq == nil {
			return
		}
		defer done()
		if s.checkIDs(w, body) {
			return
		}
		r.Body = &heldBody{b: body}
		r = r.WithContext(context.WithValue(r.Context(), requestKey{}, rq))
		verified.ServeHTTP(w, r)
	})
}

// authenticate returns the member r's bearer token names, and their quota
// class: a member token (TokenPrefix) from Tokens, any other from OIDC.
func (s *Server) authenticate(r *http.Request) (string, *Class, error) {
	h := r.Header.Get("Authorization")
	scheme, token, _ := strings.Cut(strings.TrimSpace(h), " ")
	token = strings.TrimSpace(token)
	if s.opts.OIDC == nil || strings.HasPrefix(token, TokenPrefix) {
		if s.opts.Tokens == nil {
			return "", nil, ErrUnknownToken
		}
		member, err := s.opts.Tokens.Authenticate(h)
		return member, nil, err
	}
	switch {
	case h == "":
		return "", nil, ErrNoToken
	case !strings.EqualFold(scheme, "Bearer") || token == "":
		return "", nil, ErrNotBearer
	}
	id, err := s.opts.OIDC.Verify(r.Context(), token)
	return id.Member, id.Class, err
}

// healthz answers 200 "degraded" while a FailoverStore stands in for Redis
// (from the first store operation that found it down), else 200 "ok"; it
// does not ping Redis itself. Calls succeed either way.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if f, ok := s.opts.Store.(interface{ Degraded() bool }); ok && f.Degraded() {
		fmt.Fprintln(w, "degraded: the shared store does not answer; serving from this replica's memory")
		return
	}
	fmt.Fprintln(w, "ok")
}

// memberOf is the member the call's bearer token named.
func memberOf(extra *sdk.RequestExtra) string {
	if extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
		return extra.TokenInfo.UserID
	}
	return LocalMember
}

// callState is what the metered transport learns of one call's requests.
type callState struct {
	// sent is set once one of the call's requests has gone to DeepSeek.
	sent   atomic.Bool
	status atomic.Int32
	billed atomic.Bool
	// attempts counts the call's requests, retries included.
	attempts atomic.Int32
}

type callStateKey struct{}

// abortKey holds, in a running call's context, what ends the call with a
// cause: the metered transport's rateRefusal.
type abortKey struct{}

// rateRefusal ends a call whose first DeepSeek request found the team at
// its rate: the member reads the "busy" sentence, not what the engine
// would make of a 429.
type rateRefusal struct{ d Decision }

func (e *rateRefusal) Error() string { return e.d.Text() }

// around is the MCP server's hook: every tool call passes here.
func (s *Server) around(ctx context.Context, c *mcp.Call, run func(context.Context) mcp.Outcome) mcp.Outcome {
	start := time.Now()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-s.closing:
			stop()
		case <-ctx.Done():
		}
	}()
	if rq := requestOf(ctx); rq != nil {
		// Stateless: one POST is one call, and once its client has gone
		// no one reads the answer. Cancelling stops DeepSeek's request
		// (unbilled) and frees the member's in-flight slot.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(rq.gone, cancel)()
	}
	st := &callState{}
	rec := AuditRecord{Time: start, Member: memberOf(c.Extra), Tool: c.Tool}
	if c.Valid {
		rec.Query, rec.URL = c.Op.Query, c.Op.URL
	}
	ctx, span := s.opts.Tracing.startCall(ctx, c, rec.Member)
	out, outcome, src := s.serve(context.WithValue(ctx, callStateKey{}, st), c, rec.Member, run)
	if ctx.Err() != nil && out.IsError {
		outcome = OutcomeCancelled
		select {
		case <-s.closing:
			out = mcp.Outcome{Text: stoppingText, IsError: true}
		default:
		}
	}
	endCall(span, outcome, src)
	if s.opts.Usage != nil {
		row := UsageRow{Day: UsageDay(start), Member: rec.Member, Tool: c.Tool, UsageCounts: usageOf(outcome, src, st.billed.Load())}
		if err := s.opts.Usage.AddUsage(context.WithoutCancel(ctx), row); err != nil {
			s.usageErrs.printf("usage", "gateway: usage not counted: %v", err)
		}
	}
	rec.Outcome, rec.Cache = outcome, src
	rec.Status, rec.Billed = int(st.status.Load()), st.billed.Load()
	rec.Bytes = int64(len(out.Text))
	if out.IsError {
		rec.Error = out.Text
	}
	rec.Duration = time.Since(start)
	s.metrics.Calls.Inc(c.Tool, string(outcome))
	s.metrics.Latency.Observe(rec.Duration.Seconds(), c.Tool)
	switch src {
	case CacheHit:
		s.metrics.CacheHits.Inc(c.Tool)
	case Coalesced:
		s.metrics.Coalesced.Inc(c.Tool)
	}
	if s.opts.Audit != nil {
		if err := s.opts.Audit.Log(rec); err != nil {
			s.opts.Logf("gateway: audit line not written: %v", err)
		}
	}
	return out
}

// stoppingText is what a call cancelled by Close answers.
const stoppingText = "deepseek-web-retrieval gateway: the gateway is stopping, so the call was cancelled; try again"

// refusal carries an outcome that must not be cached through Cache.Do.
type refusal struct {
	out     mcp.Outcome
	outcome CallOutcome
}

func (r *refusal) Error() string { return r.out.Text }

// serve admits, answers and reports one call: the outcome, its label and
// where the answer came from.
func (s *Server) serve(ctx context.Context, c *mcp.Call, member string, run func(context.Context) mcp.Outcome) (mcp.Outcome, CallOutcome, Source) {
	if !c.Valid {
		return run(ctx), OutcomeInvalid, Computed
	}
	release, d := s.admitCall(ctx, member)
	if !d.OK() {
		return mcp.Outcome{Text: d.Text(), IsError: true}, d.Outcome(), Computed
	}
	defer release()
	work := func(ctx context.Context) ([]byte, error) {
		ctx, abort := context.WithCancelCause(ctx)
		defer abort(nil)
		out := run(context.WithValue(ctx, abortKey{}, abort))
		var rr *rateRefusal
		if errors.As(context.Cause(ctx), &rr) {
			return nil, &refusal{mcp.Outcome{Text: rr.d.Text(), IsError: true}, rr.d.Outcome()}
		}
		if out.IsError {
			return nil, &refusal{out, OutcomeError}
		}
		return []byte(out.Text), nil
	}
	var (
		answer []byte
		src    = Computed
		err    error
	)
	if c.Identity == nil {
		answer, err = work(ctx)
	} else {
		// The answer's identity: the core's, this build's version (another
		// version may word an answer differently) and nothing secret.
		id := append([]byte("v"+core.Version+"\x00"), c.Identity...)
		cctx, span := s.opts.Tracing.startCache(ctx)
		answer, src, err = s.cache.Do(cctx, id, s.opts.CacheTTL, work)
		endCache(span, src, err)
	}
	var r *refusal
	switch {
	case errors.As(err, &r):
		return r.out, r.outcome, src
	case err != nil:
		return mcp.Outcome{Text: "the gateway could not answer: " + err.Error(), IsError: true}, OutcomeError, src
	}
	return mcp.Outcome{Text: string(answer)}, OutcomeOK, src
}

// admitCall admits one call of member: the in-flight slot its request
// took before its body was read (a batch's other calls take their own),
// then one unit of the day's quota.
func (s *Server) admitCall(ctx context.Context, member string) (release func(), d Decision) {
	rq := requestOf(ctx)
	if !rq.claim() {
		return s.limiter.Admit(ctx, member)
	}
	var once sync.Once
	release = func() { once.Do(rq.drop) }
	if !rq.busy.OK() {
		release()
		return func() {}, rq.busy
	}
	if d = s.limiter.spendQuota(ctx, member); !d.OK() {
		release()
		return func() {}, d
	}
	return release, d
}

// meteredTransport holds every DeepSeek request to the team's rate and
// counts it: a slot is taken only for a request that goes out, so a call
// refused before any request (a private URL, a query too long) or
// answered from the cache takes none. When a call's first request finds
// no slot within MaxWait, the call ends with the "busy" sentence; a later
// one (a retry, a continuation) is answered 429 with Retry-After, which
// the engine waits out as it would DeepSeek's.
type meteredTransport struct {
	base http.RoundTripper
	s    *Server
}

func (t *meteredTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	kind, tool := Search, mcp.SearchTool
	if strings.HasSuffix(r.URL.Path, "/tools/fetch") {
		kind, tool = Fetch, mcp.FetchTool
	}
	st, _ := r.Context().Value(callStateKey{}).(*callState)
	d, err := t.s.limiter.WaitRate(r.Context(), kind)
	if err != nil {
		return nil, err
	}
	if !d.OK() {
		if abort, ok := r.Context().Value(abortKey{}).(context.CancelCauseFunc); ok && st != nil && !st.sent.Load() {
			rr := &rateRefusal{d}
			abort(rr)
			return nil, rr
		}
		// As DeepSeek would answer: the engine waits and retries, or says
		// the service is rate limiting.
		return &http.Response{
			StatusCode: http.StatusTooManyRequests, Status: "429 Too Many Requests", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:  http.Header{"Retry-After": {strconv.Itoa(int(d.RetryIn/time.Second) + 1)}, "Content-Type": {"text/plain"}},
			Body:    http.NoBody,
			Request: r,
		}, nil
	}
	attempt := 1
	if st != nil {
		st.sent.Store(true)
		attempt = int(st.attempts.Add(1))
	}
	t.s.metrics.DeepSeekRequests.Inc(tool)
	_, span := t.s.opts.Tracing.startRequest(r.Context(), r, tool, attempt)
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		endRequest(span, 0, err)
		return resp, err
	}
	endRequest(span, resp.StatusCode, nil)
	if st != nil {
		st.status.Store(int32(resp.StatusCode))
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		t.s.metrics.BilledRequests.Inc(tool)
		if st != nil {
			st.billed.Store(true)
		}
	}
	return resp, nil
}
