package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/httpdriver"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
)

var serveHelp = helpText{
	usage: `deepseek-web-retrieval serve [flags] [option flags]
       deepseek-web-retrieval serve token add|revoke|list [NAME] --tokens FILE
       deepseek-web-retrieval serve usage [--redis URL] [--since 7d] [--by member|day|tool] [--json]`,
	about: `Serves deepseek_search and deepseek_fetch to a team over streamable HTTP: the
MCP server of "mcp" (the same tools, texts and errors) at /mcp, with /healthz
and /metrics (Prometheus text). The DeepSeek key lives only in this process's
environment; members authenticate with "Authorization: Bearer <token>" and
each gets quotas, while the team is held below DeepSeek's rate limits. With
--redis, any number of replicas share the cache, identical calls in flight,
the rate limits and the quota counters. It runs until SIGINT or SIGTERM, then
stops accepting, lets calls in flight finish within --shutdown-timeout,
cancels the rest and exits 0.

The option flags of "mcp" set the tools for everyone; --cache-ttl is also how
long any replica serves an answer from the shared cache. A gateway admits
more at once than mcp, so --max-calls and --max-held-mb default higher here.
Every flag can be set as a DEEPSEEK_WEB_RETRIEVAL_ variable, as for mcp
(DEEPSEEK_WEB_RETRIEVAL_REDIS, DEEPSEEK_WEB_RETRIEVAL_TOKENS).`,
	examples: []string{
		"deepseek-web-retrieval serve token add alice --tokens tokens.json",
		"DEEPSEEK_API_KEY=sk-... deepseek-web-retrieval serve --tokens tokens.json",
		"deepseek-web-retrieval init --host codex --remote https://gw.example.com --token-env DEEPSEEK_WEB_RETRIEVAL_TOKEN",
	},
	groups: []flagGroup{
		{"Flags:", nil},
		{`Option flags (those of "mcp"):`, optionFlags()},
	},
	exit: "0 stopped by a signal, 1 could not start, 2 invalid flags.",
}

// tokensUsage is the usage of --tokens, of serve and of serve token.
const tokensUsage = "`FILE` members' tokens (hashes only; \"serve token add\" writes it); re-read when it changes. Without it every call is the member \"local\", on loopback only"

var tokenHelp = helpText{
	usage: "deepseek-web-retrieval serve token add|revoke|list [NAME] --tokens FILE",
	about: `Manages the members' tokens of a gateway (serve --tokens FILE): add NAME
prints a new token for NAME once and keeps only its hash; revoke NAME
removes it, and a running gateway refuses it from its next request; list
prints each member and when their token was made.`,
	examples: []string{"deepseek-web-retrieval serve token add alice --tokens tokens.json"},
	exit:     "0 done, 1 the file could not be read or written, 2 usage error.",
}

// serve's defaults for the two admission options, where mcp has 16 and 64.
const (
	serveMaxCalls  = 64
	serveMaxHeldMB = 256
)

// serveFlags are serve's own flags (the tools' options are bindOptionFlags').
type serveFlags struct {
	listen, tokens, redis, audit                              string
	oidcIssuer, audience, memberClaim, groupClaim, classes    string
	traceContent                                              bool
	origins, publicURLs                                       stringList
	replicas, perDay, inFlight, searchRPS, fetchRPS, maxConns int
	shutdown                                                  time.Duration
}

// stringList is a repeatable flag whose values may also be comma-separated.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// newServeFlags returns serve's FlagSet, filling sf and o (the tools'
// options, their flags as mcp's).
func newServeFlags(sf *serveFlags, o *install.Options) *flag.FlagSet {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	bindOptionFlags(fl, o)
	setDefault(fl, "max-calls", strconv.Itoa(serveMaxCalls))
	setDefault(fl, "max-held-mb", strconv.Itoa(serveMaxHeldMB))
	fl.StringVar(&sf.listen, "listen", "127.0.0.1:8787", "`ADDR` host:port to listen on. Beyond loopback it needs --tokens; put TLS in a reverse proxy in front (docs/gateway.md)")
	fl.StringVar(&sf.tokens, "tokens", "", tokensUsage)
	fl.StringVar(&sf.oidcIssuer, "oidc-issuer", "", "`URL` also let members sign in through the organisation's OpenID provider (OAuth 2.1, the MCP authorization spec): the gateway publishes its protected-resource metadata and accepts the provider's JWT access tokens for --audience; --tokens keeps working beside it")
	fl.StringVar(&sf.audience, "audience", "", "`URL` this gateway's public URL, as members' hosts reach it (https://gw.example.com/mcp); tokens must name it")
	fl.StringVar(&sf.memberClaim, "member-claim", "email", "`NAME` the token claim that names the member")
	fl.StringVar(&sf.groupClaim, "group-claim", "", "`NAME` the token claim that lists the member's groups (groups, say); with --classes")
	fl.StringVar(&sf.classes, "classes", "", "`FILE` quota classes by group, JSON: {\"classes\": {\"heavy\": {\"perDay\": 2000, \"inFlight\": 16}}, \"groups\": {\"research\": \"heavy\"}}. A member in several gets the most generous; others keep --per-day and --in-flight")
	fl.Var(&sf.origins, "allow-origin", "`ORIGIN` a browser origin (https://app.example.com) allowed to call /mcp; repeat or separate with commas. Requests from other origins get 403")
	fl.Var(&sf.publicURLs, "public-url", "`URL` the URL members reach the gateway at through a reverse proxy (https://gw.example.com); repeat or separate with commas. On a loopback address /mcp refuses (403) any Host but loopback and these URLs' hosts (DNS rebinding), so a proxy on this machine needs it")
	fl.IntVar(&sf.maxConns, "max-conns", 0, "`N` connections open at once (0: 1024, fewer when the open-file limit is lower); at the limit idle ones are closed to make room and new ones wait. Headers must arrive within 10s, a body within 30s; an idle connection is closed after 3 minutes")
	fl.StringVar(&sf.redis, "redis", "", "`URL` redis://[user:password@]host[:port][/db], rediss:// or unix:// (Redis or Valkey): shared state for replicas. If Redis stops answering, calls go on with this replica's memory (a log line and a metric say so)")
	fl.IntVar(&sf.replicas, "replicas", 1, "`N` replicas sharing the Redis: while it is down each keeps to its share of the team's rates")
	fl.IntVar(&sf.perDay, "per-day", 0, "`N` calls a member may make per day, reset at 00:00 UTC (0: no quota)")
	fl.IntVar(&sf.inFlight, "in-flight", 0, "`N` calls one member may have running (0: 8)")
	fl.IntVar(&sf.searchRPS, "search-rps", 0, "`N` the team's DeepSeek Search requests per second (0: 80, below DeepSeek's 100)")
	fl.IntVar(&sf.fetchRPS, "fetch-rps", 0, "`N` the team's DeepSeek Fetch requests per second (0: 20, below DeepSeek's 25)")
	fl.BoolVar(&sf.traceContent, "trace-content", false, "put each call's query or URL in its trace span (off: spans name the member, tool and outcome only). Traces are sent when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, over OTLP/HTTP, configured by the standard OTEL_ variables")
	fl.StringVar(&sf.audit, "audit", "-", "`FILE` append one JSON line per call to FILE; - is stdout, off writes none")
	fl.DurationVar(&sf.shutdown, "shutdown-timeout", 10*time.Second, "`DUR` how long calls in flight may finish")
	return fl
}

// runServe is the serve command: parseServe reads and checks the flags,
// newGateway opens what the gateway uses, and serve runs it until a
// signal.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "token" {
		return runToken(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "usage" {
		return runServeUsage(ctx, args[1:], stdout, stderr)
	}
	early := httpdriver.NewMaskingWriter(stderr, os.Getenv(core.DefaultAPIKeyEnv))
	defer early.Flush()
	stderr = early
	sc, code, ok := parseServe(args, stdout, stderr)
	if !ok {
		return code
	}
	key := sc.cfg.ResolveKey(os.Getenv)
	masked := httpdriver.NewMaskingWriter(stderr, key)
	defer masked.Flush()
	stderr = masked
	httpdriver.RouteStandardLogger(masked)
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "deepseek-web-retrieval serve: "+format+"\n", args...)
	}
	for _, w := range sc.warnings {
		logf("warning: %s", w)
	}
	if key == "" {
		logf("warning: $%s is not set: every call will fail until the gateway runs with the key", sc.cfg.APIKeyEnv)
	}
	gw, closeAll, code, ok := newGateway(ctx, sc, key, logf, stdout, stderr)
	if !ok {
		return code
	}
	defer closeAll()
	return serve(ctx, sc, gw, logf)
}

// serveConfig is serve's flags, checked, with the tools' configuration.
type serveConfig struct {
	serveFlags
	cfg      *core.Config
	warnings []string
	// signIn is set with --oidc-issuer.
	signIn *gateway.OIDC
}

// parseServe reads serve's flags and the DEEPSEEK_WEB_RETRIEVAL_
// variables and checks them; when ok is false the command ends with code
// (the reason was printed).
func parseServe(args []string, stdout, stderr io.Writer) (sc serveConfig, code int, ok bool) {
	var o install.Options
	fl := newServeFlags(&sc.serveFlags, &o)
	sf := &sc.serveFlags
	usage := func(msg string) (serveConfig, int, bool) { return sc, usageErr(stderr, "serve", msg), false }
	positional, code, done := parseInterspersed(fl, args, serveHelp, stdout, stderr)
	if done {
		return sc, code, false
	}
	if len(positional) > 0 {
		return usage(fmt.Sprintf("unexpected argument %q", positional[0]))
	}
	if _, err := optionsFromEnv(fl, os.Environ(), stderr); err != nil {
		return usage(err.Error())
	}
	// A gateway runs many members' calls at once: with the mcp command's
	// defaults (16 calls, 64 MiB held, about 10 MiB reserved per call) a
	// replica would run about six DeepSeek calls at a time.
	if o.MaxCalls == nil {
		o.MaxCalls = new(serveMaxCalls)
	}
	if o.MaxHeldMB == nil {
		o.MaxHeldMB = new(serveMaxHeldMB)
	}
	var err error
	if sc.cfg, sc.warnings, err = newConfig(o); err != nil {
		return usage(flagError(err).Error())
	}
	if err := checkListen(sf.listen, sf.tokens != "" || sf.oidcIssuer != ""); err != nil {
		return usage(err.Error())
	}
	if sc.signIn, err = sf.oidc(); err != nil {
		return usage(err.Error())
	}
	if sf.replicas < 1 || sf.perDay < 0 || sf.inFlight < 0 || sf.searchRPS < 0 || sf.fetchRPS < 0 || sf.maxConns < 0 || sf.shutdown <= 0 {
		return usage("--replicas is at least 1; --per-day, --in-flight, --search-rps, --fetch-rps and --max-conns are 0 (the default) or more; --shutdown-timeout is positive")
	}
	return sc, exitOK, true
}

// oidc is the sign-in the flags ask for: nil without --oidc-issuer.
func (sf *serveFlags) oidc() (*gateway.OIDC, error) {
	if sf.oidcIssuer == "" && sf.audience == "" {
		if sf.groupClaim != "" || sf.classes != "" {
			return nil, errors.New("--group-claim and --classes apply to members signed in with --oidc-issuer")
		}
		return nil, nil
	}
	if sf.oidcIssuer == "" || sf.audience == "" {
		return nil, errors.New("--oidc-issuer and --audience go together: the provider members sign in with, and this gateway's public URL its tokens must name (https://gw.example.com/mcp)")
	}
	if (sf.groupClaim == "") != (sf.classes == "") {
		return nil, errors.New("--group-claim and --classes go together: the claim that lists a member's groups, and the file that maps groups to quota classes")
	}
	o := gateway.OIDCOptions{Issuer: sf.oidcIssuer, Audience: sf.audience, MemberClaim: sf.memberClaim, GroupClaim: sf.groupClaim}
	if sf.classes != "" {
		var err error
		if o.Classes, err = gateway.LoadClasses(sf.classes); err != nil {
			return nil, errors.New("--classes: " + err.Error())
		}
	}
	return gateway.NewOIDC(o)
}

// newGateway opens what the gateway uses (tokens, Redis or the machine's
// shared database, the audit file, traces) and makes it; closeAll closes
// them. When ok is false the command ends with code (the reason was
// printed).
func newGateway(ctx context.Context, sc serveConfig, key string, logf func(string, ...any), stdout, stderr io.Writer) (gw *gateway.Server, closeAll func(), code int, ok bool) {
	var closers []func()
	closeAll = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	fail := func(code int) (*gateway.Server, func(), int, bool) {
		closeAll()
		return nil, func() {}, code, false
	}
	cfg := sc.cfg
	so := gateway.ServerOptions{
		MCP:          mcp.Options{Config: cfg, Version: versionString()},
		AllowOrigins: sc.origins,
		PublicURLs:   sc.publicURLs,
		Limits:       gateway.Limits{PerDay: sc.perDay, InFlight: sc.inFlight, SearchPerSecond: sc.searchRPS, FetchPerSecond: sc.fetchRPS, Replicas: sc.replicas},
		CacheTTL:     time.Duration(cfg.CacheTTLMinutes) * time.Minute,
		Metrics:      gateway.NewMetrics(),
		Logf:         logf,
		OIDC:         sc.signIn,
	}
	tr, stopTracing, err := tracing(ctx, os.Getenv, sc.traceContent)
	if err != nil {
		return fail(usageErr(stderr, "serve", err.Error()))
	}
	closers = append(closers, stopTracing)
	so.Tracing = tr
	if sc.tokens != "" {
		if so.Tokens, err = gateway.OpenTokens(sc.tokens, logf); err != nil {
			logf("%v", err)
			return fail(exitFailed)
		}
	}
	closeStore, code, ok := openStore(ctx, sc, &so, logf, stderr)
	if !ok {
		return fail(code)
	}
	closers = append(closers, closeStore)
	closeAudit, err := openAudit(sc.audit, stdout, core.NewRedactor(key).Mask, &so)
	if err != nil {
		logf("--audit: %v", err)
		return fail(exitFailed)
	}
	closers = append(closers, closeAudit)
	if gw, err = gateway.NewServer(so); err != nil {
		return fail(usageErr(stderr, "serve", err.Error()))
	}
	closers = append(closers, gw.Close)
	return gw, closeAll, exitOK, true
}

// openStore sets where the gateway keeps what replicas share: Redis
// behind a FailoverStore with --redis, else the machine's shared cache and
// ledger (one replica: pages and searches last across restarts, and its
// requests are under the machine's daily budget). The function it returns
// closes what it opened.
func openStore(ctx context.Context, sc serveConfig, so *gateway.ServerOptions, logf func(string, ...any), stderr io.Writer) (closeStore func(), code int, ok bool) {
	if sc.redis == "" {
		sh := openShared(sc.cfg, "serve", stderr)
		so.MCP.Shared, so.MCP.Ledger = sh.cache, sh.ledger
		if sh.db != nil {
			so.Usage = gateway.NewLocalUsage(sh.db)
		}
		return func() { sh.db.Close() }, exitOK, true
	}
	r, err := gateway.OpenRedis(sc.redis, gateway.RedisOptions{Logf: logf})
	if err != nil {
		return nil, usageErr(stderr, "serve", "--redis: "+err.Error()), false
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	if err := r.Ping(pctx); err != nil {
		logf("warning: Redis does not answer yet (%v); serving from this replica's memory until it does", err)
	}
	cancel()
	so.Store = gateway.NewFailoverStore(r, gateway.NewMemStore(gateway.MemStoreOptions{}), gateway.FailoverOptions{Logf: logf, Metrics: so.Metrics})
	so.Usage = r
	return func() { r.Close() }, exitOK, true
}

// openAudit sets the audit log of --audit: off, "-" (stdout) or a file
// appended to; mask takes the key out of every line. The function it
// returns closes the file.
func openAudit(audit string, stdout io.Writer, mask func(string) string, so *gateway.ServerOptions) (closeAudit func(), err error) {
	switch audit {
	case "off":
	case "-":
		so.Audit = gateway.NewAudit(stdout, mask)
	default:
		f, err := os.OpenFile(audit, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		so.Audit = gateway.NewAudit(f, mask)
		return func() { f.Close() }, nil
	}
	return func() {}, nil
}

// serve listens and serves gw until a signal, then shuts down.
func serve(ctx context.Context, sc serveConfig, gw *gateway.Server, logf func(string, ...any)) int {
	ln, err := net.Listen("tcp", sc.listen)
	if err != nil {
		logf("%v", err)
		return exitFailed
	}
	setMemoryLimit(sc.cfg, os.Getenv)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf("serving %s at http://%s/mcp to %s; the key is read from $%s", describe(sc.cfg), ln.Addr(), sc.who(), sc.cfg.APIKeyEnv)
	if err := gw.Serve(ctx, ln, gateway.ServeOptions{MaxConns: sc.maxConns, ShutdownTimeout: sc.shutdown}); err != nil {
		logf("%v", err)
		return exitFailed
	}
	return exitOK
}

// who says whom the gateway serves, for its start line.
func (sf *serveFlags) who() string {
	var parts []string
	if sf.tokens != "" {
		parts = append(parts, "members with a token from "+sf.tokens)
	}
	if sf.oidcIssuer != "" {
		parts = append(parts, "members signed in through "+sf.oidcIssuer)
	}
	if len(parts) == 0 {
		return "everyone on this machine, as the member \"local\""
	}
	return strings.Join(parts, " and ")
}

// checkListen refuses a listen address beyond loopback without tokens:
// anyone who could reach it would spend the team's key.
func checkListen(addr string, tokens bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want host:port (127.0.0.1:8787)", addr)
	}
	if tokens || core.IsLoopbackHost(host) {
		return nil
	}
	return fmt.Errorf("--listen %s is reachable from other machines and there is no --tokens file or --oidc-issuer: anyone reaching it would spend the team's DeepSeek key. Add members with \"deepseek-web-retrieval serve token add NAME --tokens FILE\" and pass --tokens FILE, sign them in with --oidc-issuer, or listen on 127.0.0.1", addr)
}

// newTokenFlags returns the FlagSet of serve token, filling file.
func newTokenFlags(file *string) *flag.FlagSet {
	fl := flag.NewFlagSet("serve token", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.StringVar(file, "tokens", "", tokensUsage)
	return fl
}

// runToken is "serve token add|revoke|list".
func runToken(args []string, stdout, stderr io.Writer) int {
	var file string
	fl := newTokenFlags(&file)
	positional, code, done := parseInterspersed(fl, args, tokenHelp, stdout, stderr)
	if done {
		return code
	}
	if file == "" {
		return usageErr(stderr, "serve", "serve token needs --tokens FILE")
	}
	if len(positional) == 0 {
		return usageErr(stderr, "serve", "serve token: want add NAME, revoke NAME or list")
	}
	verb, rest := positional[0], positional[1:]
	name := ""
	switch {
	case verb == "list" && len(rest) == 0:
	case (verb == "add" || verb == "revoke") && len(rest) == 1:
		name = rest[0]
	default:
		return usageErr(stderr, "serve", "serve token: want add NAME, revoke NAME or list")
	}
	switch verb {
	case "add":
		token, err := gateway.AddToken(file, name, time.Now())
		if err != nil {
			fmt.Fprintf(stderr, "deepseek-web-retrieval serve token add: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "%s\n", token)
		fmt.Fprintf(stderr, "deepseek-web-retrieval serve token add: the token of %s is above; it is shown once (%s keeps only its hash). Give it to %s to put in DEEPSEEK_WEB_RETRIEVAL_TOKEN (or the variable init --token-env names).\n", name, file, name)
	case "revoke":
		if err := gateway.RevokeToken(file, name); err != nil {
			fmt.Fprintf(stderr, "deepseek-web-retrieval serve token revoke: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "revoked the token of %s; a running gateway refuses it from its next request\n", name)
	case "list":
		members, err := gateway.ListTokens(file)
		if err != nil {
			fmt.Fprintf(stderr, "deepseek-web-retrieval serve token list: %v\n", err)
			return exitFailed
		}
		for _, m := range members {
			fmt.Fprintf(stdout, "%s\t%s\n", m.Name, m.Created.UTC().Format(time.RFC3339))
		}
	}
	return exitOK
}
