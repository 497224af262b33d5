package core

import "strconv"

// Admission: an engine bounds the work it holds at once, whatever the host.
// The engine counts and refuses; the host parks the refused call and starts
// it again when another call ends, up to the call's timeout: package
// httpdriver waits for [Engine.Released] (the MCP server, the CLI), and the
// plugin's shim for the end of another call of its module instance (whose
// exports never block). See RATIONALE.md, "Why does the engine refuse
// rather than queue?".

// Defaults and bounds of the admission options.
const (
	// DefaultMaxCalls is how many operations one engine runs at once
	// (option maxCalls, 1–256).
	DefaultMaxCalls = 16
	// DefaultMaxHeldMB is the memory, in MiB, that the requests and
	// responses of the operations in flight may hold together (option
	// maxHeldMB, 16–1024). Each operation counts its request body and twice
	// the largest response it may receive (2 × MaxResponseBytes: the body,
	// and what is decoded from it); a Messages search counts twice
	// messagesMaxRequestMB (the request it may resend and the blocks it
	// keeps) instead of its first request. So by default six fetches run at
	// once, or two Messages searches.
	DefaultMaxHeldMB = 64
	// DefaultMessagesMaxRequestMB caps one Messages request, in MiB (option
	// messagesMaxRequestMB, 1–64): a paused turn is continued by resending
	// everything so far, and a continuation that would be larger ends the
	// call with a [CodeTooLarge] error instead.
	DefaultMessagesMaxRequestMB = 8

	maxMaxCalls             = 256
	minMaxHeldMB            = 16
	maxMaxHeldMB            = 1024
	maxMessagesMaxRequestMB = 64
)

// CodeBusy: the engine already holds as much work as its limits allow
// (maxCalls, maxHeldMB); nothing was sent. A host that can wait starts the
// call again once [Engine.Released] fires.
const CodeBusy Code = "busy"

// ErrBusy matches a [CodeBusy] error with errors.Is.
var ErrBusy = &Error{Code: CodeBusy}

// Limits are the admission settings of a [Config].
type Limits struct {
	// MaxCalls is how many operations may be in flight at once.
	MaxCalls int
	// MaxHeldBytes bounds the request and response bytes the operations in
	// flight may hold together.
	MaxHeldBytes int64
	// MessagesMaxRequestBytes caps one Messages request body.
	MessagesMaxRequestBytes int64
}

// setLimits applies the maxCalls, maxHeldMB and messagesMaxRequestMB
// options (0 means the default).
func (c *Config) setLimits(o Options) error {
	c.Limits = Limits{
		MaxCalls:                DefaultMaxCalls,
		MaxHeldBytes:            DefaultMaxHeldMB << 20,
		MessagesMaxRequestBytes: DefaultMessagesMaxRequestMB << 20,
	}
	for _, f := range []struct {
		name string
		in   int
		set  func(int)
	}{
		{"maxCalls", o.MaxCalls, func(n int) { c.Limits.MaxCalls = n }},
		{"maxHeldMB", o.MaxHeldMB, func(n int) { c.Limits.MaxHeldBytes = int64(n) << 20 }},
		{"messagesMaxRequestMB", o.MessagesMaxRequestMB, func(n int) { c.Limits.MessagesMaxRequestBytes = int64(n) << 20 }},
	} {
		if f.in == 0 {
			continue
		}
		if err := checkRange(f.name, f.in); err != nil {
			return &OptionError{Option: f.name, Reason: err.Error()}
		}
		f.set(f.in)
	}
	return nil
}

// reservation is what o counts against maxHeldMB while it is in flight.
func (o *operation) reservation() int64 {
	if o.messages != nil {
		return 2*o.cfg.Limits.MessagesMaxRequestBytes + 2*o.request.MaxBytes
	}
	return int64(len(o.request.Body)) + 2*o.request.MaxBytes
}

// admit registers o under a new handle, or refuses it with a CodeBusy
// error when the engine is at one of o's limits. An engine with nothing in
// flight admits any operation, so one whose reservation alone is over the
// byte bound still runs.
func (e *Engine) admit(o *operation) (Handle, *Error) {
	need := o.reservation()
	lim := o.cfg.Limits
	e.mu.Lock()
	defer e.mu.Unlock()
	switch n := len(e.ops); {
	case n >= lim.MaxCalls:
		return 0, &Error{Code: CodeBusy, Message: o.name + " could not start: " + strconv.Itoa(n) + plural(n, " call is", " calls are") + " already in flight in this process (maxCalls " + strconv.Itoa(lim.MaxCalls) + ")"}
	case n > 0 && e.held+need > lim.MaxHeldBytes:
		return 0, &Error{Code: CodeBusy, Message: o.name + " could not start: the calls in flight hold " + formatMiB(e.held) + " of requests and responses, and this one may need " + formatMiB(need) + " more (maxHeldMB " + strconv.FormatInt(lim.MaxHeldBytes>>20, 10) + ")"}
	}
	e.next++
	if e.next == 0 {
		e.next = 1
	}
	h := e.next
	o.held = need
	e.held += need
	e.ops[h] = o
	return h, nil
}

// release ends h's admission (e.mu held) and wakes the waiters.
func (e *Engine) release(h Handle) *operation {
	o := e.ops[h]
	if o == nil {
		return nil
	}
	delete(e.ops, h)
	e.held -= o.held
	if e.released != nil {
		close(e.released)
		e.released = nil
	}
	return o
}

// Released returns a channel that is closed the next time an operation in
// flight ends, freeing room under the limits. A host whose Start was
// refused with [CodeBusy] takes the channel before calling Start, and
// waits on it before trying again, so no release between the two is missed.
func (e *Engine) Released() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.released == nil {
		e.released = make(chan struct{})
	}
	return e.released
}

// Held returns the bytes the operations in flight count against maxHeldMB.
func (e *Engine) Held() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.held
}

// WaitedTooLong is the error of a call that a host parked after Start
// refused it (err, a CodeBusy error) and that could not start within
// waitedMs.
func WaitedTooLong(err *Error, waitedMs int64) *Error {
	return &Error{Code: CodeBusy, Message: err.Message + ", and none finished within " + strconv.FormatInt(waitedMs, 10) + " ms; try again later or raise the limit"}
}

// Cancelled is the done step of an operation the host cancelled before
// the engine saw it (while it waited to start, or for an identical call).
func Cancelled(op Operation) Step {
	cfg := op.Config
	if cfg == nil {
		cfg = defaultConfig
	}
	return Step{Done: true, Err: cancelled(operationName(op.Kind, cfg))}
}

// formatMiB prints n bytes in MiB with one decimal.
func formatMiB(n int64) string {
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

// WorkKey identifies the work an operation asks of DeepSeek and the answer
// it returns: what is asked, of which endpoint, with every option that
// changes the answer, by which credential (hashed), and for a fetch the
// part asked for. Two operations with equal keys get the same answer from
// one request, so a host that can wait runs the second as a follower of
// the first (httpdriver.Driver). Keys are comparable; they never hold the
// API key.
type WorkKey struct {
	cache    cacheKey
	offset   int
	maxChars int
	hint     string
}

// Identity is the key as bytes that are the same in every process: what a
// cache shared between processes (a team gateway's Redis) keys an answer
// by. It covers every option that changes the answer and never holds the
// API key; unlike the key itself it does not tell two credentials apart,
// so a cache shared between different keys must add its own notion of
// whose answer it is.
func (k WorkKey) Identity() []byte {
	b := make([]byte, 0, len(k.cache.text)+32+len(k.hint))
	b = append(b, k.cache.text...)
	b = append(b, "\x00offset="...)
	b = strconv.AppendInt(b, int64(k.offset), 10)
	b = append(b, " maxChars="...)
	b = strconv.AppendInt(b, int64(k.maxChars), 10)
	b = append(b, " hint="...)
	return append(b, k.hint...)
}

// WorkKey returns op's key, and false when op would fail before any
// request (bad input, no key): such calls are not worth sharing.
func (e *Engine) WorkKey(op Operation) (WorkKey, bool) {
	o, err := prepare(op)
	if err != nil {
		return WorkKey{}, false
	}
	k := WorkKey{cache: o.cacheKey()}
	if o.kind == KindFetch {
		k.offset, k.maxChars, k.hint = o.offset, o.cfg.FetchMaxChars, o.hint
	}
	return k, true
}
