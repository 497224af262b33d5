package core

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/wire"
)

// Version is this product's version, sent in the User-Agent header.
const Version = "0.1.0"

// UserAgent is the User-Agent header sent to DeepSeek.
const UserAgent = "deepseek-web-retrieval/" + Version

// Env carries what the engine must not read by itself: the clock and a
// source of randomness. The zero Env is usable: without Now, an HTTP-date
// Retry-After is ignored in favour of backoff and nothing is cached;
// without Random, backoff has no jitter (as if Random returned 0.5).
type Env struct {
	// Now returns the current wall-clock time in Unix milliseconds; used to
	// turn an HTTP-date Retry-After into a delay and to age the cache (a
	// clock that steps ages the cache by the step). Natively:
	// func() int64 { return time.Now().UnixMilli() }.
	Now func() int64
	// Random returns a number in [0, 1); used only for backoff jitter.
	Random func() float64
}

// Engine runs operations as step machines. It performs no I/O: [Engine.Start]
// and [Engine.Resume] return the next [Step], and the host executes any
// request it names. An Engine is safe for concurrent use; many operations may
// be in flight at once, each under its own [Handle].
type Engine struct {
	env  Env
	mu   sync.Mutex
	next Handle
	ops  map[Handle]*operation
	// cache keeps fetched pages and search answers (cache.go).
	cache *cache
	// held is the sum of the reservations of ops (admission.go);
	// released, when not nil, is closed at the next release.
	held     int64
	released chan struct{}
}

// NewEngine returns an engine with no operations in flight.
func NewEngine(env Env) *Engine {
	return &Engine{env: env, ops: make(map[Handle]*operation), cache: newCache()}
}

// InFlight returns the number of operations not yet done.
func (e *Engine) InFlight() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.ops)
}

type operation struct {
	kind    Kind
	name    string // "DeepSeek Search" or "DeepSeek Fetch"
	cfg     *Config
	key     string
	red     *Redactor // masks key
	request Request   // the first attempt, with Attempt advanced to the one in flight; retries copy it
	query   string    // final query (search)
	url     string    // page URL (fetch)
	offset  int       // first code point of the part to return (fetch)
	hint    string    // Operation.ContinueHint (fetch)
	cache   *cache    // where to keep the answer; nil when not caching
	ckey    cacheKey  // the answer's key in the cache, once built (cacheKey)
	// messages is the turn of a search on the Messages backend, nil on
	// the Search API (messages.go).
	messages *messagesTurn
	// urlChecked says url is one CheckFetchURL returned (fetchKey).
	urlChecked bool
	// held is what o counts against maxHeldMB while in flight.
	held int64
}

// defaultConfig is the Config of zero Options.
var defaultConfig = func() *Config {
	c, _, err := NewConfig(Options{})
	if err != nil {
		panic(err)
	}
	return c
}()

// Start begins op. The returned step either asks for the first request or,
// when the input is unusable, the key is missing or the engine is at its
// limits ([CodeBusy]; see [Engine.Released]), is already done.
func (e *Engine) Start(op Operation) Step {
	o, err := prepare(op)
	if err != nil {
		// Inputs echoed in the message (a format, a refused URL, a kind)
		// may hold the key.
		err.Message = maskKey(err.Message, strings.TrimSpace(op.APIKey))
		return Step{Done: true, Err: err}
	}
	if s, ok := e.fromCache(o); ok {
		return s
	}
	if e.caching(o) {
		o.cache = e.cache
	}
	h, err := e.admit(o)
	if err != nil {
		return Step{Done: true, Err: err}
	}
	return Step{Handle: h, Request: o.attempt(1, 0)}
}

// Resume hands the engine the outcome of the request its last step asked
// for. Resuming an unknown or finished handle returns a done step with a
// CodeInternal error.
func (e *Engine) Resume(h Handle, r Reply) Step {
	e.mu.Lock()
	o := e.ops[h]
	e.mu.Unlock()
	if o == nil {
		return Step{Handle: h, Done: true, Err: &Error{Code: CodeInternal, Message: "deepseek-web-retrieval: operation " + strconv.FormatUint(uint64(h), 10) + " is not in flight"}}
	}
	step := o.resume(r, e.env)
	step.Handle = h
	if step.Done {
		e.mu.Lock()
		e.release(h)
		e.mu.Unlock()
	}
	return step
}

// Cancel ends the operation: the host has stopped any request in flight or
// pending delay. It returns the done step with a CodeCancelled error, also
// for a handle that already finished.
func (e *Engine) Cancel(h Handle) Step {
	e.mu.Lock()
	o := e.release(h)
	e.mu.Unlock()
	name := "DeepSeek request"
	if o != nil {
		name = o.name
	}
	return Step{Handle: h, Done: true, Err: cancelled(name)}
}

func cancelled(name string) *Error {
	return &Error{Code: CodeCancelled, Message: name + " cancelled"}
}

// prepare validates op and builds its first request.
func prepare(op Operation) (*operation, *Error) {
	cfg := op.Config
	if cfg == nil {
		cfg = defaultConfig
	}
	o := &operation{kind: op.Kind, cfg: cfg, name: operationName(op.Kind, cfg)}
	key := strings.TrimSpace(op.APIKey)
	if key != "" && validKey(key) {
		// Before anything else reads (and may echo) the inputs.
		o.red = redactorFor(key)
		if err := refuseKeyInInput(op, o.name, o.red); err != nil {
			return nil, err
		}
	}
	var path string
	var sb searchBody // the body of a search, or
	var fb fetchBody  // of a fetch
	switch op.Kind {
	case KindSearch:
		if cfg.Messages.Backend == BackendMessages {
			return prepareMessages(o, op)
		}
		q, err := buildQuery(op.Query, cfg)
		if err != nil {
			return nil, err
		}
		o.query = q
		path = "/v1/tools/search"
		sb = searchBody{
			Query:       q,
			Count:       cfg.MaxResults,
			NeedContent: false,
			OriQuestion: clip(strings.TrimSpace(op.OriQuestion), MaxOriQuestionChars),
			Location:    cfg.Localization,
		}
	case KindFetch:
		u, err := checkFetch(op.URL, op.Format, cfg)
		if err != nil {
			return nil, err
		}
		if op.Offset < 0 {
			return nil, &Error{Code: CodeInvalidInput, Message: "DeepSeek Fetch: " + (&OffsetError{Offset: op.Offset}).Error()}
		}
		o.url, o.urlChecked, o.offset, o.hint = u, true, op.Offset, op.ContinueHint
		path = "/v1/tools/fetch"
		fb = fetchBody{URL: u}
	default:
		return nil, &Error{Code: CodeInvalidInput, Message: "deepseek-web-retrieval: unknown operation kind " + strconv.Quote(clip(string(op.Kind), 40))}
	}
	if key == "" {
		return nil, &Error{Code: CodeMissingKey, Message: cfg.MissingKeyMessage()}
	}
	if !validKey(key) {
		return nil, &Error{Code: CodeMissingKey, Message: "DeepSeek API key in " + cfg.APIKeyEnv + " is unusable: " + keyCharsRule}
	}
	o.key = key
	// A query or URL carrying the key would send it somewhere else: in the
	// request body to DeepSeek's index, or to a third-party page.
	if o.red.Contains(o.query) || o.red.Contains(op.URL) {
		what := "query"
		if op.Kind == KindFetch {
			what = "URL"
		}
		return nil, &Error{Code: CodeInvalidInput, Message: o.name + ": the " + what + " contains the API key; it was not sent"}
	}
	var data []byte
	if op.Kind == KindSearch {
		if o.red.Contains(op.OriQuestion) {
			sb.OriQuestion = ""
		}
		data = sb.appendJSON(nil)
	} else {
		data = fb.appendJSON(nil)
	}
	o.request = Request{
		Method: "POST",
		URL:    cfg.BaseURL + path,
		Header: []HeaderField{
			{"Authorization", "Bearer " + key},
			{"Content-Type", "application/json"},
			{"Accept", "application/json"},
			{"User-Agent", UserAgent},
		},
		Body:      data,
		TimeoutMs: int64(cfg.TimeoutMs),
		MaxBytes:  MaxResponseBytes,
		Attempt:   1,
	}
	return o, nil
}

// operationName names an operation in its messages ("DeepSeek Search").
func operationName(kind Kind, cfg *Config) string {
	switch {
	case kind == KindSearch && cfg.Messages.Backend == BackendMessages:
		return "DeepSeek Messages search"
	case kind == KindSearch:
		return "DeepSeek Search"
	case kind == KindFetch:
		return "DeepSeek Fetch"
	}
	return "deepseek-web-retrieval"
}

// attempt returns the request for attempt n after delayMs. Each step owns
// its slices: a host may edit what it is handed.
func (o *operation) attempt(n int, delayMs int64) *Request {
	r := o.request
	r.Header = slices.Clone(o.request.Header)
	r.Body = slices.Clone(o.request.Body)
	r.Attempt, r.DelayMs = n, delayMs
	return &r
}

// searchBody and fetchBody are the Search and Fetch request bodies;
// jsonenc.go writes them (the tags name their members, as json.Marshal in
// the tests writes them).
type searchBody struct {
	Query       string `json:"query"`
	Count       int    `json:"count"`
	NeedContent bool   `json:"need_content"`
	OriQuestion string `json:"ori_question,omitempty"`
	Location    string `json:"localization,omitempty"`
}

type fetchBody struct {
	URL string `json:"url"`
}

// resume decides what follows one attempt.
func (o *operation) resume(r Reply, env Env) Step {
	fail := func(code Code, status int, reason string) Step {
		msg := o.name + " failed: " + reason
		return Step{Done: true, Err: &Error{Code: code, Status: status, Message: o.redact(msg)}}
	}
	timeout := o.request.TimeoutMs
	switch r.Kind {
	case ReplyCancelled:
		return Step{Done: true, Err: cancelled(o.name)}
	case ReplyTimeout:
		return fail(CodeTimeout, 0, "timed out after "+strconv.FormatInt(timeout, 10)+" ms")
	case ReplyNetwork:
		if m := strings.TrimSpace(r.Message); m != "" {
			// Mask, then cut: a key straddling the cut must not leave a prefix.
			m = describeNetwork(m, o.request.URL)
			return fail(CodeNetwork, 0, "network error: "+clip(collapse(o.redact(m)), 300))
		}
		return fail(CodeNetwork, 0, "network error")
	case ReplyTooLarge, ReplyResponse:
		// A host that read past the cap gets the same answer as one that stopped.
		if r.Kind == ReplyTooLarge || int64(len(r.Body)) > o.request.MaxBytes {
			return fail(CodeTooLarge, 0, "the response is larger than 5 MiB ("+strconv.Itoa(MaxResponseBytes)+" bytes) and was not read")
		}
	default:
		return Step{Done: true, Err: &Error{Code: CodeInternal, Message: o.redact("deepseek-web-retrieval: the host reported an unknown reply kind " + strconv.Quote(clip(o.redact(string(r.Kind)), 40)))}}
	}
	switch s := r.Status; {
	case s >= 200 && s < 300:
		return o.success(r.Body, env)
	case s >= 300 && s < 400:
		return fail(CodeRedirect, s, "HTTP "+strconv.Itoa(s)+": DeepSeek answered with a redirect, which is never followed")
	case s < 100 || s > 599:
		return fail(CodeMalformed, 0, "the response has an invalid HTTP status "+strconv.Itoa(s))
	}
	attempt := o.request.Attempt
	if retryable(r.Status) && attempt <= o.cfg.MaxRetries {
		o.request.Attempt = attempt + 1 // the attempt now in flight
		return Step{Request: o.attempt(attempt+1, retryDelay(attempt, r.Get("Retry-After"), env))}
	}
	msg := wire.ErrorMessageRedacted(r.Body, o.redact)
	if msg == "" && o.kind == KindFetch && r.Status == 404 {
		msg = "DeepSeek could not retrieve the page"
	}
	text := "HTTP " + strconv.Itoa(r.Status)
	if msg != "" {
		text += ": " + msg
	}
	if r.Status == 401 {
		text += " (check the API key in " + o.cfg.APIKeyEnv + ")"
	}
	if attempt > 1 {
		text += " (gave up after " + strconv.Itoa(attempt) + " attempts)"
	}
	return fail(CodeAPI, r.Status, text)
}

// retryable reports whether a status is worth another attempt (SPEC §4).
func retryable(status int) bool {
	return status == 408 || status == 425 || status == 429 || status >= 500 && status <= 599
}

func (o *operation) success(body []byte, env Env) Step {
	if o.messages != nil {
		return o.messagesSuccess(body, env)
	}
	if o.kind == KindSearch {
		res, err := processSearch(body, o.query, o.cfg, o.redact)
		if err != nil {
			return Step{Done: true, Err: &Error{Code: CodeMalformed, Message: malformedMessage(o.name, err, body, o.cfg, o.redact)}}
		}
		o.remember(nil, res, env)
		return Step{Done: true, Result: &Result{Search: res}}
	}
	page, err := decodePage(body, o.url, o.cfg, o.redact)
	if err == nil {
		o.remember(page, nil, env)
	}
	var res *FetchResult
	if err == nil {
		res, err = partOf(page, o.url, o.offset, o.cfg, o.hint)
	}
	if err != nil {
		err.Message = o.redact(err.Message)
		return Step{Done: true, Err: err}
	}
	return Step{Done: true, Result: &Result{Fetch: res}}
}

// redact masks the operation's key in every form (see [Redactor]); it is
// applied before any cut to a length limit, so no part of the key survives
// at the cut.
func (o *operation) redact(s string) string { return o.red.Mask(s) }
