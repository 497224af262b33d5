package core

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/anthropic"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/date"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/wire"
)

// Backend names the search backend (option searchBackend).
type Backend string

// Search backends.
const (
	// BackendSearch is DeepSeek's Search API (POST {baseURL}/v1/tools/search),
	// the default.
	BackendSearch Backend = "search"
	// BackendMessages is a model turn on DeepSeek's Anthropic-compatible
	// Messages endpoint with the server-side web_search tool; results are
	// the tool's result blocks, with the passages the model cited.
	BackendMessages Backend = "messages"
)

// Defaults of the Messages backend's options.
const (
	DefaultMessagesBaseURL   = "https://api.deepseek.com/anthropic"
	DefaultMessagesModel     = "deepseek-v4-flash"
	DefaultMessagesMaxTokens = 4096
	DefaultMessagesMaxUses   = 5
	DefaultAnthropicVersion  = "2023-06-01"
	// DefaultMessagesTimeoutMs is the per-attempt timeout of a Messages
	// request when timeoutMs is not set: a search there is a model turn.
	DefaultMessagesTimeoutMs = 60000
	// DefaultMessagesMaxResults is the result cap when maxResults is not
	// set and searchBackend is "messages" (the seeds' default).
	DefaultMessagesMaxResults = 8
	// MaxPauseContinuations is how many times a turn that stopped with
	// stop_reason "pause_turn" is continued before the results so far are
	// returned with a note saying the turn was not finished.
	MaxPauseContinuations = 3
	// MaxMessagesSummaryChars caps DeepSeek's own summary (messagesSummary),
	// in code points.
	MaxMessagesSummaryChars = 8000
)

// Limits on the Messages backend's options; see RATIONALE.md.
const (
	minMessagesMaxTokens = 128
	maxMessagesMaxTokens = 65536
	minMessagesMaxUses   = 1
	maxMessagesMaxUses   = 20
)

// Failure codes of the Messages backend.
const (
	// CodeNotGrounded: the Messages response held no web search result
	// block, so nothing in it is grounded in a search.
	CodeNotGrounded Code = "not_grounded"
	// CodeSearchError: every web search in the turn failed
	// (web_search_tool_result_error); the message names the error codes.
	CodeSearchError Code = "search_error"
)

// Sentinels of the Messages backend's codes, for errors.Is.
var (
	ErrNotGrounded = &Error{Code: CodeNotGrounded}
	ErrSearchError = &Error{Code: CodeSearchError}
)

// MessagesOptions are the options of the Messages search backend. They sit
// in [Options] (embedded, so their JSON names are flat like the others'); a
// zero field means the default.
type MessagesOptions struct {
	// SearchBackend is "search" (default) or "messages".
	SearchBackend Backend `json:"searchBackend,omitempty"`
	// MessagesBaseURL is the Anthropic-compatible base; the request goes to
	// {MessagesBaseURL}/v1/messages, and a base that already ends in /v1 is
	// accepted. Default https://api.deepseek.com/anthropic; https unless the
	// host is loopback.
	MessagesBaseURL string `json:"messagesBaseURL,omitempty"`
	// MessagesModel is the model that runs the search; default
	// deepseek-v4-flash.
	MessagesModel string `json:"messagesModel,omitempty"`
	// MessagesMaxTokens is the request's max_tokens (128–65536); default
	// 4096.
	MessagesMaxTokens int `json:"messagesMaxTokens,omitempty"`
	// MessagesMaxUses is the web_search tool's max_uses, the number of
	// searches the model may run in one call (1–20); default 5.
	MessagesMaxUses int `json:"messagesMaxUses,omitempty"`
	// AnthropicVersion is the anthropic-version header; default 2023-06-01.
	AnthropicVersion string `json:"anthropicVersion,omitempty"`
	// MessagesSummary adds the model's own prose, labelled as DeepSeek's
	// summary, before the results; default false (it is not grounded).
	MessagesSummary bool `json:"messagesSummary,omitempty"`
}

// parse decodes one option of the Messages backend; known is false for a
// name that is not one.
func (m *MessagesOptions) parse(name string, v []byte) (known bool, err error) {
	switch name {
	case "searchBackend":
		err = decodeString(v, (*string)(&m.SearchBackend))
	case "messagesBaseURL":
		err = decodeString(v, &m.MessagesBaseURL)
	case "messagesModel":
		err = decodeString(v, &m.MessagesModel)
	case "messagesMaxTokens":
		err = decodeRange(v, &m.MessagesMaxTokens, name)
	case "messagesMaxUses":
		err = decodeRange(v, &m.MessagesMaxUses, name)
	case "anthropicVersion":
		err = decodeString(v, &m.AnthropicVersion)
	case "messagesSummary":
		if !jsonBool(v, &m.MessagesSummary) {
			err = errors.New("want true or false, got " + quoteRaw(v))
		}
	default:
		return false, nil
	}
	return true, err
}

func between(n, lo, hi int) error {
	if n < lo || n > hi {
		return errors.New("want a whole number from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi) + ", got " + strconv.Itoa(n))
	}
	return nil
}

// MessagesConfig is the resolved search backend and the Messages backend's
// settings, part of [Config].
type MessagesConfig struct {
	// Backend is BackendSearch or BackendMessages.
	Backend Backend
	// BaseURL is the Anthropic-compatible base without a trailing /v1;
	// Endpoint is BaseURL + "/v1/messages".
	BaseURL, Endpoint string
	Model             string
	MaxTokens         int
	MaxUses           int
	AnthropicVersion  string
	Summary           bool
	// TimeoutMs is the per-attempt timeout of a Messages request: timeoutMs
	// when set, else DefaultMessagesTimeoutMs.
	TimeoutMs int
}

// resolveMessages validates o's Messages options into c.Messages, and
// applies the backend's defaults to the shared options it changes
// (maxResults when unset).
func (c *Config) resolveMessages(o Options) error {
	fail := func(name, reason string) error {
		return &OptionError{Option: name, Reason: reason}
	}
	m := MessagesConfig{
		Backend:          BackendSearch,
		BaseURL:          DefaultMessagesBaseURL,
		Model:            DefaultMessagesModel,
		MaxTokens:        DefaultMessagesMaxTokens,
		MaxUses:          DefaultMessagesMaxUses,
		AnthropicVersion: DefaultAnthropicVersion,
		Summary:          o.MessagesSummary,
		TimeoutMs:        DefaultMessagesTimeoutMs,
	}
	switch b := Backend(strings.TrimSpace(string(o.SearchBackend))); b {
	case "":
	case BackendSearch, BackendMessages:
		m.Backend = b
	default:
		return fail("searchBackend", "want "+strconv.Quote(string(BackendSearch))+" or "+strconv.Quote(string(BackendMessages))+", got "+strconv.Quote(clip(string(o.SearchBackend), 40)))
	}
	if o.MessagesBaseURL != "" {
		u, err := checkBaseURL(o.MessagesBaseURL)
		if err != nil {
			return fail("messagesBaseURL", err.Error())
		}
		// The seeds' DEEPSEEK_SEARCH_BASE_URL ends in /v1.
		m.BaseURL = strings.TrimSuffix(u, "/v1")
	}
	m.Endpoint = m.BaseURL + "/v1/messages"
	if s := o.MessagesModel; s != "" {
		if strings.TrimSpace(s) != s || runeCount(s) > 128 || strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return fail("messagesModel", "want a model name such as "+strconv.Quote(DefaultMessagesModel)+" (no surrounding spaces or control characters, at most 128 characters), got "+strconv.Quote(clip(s, 40)))
		}
		m.Model = s
	}
	if o.MessagesMaxTokens != 0 {
		if err := between(o.MessagesMaxTokens, minMessagesMaxTokens, maxMessagesMaxTokens); err != nil {
			return fail("messagesMaxTokens", err.Error())
		}
		m.MaxTokens = o.MessagesMaxTokens
	}
	if o.MessagesMaxUses != 0 {
		if err := between(o.MessagesMaxUses, minMessagesMaxUses, maxMessagesMaxUses); err != nil {
			return fail("messagesMaxUses", err.Error())
		}
		m.MaxUses = o.MessagesMaxUses
	}
	if s := o.AnthropicVersion; s != "" {
		if len(s) > 64 || !validKey(s) {
			return fail("anthropicVersion", "want a version such as "+strconv.Quote(DefaultAnthropicVersion)+" (no spaces, at most 64 characters), got "+strconv.Quote(clip(s, 40)))
		}
		m.AnthropicVersion = s
	}
	if o.TimeoutMs != 0 {
		m.TimeoutMs = c.TimeoutMs
	}
	if m.Backend == BackendMessages {
		if o.MaxResults == 0 {
			c.MaxResults = DefaultMessagesMaxResults
		}
		if len(c.IncludeDomains) > 0 && len(c.BlockedDomains) > 0 {
			return fail("blockedDomains", `cannot be combined with includeDomains when searchBackend is "messages": DeepSeek's web_search tool takes allowed_domains or blocked_domains, not both`)
		}
	}
	c.Messages = m
	return nil
}

// Seed environment variables honoured for the Messages backend by the CLI
// and the MCP server (see [ApplyMessagesEnv]).
const (
	EnvSearchBaseURL    = "DEEPSEEK_SEARCH_BASE_URL"
	EnvSearchModel      = "DEEPSEEK_SEARCH_MODEL"
	EnvSearchMaxTokens  = "DEEPSEEK_SEARCH_MAX_TOKENS"
	EnvSearchMaxUses    = "DEEPSEEK_SEARCH_MAX_USES"
	EnvSearchAPIVersion = "DEEPSEEK_SEARCH_API_VERSION"
)

// ApplyMessagesEnv fills the Messages options that o leaves unset from the
// seed servers' environment variables (DEEPSEEK_SEARCH_BASE_URL,
// DEEPSEEK_SEARCH_MODEL, DEEPSEEK_SEARCH_MAX_TOKENS, DEEPSEEK_SEARCH_MAX_USES,
// DEEPSEEK_SEARCH_API_VERSION), read through getenv, when o.SearchBackend is
// "messages". Options already set (flags, plugin options) win. A blank
// variable is ignored; a number that does not parse is an error naming the
// variable. The values are validated later by [NewConfig], like any option.
// Native hosts (the CLI, the MCP server) call it; the OpenCode plugin does
// not, because its options are its configuration.
func ApplyMessagesEnv(o *Options, getenv func(string) string) error {
	if getenv == nil || Backend(strings.TrimSpace(string(o.SearchBackend))) != BackendMessages {
		return nil
	}
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	if v := get(EnvSearchBaseURL); v != "" && o.MessagesBaseURL == "" {
		o.MessagesBaseURL = v
	}
	if v := get(EnvSearchModel); v != "" && o.MessagesModel == "" {
		o.MessagesModel = v
	}
	if v := get(EnvSearchAPIVersion); v != "" && o.AnthropicVersion == "" {
		o.AnthropicVersion = v
	}
	for _, n := range []struct {
		env    string
		dst    *int
		lo, hi int
	}{
		{EnvSearchMaxTokens, &o.MessagesMaxTokens, minMessagesMaxTokens, maxMessagesMaxTokens},
		{EnvSearchMaxUses, &o.MessagesMaxUses, minMessagesMaxUses, maxMessagesMaxUses},
	} {
		v := get(n.env)
		if v == "" || *n.dst != 0 {
			continue
		}
		// Decimal digits ("010" is ten), or a JSON number ("1e3").
		x, ok := decimalInt(v)
		if !ok {
			ok = decodeInt([]byte(v), &x) == nil
		}
		if !ok || between(x, n.lo, n.hi) != nil {
			return errors.New("environment variable " + n.env + ": want a whole number from " + strconv.Itoa(n.lo) + " to " + strconv.Itoa(n.hi) + ", got " + strconv.Quote(clip(v, 40)))
		}
		*n.dst = x
	}
	return nil
}

// decimalInt reads a whole number in decimal digits with an optional
// sign: "010" is ten (a leading zero is no octal prefix), and "0x10" or
// "1_0" are not numbers.
func decimalInt(s string) (int, bool) {
	d := strings.TrimLeft(s, "+-")
	if len(s)-len(d) > 1 || d == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
		if n = n*10 + int(d[i]-'0'); n > 1e9 {
			return 0, false
		}
	}
	if s[0] == '-' {
		n = -n
	}
	return n, true
}

// Usage is what a Messages search cost, summed over the requests of one
// call (a paused turn's continuations included). Its JSON follows the
// Messages API's usage object, plus the number of model requests.
type Usage struct {
	InputTokens   int64         `json:"input_tokens"`
	OutputTokens  int64         `json:"output_tokens"`
	ServerToolUse ServerToolUse `json:"server_tool_use"`
	// Requests counts the Messages requests that returned a body (1, plus
	// one per continued pause_turn).
	Requests int `json:"requests"`
}

// add adds o's counts to u.
func (u *Usage) add(o *Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.ServerToolUse.WebSearchRequests += o.ServerToolUse.WebSearchRequests
	u.Requests += o.Requests
}

// ServerToolUse counts the server-side tool calls of a Messages search.
type ServerToolUse struct {
	WebSearchRequests int64 `json:"web_search_requests"`
}

// messagesTurn is the state of a Messages search across a paused turn.
type messagesTurn struct {
	prompt string
	tool   webSearchTool
	// first is the body of the turn's first request: what the search
	// cache keys the answer by (continuations change the request body).
	first  []byte
	blocks []anthropic.Block
	usage  Usage
	// paused is true when the last response stopped with pause_turn;
	// maxTokens when it stopped at max_tokens.
	paused, maxTokens bool
}

// messagesBody is a Messages request (jsonenc.go writes it): the model,
// max_tokens, the prompt as the user's message, then, when a paused turn
// is continued, the assistant's content blocks so far (raw JSON), and the
// web_search tool.
type messagesBody struct {
	Model     string
	MaxTokens int
	Prompt    string
	Blocks    [][]byte
	Tool      webSearchTool
}

type webSearchTool struct {
	Type           string   `json:"type"`
	Name           string   `json:"name"`
	MaxUses        int      `json:"max_uses"`
	AllowedDomains []string `json:"allowed_domains,omitempty"`
	BlockedDomains []string `json:"blocked_domains,omitempty"`
}

// messagesPrompt is the one user message of a Messages search.
const messagesPrompt = "Perform a web search for the query: "

// prepareMessages builds the first request of a search on the Messages
// backend into o (whose cfg is set).
func prepareMessages(o *operation, op Operation) (*operation, *Error) {
	cfg := o.cfg
	// Domains go to the tool, not into the query; language and
	// localization belong to the Search API.
	plain := *cfg
	plain.IncludeDomains, plain.BlockedDomains, plain.Language = nil, nil, ""
	q, err := buildQuery(op.Query, &plain)
	if err != nil {
		return nil, err
	}
	o.query = q
	key := strings.TrimSpace(op.APIKey)
	if key == "" {
		return nil, &Error{Code: CodeMissingKey, Message: cfg.MissingKeyMessage()}
	}
	if !validKey(key) {
		return nil, &Error{Code: CodeMissingKey, Message: "DeepSeek API key in " + cfg.APIKeyEnv + " is unusable: " + keyCharsRule}
	}
	o.key = key
	if strings.Contains(q, key) {
		return nil, &Error{Code: CodeInvalidInput, Message: o.name + ": the query contains the API key; it was not sent"}
	}
	t := &messagesTurn{
		prompt: messagesPrompt + q,
		tool: webSearchTool{
			Type: "web_search_20250305", Name: "web_search", MaxUses: cfg.Messages.MaxUses,
			AllowedDomains: cfg.IncludeDomains, BlockedDomains: cfg.BlockedDomains,
		},
	}
	o.messages = t
	body, jerr := t.body(cfg)
	if jerr != nil {
		return nil, &Error{Code: CodeInternal, Message: "deepseek-web-retrieval: encode request: " + jerr.Error()}
	}
	t.first = body
	o.request = Request{
		Method: "POST",
		URL:    cfg.Messages.Endpoint,
		Header: []HeaderField{
			{"x-api-key", key},
			{"Authorization", "Bearer " + key},
			{"anthropic-version", cfg.Messages.AnthropicVersion},
			{"Content-Type", "application/json"},
			{"Accept", "application/json"},
			{"User-Agent", UserAgent},
		},
		Body:      body,
		TimeoutMs: int64(cfg.Messages.TimeoutMs),
		MaxBytes:  MaxResponseBytes,
		Attempt:   1,
	}
	return o, nil
}

// body is the request body: the prompt, then, when a paused turn is being
// continued, the assistant's content so far.
func (t *messagesTurn) body(cfg *Config) ([]byte, error) {
	b := messagesBody{
		Model:     cfg.Messages.Model,
		MaxTokens: cfg.Messages.MaxTokens,
		Prompt:    t.prompt,
		Tool:      t.tool,
	}
	for _, bl := range t.blocks {
		b.Blocks = append(b.Blocks, bl.Raw)
	}
	return b.appendJSON(nil)
}

// nextSize is at least the size of the body that continues t: the first
// request's, plus each block so far and a comma.
func (t *messagesTurn) nextSize() int64 {
	n := int64(len(t.first))
	for _, b := range t.blocks {
		n += int64(len(b.Raw)) + 1
	}
	return n
}

// messagesMalformed says what is wrong with a 2xx Messages body that could
// not be used, the way malformedMessage does for the Search API: a body
// that is not a JSON object is classified by the wire decoder; a JSON
// object of the wrong shape names the member.
func messagesMalformed(o *operation, err error, body []byte) string {
	if le, ok := errors.AsType[*anthropic.LimitError](err); ok {
		return o.name + " failed: DeepSeek returned " + le.Error() + " (a real turn holds far fewer), so the response was not used"
	}
	if _, werr := wire.DecodeFetch(body); werr != nil {
		return malformedMessage(o.name, werr, body, o.cfg, o.redact)
	}
	return o.name + " failed: DeepSeek returned a Messages response whose " + err.Error() + " (first bytes: " + excerpt(body, excerptChars, o.redact) + ")"
}

// messagesSuccess maps a 2xx Messages response, or continues a paused turn.
func (o *operation) messagesSuccess(body []byte, env Env) Step {
	t := o.messages
	resp, err := anthropic.Decode(body)
	if err != nil {
		return Step{Done: true, Err: &Error{Code: CodeMalformed, Message: messagesMalformed(o, err, body)}}
	}
	if resp.Type == "error" {
		msg := o.name + " failed: DeepSeek answered with an error"
		if m := clip(collapse(o.redact(resp.ErrorMessage)), 300); m != "" {
			msg += ": " + m
		}
		return Step{Done: true, Err: &Error{Code: CodeAPI, Message: msg}}
	}
	t.usage.Requests++
	t.usage.InputTokens += resp.Usage.InputTokens
	t.usage.OutputTokens += resp.Usage.OutputTokens
	t.usage.ServerToolUse.WebSearchRequests += resp.Usage.WebSearchRequests
	for _, b := range resp.Blocks {
		// A block that echoes the key goes back to DeepSeek masked, so the
		// key travels only in the two auth headers. The key has no
		// characters JSON escapes, so the block stays valid JSON.
		if o.key != "" && bytes.Contains(b.Raw, []byte(o.key)) {
			b.Raw = bytes.ReplaceAll(b.Raw, []byte(o.key), []byte(keyMask))
		} else {
			// Raw views body, which a host may write the next reply into
			// once this call returns (the module reuses its input
			// buffers); the blocks outlive it.
			b.Raw = bytes.Clone(b.Raw)
		}
		t.blocks = append(t.blocks, b)
	}
	t.paused = resp.StopReason == "pause_turn"
	t.maxTokens = resp.StopReason == "max_tokens"
	if t.paused && t.usage.Requests <= MaxPauseContinuations {
		// Each continuation resends everything so far: stop before one
		// would pass the cap rather than build it.
		if size, limit := t.nextSize(), o.cfg.Limits.MessagesMaxRequestBytes; size > limit {
			return Step{Done: true, Err: &Error{Code: CodeTooLarge, Message: o.name + " failed: DeepSeek paused its turn " + strconv.Itoa(t.usage.Requests) +
				" times, and continuing it would resend " + formatMiB(size) + " (everything so far), over messagesMaxRequestMB (" + strconv.FormatInt(limit>>20, 10) + " MiB); the turn was not continued"}}
		}
		next, jerr := t.body(o.cfg)
		if jerr != nil {
			return Step{Done: true, Err: &Error{Code: CodeInternal, Message: "deepseek-web-retrieval: encode request: " + jerr.Error()}}
		}
		o.request.Body = next
		o.request.Attempt = 1
		return Step{Request: o.attempt(1, 0)}
	}
	res, e := mapMessages(t, o.query, o.cfg, o.redact)
	if e != nil {
		e.Message = o.redact(o.name + " failed: " + e.Message)
		return Step{Done: true, Err: e}
	}
	o.remember(nil, res, env)
	return Step{Done: true, Result: &Result{Search: res}}
}

// searchErrorText explains a web_search_tool_result_error code.
func searchErrorText(code string, cfg *Config) string {
	switch code {
	case "too_many_requests":
		return "too_many_requests (DeepSeek's search is rate-limited; try again shortly)"
	case "invalid_tool_input", "invalid_input":
		return code + " (DeepSeek rejected the search query the model wrote)"
	case "max_uses_exceeded":
		return "max_uses_exceeded (the model used up the searches allowed per call; messagesMaxUses is " + strconv.Itoa(cfg.Messages.MaxUses) + ")"
	case "query_too_long":
		return "query_too_long (the search query is too long; shorten it)"
	case "unavailable":
		return "unavailable (DeepSeek's search is unavailable; try again later)"
	}
	return strconv.Quote(clip(collapse(code), 60))
}

// mapMessages builds the search result of a finished Messages turn: the
// web_search_tool_result entries in order, de-duplicated by URL, each with
// the passages the model cited from it. Strictly grounded: links that appear
// only in the model's prose or citations are never results.
func mapMessages(t *messagesTurn, query string, cfg *Config, redact func(string) string) (*SearchResult, *Error) {
	// url → cited passages, in order, without repeats.
	cited := map[string][]string{}
	// The model's prose: consecutive text blocks are one passage split at
	// its citations; a tool call between them starts a new paragraph.
	var summary strings.Builder
	prevText := false
	var codes []string
	searched := false
	for _, b := range t.blocks {
		if b.Type != anthropic.TypeText {
			prevText = false
		}
		switch b.Type {
		case anthropic.TypeText:
			// Prose that cites a result refusedResult withholds is left
			// out of the summary with the result and its passages.
			if !citesWithheld(b.Citations, redact) {
				if !prevText && summary.Len() > 0 {
					summary.WriteString("\n\n")
				}
				summary.WriteString(b.Text)
			}
			prevText = true
			for _, c := range b.Citations {
				u, _, ok := resultURL(redact(c.URL))
				p := collapse(redact(c.CitedText))
				if !ok || p == "" {
					continue
				}
				k := dedupKey(u)
				if !containsString(cited[k], p) {
					cited[k] = append(cited[k], p)
				}
			}
		case anthropic.TypeWebSearchResult:
			if b.ErrorCode != "" {
				if c := redact(b.ErrorCode); !containsString(codes, c) {
					codes = append(codes, c)
				}
				continue
			}
			searched = searched || b.Searched
		}
	}
	if !searched {
		if len(codes) > 0 {
			parts := make([]string, len(codes))
			for i, c := range codes {
				parts[i] = searchErrorText(c, cfg)
			}
			return nil, &Error{Code: CodeSearchError, Message: "DeepSeek's web search returned an error: " + strings.Join(parts, "; ")}
		}
		if t.paused {
			return nil, &Error{Code: CodeNotGrounded, Message: "DeepSeek did not run a web search for this query (its turn paused " + strconv.Itoa(t.usage.Requests) + " times without a search result)"}
		}
		return nil, &Error{Code: CodeNotGrounded, Message: "DeepSeek did not run a web search for this query"}
	}
	res := &SearchResult{Query: query, Hits: []Hit{}}
	usage := t.usage
	res.Usage = &usage
	seen := map[string]struct{}{}
	withheld := 0
	for _, b := range t.blocks {
		if b.Type != anthropic.TypeWebSearchResult {
			continue
		}
		for _, r := range b.Results {
			raw := strings.TrimSpace(redact(r.URL))
			u, host, ok := resultURL(raw)
			if !ok {
				continue
			}
			k := dedupKey(u)
			if _, dup := seen[k]; dup {
				continue
			}
			seen[k] = struct{}{}
			if !domainAllowed(host, cfg.IncludeDomains, cfg.BlockedDomains) {
				continue
			}
			// Withheld with the passages cited from it, which are only
			// ever shown under their result.
			if refusedResult(raw) {
				withheld++
				continue
			}
			if len(res.Hits) == cfg.MaxResults {
				res.Dropped++
				continue
			}
			h := Hit{
				URL:   raw,
				Title: collapse(redact(r.Title)),
				Date:  strings.TrimSpace(redact(r.PageAge)),
				Text:  ellipsize(strings.Join(cited[k], "\n"), cfg.MaxSummaryChars),
			}
			h.Published, _ = parsePageAge(h.Date)
			res.Hits = append(res.Hits, h)
		}
	}
	if cfg.Messages.Summary {
		res.Summary = ellipsize(strings.TrimSpace(redact(summary.String())), MaxMessagesSummaryChars)
	}
	res.noteWithheld(withheld)
	for _, c := range codes {
		res.Notes = append(res.Notes, "One of DeepSeek's web searches failed: "+searchErrorText(c, cfg)+"; the results above come from the searches that ran.")
	}
	switch {
	case t.paused:
		res.Notes = append(res.Notes, "DeepSeek paused its turn "+strconv.Itoa(t.usage.Requests)+" times and it was not continued further; the results above are those found so far.")
	case t.maxTokens:
		res.Notes = append(res.Notes, "DeepSeek stopped at messagesMaxTokens ("+strconv.Itoa(cfg.Messages.MaxTokens)+") before finishing its turn; some results may be missing.")
	}
	return res, nil
}

// citesWithheld reports whether any of cs cites a result URL that
// refusedResult withholds.
func citesWithheld(cs []anthropic.Citation, redact func(string) string) bool {
	for _, c := range cs {
		if u := redact(c.URL); refusedResult(u) && isResultURL(u) {
			return true
		}
	}
	return false
}

// isResultURL reports whether resultURL accepts raw.
func isResultURL(raw string) bool {
	_, _, ok := resultURL(raw)
	return ok
}

// parsePageAge reads a page_age: the layouts of parseDate, or a written date
// such as "April 30, 2025", as Unix milliseconds; false as parseDate
// says. Relative ages ("3 days ago") are not read.
func parsePageAge(s string) (int64, bool) {
	if ms, ok := parseDate(s); ok {
		return ms, true
	}
	// The last two are time.RFC1123 and time.RFC1123Z.
	for _, layout := range []string{"January 2, 2006", "Jan 2, 2006", "2 January 2006", "2 Jan 2006", "Mon, 02 Jan 2006 15:04:05 MST", "Mon, 02 Jan 2006 15:04:05 -0700"} {
		if t, ok := date.Parse(layout, s); ok {
			if t.IsZero() {
				return 0, false
			}
			return t.UnixMilli(), true
		}
	}
	return 0, false
}

// decorate adds what a Messages search says beyond its results to the text
// of SPEC §6: DeepSeek's summary first (when asked for), then how many
// results maxResults left out and any notes.
func (r *SearchResult) decorate(text string) string {
	if r.Summary == "" && r.Dropped == 0 && len(r.Notes) == 0 {
		return text
	}
	var b strings.Builder
	if r.Summary != "" {
		b.WriteString("DeepSeek's summary (written by the model, not a quote from the results):\n")
		b.WriteString(r.Summary)
		b.WriteString("\n\n")
	}
	b.WriteString(text)
	if r.Dropped > 0 {
		b.WriteString("\n\n(" + strconv.Itoa(r.Dropped) + " more " + plural(r.Dropped, "result", "results") + " not shown: maxResults is " + strconv.Itoa(len(r.Hits)) + ".)")
	}
	for _, n := range r.Notes {
		b.WriteString("\n\n" + n)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
