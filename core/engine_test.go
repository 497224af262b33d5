package core_test

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

var wantHeaders = []core.HeaderField{
	{"Authorization", "Bearer " + testKey},
	{"Content-Type", "application/json"},
	{"Accept", "application/json"},
	{"User-Agent", "deepseek-web-retrieval/" + core.Version},
}

func TestSearchRequestFields(t *testing.T) {
	e := core.NewEngine(testEnv())
	s := e.Start(core.Operation{Kind: core.KindSearch, Query: "  go generics ", APIKey: " " + testKey + "\n"})
	require.False(t, s.Done)
	require.NotZero(t, s.Handle)
	require.Nil(t, s.Result)
	require.Nil(t, s.Err)
	require.Equal(t, &core.Request{
		DelayMs:         0,
		Method:          "POST",
		URL:             "https://api.deepseek.com/v1/tools/search",
		Header:          wantHeaders,
		Body:            []byte(`{"query":"go generics","count":10,"need_content":false}`),
		TimeoutMs:       30000,
		MaxBytes:        5242880,
		FollowRedirects: false,
		Attempt:         1,
	}, s.Request)
	require.Equal(t, 1, e.InFlight())
	require.True(t, strings.HasPrefix(core.UserAgent, "deepseek-web-retrieval/"))
}

func TestRequestUsesConfig(t *testing.T) {
	cfg := mustConfig(t, core.Options{BaseURL: "http://127.0.0.1:8080/prefix/", TimeoutMs: 5000, MaxResults: 3})
	e := core.NewEngine(testEnv())
	s := e.Start(core.Operation{Kind: core.KindSearch, Query: "q", Config: cfg, APIKey: testKey})
	require.Equal(t, "http://127.0.0.1:8080/prefix/v1/tools/search", s.Request.URL)
	require.Equal(t, int64(5000), s.Request.TimeoutMs)
	require.Equal(t, `{"query":"q","count":3,"need_content":false}`, string(s.Request.Body))
	s = e.Start(core.Operation{Kind: core.KindFetch, URL: "https://go.dev/", Config: cfg, APIKey: testKey})
	require.Equal(t, "http://127.0.0.1:8080/prefix/v1/tools/fetch", s.Request.URL)
	require.Equal(t, wantHeaders, s.Request.Header)
	require.Equal(t, `{"url":"https://go.dev/"}`, string(s.Request.Body))
}

func TestSearchBodyOptionalFields(t *testing.T) {
	tests := []struct {
		name string
		ori  string
		opts core.Options
		want string
	}{
		{"ori_question trimmed", "  what is new in Go?\n", core.Options{}, `{"query":"q","count":10,"need_content":false,"ori_question":"what is new in Go?"}`},
		{"ori_question blank omitted", " \t\n", core.Options{}, `{"query":"q","count":10,"need_content":false}`},
		{"ori_question clamped to 128 code points", strings.Repeat("问", 200), core.Options{},
			`{"query":"q","count":10,"need_content":false,"ori_question":"` + strings.Repeat("问", 128) + `"}`},
		{"ori_question containing the key omitted", "my key is " + testKey, core.Options{}, `{"query":"q","count":10,"need_content":false}`},
		{"localization IPv4", "", core.Options{Localization: "203.0.113.7"}, `{"query":"q","count":10,"need_content":false,"localization":"203.0.113.7"}`},
		{"localization IPv6", "", core.Options{Localization: "2001:db8::1"}, `{"query":"q","count":10,"need_content":false,"localization":"2001:db8::1"}`},
		{"invalid localization dropped", "", core.Options{Localization: "Beijing"}, `{"query":"q","count":10,"need_content":false}`},
		{"both", "why?", core.Options{Localization: "::1", MaxResults: 50}, `{"query":"q","count":50,"need_content":false,"ori_question":"why?","localization":"::1"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := core.NewConfig(tt.opts)
			require.NoError(t, err)
			s := core.NewEngine(testEnv()).Start(core.Operation{Kind: core.KindSearch, Query: "q", OriQuestion: tt.ori, Config: cfg, APIKey: testKey})
			require.False(t, s.Done)
			require.Equal(t, tt.want, string(s.Request.Body))
		})
	}
}

func TestRetryableStatuses(t *testing.T) {
	for _, status := range []int{408, 425, 429, 500, 502, 503, 504, 599} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			e := core.NewEngine(testEnv())
			s := e.Start(core.Operation{Kind: core.KindSearch, Query: "q", APIKey: testKey})
			first := *s.Request
			s = e.Resume(s.Handle, statusReply(status, `{"error":{"message":"busy"}}`))
			require.False(t, s.Done)
			require.Nil(t, s.Err)
			require.Nil(t, s.Result)
			require.NotNil(t, s.Request)
			require.Equal(t, 2, s.Request.Attempt)
			require.Equal(t, int64(500), s.Request.DelayMs)
			// Same request otherwise.
			next := *s.Request
			next.Attempt, next.DelayMs = 1, 0
			require.Equal(t, first, next)
			e.Cancel(s.Handle)
		})
	}
}

func TestNonRetryableStatuses(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   string
	}{
		{400, `{"error":{"message":"Invalid query"}}`, "DeepSeek Search failed: HTTP 400: Invalid query"},
		{401, `{"error":{"message":"Authentication Fails"}}`, "DeepSeek Search failed: HTTP 401: Authentication Fails (check the API key in DEEPSEEK_API_KEY)"},
		{401, ``, "DeepSeek Search failed: HTTP 401 (check the API key in DEEPSEEK_API_KEY)"},
		{402, `{"error":{"message":"Insufficient Balance"}}`, "DeepSeek Search failed: HTTP 402: Insufficient Balance"},
		{403, `{"error":"Forbidden"}`, "DeepSeek Search failed: HTTP 403: Forbidden"},
		{404, `{"message":"no such route"}`, "DeepSeek Search failed: HTTP 404: no such route"},
		{409, ``, "DeepSeek Search failed: HTTP 409"},
		{422, `{"error":{"message":"query too long"}}`, "DeepSeek Search failed: HTTP 422: query too long"},
		{499, "  client closed\n", "DeepSeek Search failed: HTTP 499: client closed"},
		{101, ``, "DeepSeek Search failed: HTTP 101"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			e := core.NewEngine(testEnv())
			s := e.Start(core.Operation{Kind: core.KindSearch, Query: "q", APIKey: testKey})
			s = e.Resume(s.Handle, statusReply(tt.status, tt.body, core.HeaderField{"Retry-After", "1"}))
			require.True(t, s.Done)
			require.Nil(t, s.Request)
			require.Nil(t, s.Result)
			require.EqualError(t, s.Err, tt.want)
			require.Equal(t, core.CodeAPI, s.Err.Code)
			require.Equal(t, tt.status, s.Err.Status)
			require.ErrorIs(t, s.Err, core.ErrAPI)
			require.Zero(t, e.InFlight())
		})
	}
}

func TestAPIKeyEnvNamedIn401(t *testing.T) {
	cfg := mustConfig(t, core.Options{APIKey: "{env:TEAM_DS_KEY}"})
	s := search(t, cfg, "q", statusReply(401, `{"error":{"message":"Authentication Fails"}}`))
	require.EqualError(t, s.Err, "DeepSeek Search failed: HTTP 401: Authentication Fails (check the API key in TEAM_DS_KEY)")
}

func TestRawBodyFallback(t *testing.T) {
	body := "<html>\n<body>" + strings.Repeat("错误 ", 200) + "</body></html>"
	s := search(t, nil, "q", statusReply(400, body))
	msg := strings.TrimPrefix(s.Err.Message, "DeepSeek Search failed: HTTP 400: ")
	require.NotEqual(t, s.Err.Message, msg)
	require.Equal(t, 300, len([]rune(msg)))
	require.True(t, strings.HasPrefix(msg, "<html> <body>错误 错误 "))
}

// drive answers every request with replies[i] in turn and returns the
// requests seen and the final step.
func drive(t *testing.T, e *core.Engine, op core.Operation, replies ...core.Reply) ([]core.Request, core.Step) {
	t.Helper()
	s := e.Start(op)
	var reqs []core.Request
	for i := 0; !s.Done; i++ {
		require.NotNil(t, s.Request)
		require.Less(t, i, len(replies), "more requests than scripted replies")
		reqs = append(reqs, *s.Request)
		s = e.Resume(s.Handle, replies[i])
	}
	require.Nil(t, s.Request)
	return reqs, s
}

func delays(reqs []core.Request) []int64 {
	out := make([]int64, len(reqs))
	for i, r := range reqs {
		out[i] = r.DelayMs
	}
	return out
}

func attempts(reqs []core.Request) []int {
	out := make([]int, len(reqs))
	for i, r := range reqs {
		out[i] = r.Attempt
	}
	return out
}

func TestRetriesGiveUp(t *testing.T) {
	busy := statusReply(503, `{"error":{"message":"Service Unavailable"}}`)
	tests := []struct {
		name       string
		maxRetries *int
		random     []float64
		wantDelays []int64
		wantErr    string
	}{
		{"default 2 retries", nil, []float64{0.5, 0.5}, []int64{0, 500, 1000},
			"DeepSeek Search failed: HTTP 503: Service Unavailable (gave up after 3 attempts)"},
		{"no retries", intPtr(0), nil, []int64{0},
			"DeepSeek Search failed: HTTP 503: Service Unavailable"},
		{"one retry", intPtr(1), []float64{0.5}, []int64{0, 500},
			"DeepSeek Search failed: HTTP 503: Service Unavailable (gave up after 2 attempts)"},
		{"five retries, plain series and cap", intPtr(5), []float64{0.5, 0.5, 0.5, 0.5, 0.5}, []int64{0, 500, 1000, 2000, 4000, 8000},
			"DeepSeek Search failed: HTTP 503: Service Unavailable (gave up after 6 attempts)"},
		{"jitter", intPtr(5), []float64{0, 0.999, 0.25, 0.75, 0.9}, []int64{0, 250, 1499, 1500, 5000, 10000},
			"DeepSeek Search failed: HTTP 503: Service Unavailable (gave up after 6 attempts)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rnd := tt.random
			env := core.Env{Now: func() int64 { return pinnedNow.UnixMilli() }, Random: func() float64 {
				require.NotEmpty(t, rnd, "Random called more often than expected")
				v := rnd[0]
				rnd = rnd[1:]
				return v
			}}
			e := core.NewEngine(env)
			replies := make([]core.Reply, 10)
			for i := range replies {
				replies[i] = busy
			}
			reqs, s := drive(t, e, core.Operation{Kind: core.KindSearch, Query: "q", APIKey: testKey,
				Config: mustConfig(t, core.Options{MaxRetries: tt.maxRetries})}, replies...)
			require.Equal(t, tt.wantDelays, delays(reqs))
			require.Equal(t, len(tt.wantDelays), len(reqs))
			for i, r := range reqs {
				require.Equal(t, i+1, r.Attempt)
			}
			require.EqualError(t, s.Err, tt.wantErr)
			require.Equal(t, 503, s.Err.Status)
			require.Empty(t, rnd, "Random not called for every backoff")
			require.Zero(t, e.InFlight())
		})
	}
}

func TestRetryThenSuccess(t *testing.T) {
	e := core.NewEngine(testEnv())
	reqs, s := drive(t, e, core.Operation{Kind: core.KindSearch, Query: "q", APIKey: testKey},
		statusReply(429, `{"error":{"message":"Rate limit"}}`, core.HeaderField{"retry-after", "2"}),
		statusReply(500, ``),
		okReply(resultsBody(t, item{URL: "https://go.dev/", Title: "Go"})),
	)
	require.Equal(t, []int64{0, 2000, 1000}, delays(reqs))
	require.Equal(t, []int{1, 2, 3}, attempts(reqs))
	require.Nil(t, s.Err)
	require.Equal(t, "Go", s.Result.Search.Hits[0].Title)
}

func TestRetryAfterHonoured(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  int64
	}{
		{"seconds", "3", 3000},
		{"zero", "0", 0},
		{"capped at 10 s", "120", 10000},
		{"http-date", "Tue, 04 Mar 2025 05:06:12 GMT", 5000},
		{"http-date capped", "Tue, 04 Mar 2025 06:00:00 GMT", 10000},
		{"http-date past", "Tue, 04 Mar 2025 05:00:00 GMT", 0},
		{"invalid falls back to backoff", "soon", 500},
		{"negative falls back to backoff", "-3", 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := core.NewEngine(testEnv())
			reqs, _ := drive(t, e, core.Operation{Kind: core.KindFetch, URL: "https://go.dev/", APIKey: testKey},
				statusReply(503, ``, core.HeaderField{"Retry-After", tt.value}), okReply(`{"content":"x"}`))
			require.Equal(t, []int64{0, tt.want}, delays(reqs))
		})
	}
}

func TestFailAtOnce(t *testing.T) {
	tests := []struct {
		name   string
		reply  core.Reply
		code   core.Code
		status int
		want   string
	}{
		{"timeout", core.Reply{Kind: core.ReplyTimeout}, core.CodeTimeout, 0, "DeepSeek Search failed: timed out after 30000 ms"},
		{"network", core.Reply{Kind: core.ReplyNetwork, Message: " dial tcp: connection\nrefused "}, core.CodeNetwork, 0, "DeepSeek Search failed: network error: dial tcp: connection refused"},
		{"network without message", core.Reply{Kind: core.ReplyNetwork}, core.CodeNetwork, 0, "DeepSeek Search failed: network error"},
		{"network long message", core.Reply{Kind: core.ReplyNetwork, Message: strings.Repeat("x", 500)}, core.CodeNetwork, 0, "DeepSeek Search failed: network error: " + strings.Repeat("x", 300)},
		{"too large", core.Reply{Kind: core.ReplyTooLarge}, core.CodeTooLarge, 0, "DeepSeek Search failed: the response is larger than 5 MiB (5242880 bytes) and was not read"},
		{"body over the cap", core.Reply{Kind: core.ReplyResponse, Status: 200, Body: make([]byte, core.MaxResponseBytes+1)}, core.CodeTooLarge, 0, "DeepSeek Search failed: the response is larger than 5 MiB (5242880 bytes) and was not read"},
		{"redirect 301", statusReply(301, ``, core.HeaderField{"Location", "https://evil.example/"}), core.CodeRedirect, 301, "DeepSeek Search failed: HTTP 301: DeepSeek answered with a redirect, which is never followed"},
		{"redirect 307", statusReply(307, ``), core.CodeRedirect, 307, "DeepSeek Search failed: HTTP 307: DeepSeek answered with a redirect, which is never followed"},
		{"status 0", statusReply(0, ``), core.CodeMalformed, 0, "DeepSeek Search failed: the response has an invalid HTTP status 0"},
		{"status 600", statusReply(600, ``), core.CodeMalformed, 0, "DeepSeek Search failed: the response has an invalid HTTP status 600"},
		{"malformed body", okReply(`not json`), core.CodeMalformed, 0, "DeepSeek Search failed: DeepSeek returned a response that is not JSON (first bytes: not json)"},
		{"cancelled reply", core.Reply{Kind: core.ReplyCancelled}, core.CodeCancelled, 0, "DeepSeek Search cancelled"},
		{"unknown reply kind", core.Reply{Kind: "weird"}, core.CodeInternal, 0, `deepseek-web-retrieval: the host reported an unknown reply kind "weird"`},
		{"zero reply", core.Reply{}, core.CodeInternal, 0, `deepseek-web-retrieval: the host reported an unknown reply kind ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := core.NewEngine(testEnv())
			cfg := mustConfig(t, core.Options{MaxRetries: intPtr(5)})
			s := e.Start(core.Operation{Kind: core.KindSearch, Query: "q", Config: cfg, APIKey: testKey})
			s = e.Resume(s.Handle, tt.reply)
			require.True(t, s.Done)
			require.Nil(t, s.Request)
			require.Nil(t, s.Result)
			require.EqualError(t, s.Err, tt.want)
			require.Equal(t, tt.code, s.Err.Code)
			require.Equal(t, tt.status, s.Err.Status)
			require.Zero(t, e.InFlight())
		})
	}
}

func TestTimeoutNamesConfiguredTimeout(t *testing.T) {
	s := fetch(t, mustConfig(t, core.Options{TimeoutMs: 1500}), "https://go.dev/", core.Reply{Kind: core.ReplyTimeout})
	require.EqualError(t, s.Err, "DeepSeek Fetch failed: timed out after 1500 ms")
	require.ErrorIs(t, s.Err, core.ErrTimeout)
}

func TestCancel(t *testing.T) {
	t.Run("in flight", func(t *testing.T) {
		e := core.NewEngine(testEnv())
		s := e.Start(core.Operation{Kind: core.KindFetch, URL: "https://go.dev/", APIKey: testKey})
		c := e.Cancel(s.Handle)
		require.Equal(t, core.Step{Handle: s.Handle, Done: true, Err: &core.Error{Code: core.CodeCancelled, Message: "DeepSeek Fetch cancelled"}}, c)
		require.ErrorIs(t, c.Err, core.ErrCancelled)
		require.False(t, errors.Is(c.Err, core.ErrAPI))
		require.Zero(t, e.InFlight())
		// A late reply for the cancelled handle is refused.
		r := e.Resume(s.Handle, okReply(`{"content":"x"}`))
		require.True(t, r.Done)
		require.Equal(t, core.CodeInternal, r.Err.Code)
		require.Equal(t, fmt.Sprintf("deepseek-web-retrieval: operation %d is not in flight", s.Handle), r.Err.Message)
	})
	t.Run("during retry wait", func(t *testing.T) {
		e := core.NewEngine(testEnv())
		s := e.Start(core.Operation{Kind: core.KindSearch, Query: "q", APIKey: testKey})
		s = e.Resume(s.Handle, statusReply(503, ``))
		require.Equal(t, int64(500), s.Request.DelayMs)
		c := e.Cancel(s.Handle)
		require.EqualError(t, c.Err, "DeepSeek Search cancelled")
		require.Zero(t, e.InFlight())
	})
	t.Run("reply cancelled on a retry", func(t *testing.T) {
		e := core.NewEngine(testEnv())
		_, s := drive(t, e, core.Operation{Kind: core.KindSearch, Query: "q", APIKey: testKey}, statusReply(429, ``), core.Reply{Kind: core.ReplyCancelled})
		require.EqualError(t, s.Err, "DeepSeek Search cancelled")
		require.ErrorIs(t, s.Err, core.ErrCancelled)
		require.Zero(t, e.InFlight())
	})
	t.Run("unknown or finished handle", func(t *testing.T) {
		e := core.NewEngine(testEnv())
		c := e.Cancel(42)
		require.Equal(t, core.Step{Handle: 42, Done: true, Err: &core.Error{Code: core.CodeCancelled, Message: "DeepSeek request cancelled"}}, c)
		_, s := drive(t, e, core.Operation{Kind: core.KindSearch, Query: "q", APIKey: testKey}, okReply(`{}`))
		require.Nil(t, s.Err)
		require.EqualError(t, e.Cancel(s.Handle).Err, "DeepSeek request cancelled")
	})
}

func TestUnknownHandle(t *testing.T) {
	e := core.NewEngine(core.Env{})
	for _, h := range []core.Handle{0, 1, 999} {
		s := e.Resume(h, okReply(`{}`))
		require.Equal(t, core.Step{Handle: h, Done: true, Err: &core.Error{Code: core.CodeInternal, Message: fmt.Sprintf("deepseek-web-retrieval: operation %d is not in flight", h)}}, s)
	}
}

func TestMissingKey(t *testing.T) {
	for _, key := range []string{"", "   ", "\n"} {
		e := core.NewEngine(testEnv())
		s := e.Start(core.Operation{Kind: core.KindSearch, Query: "q", APIKey: key})
		require.True(t, s.Done)
		require.Nil(t, s.Request)
		require.EqualError(t, s.Err, "DeepSeek API key not found: set the DEEPSEEK_API_KEY environment variable")
		require.ErrorIs(t, s.Err, core.ErrMissingKey)
		s = e.Start(core.Operation{Kind: core.KindFetch, URL: "https://go.dev/", APIKey: key, Config: mustConfig(t, core.Options{APIKey: "${MY_KEY}"})})
		require.EqualError(t, s.Err, "DeepSeek API key not found: set the MY_KEY environment variable")
		require.Zero(t, e.InFlight())
	}
	s := core.NewEngine(testEnv()).Start(core.Operation{Kind: core.KindSearch, Query: "q", APIKey: "sk-abc def"})
	require.EqualError(t, s.Err, "DeepSeek API key in DEEPSEEK_API_KEY is unusable: an API key is 1 to 1,024 letters, digits and - _ . ~ + / = :")
	require.Equal(t, core.CodeMissingKey, s.Err.Code)
	require.NotContains(t, s.Err.Message, "sk-abc")
	s = core.NewEngine(testEnv()).Start(core.Operation{Kind: core.KindSearch, Query: "q", APIKey: "sk-é"})
	require.Equal(t, core.CodeMissingKey, s.Err.Code)
}

func TestInputContainingKeyRefused(t *testing.T) {
	e := core.NewEngine(testEnv())
	s := e.Start(core.Operation{Kind: core.KindSearch, Query: "what is " + testKey, APIKey: testKey})
	require.True(t, s.Done)
	require.Nil(t, s.Request)
	require.EqualError(t, s.Err, "DeepSeek Search: the query contains the API key; it was not sent")
	require.ErrorIs(t, s.Err, core.ErrInvalidInput)

	s = e.Start(core.Operation{Kind: core.KindFetch, URL: "https://evil.example/collect?k=" + testKey, APIKey: testKey})
	require.True(t, s.Done)
	require.Nil(t, s.Request)
	require.EqualError(t, s.Err, "DeepSeek Fetch: the URL contains the API key; it was not sent")

	// The key reaching the query through the configured operators is refused too.
	cfg := mustConfig(t, core.Options{IncludeDomains: []string{testKey + ".example"}})
	s = e.Start(core.Operation{Kind: core.KindSearch, Query: "q", Config: cfg, APIKey: testKey})
	require.True(t, s.Done)
	require.Nil(t, s.Request)
	require.EqualError(t, s.Err, "DeepSeek Search: the query contains the API key; it was not sent")
	require.Zero(t, e.InFlight())
}

func TestErrorsNeverEchoKey(t *testing.T) {
	e := core.NewEngine(testEnv())
	for _, op := range []core.Operation{
		{Kind: core.KindFetch, URL: "https://go.dev/", Format: "x" + testKey},
		{Kind: core.KindFetch, URL: "http://localhost/" + testKey},
		{Kind: core.KindFetch, URL: "ftp://" + testKey + "/"},
		{Kind: core.Kind(testKey)},
	} {
		op.APIKey = testKey
		s := e.Start(op)
		require.True(t, s.Done)
		require.NotNil(t, s.Err)
		require.NotContains(t, s.Err.Message, testKey, "%+v", op)
	}
}

func TestUnknownKind(t *testing.T) {
	s := core.NewEngine(testEnv()).Start(core.Operation{Kind: "crawl", APIKey: testKey})
	require.True(t, s.Done)
	require.EqualError(t, s.Err, `deepseek-web-retrieval: unknown operation kind "crawl"`)
	require.ErrorIs(t, s.Err, core.ErrInvalidInput)
}

func TestKeyMasking(t *testing.T) {
	t.Run("server message", func(t *testing.T) {
		s := search(t, nil, "q", statusReply(401, `{"error":{"message":"key `+testKey+` is invalid"}}`))
		require.EqualError(t, s.Err, "DeepSeek Search failed: HTTP 401: key [redacted] is invalid (check the API key in DEEPSEEK_API_KEY)")
	})
	t.Run("raw body", func(t *testing.T) {
		s := search(t, nil, "q", statusReply(400, "Bearer "+testKey))
		require.EqualError(t, s.Err, "DeepSeek Search failed: HTTP 400: Bearer [redacted]")
	})
	t.Run("network message", func(t *testing.T) {
		s := search(t, nil, "q", core.Reply{Kind: core.ReplyNetwork, Message: "proxy said Authorization: Bearer " + testKey})
		require.EqualError(t, s.Err, "DeepSeek Search failed: network error: proxy said Authorization: Bearer [redacted]")
	})
	t.Run("search results", func(t *testing.T) {
		hits := searchHits(t, nil, resultsBody(t, item{
			URL: "https://a.example/?k=" + testKey, Title: "t " + testKey, Summary: testKey + " s",
			SiteName: "site " + testKey, Date: testKey,
		}))
		require.Equal(t, []core.Hit{{URL: "https://a.example/?k=[redacted]", Title: "t [redacted]", Text: "[redacted] s", Site: "site [redacted]", Date: "[redacted]"}}, hits)
	})
	t.Run("fetch result", func(t *testing.T) {
		s := fetch(t, nil, "https://go.dev/", okReply(fetchBodyJSON(t, "T "+testKey, "body "+testKey)))
		require.Equal(t, &core.FetchResult{URL: "https://go.dev/", Title: "T [redacted]", Text: "# T [redacted]\n\nbody [redacted]", Chars: 31, TotalChars: 31}, s.Result.Fetch)
	})
	t.Run("malformed", func(t *testing.T) {
		s := search(t, nil, "q", okReply(testKey))
		require.NotContains(t, s.Err.Message, testKey)
	})
}

func TestErrorsIs(t *testing.T) {
	sentinels := map[core.Code]error{
		core.CodeInvalidInput: core.ErrInvalidInput, core.CodeMissingKey: core.ErrMissingKey, core.CodeAPI: core.ErrAPI,
		core.CodeRedirect: core.ErrRedirect, core.CodeTimeout: core.ErrTimeout, core.CodeNetwork: core.ErrNetwork,
		core.CodeTooLarge: core.ErrTooLarge, core.CodeMalformed: core.ErrMalformed, core.CodeNoContent: core.ErrNoContent,
		core.CodeCancelled: core.ErrCancelled, core.CodeURLRefused: core.ErrURLRefused,
	}
	for code := range sentinels {
		err := fmt.Errorf("wrapped: %w", &core.Error{Code: code, Message: "m"})
		for other, sentinel := range sentinels {
			require.Equal(t, code == other, errors.Is(err, sentinel), "%s is %s", code, other)
		}
		var e *core.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, code, e.Code)
	}
	// An *Error with a message is not a sentinel.
	require.False(t, errors.Is(&core.Error{Code: core.CodeAPI, Message: "a"}, &core.Error{Code: core.CodeAPI, Message: "b"}))
	require.False(t, errors.Is(&core.Error{Code: core.CodeAPI}, errors.New("x")))
	require.Equal(t, "m", (&core.Error{Message: "m"}).Error())
}

// Many operations interleaved on one engine stay independent.
func TestInterleavedOperations(t *testing.T) {
	e := core.NewEngine(testEnv())
	// Forty at once: over the default admission limits.
	cfg := mustConfig(t, core.Options{MaxCalls: 64, MaxHeldMB: 512})
	rng := rand.New(rand.NewSource(7))
	type op struct {
		h      core.Handle
		kind   core.Kind
		n      int
		step   core.Step
		script []core.Reply
	}
	var ops []*op
	seen := map[core.Handle]bool{}
	for i := range 40 {
		o := &op{n: i}
		var s core.Step
		if i%2 == 0 {
			o.kind = core.KindSearch
			s = e.Start(core.Operation{Kind: core.KindSearch, Query: fmt.Sprintf("q%d", i), APIKey: testKey, Config: cfg})
			o.script = []core.Reply{statusReply(503, ``), okReply(resultsBody(t, item{URL: fmt.Sprintf("https://a.example/%d", i)}))}
		} else {
			o.kind = core.KindFetch
			s = e.Start(core.Operation{Kind: core.KindFetch, URL: fmt.Sprintf("https://go.dev/%d", i), APIKey: testKey, Config: cfg})
			o.script = []core.Reply{okReply(fmt.Sprintf(`{"title":"T%d","content":"c%d"}`, i, i))}
			if i%3 == 0 {
				o.script = []core.Reply{statusReply(402, `{"error":{"message":"Insufficient Balance"}}`)}
			}
		}
		require.False(t, s.Done)
		require.False(t, seen[s.Handle], "handle reused")
		seen[s.Handle] = true
		o.h, o.step = s.Handle, s
		ops = append(ops, o)
	}
	require.Equal(t, 40, e.InFlight())
	live := append([]*op(nil), ops...)
	for len(live) > 0 {
		i := rng.Intn(len(live))
		o := live[i]
		if o.n%10 == 9 && len(o.script) > 0 && rng.Intn(2) == 0 {
			o.step = e.Cancel(o.h)
		} else {
			o.step = e.Resume(o.h, o.script[0])
			o.script = o.script[1:]
		}
		require.Equal(t, o.h, o.step.Handle)
		if o.step.Done {
			live = append(live[:i], live[i+1:]...)
		}
	}
	require.Zero(t, e.InFlight())
	for _, o := range ops {
		s := o.step
		switch {
		case s.Err != nil && s.Err.Code == core.CodeCancelled:
		case o.kind == core.KindSearch:
			require.Nil(t, s.Err)
			require.Equal(t, fmt.Sprintf("q%d", o.n), s.Result.Search.Query)
			require.Equal(t, fmt.Sprintf("https://a.example/%d", o.n), s.Result.Search.Hits[0].URL)
		case o.n%3 == 0:
			require.EqualError(t, s.Err, "DeepSeek Fetch failed: HTTP 402: Insufficient Balance")
		default:
			require.Nil(t, s.Err)
			require.Equal(t, fmt.Sprintf("https://go.dev/%d", o.n), s.Result.Fetch.URL)
			require.Equal(t, fmt.Sprintf("# T%d\n\nc%d", o.n, o.n), s.Result.Fetch.Text)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	e := core.NewEngine(testEnv())
	// Eight at once: within the admission limits.
	cfg := mustConfig(t, core.Options{MaxHeldMB: 128})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				s := e.Start(core.Operation{Kind: core.KindSearch, Query: fmt.Sprintf("q %d %d", i, j), APIKey: testKey, Config: cfg})
				s = e.Resume(s.Handle, statusReply(500, ``))
				s = e.Resume(s.Handle, okReply(`{"results":[]}`))
				if !s.Done || s.Err != nil {
					t.Errorf("unexpected step %+v", s)
				}
			}
		}()
	}
	wg.Wait()
	require.Zero(t, e.InFlight())
}

func TestZeroEnv(t *testing.T) {
	e := core.NewEngine(core.Env{})
	reqs, s := drive(t, e, core.Operation{Kind: core.KindSearch, Query: "q", APIKey: testKey},
		statusReply(503, ``, core.HeaderField{"Retry-After", "Tue, 04 Mar 2025 05:06:12 GMT"}), statusReply(503, ``), statusReply(503, ``))
	require.Equal(t, []int64{0, 500, 1000}, delays(reqs))
	require.EqualError(t, s.Err, "DeepSeek Search failed: HTTP 503 (gave up after 3 attempts)")
}

func TestReplyGet(t *testing.T) {
	r := core.Reply{Header: []core.HeaderField{{"X-A", "1"}, {"retry-after", "2"}, {"Retry-After", "3"}}}
	require.Equal(t, "2", r.Get("Retry-After"))
	require.Equal(t, "1", r.Get("x-a"))
	require.Equal(t, "", r.Get("missing"))
}
