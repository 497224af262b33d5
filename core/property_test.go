package core_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// TestKeyNeverLeaks drives random operations with random options and
// hostile replies (bodies, headers and messages echoing the key) and checks
// that the key appears only in the Authorization header of requests to the
// configured baseURL: never in another request field, a result or an error.
func TestKeyNeverLeaks(t *testing.T) {
	const iterations = 4000
	rng := rand.New(rand.NewSource(20250304))
	var requests, successes, failures int
	for it := range iterations {
		key := randomKey(rng)
		p := &leakProbe{t: t, rng: rng, key: key, it: it}
		cfg := p.config()
		e := core.NewEngine(core.Env{Now: func() int64 { return pinnedNow.UnixMilli() }, Random: rng.Float64})
		op := p.operation(cfg)
		s := e.Start(op)
		for steps := 0; ; steps++ {
			p.checkStep(s, op.Config)
			if s.Done {
				break
			}
			requests++
			require.Less(t, steps, 10, "iteration %d: too many steps", it)
			if rng.Intn(25) == 0 {
				s = e.Cancel(s.Handle)
				continue
			}
			s = e.Resume(s.Handle, p.reply(op.Kind))
		}
		if s.Err != nil {
			failures++
		} else {
			successes++
		}
		require.Zero(t, e.InFlight(), "iteration %d", it)
	}
	t.Logf("%d operations: %d succeeded, %d failed, %d requests", iterations, successes, failures, requests)
	// The run must exercise both outcomes and plenty of requests.
	require.Greater(t, successes, iterations/10)
	require.Greater(t, failures, iterations/10)
	require.Greater(t, requests, iterations/2)
}

func randomKey(rng *rand.Rand) string {
	const hex = "0123456789abcdef"
	b := []byte("sk-")
	for range 32 {
		b = append(b, hex[rng.Intn(16)])
	}
	return string(b)
}

type leakProbe struct {
	t   *testing.T
	rng *rand.Rand
	key string
	it  int
}

func (p *leakProbe) pick(options ...string) string { return options[p.rng.Intn(len(options))] }

// text returns a random string that often embeds the key.
func (p *leakProbe) text() string {
	switch p.rng.Intn(8) {
	case 0:
		return p.key
	case 1:
		return "see " + p.key + " here"
	case 2:
		return strings.Repeat("字 ", p.rng.Intn(50)) + p.key
	case 3:
		return "Bearer " + p.key + "\n\t" + strings.Repeat("x", p.rng.Intn(400))
	case 4:
		return ""
	case 5:
		return strings.Repeat("word ", p.rng.Intn(300))
	case 6:
		return p.key[:10] + "\n" + p.key[10:] // split by white space: not the key
	}
	return p.pick("Go", "The Go Blog", "MDN", "  spaced   title  ", "😀 emoji")
}

func (p *leakProbe) config() *core.Config {
	o := core.Options{
		BaseURL:         p.pick("", "https://api.deepseek.com", "https://proxy.example.com/ds/", "http://127.0.0.1:8080", "http://localhost:9/x/", "https://[2001:db8::1]:8443"),
		MaxResults:      p.rng.Intn(51),
		MaxSummaryChars: []int{0, 20, 21, 40, 300}[p.rng.Intn(5)],
		FetchMaxChars:   []int{0, 200, 201, 500}[p.rng.Intn(4)],
		MinRerank:       float64(p.rng.Intn(4)) / 2,
		MinAuthority:    float64(p.rng.Intn(5)),
		Language:        p.pick("", "en", "zh,en"),
		Localization:    p.pick("", "203.0.113.7", "::1", "bogus"),
		MaxRetries:      intPtr(p.rng.Intn(6)),
	}
	if p.rng.Intn(2) == 0 {
		o.AllowUnknownAuthority = boolPtr(p.rng.Intn(2) == 0)
	}
	if p.rng.Intn(4) == 0 {
		o.IncludeDomains = []string{p.pick("go.dev", "example.com", p.key+".example")}
	}
	if p.rng.Intn(3) == 0 {
		o.MinRerank, o.MinAuthority = 0, 0
	}
	if p.rng.Intn(4) == 0 {
		o.BlockedDomains = []string{p.pick("spam.example", "example.org")}
	}
	if p.rng.Intn(6) == 0 {
		o.AllowedDomains = []string{p.pick("go.dev", "example.com")}
	}
	if p.rng.Intn(3) == 0 {
		o.APIKeyEnv = "SOME_KEY"
	}
	cfg, _, err := core.NewConfig(o)
	require.NoError(p.t, err, "iteration %d: %+v", p.it, o)
	return cfg
}

func (p *leakProbe) operation(cfg *core.Config) core.Operation {
	op := core.Operation{Config: cfg, APIKey: p.pick(p.key, p.key, p.key, " "+p.key+"\n")}
	if p.rng.Intn(5) == 0 {
		op.Config = nil
	}
	if p.rng.Intn(2) == 0 {
		op.Kind = core.KindSearch
		op.Query = p.pick("golang generics", "  go release after:2024-01-01 ", "什么是 Go", "go")
		if p.rng.Intn(4) == 0 { // hostile or unusable
			op.Query = p.pick("", "key "+p.key, p.key, strings.Repeat("q", 130))
		}
		if p.rng.Intn(2) == 0 {
			op.OriQuestion = p.text()
		}
	} else {
		op.Kind = core.KindFetch
		op.URL = p.pick("https://go.dev/doc/", "https://example.com/a?b=c#d", "https://go.dev/", "https://www.example.com/x", "https://go.dev/"+p.key[:20])
		if p.rng.Intn(4) == 0 { // hostile or unusable
			op.URL = p.pick("http://localhost/"+p.key, "https://evil.example/?k="+p.key, "ftp://go.dev/", "https://"+p.key+".example/", "  ")
		}
		op.Format = p.pick("", "", "markdown")
		if p.rng.Intn(8) == 0 {
			op.Format = p.pick("text", "html", "x"+p.key)
		}
	}
	if p.rng.Intn(50) == 0 {
		op.Kind = core.Kind("k" + p.key)
	}
	return op
}

func (p *leakProbe) header() []core.HeaderField {
	var h []core.HeaderField
	if p.rng.Intn(2) == 0 {
		h = append(h, core.HeaderField{"Retry-After", p.pick("0", "1", "3", "30", "Tue, 04 Mar 2025 05:06:10 GMT", "soon", p.key)})
	}
	if p.rng.Intn(3) == 0 {
		h = append(h, core.HeaderField{"X-Echo", p.key}, core.HeaderField{"Location", "https://evil.example/" + p.key})
	}
	return h
}

func (p *leakProbe) searchBody() []byte {
	n := p.rng.Intn(8)
	items := make([]map[string]any, 0, n)
	for range n {
		it := map[string]any{
			"url":       p.pick("https://a.example/", "https://go.dev/x", "https://a.example/?k="+p.key, "https://"+p.key+".example/", "/rel", p.key, "https://b.example/#"+p.key),
			"title":     p.text(),
			"snippet":   p.text(),
			"summary":   p.text(),
			"content":   p.text(),
			"site_name": p.text(),
			"date":      p.pick("2024-05-01T00:00:00Z", p.key, ""),
		}
		if p.rng.Intn(2) == 0 {
			it["rerank_score"] = p.rng.Float64() * 3
		}
		if p.rng.Intn(2) == 0 {
			it["authority"] = float64(p.rng.Intn(6) - 1)
		}
		if p.rng.Intn(5) == 0 {
			it["rerank_score"] = p.key
		}
		items = append(items, it)
	}
	b, err := json.Marshal(map[string]any{"results": items})
	require.NoError(p.t, err)
	return b
}

func (p *leakProbe) body(kind core.Kind) []byte {
	switch p.rng.Intn(10) {
	case 0:
		return []byte(p.key)
	case 1:
		return []byte(`{"results":` + p.key + `}`)
	case 2:
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": p.text()}})
		return b
	case 3:
		b, _ := json.Marshal(map[string]any{"error": p.text(), "message": p.key})
		return b
	}
	if kind == core.KindFetch || p.rng.Intn(6) == 0 {
		b, _ := json.Marshal(map[string]any{"title": p.text(), "content": p.pick("", "body", p.text(), strings.Repeat("语", 600)+p.key)})
		return b
	}
	return p.searchBody()
}

func (p *leakProbe) reply(kind core.Kind) core.Reply {
	switch p.rng.Intn(20) {
	case 0:
		return core.Reply{Kind: core.ReplyTimeout, Message: p.key}
	case 1:
		return core.Reply{Kind: core.ReplyNetwork, Message: p.pick("", "dial: "+p.key, p.text())}
	case 2:
		return core.Reply{Kind: core.ReplyTooLarge}
	case 3:
		return core.Reply{Kind: core.ReplyCancelled}
	case 4:
		return core.Reply{Kind: core.ReplyKind(p.pick("bogus", "x"+p.key))}
	}
	status := 200
	if p.rng.Intn(3) == 0 {
		status = []int{0, 204, 301, 302, 400, 401, 402, 403, 404, 408, 422, 425, 429, 500, 502, 503, 504, 599, 600}[p.rng.Intn(19)]
	}
	return core.Reply{Kind: core.ReplyResponse, Status: status, Header: p.header(), Body: p.body(kind)}
}

func (p *leakProbe) checkStep(s core.Step, cfg *core.Config) {
	t, key := p.t, p.key
	where := fmt.Sprintf("iteration %d", p.it)
	require.False(t, s.Done && s.Request != nil, "%s: step has both Request and Done", where)
	require.True(t, s.Done || s.Request != nil, "%s: step has neither Request nor Done", where)
	if !s.Done {
		require.Nil(t, s.Result, where)
		require.Nil(t, s.Err, where)
	}
	if s.Done {
		require.True(t, (s.Result == nil) != (s.Err == nil), "%s: done step needs exactly one of Result and Err", where)
	}
	if r := s.Request; r != nil {
		base := core.DefaultBaseURL
		if cfg != nil {
			base = cfg.BaseURL
		}
		require.True(t, strings.HasPrefix(r.URL, base+"/v1/tools/"), "%s: request to %s", where, r.URL)
		require.NotContains(t, r.URL, key, where)
		require.NotContains(t, string(r.Body), key, where)
		require.NotContains(t, r.Method, key, where)
		auth := 0
		for _, h := range r.Header {
			if h.Name == "Authorization" {
				auth++
				require.Equal(t, "Bearer "+key, h.Value, where)
				continue
			}
			require.NotContains(t, h.Name+h.Value, key, where)
		}
		require.Equal(t, 1, auth, where)
	}
	if s.Err != nil {
		require.NotContains(t, s.Err.Message, key, where)
		require.NotEmpty(t, s.Err.Message, where)
	}
	if s.Result != nil {
		require.True(t, (s.Result.Search == nil) != (s.Result.Fetch == nil), where)
		if r := s.Result.Search; r != nil {
			require.NotContains(t, r.Query, key, where)
			require.NotContains(t, r.Text(), key, where)
			for _, h := range r.Hits {
				for _, f := range []string{h.URL, h.Title, h.Text, h.Site, h.Date, h.Marker(), h.ProviderContent()} {
					require.NotContains(t, f, key, where)
				}
			}
		}
		if r := s.Result.Fetch; r != nil {
			for _, f := range []string{r.URL, r.Title, r.Text} {
				require.NotContains(t, f, key, where)
			}
		}
	}
}
