package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
)

// protocolVersions are the MCP versions the gateway serves over HTTP.
var protocolVersions = []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// newProtocol is the first version whose calls carry their own _meta
// (SEP-2575) and standard headers.
const newProtocol = "2026-07-28"

// rpc is one raw JSON-RPC POST to /mcp, as a host sends it.
type rpc struct {
	token, version string
	// id is the id as written in the body (`1`, `"a"`).
	id     string
	method string
	// tool and args make a tools/call; body, when set, is sent as is.
	tool string
	args map[string]any
	body string
}

// request builds the HTTP request of c to base (the server's URL).
func (c rpc) request(ctx context.Context, t *testing.T, base string) *http.Request {
	t.Helper()
	if c.version == "" {
		c.version = "2025-06-18"
	}
	if c.method == "" {
		c.method = "tools/call"
	}
	body := c.body
	if body == "" {
		params := map[string]any{}
		if c.tool != "" {
			params["name"], params["arguments"] = c.tool, c.args
		}
		if c.version >= newProtocol {
			params["_meta"] = map[string]any{
				"io.modelcontextprotocol/protocolVersion":    c.version,
				"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "1"},
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			}
		}
		p, err := json.Marshal(params)
		require.NoError(t, err)
		body = `{"jsonrpc":"2.0","id":` + c.id + `,"method":"` + c.method + `","params":` + string(p) + `}`
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", c.version)
	if c.version >= newProtocol {
		req.Header.Set("Mcp-Method", c.method)
		if c.tool != "" {
			req.Header.Set("Mcp-Name", c.tool)
		}
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req
}

// do sends c and returns the status and the JSON-RPC message answering
// it (the data of the first SSE event, or the JSON body).
func (c rpc) do(t *testing.T, base string) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(c.request(context.Background(), t, base))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return resp.StatusCode, data
		}
	}
	return resp.StatusCode, string(bytes.TrimSpace(b))
}

// toolText is the text and isError of a tools/call answer.
func toolText(t *testing.T, msg string) (string, bool) {
	t.Helper()
	var m struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	require.NoError(t, json.Unmarshal([]byte(msg), &m), msg)
	require.Len(t, m.Result.Content, 1, msg)
	return m.Result.Content[0].Text, m.Result.IsError
}

// auditLines are r's audit lines so far, decoded.
func (r *replica) auditLines(t *testing.T) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(r.audit.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		lines = append(lines, m)
	}
	return lines
}

// A client that disconnects mid-call cancels it, whatever protocol version
// it speaks: DeepSeek's request is cancelled, the audit line says
// "cancelled" and not billed, and the member's only in-flight slot is free
// for the next call. (Before, the call ran on to its end, holding the slot.)
func TestGatewayDisconnectCancelsTheCall(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			d := deepseektest.New(t, gwKey)
			cancelled, release := make(chan struct{}), make(chan struct{})
			t.Cleanup(func() { close(release) }) // before d closes
			var held atomic.Bool
			d.Fetch = func(w http.ResponseWriter, r *http.Request) {
				if held.CompareAndSwap(false, true) {
					select {
					case <-r.Context().Done():
						close(cancelled)
					case <-release:
					}
					return
				}
				deepseektest.WriteJSON(w, 200, fetchAnswer)
			}
			tokens, _, toks := newTokens(t, "alice")
			r := startReplica(t, d, tokens, nil, func(o *gateway.ServerOptions) { o.Limits.InFlight = 1 })

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			call := rpc{token: toks["alice"], version: version, id: "1", tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/slow"}}
			done := make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := http.DefaultClient.Do(call.request(ctx, t, r.srv.URL)); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			select {
			case <-d.Arrived:
			case <-time.After(10 * time.Second):
				require.FailNow(t, "the call did not reach DeepSeek")
			}
			cancel() // the client goes away
			<-done
			select {
			case <-cancelled:
			case <-time.After(10 * time.Second):
				require.FailNow(t, "DeepSeek's request was not cancelled when the client went away")
			}
			require.Eventually(t, func() bool { return len(r.auditLines(t)) == 1 }, 10*time.Second, 10*time.Millisecond)
			line := r.auditLines(t)[0]
			require.Equal(t, "cancelled", line["outcome"], line)
			require.Equal(t, false, line["billed"], line)

			next := rpc{token: toks["alice"], version: version, id: "2", tool: "deepseek_fetch", args: map[string]any{"url": "https://go.dev/next"}}
			require.Eventually(t, func() bool {
				_, msg := next.do(t, r.srv.URL)
				text, isErr := toolText(t, msg)
				return !isErr && strings.Contains(text, "Effective Go is a guide.")
			}, 10*time.Second, 50*time.Millisecond, "the member's in-flight slot was not freed")
		})
	}
}

// bigCall is a deepseek_search call of exactly size bytes, its query made
// of "a"s (refused before any request: too long).
func bigCall(id, size int) string {
	head := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"deepseek_search","arguments":{"query":"`
	const tail = `"}}}`
	return head + strings.Repeat("a", size-len(head)-len(tail)) + tail
}

// answer is an HTTP answer to one of several requests.
type answer struct {
	i      int
	status int
	msg    string
	err    error
}

// slowPost is a POST whose body is sent but for its last byte until
// finish is called: the server holds it while it reads.
type slowPost struct {
	pw   *io.PipeWriter
	body string
}

// startSlowPost starts POSTing body to base as token; its answer goes to
// answers with index i.
func startSlowPost(t *testing.T, base, token, body string, i int, answers chan<- answer) *slowPost {
	t.Helper()
	pr, pw := io.Pipe()
	req := rpc{token: token}.request(context.Background(), t, base)
	req.Body, req.ContentLength, req.GetBody = pr, int64(len(body)), nil
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answers <- answer{i: i, err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		msg := strings.TrimSpace(string(b))
		for _, line := range strings.Split(msg, "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				msg = data
			}
		}
		answers <- answer{i: i, status: resp.StatusCode, msg: msg}
	}()
	// Whatever happened, the server is not left reading at the end.
	t.Cleanup(func() { pw.CloseWithError(errors.New("the test is over")) })
	p := &slowPost{pw: pw, body: body}
	go func() { _, _ = io.WriteString(pw, body[:len(body)-1]) }()
	return p
}

// finish sends the last byte (the server may have refused the body
// unread: the write then fails, as it should).
func (p *slowPost) finish() {
	go func() {
		_, _ = io.WriteString(p.pw, p.body[len(p.body)-1:])
		p.pw.Close()
	}()
}

// next returns the next answer, failing after 10 s without one.
func next(t *testing.T, answers <-chan answer) answer {
	t.Helper()
	select {
	case a := <-answers:
		require.NoError(t, a.err)
		return a
	case <-time.After(10 * time.Second):
		require.FailNow(t, "no answer within 10 s")
		return answer{}
	}
}

// A member's in-flight slot is taken before their request's body is read:
// with --in-flight 2, six 300 KB POSTs whose bodies are still arriving get
// two read and four HTTP 429s with the "busy" sentence, unread. (Before,
// the SDK read and parsed all six before any limit applied.)
func TestGatewayAdmitsBeforeReading(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	tokens, _, toks := newTokens(t, "alice")
	r := startReplica(t, d, tokens, nil, func(o *gateway.ServerOptions) { o.Limits.InFlight = 2 })
	answers := make(chan answer, 6)
	var posts []*slowPost
	for i := range 6 {
		posts = append(posts, startSlowPost(t, r.srv.URL, toks["alice"], bigCall(i, 300_000), i, answers))
	}
	for range 4 {
		a := next(t, answers)
		require.Equal(t, http.StatusTooManyRequests, a.status)
		require.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"busy: alice already has 2 calls in flight, the most allowed; retry when one of them finishes"}}`, a.msg)
	}
	require.Eventually(t, func() bool {
		held, _, _ := r.gw.BodyGate()
		return held == 600_000
	}, 10*time.Second, 10*time.Millisecond, "the two admitted bodies are held")
	for _, p := range posts {
		p.finish()
	}
	for range 2 {
		a := next(t, answers)
		require.Equal(t, http.StatusOK, a.status, a.msg)
		text, isErr := toolText(t, a.msg)
		require.True(t, isErr)
		require.Contains(t, text, "DeepSeek Search: the query is")
	}
	held, peak, _ := r.gw.BodyGate()
	require.Equal(t, int64(0), held)
	require.Equal(t, int64(600_000), peak)
	require.Empty(t, d.Requests())
}

// Room for bodies is shared by every member: with a budget of 1 MiB, six
// members' 300 KB bodies are held three at a time (the others wait their
// turn, unread); the most held at once stays within the budget; a request
// that finds no room within the wait gets HTTP 503 with a "busy" sentence.
func TestGatewayBodyBudget(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	names := []string{"m0", "m1", "m2", "m3", "m4", "m5"}
	tokens, _, toks := newTokens(t, names...)
	r := startReplica(t, d, tokens, nil, func(o *gateway.ServerOptions) { o.BodyBudget = 1 << 20 })
	answers := make(chan answer, len(names))
	var posts []*slowPost
	for i, name := range names {
		posts = append(posts, startSlowPost(t, r.srv.URL, toks[name], bigCall(i, 300_000), i, answers))
	}
	held, _, waiting := r.gw.BodyGate()
	for deadline := time.Now().Add(10 * time.Second); (held != 900_000 || waiting != 3) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		held, _, waiting = r.gw.BodyGate()
	}
	require.Equal(t, []int64{900_000, 3}, []int64{held, int64(waiting)}, "bytes held and requests waiting: three bodies of 300 KB fit in 1 MiB")
	_, peak, _ := r.gw.BodyGate()
	require.Equal(t, int64(900_000), peak)
	for _, p := range posts {
		p.finish()
	}
	for range names {
		a := next(t, answers)
		require.Equal(t, http.StatusOK, a.status, a.msg)
		text, isErr := toolText(t, a.msg)
		require.True(t, isErr)
		require.Contains(t, text, "DeepSeek Search: the query is")
	}
	held, peak, _ = r.gw.BodyGate()
	require.Equal(t, int64(0), held)
	require.LessOrEqual(t, peak, int64(1<<20))

	// No room within the wait: 503.
	defer gateway.SetBodyWait(100 * time.Millisecond)()
	posts = posts[:0]
	for i, name := range names[:4] {
		posts = append(posts, startSlowPost(t, r.srv.URL, toks[name], bigCall(i, 300_000), i, answers))
	}
	a := next(t, answers)
	require.Equal(t, http.StatusServiceUnavailable, a.status)
	require.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"busy: the gateway is at its limit of 1 MiB of requests at once; retry in a few seconds"}}`, a.msg)
	for _, p := range posts {
		p.finish()
	}
	for range 3 {
		require.Equal(t, http.StatusOK, next(t, answers).status)
	}
	_, peak, _ = r.gw.BodyGate()
	require.LessOrEqual(t, peak, int64(1<<20))
}

// Ids are answered as sent over HTTP too: an id the SDK would read as
// another number (it reads numbers as float64) is refused with the stdio
// server's error, its id echoed byte for byte; the others are answered
// under exactly their id. (Before, 1.5 came back as 1,
// 18446744073709551615 as a negative number, 9007199254740993 as
// ...992.)
func TestGatewayIDsEchoedExactly(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	tokens, _, toks := newTokens(t, "alice")
	r := startReplica(t, d, tokens, nil, nil)
	refused := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"invalid request: the id ` + id +
			` is not a whole number from -9007199254740991 to 9007199254740991 written without a fraction or exponent; use such a number or a string"}}`
	}
	for _, tc := range []struct {
		id, method string
		status     int
		want       string
	}{
		{`1.5`, "ping", 400, refused(`1.5`)},
		{`18446744073709551615`, "ping", 400, refused(`18446744073709551615`)},
		{`9007199254740993`, "ping", 400, refused(`9007199254740993`)},
		{`1e3`, "ping", 400, refused(`1e3`)},
		{`-0`, "ping", 400, refused(`-0`)},
		{`9007199254740993`, "tools/call", 400, refused(`9007199254740993`)},
		{`1`, "ping", 200, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{`-7`, "ping", 200, `{"jsonrpc":"2.0","id":-7,"result":{}}`},
		{`9007199254740991`, "ping", 200, `{"jsonrpc":"2.0","id":9007199254740991,"result":{}}`},
		{`"a"`, "ping", 200, `{"jsonrpc":"2.0","id":"a","result":{}}`},
		{`"1.5"`, "ping", 200, `{"jsonrpc":"2.0","id":"1.5","result":{}}`},
	} {
		c := rpc{token: toks["alice"], id: tc.id, method: tc.method}
		if tc.method == "tools/call" {
			c.tool, c.args = "deepseek_fetch", map[string]any{"url": "https://go.dev/"}
		}
		status, msg := c.do(t, r.srv.URL)
		require.Equal(t, tc.status, status, "id %s: %s", tc.id, msg)
		require.Equal(t, tc.want, msg, "id %s", tc.id)
	}
	require.Empty(t, d.Requests(), "a refused call reaches no one")
}

// rateCounter counts the team rate slots taken from a store.
type rateCounter struct {
	gateway.Store
	taken atomic.Int32
}

func (c *rateCounter) TakeRate(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	c.taken.Add(1)
	return c.Store.TakeRate(ctx, key, limit, window)
}

// A call refused before any request (a private URL, a query too long)
// takes no team rate slot and costs a short audit line; a valid call
// after five refused ones is answered, not "busy". (Before, each refused
// call took a slot first, so with 1 Fetch a second the valid one was
// refused, and the 300 KB query made a 300 KB audit line.)
func TestGatewayRefusedCallsCostLittle(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	d.Fetch = deepseektest.Answer(200, fetchAnswer)
	store := &rateCounter{Store: gateway.NewMemStore(gateway.MemStoreOptions{})}
	tokens, _, toks := newTokens(t, "alice", "bob")
	r := startReplica(t, d, tokens, store, func(o *gateway.ServerOptions) {
		o.Limits = gateway.Limits{SearchPerSecond: 1, FetchPerSecond: 1, MaxWait: -1}
	})
	alice := r.session(t, toks["alice"])
	for _, tc := range []struct {
		tool string
		args map[string]any
		text string
	}{
		{"deepseek_fetch", map[string]any{"url": "http://10.0.0.1/admin"}, `DeepSeek Fetch: url refused: host "10.0.0.1" is a private-network (RFC 1918) address 10.0.0.1`},
		{"deepseek_fetch", map[string]any{"url": "http://127.0.0.1/"}, `DeepSeek Fetch: url refused: host "127.0.0.1" is the loopback address 127.0.0.1`},
		{"deepseek_fetch", map[string]any{"url": "http://169.254.169.254/latest/meta-data/"}, `DeepSeek Fetch: url refused: host "169.254.169.254" is the link-local cloud metadata address`},
		{"deepseek_fetch", map[string]any{"url": "http://10.0.0.1/" + strings.Repeat("x", 300_000)}, "DeepSeek Fetch: url refused: the URL is 300,016 characters long (the limit is 8,192)"},
		{"deepseek_search", map[string]any{"query": strings.Repeat("a", 300_000)}, "DeepSeek Search: the query is 300000 characters long; DeepSeek accepts at most 128."},
	} {
		text, isErr := callText(t, alice, tc.tool, tc.args)
		require.True(t, isErr, text)
		require.Contains(t, text, tc.text)
	}
	require.Empty(t, d.Requests())
	require.Equal(t, int32(0), store.taken.Load(), "rate slots taken by calls that sent no request")
	lines := strings.Split(strings.TrimSpace(r.audit.String()), "\n")
	require.Len(t, lines, 5)
	for _, l := range lines {
		require.Less(t, len(l), 4<<10, "%.200s", l)
		require.True(t, json.Valid([]byte(l)))
	}
	require.Contains(t, lines[3], `… (300016 bytes, truncated)"`)
	require.Contains(t, lines[4], `… (300000 bytes, truncated)"`)

	text, isErr := callText(t, r.session(t, toks["bob"]), "deepseek_fetch", map[string]any{"url": "https://go.dev/doc/effective_go"})
	require.False(t, isErr, text)
	require.Contains(t, text, "Effective Go is a guide.")
	require.Equal(t, int32(1), store.taken.Load())
}

// Refused requests are logged at a bounded pace: of 100 bad tokens, five
// lines, then one line with the count of the rest when the interval ends
// (or the server closes). (Before, 100 lines, one per 401.)
func TestGatewayRefusalLogsAreBounded(t *testing.T) {
	d := deepseektest.New(t, gwKey)
	tokens, _, _ := newTokens(t, "alice")
	var logs logBuf
	r := startReplica(t, d, tokens, nil, func(o *gateway.ServerOptions) { o.Logf = logs.Logf })
	r.gw.SetRefusalLogEvery(time.Hour)
	count := func(s string) int { return strings.Count(logs.String(), s) }
	for range 100 {
		code, _ := post(t, r.srv.URL, map[string]string{"Authorization": "Bearer " + gateway.NewToken()})
		require.Equal(t, http.StatusUnauthorized, code)
	}
	require.Equal(t, 5, count("gateway: 401 for "), logs.String())
	r.gw.EndRefusalInterval()
	require.Eventually(t, func() bool {
		return count("gateway: 95 more refused requests were not logged (at most 5 lines every 1h0m0s)") == 1
	}, 10*time.Second, 10*time.Millisecond, logs.String())

	// The next interval logs five again; what is left is reported at close.
	for range 8 {
		code, _ := post(t, r.srv.URL, nil)
		require.Equal(t, http.StatusUnauthorized, code)
	}
	require.Equal(t, 10, count("gateway: 401 for "))
	r.gw.Close()
	require.Equal(t, 1, count("gateway: 3 more refused requests were not logged"), logs.String())
	require.NotContains(t, logs.String(), "dwr_")
}
