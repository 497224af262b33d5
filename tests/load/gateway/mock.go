package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// key is the DeepSeek key the replicas hold; the mock accepts only it.
const key = "sk-gatewayload0123456789abcdef"

// directHeader marks the benchmark's own direct requests, which the mock
// answers like any other but does not record.
const directHeader = "X-Load-Direct"

// mock plays DeepSeek's Search and Fetch APIs: it answers every request
// after delay and records the body of each request from a replica.
type mock struct {
	*httptest.Server
	delay time.Duration

	mu       sync.Mutex
	requests []request
}

// request is one request a replica sent: the endpoint, the URL or query
// it asked for, and its body as sent.
type request struct {
	path, subject string
	body          []byte
}

func newMock(delay time.Duration) *mock {
	m := &mock{delay: delay}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	return m
}

func (m *mock) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var in struct{ URL, Query string }
	_ = json.Unmarshal(body, &in)
	if r.Header.Get(directHeader) == "" {
		m.mu.Lock()
		m.requests = append(m.requests, request{r.URL.Path, in.URL + in.Query, body})
		m.mu.Unlock()
	}
	time.Sleep(m.delay)
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Header.Get("Authorization") != "Bearer "+key:
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Authentication Fails"}}`)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/tools/fetch" && in.URL != "":
		w.Write(pageAnswer(in.URL))
	case r.Method == http.MethodPost && r.URL.Path == "/v1/tools/search" && in.Query != "":
		w.Write(searchAnswer(in.Query))
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"no route"}}`)
	}
}

// since returns the requests recorded after the first n.
func (m *mock) since(n int) []request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]request(nil), m.requests[n:]...)
}

// count is how many requests the mock has recorded.
func (m *mock) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

// pageAnswer is a fetch answer of about 8 KB whose title is the URL, so
// a caller can tell its answer from another page's.
func pageAnswer(url string) []byte {
	var b strings.Builder
	b.WriteString(`{"title":` + strconv.Quote(url) + `,"content":"`)
	for i := 0; b.Len() < 8000; i++ {
		fmt.Fprintf(&b, `## Section %d\n\nLorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.\n\n`, i)
	}
	b.WriteString(`"}`)
	return []byte(b.String())
}

// searchAnswer is ten results whose first title is the query.
func searchAnswer(query string) []byte {
	var b strings.Builder
	b.WriteString(`{"results":[`)
	for i := range 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		title := "Result " + strconv.Itoa(i)
		if i == 0 {
			title = query
		}
		fmt.Fprintf(&b, `{"url":"https://docs.example.com/article/%d","title":%s,"snippet":"Tips for writing clear, idiomatic Go code.","summary":"%s","rerank_score":2.%d,"authority":%d,"date":"2024-01-15T00:00:00Z","site_name":"docs.example.com"}`,
			i, strconv.Quote(title), strings.Repeat("Effective Go gives tips for writing clear, idiomatic Go code. ", 4), i, i%5)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}
