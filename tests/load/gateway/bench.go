package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway/redistest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tests/load/internal/peak"
)

// config is one run's shape; defaultConfig is make bench-gateway's.
type config struct {
	// Bin is the deepseek-web-retrieval binary the replicas run.
	Bin string
	// Clients are the concurrent MCP clients; client i calls replica
	// i%2 and uses member i%Members's token.
	Clients, Members int
	// LatencyCalls is each client's calls in each latency row;
	// SoloCalls those of one client alone (the added latency without
	// queueing).
	LatencyCalls, SoloCalls int
	// SkewCalls are the calls of the skewed run and of the killed run,
	// drawn by Zipf(ZipfS) over URLs pages.
	SkewCalls, URLs int
	ZipfS           float64
	// Delay is how long the mock DeepSeek takes to answer.
	Delay time.Duration
	// Deadline bounds one call: a call still running then has hung. It
	// must exceed the gateway's coalescing lock (10 s): a replica that
	// dies holding one keeps identical calls on the others waiting until
	// it expires.
	Deadline time.Duration
	// SearchRPS, FetchRPS and InFlight are the replicas' team rates and
	// member limit; MaxCalls and MaxHeldMB bound their engines'
	// operations at once (the rest wait for admission; by default six
	// fetches fit in --max-held-mb).
	SearchRPS, FetchRPS, InFlight, MaxCalls, MaxHeldMB int
	// Seed seeds the Zipf draws.
	Seed int64
	// Limit bounds the whole run: past it the replicas are killed and
	// run fails.
	Limit time.Duration
}

func defaultConfig() config {
	return config{
		Clients: 200, Members: 200, LatencyCalls: 5, SoloCalls: 40,
		SkewCalls: 2000, URLs: 100, ZipfS: 1.1,
		Delay: 50 * time.Millisecond, Deadline: 20 * time.Second,
		SearchRPS: 100_000, FetchRPS: 100_000, InFlight: 1000,
		MaxCalls: 256, MaxHeldMB: 1024,
		Seed: 1, Limit: 110 * time.Second,
	}
}

func (c config) check() error {
	switch {
	case c.Clients < 2:
		return errors.New("-clients: at least 2 (one per replica)")
	case c.Members < 1 || c.Members > c.Clients:
		return errors.New("-members: between 1 and -clients")
	case c.LatencyCalls < 1 || c.SoloCalls < 1 || c.SkewCalls < 2 || c.URLs < 2:
		return errors.New("-latency-calls and -solo-calls are at least 1, -skew-calls and -urls at least 2")
	case c.ZipfS <= 1:
		return errors.New("-zipf-s: above 1")
	case c.Delay < 0 || c.Deadline <= 0 || c.Limit <= 0:
		return errors.New("-delay is 0 or more, -deadline and -limit positive")
	case c.SearchRPS < 0 || c.FetchRPS < 0 || c.InFlight < 0:
		return errors.New("-search-rps, -fetch-rps and -in-flight are 0 (the gateway's default) or more")
	case c.MaxCalls < 1 || c.MaxCalls > 256 || c.MaxHeldMB < 16 || c.MaxHeldMB > 1024:
		return errors.New("-max-calls: 1 to 256; -max-held-mb: 16 to 1024")
	}
	return nil
}

// result is how one call ended.
type result struct {
	dur time.Duration
	// failed is a call that got no answer (the transport failed); hung is
	// one still running at the deadline; toolErr is an error result;
	// wrong is an answer that is not the one asked for.
	failed, hung, wrong bool
	toolErr             string
	// replica is the replica the client called.
	replica int
}

// tally sums a run's results.
type tally struct {
	calls, ok, failed, hung, toolErrors, wrong int
	// durs are the durations of the answered calls; failDurs those of the
	// failed ones.
	durs, failDurs []time.Duration
	sample         string
}

func (t *tally) add(r result) {
	t.calls++
	switch {
	case r.hung:
		t.hung++
	case r.failed:
		t.failed++
		t.failDurs = append(t.failDurs, r.dur)
	case r.toolErr != "":
		t.toolErrors++
		t.durs = append(t.durs, r.dur)
		if t.sample == "" {
			t.sample = r.toolErr
		}
	case r.wrong:
		t.wrong++
		t.durs = append(t.durs, r.dur)
	default:
		t.ok++
		t.durs = append(t.durs, r.dur)
	}
}

// percentile is the p-th percentile (0 < p ≤ 100) of ds, 0 if empty.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// op is one tool call: the tool, its URL or query, and the text its
// answer must contain.
type op struct {
	tool, arg, want string
}

func fetchOp(url string) op   { return op{"deepseek_fetch", url, url} }
func searchOp(q string) op    { return op{"deepseek_search", q, q} }
func pageURL(s string) string { return "https://docs.example.com/" + s }

// client is one MCP client: a member's token, the replica it calls, its
// session and its own connections, as a separate host would have.
type client struct {
	token   string
	replica int
	cs      *sdk.ClientSession
}

// bearer adds a member's token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func newTransport() *http.Transport {
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     90 * time.Second,
	}
}

// connect opens c's session with replica r.
func (c *client) connect(ctx context.Context, r *replica, idx int) error {
	cl := sdk.NewClient(&sdk.Implementation{Name: "gateway-load", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint:             r.Base + "/mcp",
		HTTPClient:           &http.Client{Transport: bearer{c.token, newTransport()}},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", r.name, err)
	}
	if c.cs != nil {
		_ = c.cs.Close()
	}
	c.cs, c.replica = cs, idx
	return nil
}

// call makes one tool call within deadline.
func (c *client) call(ctx context.Context, o op, deadline time.Duration) result {
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	args := map[string]any{"url": o.arg}
	if o.tool == "deepseek_search" {
		args = map[string]any{"query": o.arg}
	}
	t0 := time.Now()
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: o.tool, Arguments: args})
	r := result{dur: time.Since(t0), replica: c.replica}
	switch {
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || r.dur >= deadline):
		r.hung = true
	case err != nil:
		r.failed = true
	default:
		var text strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(*sdk.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if res.IsError {
			r.toolErr = text.String()
		} else {
			r.wrong = !strings.Contains(text.String(), o.want)
		}
	}
	return r
}

// bench is one run's fixtures.
type bench struct {
	cfg      config
	mock     *mock
	replicas []*replica
	clients  []*client
	ctx      context.Context
	logf     func(format string, args ...any)
	// inFlight counts the calls running on each replica.
	inFlight [2]atomic.Int64
}

// hooks adjust drive for the killed run.
type hooks struct {
	// after runs after each call with the number of calls done so far.
	after func(done int64)
	// failed runs in a client's goroutine after one of its calls failed.
	failed func(c *client)
}

// drive runs ops(i) on client i, the clients concurrently and each one's
// calls in order, and tallies the results.
func (b *bench) drive(clients []*client, ops func(i int) []op, h hooks) *tally {
	var (
		mu   sync.Mutex
		t    tally
		done atomic.Int64
		wg   sync.WaitGroup
	)
	for i, c := range clients {
		wg.Go(func() {
			for _, o := range ops(i) {
				if b.ctx.Err() != nil {
					return
				}
				rep := c.replica
				b.inFlight[rep].Add(1)
				r := c.call(b.ctx, o, b.cfg.Deadline)
				b.inFlight[rep].Add(-1)
				mu.Lock()
				t.add(r)
				mu.Unlock()
				if h.after != nil {
					h.after(done.Add(1))
				}
				if r.failed && h.failed != nil {
					h.failed(c)
				}
			}
		})
	}
	wg.Wait()
	return &t
}

// direct sends bodies straight to the mock from n goroutines, each with
// its own connections, as drive spreads calls over n clients.
func (b *bench) direct(reqs []request, n int) *tally {
	var (
		mu sync.Mutex
		t  tally
		wg sync.WaitGroup
	)
	for i := range n {
		wg.Go(func() {
			hc := &http.Client{Transport: newTransport(), Timeout: b.cfg.Deadline}
			for j := i; j < len(reqs); j += n {
				req, err := http.NewRequestWithContext(b.ctx, http.MethodPost, b.mock.URL+reqs[j].path, bytes.NewReader(reqs[j].body))
				if err != nil {
					panic(err)
				}
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json")
				req.Header.Set(directHeader, "1")
				t0 := time.Now()
				resp, err := hc.Do(req)
				var r result
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = errors.New(resp.Status)
					}
				}
				r.dur = time.Since(t0)
				r.failed = err != nil
				mu.Lock()
				t.add(r)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return &t
}

// latencyRow compares calls through the gateway with the same requests
// sent straight to the mock.
type latencyRow struct {
	name            string
	direct, gateway *tally
}

// skewRow is a skewed run: its calls, the distinct URLs drawn, the
// DeepSeek requests they caused and how the replicas answered the rest.
type skewRow struct {
	t                  *tally
	distinct, requests int
	hits, coalesced    int64
}

// killRow is the skewed run with replica 2 killed half-way.
type killRow struct {
	skewRow
	killedAfter int64
	inFlight    int64
}

// report is what run measured.
type report struct {
	cfg      config
	latency  []latencyRow
	skew     *skewRow
	kill     *killRow
	replicas []*replica
	// errs are failures found on the way (a replica that crashed or did
	// not stop).
	errs []string
}

// zipfURLs draws n page names by Zipf(s) over urls pages.
func zipfURLs(tag string, n, urls int, s float64, seed int64) []string {
	z := rand.NewZipf(rand.New(rand.NewSource(seed)), s, 1, uint64(urls-1))
	out := make([]string, n)
	for i := range out {
		out[i] = pageURL(fmt.Sprintf("%s/page-%d", tag, z.Uint64()))
	}
	return out
}

// spread gives client i of n every n-th draw from i on, so hot pages are
// asked for on both replicas at once.
func spread(draws []string, n int) func(i int) []op {
	return func(i int) []op {
		var ops []op
		for j := i; j < len(draws); j += n {
			ops = append(ops, fetchOp(draws[j]))
		}
		return ops
	}
}

func distinct(ss []string) int {
	seen := map[string]bool{}
	for _, s := range ss {
		seen[s] = true
	}
	return len(seen)
}

// run starts the fixtures, runs every row and stops them. The error is a
// failure to set up or a run past cfg.Limit; the report's problems are
// the failures the runs found. progress gets a line per step.
func run(cfg config, progress io.Writer) (*report, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Limit)
	defer cancel()
	dir, err := os.MkdirTemp("", "gateway-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	b := &bench{cfg: cfg, ctx: ctx, mock: newMock(cfg.Delay),
		logf: func(format string, args ...any) { fmt.Fprintf(progress, "gateway load: "+format+"\n", args...) }}
	defer b.mock.Close()
	redis, err := redistest.Run(dir)
	if err != nil {
		return nil, err
	}
	defer redis.Stop()
	defer func() {
		for _, r := range b.replicas {
			r.kill() // those still running after a failure
		}
	}()
	if err := b.start(dir, redis.URL); err != nil {
		return nil, err
	}
	// Past the limit, killing the replicas ends every call still waiting.
	defer context.AfterFunc(ctx, func() {
		for _, r := range b.replicas {
			r.kill()
		}
	})()

	rep := &report{cfg: cfg, replicas: b.replicas}
	rep.latency = b.latency(rep)
	b.logf("skewed: %d fetches over %d URLs", cfg.SkewCalls, cfg.URLs)
	if rep.skew, err = b.skewed("skew", cfg.Seed, hooks{}); err != nil {
		return rep, err
	}
	b.logf("skewed again, replica 2 killed half-way")
	if rep.kill, err = b.killed(); err != nil {
		return rep, err
	}
	b.stop(rep)
	if ctx.Err() != nil {
		return rep, fmt.Errorf("the run took longer than -limit %s: replicas killed", cfg.Limit)
	}
	return rep, nil
}

// start writes the members' tokens, starts the two replicas on redisURL
// and connects the clients, client i to replica i%2.
func (b *bench) start(dir, redisURL string) error {
	cfg := b.cfg
	tokensFile := filepath.Join(dir, "tokens.json")
	tokens := make([]string, cfg.Members)
	for i := range tokens {
		var err error
		if tokens[i], err = gateway.AddToken(tokensFile, fmt.Sprintf("member-%03d", i), time.Now()); err != nil {
			return err
		}
	}
	args := []string{"--listen", "127.0.0.1:0", "--tokens", tokensFile, "--redis", redisURL, "--replicas", "2",
		"--base-url", b.mock.URL, "--audit", "off",
		"--search-rps", strconv.Itoa(cfg.SearchRPS), "--fetch-rps", strconv.Itoa(cfg.FetchRPS), "--in-flight", strconv.Itoa(cfg.InFlight),
		"--max-calls", strconv.Itoa(cfg.MaxCalls), "--max-held-mb", strconv.Itoa(cfg.MaxHeldMB)}
	for i := range 2 {
		r, err := startReplica(fmt.Sprintf("replica %d", i+1), cfg.Bin, args)
		if err != nil {
			return err
		}
		b.replicas = append(b.replicas, r)
	}
	b.logf("%s and %s serve on one redis-server; connecting %d clients", b.replicas[0].Base, b.replicas[1].Base, cfg.Clients)
	b.clients = make([]*client, cfg.Clients)
	var wg sync.WaitGroup
	errs := make([]error, cfg.Clients)
	for i := range b.clients {
		b.clients[i] = &client{token: tokens[i%cfg.Members]}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(b.ctx, cfg.Deadline)
			defer cancel()
			errs[i] = b.clients[i].connect(ctx, b.replicas[i%2], i%2)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// latency runs the latency rows: uncached fetches of one client alone
// and of all of them, uncached searches, the fetches again from the
// other replica's clients (cache hits in Redis), then the bodies the
// replicas sent, straight to the mock.
func (b *bench) latency(rep *report) []latencyRow {
	cfg := b.cfg
	calls := func(tag string) func(i int) []op {
		return func(i int) []op {
			var ops []op
			for j := range cfg.LatencyCalls {
				if tag == "search" {
					ops = append(ops, searchOp(fmt.Sprintf("gateway load %d %d", i, j)))
				} else {
					ops = append(ops, fetchOp(pageURL(fmt.Sprintf("latency/%d/%d", i, j))))
				}
			}
			return ops
		}
	}
	solo := func(int) []op {
		var ops []op
		for j := range cfg.SoloCalls {
			ops = append(ops, fetchOp(pageURL(fmt.Sprintf("solo/%d", j))))
		}
		return ops
	}
	// measure drives ops and returns the bodies the mock got meanwhile.
	measure := func(what string, clients []*client, ops func(int) []op) (*tally, []request) {
		b.logf("latency: %s", what)
		mark := b.mock.count()
		t := b.drive(clients, ops, hooks{})
		return t, b.mock.since(mark)
	}
	soloMiss, soloBodies := measure("uncached fetches, one client alone", b.clients[:1], solo)
	fetchMiss, fetchBodies := measure("uncached fetches", b.clients, calls("fetch"))
	searchMiss, searchBodies := measure("uncached searches", b.clients, calls("search"))
	fetchHit, extra := measure("fetches the other replica cached", b.clients, func(i int) []op { return calls("fetch")((i + 1) % cfg.Clients) })
	if len(extra) > 0 {
		rep.errs = append(rep.errs, fmt.Sprintf("%d cached fetches reached DeepSeek", len(extra)))
	}
	b.logf("latency: the same requests straight to the mock")
	directFetch := b.direct(fetchBodies, cfg.Clients)
	return []latencyRow{
		{"fetch, not cached, 1 client", b.direct(soloBodies, 1), soloMiss},
		{"fetch, not cached", directFetch, fetchMiss},
		{"search, not cached", b.direct(searchBodies, cfg.Clients), searchMiss},
		{"fetch, cached by the other", directFetch, fetchHit},
	}
}

// killed is the skewed run again, on new URLs, with replica 2 killed
// once half the calls are done; a client whose call failed on it calls
// the survivor next, as a load balancer would send it there.
func (b *bench) killed() (*killRow, error) {
	kr := &killRow{}
	var once sync.Once
	half := int64(b.cfg.SkewCalls / 2)
	survivor := b.replicas[0]
	kill := hooks{
		after: func(done int64) {
			if done >= half {
				once.Do(func() {
					kr.killedAfter, kr.inFlight = done, b.inFlight[1].Load()
					b.replicas[1].kill()
				})
			}
		},
		failed: func(c *client) {
			if c.replica == 0 {
				return
			}
			ctx, cancel := context.WithTimeout(b.ctx, b.cfg.Deadline)
			defer cancel()
			if err := c.connect(ctx, survivor, 0); err != nil {
				b.logf("%v", err)
			}
		},
	}
	s, err := b.skewed("kill", b.cfg.Seed+1, kill)
	if err != nil {
		return nil, err
	}
	kr.skewRow = *s
	return kr, nil
}

// stop closes the sessions and stops the survivor with SIGTERM; rep
// gets every replica that crashed or did not exit 0.
func (b *bench) stop(rep *report) {
	for _, r := range b.replicas {
		if msg := r.crashed(); msg != "" {
			rep.errs = append(rep.errs, msg)
		}
	}
	for _, c := range b.clients {
		_ = c.cs.Close()
	}
	survivor := b.replicas[0]
	if _, err := survivor.metric("dwr_redis_fallbacks_total"); err != nil {
		rep.errs = append(rep.errs, err.Error())
	}
	if err := survivor.terminate(15 * time.Second); err != nil {
		rep.errs = append(rep.errs, err.Error())
	}
	if msg := survivor.crashed(); msg != "" {
		rep.errs = append(rep.errs, msg)
	}
}

// skewed runs cfg.SkewCalls fetches drawn by Zipf and counts what reached
// the mock; the cache counters come from the replicas still running.
func (b *bench) skewed(tag string, seed int64, h hooks) (*skewRow, error) {
	draws := zipfURLs(tag, b.cfg.SkewCalls, b.cfg.URLs, b.cfg.ZipfS, seed)
	counters := func() (hits, coalesced int64, err error) {
		for _, r := range b.replicas {
			if !r.running() {
				continue
			}
			h, err1 := r.metric("dwr_cache_hits_total")
			c, err2 := r.metric("dwr_coalesced_calls_total")
			_, err3 := r.metric("dwr_redis_fallbacks_total")
			if err := errors.Join(err1, err2, err3); err != nil {
				return 0, 0, err
			}
			hits, coalesced = hits+h, coalesced+c
		}
		return hits, coalesced, nil
	}
	hits0, co0, err := counters()
	if err != nil {
		return nil, err
	}
	mark := b.mock.count()
	t := b.drive(b.clients, spread(draws, len(b.clients)), h)
	row := &skewRow{t: t, distinct: distinct(draws), requests: len(b.mock.since(mark))}
	if h.after == nil {
		hits1, co1, err := counters()
		if err != nil {
			return nil, err
		}
		row.hits, row.coalesced = hits1-hits0, co1-co0
	}
	return row, nil
}

// problems are the real failures of the run: calls that hung, failed
// or got a wrong answer with no replica killed, DeepSeek requests beyond
// the distinct URLs, replicas that crashed.
func (r *report) problems() []string {
	var out []string
	for _, l := range r.latency {
		out = append(out, unanswered(l.name, l.gateway)...)
		if l.direct.failed > 0 {
			out = append(out, fmt.Sprintf("%s: %d direct requests to the mock failed", l.name, l.direct.failed))
		}
	}
	if r.skew != nil {
		out = append(out, unanswered("skewed", r.skew.t)...)
		if r.skew.requests > r.skew.distinct {
			out = append(out, fmt.Sprintf("skewed: %d DeepSeek requests for %d distinct URLs", r.skew.requests, r.skew.distinct))
		}
	}
	if k := r.kill; k != nil {
		if k.t.hung > 0 {
			out = append(out, fmt.Sprintf("replica killed: %d calls hung (no answer within %s)", k.t.hung, r.cfg.Deadline))
		}
		if k.t.wrong > 0 || k.t.toolErrors > 0 {
			out = append(out, fmt.Sprintf("replica killed: %d wrong answers, %d error results (e.g. %q)", k.t.wrong, k.t.toolErrors, k.t.sample))
		}
		if k.killedAfter == 0 {
			out = append(out, "replica killed: the kill never happened")
		}
	}
	return append(out, r.errs...)
}

func unanswered(name string, t *tally) []string {
	if t.ok == t.calls {
		return nil
	}
	return []string{fmt.Sprintf("%s: %d of %d calls answered right: %d failed, %d hung, %d error results, %d wrong answers (e.g. %q)",
		name, t.ok, t.calls, t.failed, t.hung, t.toolErrors, t.wrong, t.sample)}
}

// ms formats d in milliseconds, or in seconds from 10 s on.
func ms(d time.Duration) string {
	if d >= 10*time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
	}
	return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + "ms"
}

func signedMs(d time.Duration) string {
	if d >= 0 {
		return "+" + ms(d)
	}
	return "-" + ms(-d)
}

// print writes the tables.
func (r *report) print(w io.Writer) {
	c := r.cfg
	fmt.Fprintf(w, "== the team gateway under load: %d MCP clients (%d members) over 2 replicas on one redis-server;\n", c.Clients, c.Members)
	fmt.Fprintf(w, "   the mock DeepSeek answers after %s; limits raised:\n   --search-rps %d --fetch-rps %d --in-flight %d --max-calls %d --max-held-mb %d\n",
		c.Delay, c.SearchRPS, c.FetchRPS, c.InFlight, c.MaxCalls, c.MaxHeldMB)
	if len(r.latency) > 0 {
		fmt.Fprintf(w, "\n%-28s %6s %6s   %9s %9s   %9s %9s   %9s %9s\n", "call (added latency)", "calls", "failed", "direct p50", "p99", "gateway p50", "p99", "added p50", "p99")
		for _, l := range r.latency {
			d50, d99 := percentile(l.direct.durs, 50), percentile(l.direct.durs, 99)
			g50, g99 := percentile(l.gateway.durs, 50), percentile(l.gateway.durs, 99)
			fmt.Fprintf(w, "%-28s %6d %6d   %9s %9s   %9s %9s   %9s %9s\n", l.name, l.gateway.calls, l.gateway.calls-l.gateway.ok,
				ms(d50), ms(d99), ms(g50), ms(g99), signedMs(g50-d50), signedMs(g99-d99))
		}
		fmt.Fprintf(w, "(direct: the same request bodies straight to the mock, as many at a time; the cached row compares\n with uncached direct fetches; failed counts calls not answered right)\n")
	}
	if s := r.skew; s != nil {
		fmt.Fprintf(w, "\n%-28s %6s %6s   %9s %9s   %9s %9s   %s\n", "skewed fetches", "calls", "failed", "URLs", "DeepSeek", "p50", "p99", "hit rate")
		fmt.Fprintf(w, "%-28s %6d %6d   %9d %9d   %9s %9s   %.1f%% (%d cache hits, %d coalesced)\n",
			fmt.Sprintf("Zipf s=%.2g over %d URLs", c.ZipfS, c.URLs), s.t.calls, s.t.calls-s.t.ok, s.distinct, s.requests,
			ms(percentile(s.t.durs, 50)), ms(percentile(s.t.durs, 99)), 100*(1-float64(s.requests)/float64(s.t.calls)), s.hits, s.coalesced)
	}
	if k := r.kill; k != nil {
		fmt.Fprintf(w, "\n%-28s %6s %6s   %9s %9s   %9s %9s   %s\n", "replica 2 killed half-way", "calls", "failed", "URLs", "DeepSeek", "p50", "p99", "")
		fmt.Fprintf(w, "%-28s %6d %6d   %9d %9d   %9s %9s   %s\n", "(SIGKILL, Zipf as above)", k.t.calls, k.t.failed+k.t.hung, k.distinct, k.requests,
			ms(percentile(k.t.durs, 50)), ms(percentile(k.t.durs, 99)), fmt.Sprintf("%d hung (deadline %s)", k.t.hung, c.Deadline))
		fmt.Fprintf(w, "killed after %d of %d calls, %d of them in flight on it; failed calls took at most %s (p50 %s);\n",
			k.killedAfter, k.t.calls, k.inFlight, ms(percentile(k.t.failDurs, 100)), ms(percentile(k.t.failDurs, 50)))
		fmt.Fprintf(w, "each failed client's next call went to replica 1; the slowest answered call took %s\n", ms(percentile(k.t.durs, 100)))
	}
	fmt.Fprintf(w, "\n%-10s %9s   %-30s %s\n", "replica", "peak RSS", "ended", "Redis fallbacks (outages logged)")
	for _, rp := range r.replicas {
		rss := "-"
		select {
		case <-rp.exited:
			if kb := peak.KB(rp.cmd.ProcessState); kb >= 0 {
				rss = fmt.Sprintf("%.0f MiB", float64(kb)/1024)
			}
		default:
		}
		rp.mu.Lock()
		fb, outages := rp.fallbacks, rp.outages
		rp.mu.Unlock()
		fmt.Fprintf(w, "%-10s %9s   %-30s %d (%d)\n", rp.name, rss, rp.ending(), fb, outages)
	}
}
