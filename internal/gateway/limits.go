package gateway

import (
	"context"
	"fmt"
	"log"
	"strconv"
	"sync"
	"time"
)

// Endpoint names the DeepSeek endpoint a request goes to; the team's rate
// limits are per endpoint.
type Endpoint string

// The two DeepSeek endpoints.
const (
	Search Endpoint = "search"
	Fetch  Endpoint = "fetch"
)

// Limits are the quotas and rate limits the gateway enforces. The zero
// value is ready to use: no daily quota, 8 calls in flight per member,
// 80 Search and 20 Fetch requests per second for the team, one replica.
type Limits struct {
	// PerDay is the number of calls a member may make per day. Zero
	// means no daily quota.
	PerDay int
	// ResetAt is when the day starts, as an offset from midnight UTC
	// (0 ≤ ResetAt < 24h). Zero means midnight UTC.
	ResetAt time.Duration
	// InFlight is the number of calls one member may have running at
	// once. Zero means 8.
	InFlight int
	// InFlightTTL is how long a call holds its in-flight slot if it is
	// never released (a replica died mid-call). Zero means 5 minutes.
	InFlightTTL time.Duration
	// SearchPerSecond and FetchPerSecond bound the DeepSeek requests the
	// whole team makes in any one-second window (a sliding window).
	// Zero means 80 and 20: below DeepSeek's account limits of 100 Search
	// and 25 Fetch requests per second, so members see "busy" from the
	// gateway instead of DeepSeek's 429s.
	SearchPerSecond, FetchPerSecond int
	// Replicas is the number of gateway replicas sharing one Redis.
	// While Redis is down (the store is a [FailoverStore] standing in
	// locally) each replica allows its share of the team's rates,
	// rounded up, so the team stays under DeepSeek's limits. Zero means 1.
	Replicas int
	// MaxWait is how long [Limiter.WaitRate] waits for a rate slot before
	// answering "busy". Zero means 2 s; negative means never wait.
	MaxWait time.Duration
}

// Reason says why a [Decision] refused a call.
type Reason int

// The reasons a call is refused.
const (
	// Allowed: the call may go ahead.
	Allowed Reason = iota
	// QuotaSpent: the member used the day's quota.
	QuotaSpent
	// MemberBusy: the member has the most calls in flight allowed.
	MemberBusy
	// TeamBusy: the team is at its Search or Fetch rate limit.
	TeamBusy
)

// Decision is a [Limiter]'s answer for one call or request. A refusal
// carries what the member needs to know: [Decision.Text].
type Decision struct {
	Reason Reason
	// Member is the member the decision is about (empty for TeamBusy).
	Member string
	// Endpoint is the request's endpoint (TeamBusy only).
	Endpoint Endpoint
	// Limit is the limit that was reached.
	Limit int
	// ResetAt is when the quota resets (QuotaSpent only).
	ResetAt time.Time
	// RetryIn is when a rate slot frees (TeamBusy only).
	RetryIn time.Duration
}

// OK reports whether the call may go ahead.
func (d Decision) OK() bool { return d.Reason == Allowed }

// Text is the message for the member, empty when the call is allowed.
func (d Decision) Text() string {
	switch d.Reason {
	case QuotaSpent:
		return fmt.Sprintf("quota spent: %s has made all %d calls allowed per day; the quota resets at %s",
			d.Member, d.Limit, d.ResetAt.UTC().Format("2006-01-02 15:04 UTC"))
	case MemberBusy:
		return fmt.Sprintf("busy: %s already has %d calls in flight, the most allowed; retry when one of them finishes",
			d.Member, d.Limit)
	case TeamBusy:
		return fmt.Sprintf("busy: the team is at its limit of %d %s requests per second; retry in %s",
			d.Limit, kindTitle(d.Endpoint), roundUp(d.RetryIn))
	}
	return ""
}

// Outcome is the decision as a call's outcome: ok, quota or busy.
func (d Decision) Outcome() CallOutcome {
	switch d.Reason {
	case QuotaSpent:
		return OutcomeQuota
	case MemberBusy, TeamBusy:
		return OutcomeBusy
	}
	return OutcomeOK
}

// Err returns the refusal as a *LimitError, or nil when allowed.
func (d Decision) Err() error {
	if d.OK() {
		return nil
	}
	return &LimitError{Decision: d}
}

// LimitError is a refused call as an error; its message is
// [Decision.Text].
type LimitError struct{ Decision Decision }

func (e *LimitError) Error() string { return e.Decision.Text() }

func kindTitle(k Endpoint) string {
	switch k {
	case Search:
		return "Search"
	case Fetch:
		return "Fetch"
	}
	return string(k)
}

// roundUp rounds a wait up to whole milliseconds (at least 1 ms) so the
// text never says "retry in 0s".
func roundUp(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return time.Millisecond
	}
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}

// Limiter enforces [Limits] over a [Store]: with a [RedisStore] (behind a
// [FailoverStore]) every replica shares the counters. A store error lets the
// call through (a log line says so): limits protect the account, they
// must not fail calls.
type Limiter struct {
	store Store
	lim   Limits
	opts  LimiterOptions
}

// LimiterOptions configures [NewLimiter]. The zero value is ready to use.
type LimiterOptions struct {
	// Metrics counts calls waiting for a rate slot; nil counts nothing.
	Metrics *Metrics
	// Logf reports store errors; nil means log.Printf.
	Logf func(format string, args ...any)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// NewLimiter checks lim and returns a Limiter over store.
func NewLimiter(store Store, lim Limits, opts LimiterOptions) (*Limiter, error) {
	for _, f := range []struct {
		name string
		v    int
	}{{"per-day quota", lim.PerDay}, {"calls in flight", lim.InFlight}, {"Search requests per second", lim.SearchPerSecond}, {"Fetch requests per second", lim.FetchPerSecond}} {
		if f.v < 0 {
			return nil, fmt.Errorf("limits: %s is %d; want 0 (the default) or more", f.name, f.v)
		}
	}
	if lim.ResetAt < 0 || lim.ResetAt >= 24*time.Hour {
		return nil, fmt.Errorf("limits: quota reset time %s is not within a day (0 to 23:59 after midnight UTC)", lim.ResetAt)
	}
	if lim.InFlight == 0 {
		lim.InFlight = 8
	}
	if lim.InFlightTTL <= 0 {
		lim.InFlightTTL = 5 * time.Minute
	}
	if lim.SearchPerSecond == 0 {
		lim.SearchPerSecond = 80
	}
	if lim.FetchPerSecond == 0 {
		lim.FetchPerSecond = 20
	}
	if lim.Replicas <= 0 {
		lim.Replicas = 1
	}
	if lim.MaxWait == 0 {
		lim.MaxWait = 2 * time.Second
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Limiter{store: store, lim: lim, opts: opts}, nil
}

// Limits returns the limits in force, defaults filled in.
func (l *Limiter) Limits() Limits { return l.lim }

// dayStart returns the start of the quota day holding t.
func (l *Limiter) dayStart(t time.Time) time.Time {
	return t.UTC().Add(-l.lim.ResetAt).Truncate(24 * time.Hour).Add(l.lim.ResetAt)
}

// Admit decides whether member may start a call: a slot among the
// member's calls in flight, then one unit of the day's quota. When the
// decision is OK, call release once the call ends (it is safe to call
// more than once); otherwise release is a no-op. A refused call uses no
// quota.
func (l *Limiter) Admit(ctx context.Context, member string) (release func(), d Decision) {
	release, d = l.takeSlot(ctx, member)
	if !d.OK() {
		return release, d
	}
	if d = l.spendQuota(ctx, member); !d.OK() {
		release()
		return func() {}, d
	}
	return release, d
}

// takeSlot is the first half of [Limiter.Admit]: a slot among member's
// calls in flight, without the quota. The gateway takes it before it
// reads a request's body.
func (l *Limiter) takeSlot(ctx context.Context, member string) (release func(), d Decision) {
	lim := classOf(ctx).apply(l.lim)
	slotKey := "f:" + member
	id := strconv.FormatUint(randUint64(), 36)
	_, ok, err := l.store.AcquireSlot(ctx, slotKey, id, lim.InFlight, l.lim.InFlightTTL)
	if err != nil {
		l.opts.Logf("gateway: in-flight limit for %s not checked: %v", member, err)
		ok = true
	}
	if !ok {
		return func() {}, Decision{Reason: MemberBusy, Member: member, Limit: lim.InFlight}
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			if err := l.store.ReleaseSlot(rctx, slotKey, id); err != nil {
				l.opts.Logf("gateway: in-flight slot of %s not released (it expires in %s): %v", member, l.lim.InFlightTTL, err)
			}
		})
	}
	return release, Decision{Member: member}
}

// spendQuota is the second half of [Limiter.Admit]: one unit of member's
// quota for the day, if there is one.
func (l *Limiter) spendQuota(ctx context.Context, member string) Decision {
	if lim := classOf(ctx).apply(l.lim); lim.PerDay > 0 {
		start := l.dayStart(l.opts.Now())
		reset := start.Add(24 * time.Hour)
		key := "q:" + member + ":" + strconv.FormatInt(start.Unix(), 10)
		// Keep the counter a minute past the reset so replicas whose
		// clocks lag a little still find it.
		_, ok, err := l.store.IncrUpTo(ctx, key, int64(lim.PerDay), reset.Add(time.Minute))
		if err != nil {
			l.opts.Logf("gateway: daily quota of %s not checked: %v", member, err)
			ok = true
		}
		if !ok {
			return Decision{Reason: QuotaSpent, Member: member, Limit: lim.PerDay, ResetAt: reset}
		}
	}
	return Decision{Member: member}
}

// QuotaUsed returns how many calls member made in the current quota day
// (zero without a daily quota).
func (l *Limiter) QuotaUsed(ctx context.Context, member string) (int64, error) {
	if l.lim.PerDay == 0 {
		return 0, nil
	}
	key := "q:" + member + ":" + strconv.FormatInt(l.dayStart(l.opts.Now()).Unix(), 10)
	n, _, err := l.store.IncrUpTo(ctx, key, 0, time.Time{})
	return n, err
}

// perSecond is the team's rate for kind, or this replica's share of it
// while the store stands in for Redis.
func (l *Limiter) perSecond(kind Endpoint) int {
	n := l.lim.SearchPerSecond
	if kind == Fetch {
		n = l.lim.FetchPerSecond
	}
	if d, ok := l.store.(interface{ Degraded() bool }); ok && l.lim.Replicas > 1 && d.Degraded() {
		n = (n + l.lim.Replicas - 1) / l.lim.Replicas
	}
	return n
}

// rateWindow is the span of the team's rates: requests per second.
const rateWindow = time.Second

// Rate decides whether the team may send one more DeepSeek request of
// kind now, and takes the slot when it may. Call it before each request
// to DeepSeek (not for answers served from the cache). A refusal's
// RetryIn is at most a second, whatever the store says: no request stays
// in the window longer.
func (l *Limiter) Rate(ctx context.Context, kind Endpoint) Decision {
	limit := l.perSecond(kind)
	ok, retry, err := l.store.TakeRate(ctx, "r:"+string(kind), limit, rateWindow)
	if err != nil {
		l.opts.Logf("gateway: %s rate limit not checked: %v", kind, err)
		ok = true
	}
	if ok {
		return Decision{Endpoint: kind}
	}
	return Decision{Reason: TeamBusy, Endpoint: kind, Limit: limit, RetryIn: min(max(retry, 0), rateWindow)}
}

// WaitRate is [Limiter.Rate] that waits for a slot while the wait fits in
// Limits.MaxWait (counted in dwr_calls_waiting), then answers "busy" with
// the time left. It returns ctx's error if ctx ends first.
func (l *Limiter) WaitRate(ctx context.Context, kind Endpoint) (Decision, error) {
	deadline := l.opts.Now().Add(l.lim.MaxWait)
	waiting := false
	defer func() {
		if waiting && l.opts.Metrics != nil {
			l.opts.Metrics.Waiting.Add(-1)
		}
	}()
	for {
		d := l.Rate(ctx, kind)
		if d.OK() || l.lim.MaxWait < 0 || l.opts.Now().Add(d.RetryIn).After(deadline) {
			return d, nil
		}
		if !waiting && l.opts.Metrics != nil {
			waiting = true
			l.opts.Metrics.Waiting.Add(1)
		}
		t := time.NewTimer(d.RetryIn)
		select {
		case <-ctx.Done():
			t.Stop()
			return Decision{}, ctx.Err()
		case <-t.C:
		}
	}
}
