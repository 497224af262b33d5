// Package deepseektest plays DeepSeek's Search and Fetch APIs for the Go
// tests of the native binary and the MCP server: one handler per endpoint,
// the requests it was sent, and a key check whose 401 echoes the key it got
// (so a test can prove the key never reaches an output). It also holds the
// search body the step benchmarks decode. Only tests import it.
package deepseektest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Request is one request the server saw.
type Request struct {
	Path, Auth, UserAgent string
	// Body is the JSON body decoded into a map (nil when it is not JSON).
	Body map[string]any
}

// Server is an httptest server playing DeepSeek. Set Search and Fetch
// before the code under test calls it; an endpoint without a handler, and
// any other path or method, answers 404.
type Server struct {
	*httptest.Server
	// Search and Fetch answer POST /v1/tools/search and /v1/tools/fetch
	// once the key checks out.
	Search, Fetch http.HandlerFunc
	// Balance answers GET /user/balance, the account endpoint.
	Balance http.HandlerFunc
	// Arrived gets one value per request, before its handler runs (its
	// buffer holds 100).
	Arrived chan struct{}

	key      string
	mu       sync.Mutex
	requests []Request
}

// New starts a server that accepts "Bearer "+key and closes it when t ends.
func New(t testing.TB, key string) *Server {
	s := &Server{key: key, Arrived: make(chan struct{}, 100)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(raw)) // the handlers may read it again
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("User-Agent"), body})
	search, fetch, balance := s.Search, s.Fetch, s.Balance
	s.mu.Unlock()
	select {
	case s.Arrived <- struct{}{}:
	default:
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+s.key {
		WriteJSON(w, 401, APIError("Authentication Fails: bad key "+strings.TrimPrefix(got, "Bearer ")))
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/tools/search" && search != nil:
		search(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/tools/fetch" && fetch != nil:
		fetch(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/user/balance" && balance != nil:
		balance(w, r)
	default:
		WriteJSON(w, 404, APIError("no route "+r.URL.Path))
	}
}

// Requests returns the requests seen so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Bodies returns the decoded bodies of the requests seen so far.
func (s *Server) Bodies() []map[string]any {
	var out []map[string]any
	for _, r := range s.Requests() {
		out = append(out, r.Body)
	}
	return out
}

// WriteJSON answers with status and v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Answer is a handler that always answers status and v.
func Answer(status int, v any) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { WriteJSON(w, status, v) }
}

// APIError is DeepSeek's error body with msg.
func APIError(msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg}}
}

// NewTLS is New over HTTPS, with httptest's certificate (valid for
// example.com; Certificate returns it).
func NewTLS(t testing.TB, key string) *Server {
	s := &Server{key: key, Arrived: make(chan struct{}, 100)}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// StepSearchBody is a 10-result search answer with every field DeepSeek
// sends and summaries of about 320 bytes, the shape of the body
// tests/js/startup-bench.js times a module step with; the Go step
// benchmarks of core and core/internal/wire decode it.
func StepSearchBody() []byte {
	var b bytes.Buffer
	b.WriteString(`{"results":[`)
	for i := range 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		d := string(rune('0' + i))
		b.WriteString(`{"url":"https://example.com/article/` + d + `","title":"Result number ` + d + ` about effective Go","snippet":"Tips for writing clear, idiomatic Go code.","summary":"Result ` + d + `: ` +
			strings.Repeat("Effective Go gives tips for writing clear, idiomatic Go code and explains the conventions of the language. ", 3) +
			`","rerank_score":2.` + d + `,"authority":` + d + `,"date":"2024-01-15T00:00:00Z","site_name":"example.com"}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}
