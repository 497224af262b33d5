// Package mcp serves DeepSeek Search and Fetch as the tools of a Model
// Context Protocol server, so every MCP host (Codex, Claude Code, Gemini CLI,
// Cursor, OpenCode's mcp key, …) gets the same retrieval as the OpenCode
// plugin: the same options and tiers, the same tool descriptions and input
// validation, and exactly the text the CLI prints.
//
// It is a host adapter beside package opencode: it offers package tool's two
// tools, maps MCP tool calls onto [core.Operation]s with [tool.Parse] and
// drives them with [httpdriver]. The protocol itself is
// the official Go SDK's (github.com/modelcontextprotocol/go-sdk).
//
//	srv := mcp.NewServer(mcp.Options{Config: cfg})
//	err := srv.Run(ctx, &sdk.StdioTransport{})
//
// # Tools
//
//   - deepseek_search: {query, question?}; question is sent as ori_question.
//   - deepseek_fetch: {url, format?}; format accepts only "markdown".
//
// A tier of "off" hides a tool; "preferred" and "forced" add a sentence to
// its description that tells the model to prefer it over the host's built-in
// tool. Every failure (bad input, a missing key, a refused URL, an HTTP
// error, a timeout, cancellation) is a tool result with isError set and our
// sentence as its text; only unknown tools and malformed requests are
// JSON-RPC errors. Results carry no structuredContent: see RATIONALE.md.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/httpdriver"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/diskcache"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ledger"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tool"
)

// Name is the server name reported in the initialize result.
const Name = "deepseek-web-retrieval"

// Tool names, the same as on OpenCode.
const (
	SearchTool = tool.SearchName
	FetchTool  = tool.FetchName
)

// What the preferred and forced tiers tell the model to avoid: MCP hosts name
// their built-ins differently (web_search, WebFetch, google_web_search, …).
const (
	builtinSearch = "the host's built-in web search tool"
	builtinFetch  = "the host's built-in web fetch tool"
)

// questionProperty is the MCP-only search input: hosts may pass the user's
// own question, which DeepSeek uses to rank results.
const questionProperty = `{"type":"string","description":"Optional: the user's original question in their own words, when it says more than the query; DeepSeek uses it to rank results."}`

// Options configures a server. The zero Options serves both tools with the
// default options, reading DEEPSEEK_API_KEY from the process environment.
type Options struct {
	// Config holds the validated options, tiers included. Nil means the
	// defaults of core.NewConfig.
	Config *core.Config
	// Getenv reads the API key's variable at every call (never at start).
	// Nil means os.Getenv.
	Getenv func(string) string
	// Client performs the HTTP requests. Nil means httpdriver.NewClient().
	Client *http.Client
	// Env is the engine's clock and randomness. A zero Env means the wall
	// clock (time.Now in Unix milliseconds) and math/rand/v2.
	Env core.Env
	// Version is the serverInfo version. Empty means core.Version.
	Version string
	// Around, when set, wraps every tool call: a team gateway's quotas,
	// shared cache, audit and metrics. run performs the call (or returns
	// the failure its arguments earned); what Around returns is what the
	// client gets.
	Around func(ctx context.Context, c *Call, run func(context.Context) Outcome) Outcome
	// Shared and Ledger, when set, are the machine's shared cache and
	// usage ledger (httpdriver.Driver); each call is recorded under the
	// client's clientInfo name.
	Shared *diskcache.Cache
	Ledger *ledger.Ledger
}

// Call is one tool call as Options.Around sees it.
type Call struct {
	// Tool is the tool's name, as the client sent it.
	Tool string
	// Op is the operation the arguments asked for; Valid is false when
	// they were refused (run then returns that failure without a request).
	Op    core.Operation
	Valid bool
	// Identity keys the answer across processes (core.WorkKey.Identity):
	// nil when the call is not worth sharing (it fails before any request).
	Identity []byte
	// Extra is the SDK's: the HTTP request's header and the verified
	// bearer token's info over streamable HTTP, nil over stdio.
	Extra *sdk.RequestExtra
	// Meta is the request's _meta (a W3C traceparent, say); nil when it
	// has none.
	Meta map[string]any
}

// Outcome is what a call gives the client: Text, as an error result when
// IsError. Step is the engine's last step (zero when Around answered
// without running the call, from a cache say).
type Outcome struct {
	Text    string
	IsError bool
	Step    core.Step
}

// NewServer returns an MCP server with the tools cfg's tiers ask for. Run it
// with (*sdk.Server).Run on a transport; the calls in flight are cancelled
// when the client disconnects. [Serve] also cancels them when its context
// ends.
func NewServer(o Options) *sdk.Server {
	return newServer(newHandler(o), o.Version)
}

// Serve runs a server on t until the client disconnects (for stdio: EOF) or
// ctx is done. Either way it cancels the calls in flight first, so it returns
// promptly; a cancelled ctx is a clean end and returns nil.
func Serve(ctx context.Context, o Options, t sdk.Transport) error {
	h := newHandler(o)
	h.stop = ctx.Done()
	err := newServer(h, o.Version).Run(ctx, t)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func newServer(h *handler, version string) *sdk.Server {
	if version == "" {
		version = core.Version
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: Name, Title: "DeepSeek Web Retrieval", Version: version}, &sdk.ServerOptions{
		// No logging capability: diagnostics go to stderr, never to the
		// protocol stream.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	for _, t := range Tools(h.cfg) {
		srv.AddTool(t, h.call)
	}
	return srv
}

// Tools returns the tool definitions cfg's tiers ask for: none, one or both.
func Tools(cfg *core.Config) []*sdk.Tool {
	var tools []*sdk.Tool
	yes := true
	if cfg.Search != core.TierOff {
		tools = append(tools, &sdk.Tool{
			Name:        SearchTool,
			Title:       "DeepSeek Search",
			Description: tool.SearchDescription(cfg, builtinSearch),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"query":` + tool.SearchQueryProperty(cfg) +
				`,"queries":` + tool.QueriesProperty + `,"question":` + questionProperty + `},"additionalProperties":false}`),
			Annotations: &sdk.ToolAnnotations{Title: "DeepSeek Search", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &yes},
		})
	}
	if cfg.Fetch != core.TierOff {
		tools = append(tools, &sdk.Tool{
			Name:        FetchTool,
			Title:       "DeepSeek Fetch",
			Description: tool.FetchDescription(cfg, builtinFetch),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"url":` + tool.URLProperty + `,"urls":` + tool.URLsProperty +
				`,"offset":` + tool.OffsetProperty + `,"format":` + tool.FormatProperty + `},"additionalProperties":false}`),
			Annotations: &sdk.ToolAnnotations{Title: "DeepSeek Fetch", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &yes},
		})
	}
	return tools
}

// handler runs tool calls; it is shared by every call and safe for
// concurrent use.
type handler struct {
	cfg    *core.Config
	getenv func(string) string
	client *http.Client
	eng    *core.Engine
	// driver runs the calls: it waits for admission and shares identical
	// calls in flight.
	driver *httpdriver.Driver
	// stop, when set, cancels every call when it closes (the SDK waits
	// for calls in flight before it closes a session): Serve's context.
	stop   <-chan struct{}
	around func(context.Context, *Call, func(context.Context) Outcome) Outcome
}

// config is o.Config, or core.NewConfig's defaults when it is nil.
func (o Options) config() *core.Config {
	if o.Config != nil {
		return o.Config
	}
	cfg, _, err := core.NewConfig(core.Options{})
	if err != nil {
		panic(err) // the defaults are valid
	}
	return cfg
}

// getenv is o.Getenv, or os.Getenv when it is nil.
func (o Options) getenv() func(string) string {
	if o.Getenv != nil {
		return o.Getenv
	}
	return os.Getenv
}

// APIKey returns the DeepSeek API key a tool call would send now: the
// variable o's Config names, read through o's Getenv; "" when unset.
func (o Options) APIKey() string { return o.config().ResolveKey(o.getenv()) }

func newHandler(o Options) *handler {
	h := &handler{cfg: o.config(), getenv: o.getenv(), client: o.Client, around: o.Around}
	if h.client == nil {
		h.client = httpdriver.NewClient()
	}
	env := o.Env
	if env.Now == nil {
		env.Now = func() int64 { return time.Now().UnixMilli() }
	}
	if env.Random == nil {
		env.Random = rand.Float64
	}
	h.eng = core.NewEngine(env)
	h.driver = &httpdriver.Driver{Engine: h.eng, Client: h.client, Shared: o.Shared, Ledger: o.Ledger}
	return h
}

// call is the tools/call handler of both tools. It never returns a Go error:
// every failure is a tool result with IsError and our sentence.
func (h *handler) call(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if h.stop != nil {
		var cancel context.CancelFunc
		ctx, cancel = cancelOn(ctx, h.stop)
		defer cancel()
	}
	ctx = ledger.WithHost(ctx, clientName(req))
	c := &Call{Tool: req.Params.Name, Extra: req.Extra, Meta: req.Params.Meta}
	ops, err := parseArgs(req.Params.Name, req.Params.Arguments, h.cfg)
	if err == nil {
		key := h.cfg.ResolveKey(h.getenv)
		if unexpanded(key) {
			err = fmt.Errorf("DeepSeek API key not found: the MCP host passed %s as an unexpanded reference, not a key; set the %s environment variable where the host starts",
				h.cfg.APIKeyEnv, h.cfg.APIKeyEnv)
		}
		for i := range ops {
			ops[i].APIKey = key
		}
	}
	if err == nil {
		c.Op, c.Valid = ops[0], true
		// A batch is shared query by query (the driver), not as a whole.
		if k, ok := h.eng.WorkKey(ops[0]); ok && len(ops) == 1 {
			c.Identity = k.Identity()
		}
	}
	run := func(ctx context.Context) Outcome {
		if err != nil {
			return Outcome{Text: err.Error(), IsError: true}
		}
		if len(ops) > 1 {
			return h.runBatch(ctx, ops)
		}
		step := h.run(ctx, ops[0], h.progress(ctx, req))
		if step.Err != nil {
			return Outcome{Text: step.Err.Message, IsError: true, Step: step}
		}
		return Outcome{Text: tool.Text(step.Result), Step: step}
	}
	var out Outcome
	if h.around != nil {
		out = h.around(ctx, c, run)
	} else {
		out = run(ctx)
	}
	if out.IsError {
		return failure(out.Text), nil
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out.Text}}}, nil
}

// clientName is the client's clientInfo name, as the usage ledger
// records it ("mcp" when it gave none).
func clientName(req *sdk.CallToolRequest) string {
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return p.ClientInfo.Name
		}
	}
	return "mcp"
}

// unexpanded reports whether a key is a host's config reference that reached
// the server as text: Claude Code passes an unset ${VAR} on literally, and
// other hosts write $VAR, ${env:VAR} or {env:VAR}. No DeepSeek key starts
// with "$" or "{", and sending one would only earn a 401.
func unexpanded(key string) bool {
	return strings.HasPrefix(key, "$") || strings.HasPrefix(key, "{env:")
}

func failure(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// runBatch runs a call's queries or pages at once (each waits for
// admission, and is cached and coalesced, as a call of its own) and joins
// them: one merged list of results, or the pages in order with a failed
// one's error in its place.
func (h *handler) runBatch(ctx context.Context, ops []core.Operation) Outcome {
	steps := make([]core.Step, len(ops))
	var wg sync.WaitGroup
	for i, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			steps[i] = h.run(ctx, op, nil)
		}()
	}
	wg.Wait()
	if ops[0].Kind == core.KindSearch {
		queries := make([]string, len(ops))
		for i, op := range ops {
			queries[i] = op.Query
		}
		r, e := core.MergeSearches(queries, steps)
		if e != nil {
			return Outcome{Text: e.Message, IsError: true, Step: core.Step{Done: true, Err: e}}
		}
		return Outcome{Text: tool.Text(r), Step: core.Step{Done: true, Result: r}}
	}
	urls := make([]string, len(ops))
	for i, op := range ops {
		urls[i] = op.URL
	}
	text, e := core.JoinFetches(urls, steps)
	if e != nil {
		return Outcome{Text: e.Message, IsError: true, Step: core.Step{Done: true, Err: e}}
	}
	return Outcome{Text: text, Step: steps[0]}
}

// run drives op on the handler's driver, telling progress about every
// retry wait.
func (h *handler) run(ctx context.Context, op core.Operation, progress httpdriver.Progress) core.Step {
	return h.driver.Run(ctx, op, progress)
}

// progress returns what reports a retry wait to the client, or nil when the
// client gave no progress token. Progress counts attempts made; the total is
// the most a call may make.
func (h *handler) progress(ctx context.Context, req *sdk.CallToolRequest) httpdriver.Progress {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	name := map[string]string{SearchTool: "DeepSeek Search", FetchTool: "DeepSeek Fetch"}[req.Params.Name]
	total := h.cfg.MaxRetries + 1
	return func(next *core.Request, prev core.Reply) {
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      float64(next.Attempt - 1),
			Total:         float64(total),
			Message: fmt.Sprintf("%s: attempt %d of %d failed (%s); retrying in %.1f s",
				name, next.Attempt-1, total, outcome(prev), float64(next.DelayMs)/1000),
		})
	}
}

// outcome names how an attempt ended, without any body text (which could
// echo the key).
func outcome(r core.Reply) string {
	switch r.Kind {
	case core.ReplyResponse:
		return fmt.Sprintf("HTTP %d", r.Status)
	case core.ReplyTimeout:
		return "timed out"
	case core.ReplyTooLarge:
		return "response too large"
	}
	return "network error"
}

// cancelOn returns ctx cancelled also when stop closes.
func cancelOn(ctx context.Context, stop <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
