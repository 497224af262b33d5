package core

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testKey looks like a DeepSeek key: "sk-" and 32 hex digits.
const testKey = "sk-0123456789abcdef0123456789abcdef"

// pinnedNow is the clock of every test Env.
var pinnedNow = time.Date(2025, time.March, 4, 5, 6, 7, 0, time.UTC)

// testEnv pins the clock and makes jitter neutral (factor 1).
func testEnv() Env {
	return Env{Now: func() int64 { return pinnedNow.UnixMilli() }, Random: func() float64 { return 0.5 }}
}

func intPtr(n int) *int    { return &n }
func boolPtr(b bool) *bool { return &b }

func mustConfig(t testing.TB, o Options) *Config {
	t.Helper()
	cfg, _, err := NewConfig(o)
	require.NoError(t, err)
	return cfg
}

func okReply(body string) Reply {
	return Reply{Kind: ReplyResponse, Status: 200, Body: []byte(body)}
}

func statusReply(status int, body string, header ...HeaderField) Reply {
	return Reply{Kind: ReplyResponse, Status: status, Body: []byte(body), Header: header}
}

// item is a search result for building bodies; nil fields are left out.
type item struct {
	URL       any `json:"url,omitempty"`
	Title     any `json:"title,omitempty"`
	Snippet   any `json:"snippet,omitempty"`
	Summary   any `json:"summary,omitempty"`
	Content   any `json:"content,omitempty"`
	Rerank    any `json:"rerank_score,omitempty"`
	Authority any `json:"authority,omitempty"`
	Date      any `json:"date,omitempty"`
	SiteName  any `json:"site_name,omitempty"`
}

func resultsBody(t testing.TB, items ...item) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"results": items})
	require.NoError(t, err)
	return string(b)
}

// search runs one search whose first attempt is answered by reply.
func search(t testing.TB, cfg *Config, query string, reply Reply) Step {
	t.Helper()
	e := NewEngine(testEnv())
	s := e.Start(Operation{Kind: KindSearch, Query: query, Config: cfg, APIKey: testKey})
	require.False(t, s.Done, "start: %+v", s.Err)
	require.NotNil(t, s.Request)
	s = e.Resume(s.Handle, reply)
	require.True(t, s.Done)
	require.Zero(t, e.InFlight())
	return s
}

// searchHits runs a search answered 200 with body and returns the hits.
func searchHits(t testing.TB, cfg *Config, body string) []Hit {
	t.Helper()
	s := search(t, cfg, "query", okReply(body))
	require.Nil(t, s.Err)
	require.NotNil(t, s.Result)
	require.NotNil(t, s.Result.Search)
	require.Nil(t, s.Result.Fetch)
	return s.Result.Search.Hits
}

func hitURLs(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.URL
	}
	return out
}

// fetch runs one fetch of pageURL whose first attempt is answered by reply.
func fetch(t testing.TB, cfg *Config, pageURL string, reply Reply) Step {
	t.Helper()
	e := NewEngine(testEnv())
	s := e.Start(Operation{Kind: KindFetch, URL: pageURL, Config: cfg, APIKey: testKey})
	require.False(t, s.Done, "start: %+v", s.Err)
	s = e.Resume(s.Handle, reply)
	require.True(t, s.Done)
	require.Zero(t, e.InFlight())
	return s
}

func fetchBodyJSON(t testing.TB, title, content string) string {
	t.Helper()
	b, err := json.Marshal(map[string]string{"title": title, "content": content})
	require.NoError(t, err)
	return string(b)
}

// assertNoKeyPart fails when s holds any three or more consecutive
// characters of testKey: a cut after masking leaves such a part.
func assertNoKeyPart(t testing.TB, s string) {
	t.Helper()
	for n := 3; n <= len(testKey); n++ {
		for i := 0; i+n <= len(testKey); i++ {
			if strings.Contains(s, testKey[i:i+n]) {
				t.Fatalf("%q shows %q, part of the key", s, testKey[i:i+n])
			}
		}
	}
}

func messagesConfig(t testing.TB, o Options) *Config {
	t.Helper()
	o.SearchBackend = BackendMessages
	return mustConfig(t, o)
}

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "messages", name))
	require.NoError(t, err)
	return string(b)
}

// messagesSearch runs one Messages search, answering its requests with
// replies in order, and returns the done step and every request.
func messagesSearch(t testing.TB, cfg *Config, query string, replies ...Reply) (Step, []*Request) {
	t.Helper()
	e := NewEngine(testEnv())
	s := e.Start(Operation{Kind: KindSearch, Query: query, Config: cfg, APIKey: testKey})
	var reqs []*Request
	for _, r := range replies {
		require.False(t, s.Done, "done before every reply was used: %+v", s.Err)
		reqs = append(reqs, s.Request)
		s = e.Resume(s.Handle, r)
	}
	require.True(t, s.Done, "not done after %d replies", len(replies))
	require.Zero(t, e.InFlight())
	return s, reqs
}
