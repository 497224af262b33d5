package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

// testKey is the API key the tests hand the module. It must never show up
// anywhere but the Authorization header of requests to the mock.
const testKey = "sk-test-4f1c2b9e7d0a"

// received is one request the mock DeepSeek saw.
type received struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// handler answers the mock's n-th request (from 1).
type handler func(w http.ResponseWriter, r *http.Request, n int)

// mock is an httptest server playing DeepSeek.
type mock struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []received
}

func newMock(t testing.TB, h handler) *mock {
	t.Helper()
	m := &mock{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.reqs = append(m.reqs, received{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		n := len(m.reqs)
		m.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h(w, r, n)
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *mock) requests() []received {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]received(nil), m.reqs...)
}

// reply returns a handler that answers every request the same way.
func reply(status int, body string, headers ...string) handler {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// sequence answers the n-th request with the n-th handler, repeating the
// last.
func sequence(hs ...handler) handler {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		hs[min(n, len(hs))-1](w, r, n)
	}
}

// env is one test's module instance, bridge and mock DeepSeek.
type env struct {
	t   testing.TB
	ctx context.Context
	m   *Module
	b   *Bridge
	srv *mock
}

func newEnv(t testing.TB, h handler) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), m: newModule(t), b: NewBridge(), srv: newMock(t, h)}
	t.Cleanup(e.b.Close)
	t.Cleanup(func() {
		checkRequestsKey(t, e.srv.requests())
		if out := e.m.Output.String(); strings.Contains(out, testKey) {
			t.Errorf("the module's output contains the API key:\n%s", out)
		}
	})
	return e
}

// opts returns plugin options pointing baseURL at the mock, with extra
// options merged in (pairs of name and value).
func (e *env) opts(kv ...any) json.RawMessage {
	o := map[string]any{"baseURL": e.srv.URL}
	for i := 0; i+1 < len(kv); i += 2 {
		o[kv[i].(string)] = kv[i+1]
	}
	b, err := json.Marshal(o)
	require.NoError(e.t, err)
	return b
}

// start builds a start envelope with the test key.
func (e *env) start(kind string, input any, opts json.RawMessage) abi.Start {
	in, err := json.Marshal(input)
	require.NoError(e.t, err)
	if opts == nil {
		opts = e.opts()
	}
	return abi.Start{V: abi.Version, Kind: kind, Options: opts, APIKey: testKey, Input: in}
}

// run drives an operation to its end with the bridge and returns every
// step. It checks the key never appears outside an Authorization header and
// that nothing stays in flight.
func (e *env) run(s abi.Start) []Reply {
	e.t.Helper()
	steps, err := Run(e.ctx, e.m, e.b, s)
	require.NoError(e.t, err)
	checkStepsKey(e.t, steps, s.APIKey)
	n, err := e.m.InFlight(e.ctx)
	require.NoError(e.t, err)
	require.Zero(e.t, n, "operations left in flight")
	return steps
}

// search runs a search with the given options and returns the last step.
func (e *env) search(query string, opts json.RawMessage) abi.Step {
	e.t.Helper()
	steps := e.run(e.start(abi.KindSearch, abi.SearchInput{Query: query}, opts))
	return steps[len(steps)-1].Step
}

func (e *env) fetch(url string, opts json.RawMessage) abi.Step {
	e.t.Helper()
	steps := e.run(e.start(abi.KindFetch, abi.FetchInput{URL: url}, opts))
	return steps[len(steps)-1].Step
}

// result decodes a successful done step's result.
// searchJSON is the module's "search" result as the plugin reads it: a
// core.SearchResult's JSON with the computed text and markers.
type searchJSON struct {
	Query   string      `json:"query"`
	Results []hitJSON   `json:"results"`
	Text    string      `json:"text"`
	Cached  bool        `json:"cached"`
	Summary string      `json:"summary,omitempty"`
	Dropped int         `json:"dropped,omitempty"`
	Notes   []string    `json:"notes,omitempty"`
	Usage   *core.Usage `json:"usage,omitempty"`
}

// hitJSON is one result of a searchJSON.
type hitJSON struct {
	URL       string   `json:"url"`
	Title     string   `json:"title"`
	Text      string   `json:"text"`
	Rerank    *float64 `json:"rerank,omitempty"`
	Authority *float64 `json:"authority,omitempty"`
	Site      string   `json:"site,omitempty"`
	Date      string   `json:"date,omitempty"`
	Published *int64   `json:"published,omitempty"`
	Marker    string   `json:"marker,omitempty"`
	FoundBy   string   `json:"foundBy,omitempty"`
}

func result[T any](t testing.TB, s abi.Step) T {
	t.Helper()
	var v T
	require.Equal(t, abi.StepDone, s.Step)
	require.Nil(t, s.Error, "unexpected error")
	require.NoError(t, json.Unmarshal(s.Result, &v))
	return v
}

// failure checks a done step failed with code and, when msg is not "",
// exactly that message.
func failure(t testing.TB, s abi.Step, code, msg string) *abi.Error {
	t.Helper()
	require.Equal(t, abi.StepDone, s.Step)
	require.NotNil(t, s.Error, "want error %q, got result %s", code, s.Result)
	require.Equal(t, code, s.Error.Code, "message: %s", s.Error.Message)
	if msg != "" {
		require.Equal(t, msg, s.Error.Message)
	}
	require.Empty(t, s.Result)
	return s.Error
}

// checkStepsKey checks that the key appears in step JSON only as the value
// of an Authorization header.
func checkStepsKey(t testing.TB, steps []Reply, key string) {
	t.Helper()
	if key == "" {
		return
	}
	for _, s := range steps {
		n := bytes.Count(s.Raw, []byte(key))
		want := 0
		for _, s := range append([]abi.Step{s.Step}, s.Steps...) { // a batch's parts
			if s.Step != abi.StepHTTP {
				continue
			}
			for _, h := range s.Request.Headers {
				switch {
				case strings.EqualFold(h[0], "Authorization"):
					require.Equal(t, "Bearer "+key, h[1])
					want++
				case strings.EqualFold(h[0], "x-api-key") && strings.HasSuffix(s.Request.URL, "/v1/messages"):
					// The Messages endpoint reads the key from x-api-key.
					require.Equal(t, key, h[1])
					want++
				default:
					require.NotContains(t, h[1], key, "header %s", h[0])
				}
			}
			require.NotContains(t, s.Request.URL, key)
			require.NotContains(t, s.Request.Body, key)
		}
		require.Equal(t, want, n, "the key appears in a step outside the Authorization header: %s", s.Raw)
	}
}

// checkRequestsKey checks that requests carried the key only in their
// Authorization header.
func checkRequestsKey(t testing.TB, reqs []received) {
	t.Helper()
	for _, r := range reqs {
		if bytes.Contains(r.Body, []byte(testKey)) || strings.Contains(r.Path, testKey) {
			t.Errorf("request %s carries the key in its body or path", r.Path)
		}
		for name, values := range r.Header {
			for _, v := range values {
				xAPIKey := name == "X-Api-Key" && strings.HasSuffix(r.Path, "/v1/messages") && v == testKey
				if name != "Authorization" && !xAPIKey && strings.Contains(v, testKey) {
					t.Errorf("request header %s carries the key", name)
				}
			}
		}
	}
}

// golden compares sections with testdata/name.txtar, or rewrites the file
// with -update.
func golden(t testing.TB, name, comment string, sections [][2]string) {
	t.Helper()
	path := filepath.Join("testdata", name+".txtar")
	var b strings.Builder
	b.WriteString(comment)
	if comment != "" && !strings.HasSuffix(comment, "\n") {
		b.WriteString("\n")
	}
	for _, s := range sections {
		fmt.Fprintf(&b, "-- %s --\n%s", s[0], s[1])
		if !strings.HasSuffix(s[1], "\n") {
			b.WriteString("\n")
		}
	}
	got := b.String()
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./tests -run %s -update to create it", t.Name())
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept):\n%s", path, diffLines(string(want), got))
	}
}

// diffLines shows the first differing lines of want and got.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}

// indent pretty-prints JSON for golden files.
func indent(t testing.TB, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Indent(&b, raw, "", "  "))
	return b.String() + "\n"
}
