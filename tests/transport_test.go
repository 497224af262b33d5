package tests

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

const okSearch = `{"results":[{"url":"https://go.dev/","title":"Go","summary":"The Go language."}]}`

// SPEC §4: which statuses are retried, how long to wait, and when to stop.
func TestRetry(t *testing.T) {
	future := time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	tests := []struct {
		name       string
		first      handler
		opts       []any
		wantDelays [][2]int64 // inclusive range of each recorded delay
		wantCode   string     // "" for success
		wantMsg    string
	}{
		{name: "429 Retry-After seconds", first: reply(429, `{}`, "Retry-After", "2"),
			wantDelays: [][2]int64{{0, 0}, {2000, 2000}}},
		{name: "Retry-After above 10 s is capped", first: reply(429, `{}`, "Retry-After", "120"),
			wantDelays: [][2]int64{{0, 0}, {10000, 10000}}},
		{name: "Retry-After 0", first: reply(503, `{}`, "Retry-After", "0"),
			wantDelays: [][2]int64{{0, 0}, {0, 0}}},
		// The module reads WASI's realtime clock; HTTP-dates have whole
		// seconds, so 3 s ahead means 2–3 s minus the time spent so far.
		{name: "Retry-After HTTP-date", first: reply(429, `{}`, "Retry-After", future),
			wantDelays: [][2]int64{{0, 0}, {1000, 3000}}},
		{name: "Retry-After HTTP-date in the past", first: reply(429, `{}`, "Retry-After", past),
			wantDelays: [][2]int64{{0, 0}, {0, 0}}},
		{name: "invalid Retry-After falls back to backoff", first: reply(429, `{}`, "Retry-After", "soon"),
			wantDelays: [][2]int64{{0, 0}, {250, 750}}},
		// Backoff from 500 ms with jitter: 500·(0.5+r), r in [0, 1).
		{name: "503 then success", first: reply(503, `upstream down`),
			wantDelays: [][2]int64{{0, 0}, {250, 750}}},
		{name: "500", first: reply(500, `{}`), wantDelays: [][2]int64{{0, 0}, {250, 750}}},
		{name: "502", first: reply(502, `{}`), wantDelays: [][2]int64{{0, 0}, {250, 750}}},
		{name: "408", first: reply(408, `{}`), wantDelays: [][2]int64{{0, 0}, {250, 750}}},
		{name: "425", first: reply(425, `{}`), wantDelays: [][2]int64{{0, 0}, {250, 750}}},
		{name: "401 is not retried", first: reply(401, `{"error":{"message":"Authentication Fails"}}`),
			wantDelays: [][2]int64{{0, 0}}, wantCode: "api",
			wantMsg: "DeepSeek Search failed: HTTP 401: Authentication Fails (check the API key in DEEPSEEK_API_KEY)"},
		{name: "402 is not retried", first: reply(402, `{"error":{"message":"Insufficient Balance"}}`),
			wantDelays: [][2]int64{{0, 0}}, wantCode: "api",
			wantMsg: "DeepSeek Search failed: HTTP 402: Insufficient Balance"},
		{name: "422 is not retried", first: reply(422, `{"error":{"message":"Invalid query"}}`),
			wantDelays: [][2]int64{{0, 0}}, wantCode: "api",
			wantMsg: "DeepSeek Search failed: HTTP 422: Invalid query"},
		{name: "404 is not retried", first: reply(404, `not found`),
			wantDelays: [][2]int64{{0, 0}}, wantCode: "api", wantMsg: "DeepSeek Search failed: HTTP 404: not found"},
		{name: "maxRetries 0", first: reply(503, `{"error":{"message":"busy"}}`), opts: []any{"maxRetries", 0},
			wantDelays: [][2]int64{{0, 0}}, wantCode: "api", wantMsg: "DeepSeek Search failed: HTTP 503: busy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, sequence(tt.first, reply(200, okSearch)))
			steps := e.run(e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, e.opts(tt.opts...)))
			last := steps[len(steps)-1].Step
			if tt.wantCode == "" {
				res := result[searchJSON](t, last)
				require.Len(t, res.Results, 1)
			} else {
				err := failure(t, last, tt.wantCode, tt.wantMsg)
				require.NotZero(t, err.Status)
			}
			delays := e.b.Delays()
			require.Len(t, delays, len(tt.wantDelays), "delays %v", delays)
			require.Len(t, e.srv.requests(), len(tt.wantDelays))
			for i, d := range delays {
				require.GreaterOrEqual(t, d, tt.wantDelays[i][0], "delay %d of %v", i, delays)
				require.LessOrEqual(t, d, tt.wantDelays[i][1], "delay %d of %v", i, delays)
				require.Equal(t, i+1, steps[i].Request.Attempt)
			}
			// Retries repeat the first request exactly.
			reqs := e.srv.requests()
			for _, r := range reqs[1:] {
				require.Equal(t, string(reqs[0].Body), string(r.Body))
			}
		})
	}
}

func TestRetriesExhausted(t *testing.T) {
	for _, n := range []int{1, 3, 5} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			e := newEnv(t, reply(500, `{"error":{"message":"Service Unavailable"}}`))
			steps := e.run(e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, e.opts("maxRetries", n)))
			err := failure(t, steps[len(steps)-1].Step, "api", "")
			require.Equal(t, 500, err.Status)
			require.Equal(t, "DeepSeek Search failed: HTTP 500: Service Unavailable (gave up after "+strconv.Itoa(n+1)+" attempts)", err.Message)
			require.Len(t, e.srv.requests(), n+1)
			delays := e.b.Delays()
			require.Len(t, delays, n+1)
			require.Zero(t, delays[0])
			for i, d := range delays[1:] {
				// Attempt i+1 failed: 500·2^i·(0.5+r), capped at 10 s.
				lo, hi := int64(250)<<i, int64(750)<<i
				require.GreaterOrEqual(t, d, min(lo, 10000), "delays %v", delays)
				require.LessOrEqual(t, d, min(hi, 10000), "delays %v", delays)
			}
		})
	}
}

// A body that starts but never ends hits the attempt's timeout, which covers
// reading the body; a timeout is not retried.
func TestTimeoutSlowBody(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		w.Write([]byte(`{"results":[`))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	began := time.Now()
	steps := e.run(e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, e.opts("timeoutMs", 1000)))
	took := time.Since(began)
	failure(t, steps[len(steps)-1].Step, "timeout", "DeepSeek Search failed: timed out after 1000 ms")
	require.Equal(t, int64(1000), steps[0].Request.TimeoutMs)
	require.Len(t, e.srv.requests(), 1, "a timeout is not retried")
	require.GreaterOrEqual(t, took, 900*time.Millisecond)
	require.Less(t, took, 5*time.Second)
}

func TestTimeoutMsRange(t *testing.T) {
	e := newEnv(t, reply(200, okSearch))
	for _, v := range []int{999, 120001} {
		steps := e.run(e.start(abi.KindSearch, abi.SearchInput{Query: "q"}, e.opts("timeoutMs", v)))
		failure(t, steps[0].Step, "invalid_input",
			`deepseek-web-retrieval: option "timeoutMs": want a whole number from 1000 to 120000, got `+strconv.Itoa(v))
	}
	steps := e.run(e.start(abi.KindSearch, abi.SearchInput{Query: "q"}, e.opts("timeoutMs", 120000)))
	require.Equal(t, int64(120000), steps[0].Request.TimeoutMs)
	// Another query: the same one would be answered from the cache.
	steps = e.run(e.start(abi.KindSearch, abi.SearchInput{Query: "q2"}, nil))
	require.Equal(t, int64(30000), steps[0].Request.TimeoutMs, "default")
	require.Equal(t, int64(5<<20), steps[0].Request.MaxBytes)
	require.Equal(t, "manual", steps[0].Request.Redirect)
}

// bigSearch is a valid search response of exactly n bytes.
func bigSearch(n int) string {
	const head, tail = `{"results":[],"pad":"`, `"}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

func TestResponseSizeCap(t *testing.T) {
	const limit = 5 << 20
	t.Run("5 MiB + 1 is too large", func(t *testing.T) {
		e := newEnv(t, reply(200, bigSearch(limit+1)))
		steps := e.run(e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil))
		failure(t, steps[len(steps)-1].Step, "too_large",
			"DeepSeek Search failed: the response is larger than 5 MiB (5242880 bytes) and was not read")
		require.Len(t, e.srv.requests(), 1, "too_large is not retried")
	})
	t.Run("exactly 5 MiB is read", func(t *testing.T) {
		e := newEnv(t, reply(200, bigSearch(limit)))
		res := result[searchJSON](t, e.search("golang", nil))
		require.Empty(t, res.Results)
	})
	t.Run("a host that ignores the cap", func(t *testing.T) {
		// The module checks the length itself when a host hands it more.
		e := newEnv(t, reply(200, okSearch))
		r, err := e.m.Start(e.ctx, e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil))
		require.NoError(t, err)
		r, err = e.m.Resume(e.ctx, r.Handle, abi.Reply{Kind: "response", Status: 200}, []byte(bigSearch(limit+1)))
		require.NoError(t, err)
		failure(t, r.Step, "too_large", "")
	})
}

func TestRedirectNotFollowed(t *testing.T) {
	elsewhere := newMock(t, reply(200, okSearch))
	e := newEnv(t, reply(302, ``, "Location", elsewhere.URL+"/v1/tools/search"))
	steps := e.run(e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil))
	err := failure(t, steps[len(steps)-1].Step, "redirect",
		"DeepSeek Search failed: HTTP 302: DeepSeek answered with a redirect, which is never followed")
	require.Equal(t, 302, err.Status)
	require.Len(t, e.srv.requests(), 1)
	require.Empty(t, elsewhere.requests(), "the redirect target must not be contacted")
}

// A body that cannot be used is described in words a user can act on,
// quoting its first bytes, never a JSON parser's internals.
func TestMalformedResponse(t *testing.T) {
	check := `; check that baseURL "%s" is DeepSeek's API`
	tests := []struct{ name, kind, body, want string }{
		{"HTML", abi.KindSearch, `<html><body>Bad gateway</body></html>`, `DeepSeek Search failed: DeepSeek returned a response that is not JSON (first bytes: <html><body>Bad gateway</body></html>)` + check},
		{"truncated JSON", abi.KindSearch, `{"results":[{"url":"https://go.dev/","title":"G`, `DeepSeek Search failed: DeepSeek returned JSON that breaks off after 47 bytes (the response was cut short; try again) (first bytes: {"results":[{"url":"https://go.dev/","title":"G)`},
		{"results not a list", abi.KindSearch, `{"results":{"url":"https://go.dev/"}}`, `DeepSeek Search failed: DeepSeek returned "results" that is not a list (first bytes: {"results":{"url":"https://go.dev/"}})`},
		{"a JSON array", abi.KindSearch, `[1,2,3]`, `DeepSeek Search failed: DeepSeek returned JSON that is not an object (first bytes: [1,2,3])`},
		{"empty body", abi.KindSearch, ``, `DeepSeek Search failed: DeepSeek returned an empty response`},
		{"fetch HTML", abi.KindFetch, `<!doctype html>`, `DeepSeek Fetch failed: DeepSeek returned a response that is not JSON (first bytes: <!doctype html>)` + check},
		{"fetch truncated", abi.KindFetch, `{"title":"T","content":"abc`, `DeepSeek Fetch failed: DeepSeek returned JSON that breaks off after 27 bytes (the response was cut short; try again) (first bytes: {"title":"T","content":"abc)`},
		{"parser internals never shown", abi.KindSearch, `{"results":[nope]}`, `DeepSeek Search failed: DeepSeek returned invalid JSON (at byte 14 of 18) (first bytes: {"results":[nope]})`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, reply(200, tt.body))
			var input any = abi.SearchInput{Query: "golang"}
			if tt.kind == abi.KindFetch {
				input = abi.FetchInput{URL: "https://example.com/"}
			}
			steps := e.run(e.start(tt.kind, input, nil))
			want := tt.want
			if strings.HasSuffix(want, check) {
				want = strings.TrimSuffix(want, check) + fmt.Sprintf(check, e.srv.URL)
			}
			failure(t, steps[len(steps)-1].Step, "malformed", want)
			require.Len(t, e.srv.requests(), 1, "malformed bodies are not retried")
		})
	}
}

func TestNetworkError(t *testing.T) {
	e := newEnv(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	steps := e.run(e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil))
	err := failure(t, steps[len(steps)-1].Step, "network", "")
	require.True(t, strings.HasPrefix(err.Message, "DeepSeek Search failed: network error"), err.Message)
	require.Len(t, e.srv.requests(), 1, "network errors are not retried")
}

// The host cancels while the bridge's request is in flight: the module
// reports "cancelled" and forgets the operation, and the request stops.
func TestCancelInFlight(t *testing.T) {
	arrived, gone := make(chan struct{}), make(chan struct{})
	e := newEnv(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		close(arrived)
		select {
		case <-r.Context().Done():
			close(gone)
		case <-time.After(10 * time.Second):
		}
	})
	r, err := e.m.Start(e.ctx, e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil))
	require.NoError(t, err)
	require.Equal(t, abi.StepHTTP, r.Step.Step)
	n, _ := e.m.InFlight(e.ctx)
	require.Equal(t, uint32(1), n)

	ctx, cancel := context.WithCancel(e.ctx)
	replied := make(chan abi.Reply, 1)
	go func() {
		rep, _ := e.b.Do(ctx, r.Request)
		replied <- rep
	}()
	<-arrived
	c, err := e.m.Cancel(e.ctx, r.Handle)
	require.NoError(t, err)
	cancel()
	failure(t, c.Step, "cancelled", "DeepSeek Search cancelled")
	require.Equal(t, r.Handle, c.Handle)
	n, _ = e.m.InFlight(e.ctx)
	require.Zero(t, n)

	select {
	case rep := <-replied:
		require.Equal(t, "cancelled", rep.Kind)
	case <-time.After(5 * time.Second):
		t.Fatal("the bridge did not stop its request")
	}
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not see the request go away")
	}

	// A late resume for the cancelled handle is answered, not trapped.
	late, err := e.m.Resume(e.ctx, r.Handle, abi.Reply{Kind: "cancelled"}, nil)
	require.NoError(t, err)
	failure(t, late.Step, "internal", "")
	// The instance still works.
	e2 := newEnv(t, reply(200, okSearch))
	e2.m = e.m
	result[searchJSON](t, e2.search("golang", nil))
}

// A cancel while waiting out a retry delay ends the operation without
// another request.
func TestCancelDuringRetryDelay(t *testing.T) {
	e := newEnv(t, reply(429, `{}`, "Retry-After", "5"))
	r, err := e.m.Start(e.ctx, e.start(abi.KindFetch, abi.FetchInput{URL: "https://example.com/"}, nil))
	require.NoError(t, err)
	rep, body := e.b.Do(e.ctx, r.Request)
	r, err = e.m.Resume(e.ctx, r.Handle, rep, body)
	require.NoError(t, err)
	require.Equal(t, abi.StepHTTP, r.Step.Step)
	require.Equal(t, int64(5000), r.Request.DelayMs)
	c, err := e.m.Cancel(e.ctx, r.Handle)
	require.NoError(t, err)
	failure(t, c.Step, "cancelled", "DeepSeek Fetch cancelled")
	n, _ := e.m.InFlight(e.ctx)
	require.Zero(t, n)
	require.Len(t, e.srv.requests(), 1)
}

// A host that reports the cancel through resume gets the same answer.
func TestCancelledReply(t *testing.T) {
	e := newEnv(t, reply(200, okSearch))
	r, err := e.m.Start(e.ctx, e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil))
	require.NoError(t, err)
	r, err = e.m.Resume(e.ctx, r.Handle, abi.Reply{Kind: "cancelled"}, nil)
	require.NoError(t, err)
	failure(t, r.Step, "cancelled", "DeepSeek Search cancelled")
	n, _ := e.m.InFlight(e.ctx)
	require.Zero(t, n)
}

// SPEC §4: no message, log line or metadata contains the key; anything a
// server echoes that equals the key is masked. (Every run also checks every
// step for the key; see env.run.)
func TestKeyMasked(t *testing.T) {
	t.Run("error message", func(t *testing.T) {
		e := newEnv(t, reply(401, `{"error":{"message":"Invalid key `+testKey+`"}}`))
		steps := e.run(e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil))
		err := failure(t, steps[len(steps)-1].Step, "api", "")
		require.Contains(t, err.Message, "Invalid key [redacted]")
	})
	t.Run("search result", func(t *testing.T) {
		e := newEnv(t, reply(200, `{"results":[{"url":"https://go.dev/?k=`+testKey+`","title":"T `+testKey+`","summary":"S `+testKey+`","site_name":"`+testKey+`"}]}`))
		res := result[searchJSON](t, e.search("golang", nil))
		require.NotContains(t, res.Text, testKey)
		require.Contains(t, res.Results[0].Title, "[redacted]")
	})
	t.Run("fetched page", func(t *testing.T) {
		e := newEnv(t, reply(200, fetchJSON(t, "Key "+testKey, "Body "+testKey)))
		res := result[core.FetchResult](t, e.fetch("https://example.com/", nil))
		require.Equal(t, "# Key [redacted]\n\nBody [redacted]", res.Text)
		require.Equal(t, len([]rune(res.Text)), res.Chars)
	})
	t.Run("network message", func(t *testing.T) {
		e := newEnv(t, reply(200, okSearch))
		r, err := e.m.Start(e.ctx, e.start(abi.KindSearch, abi.SearchInput{Query: "golang"}, nil))
		require.NoError(t, err)
		r, err = e.m.Resume(e.ctx, r.Handle, abi.Reply{Kind: "network", Message: "dial failed for " + testKey}, nil)
		require.NoError(t, err)
		err2 := failure(t, r.Step, "network", "")
		require.NotContains(t, string(r.Raw), testKey)
		require.Contains(t, err2.Message, "[redacted]")
	})
	t.Run("fetch URL carrying the key", func(t *testing.T) {
		e := newEnv(t, reply(200, fetchJSON(t, "T", "c")))
		steps := e.run(e.start(abi.KindFetch, abi.FetchInput{URL: "https://example.com/?key=" + testKey}, nil))
		require.Len(t, steps, 1)
		failure(t, steps[0].Step, "invalid_input", "DeepSeek Fetch: the URL contains the API key; it was not sent")
		require.Empty(t, e.srv.requests())
	})
}
