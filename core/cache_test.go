package core

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// clock is an injected, movable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now.UnixMilli()
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func cachingEngine() (*Engine, *clock) {
	c := &clock{now: pinnedNow}
	return NewEngine(Env{Now: c.Now, Random: func() float64 { return 0.5 }}), c
}

// run starts op; when the engine asks for a request it is answered with
// reply (nil: the test expects none). requests reports how many were made.
func run(t *testing.T, e *Engine, op Operation, reply *Reply) (s Step, requests int) {
	t.Helper()
	if op.APIKey == "" {
		op.APIKey = testKey
	}
	s = e.Start(op)
	for !s.Done {
		require.NotNil(t, reply, "unexpected request to %s", s.Request.URL)
		requests++
		s = e.Resume(s.Handle, *reply)
	}
	require.Zero(t, e.InFlight())
	return s, requests
}

func pageReply(t testing.TB, title, content string) *Reply {
	r := okReply(fetchBodyJSON(t, title, content))
	return &r
}

func TestCacheServesLaterPartsWithoutARequest(t *testing.T) {
	e, _ := cachingEngine()
	cfg := mustConfig(t, Options{FetchMaxChars: 1000})
	content := strings.Repeat("0123456789", 250) // 2,500 code points, 2,507 with the title
	s, n := run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/doc/", Config: cfg}, pageReply(t, "Doc", content))
	require.Equal(t, 1, n)
	require.Nil(t, s.Err)
	first := s.Result.Fetch
	require.False(t, first.Cached)
	require.Equal(t, 2507, first.TotalChars)
	require.True(t, strings.HasPrefix(first.Text, "# Doc\n\n"))
	require.True(t, strings.HasSuffix(first.Text, "\n[content truncated: showing 0–896 of 2,507 characters; call deepseek_fetch with offset 896 for more]"), first.Text)

	// Parts two and three, and the URL spelled another way: no request.
	offset := first.NextOffset
	for _, u := range []string{"https://go.dev/doc/", "HTTPS://GO.DEV/doc/#install"} {
		s, n = run(t, e, Operation{Kind: KindFetch, URL: u, Offset: offset, Config: cfg}, nil)
		require.Zero(t, n)
		require.Nil(t, s.Err)
		r := s.Result.Fetch
		require.True(t, r.Cached)
		require.Equal(t, u, r.URL)
		require.Equal(t, offset, r.Offset)
		require.False(t, strings.HasPrefix(r.Text, "# Doc"))
		offset = r.NextOffset
		if offset == 0 {
			require.False(t, r.Truncated)
			require.NotContains(t, r.Text, "[content truncated")
		}
	}
	require.Zero(t, offset, "three parts read the page")
	require.Equal(t, CacheStats{Pages: 1, Bytes: e.CacheStats().Bytes}, e.CacheStats())

	// An offset past the end, from the cache: an error naming the length.
	s, n = run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/doc/", Offset: 5000, Config: cfg}, nil)
	require.Zero(t, n)
	require.EqualError(t, s.Err, "DeepSeek Fetch: offset 5000 is past the end of the page: it has 2,507 characters (the last offset is 2506)")
	require.ErrorIs(t, s.Err, ErrInvalidInput)

	// A different fetchMaxChars cuts the same cached page differently.
	s, n = run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/doc/", Config: mustConfig(t, Options{FetchMaxChars: 5000})}, nil)
	require.Zero(t, n)
	require.Equal(t, 2507, s.Result.Fetch.Chars)
}

func TestCacheMissesOnWhatChangesTheAnswer(t *testing.T) {
	e, _ := cachingEngine()
	cfg := mustConfig(t, Options{})
	_, n := run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/a", Config: cfg}, pageReply(t, "A", "a"))
	require.Equal(t, 1, n)
	for _, tt := range []struct {
		name string
		op   Operation
	}{
		{"another page", Operation{Kind: KindFetch, URL: "https://go.dev/b", Config: cfg}},
		{"another query string", Operation{Kind: KindFetch, URL: "https://go.dev/a?x=1", Config: cfg}},
		{"another DeepSeek endpoint", Operation{Kind: KindFetch, URL: "https://go.dev/a", Config: mustConfig(t, Options{BaseURL: "https://proxy.example/deepseek"})}},
		{"another API key", Operation{Kind: KindFetch, URL: "https://go.dev/a", Config: cfg, APIKey: "sk-another0123456789abcdef012345"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, n := run(t, e, tt.op, pageReply(t, "B", "b"))
			require.Equal(t, 1, n)
		})
	}
	_, n = run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/a", Config: cfg}, nil)
	require.Zero(t, n)
}

func TestCacheNeverKeepsErrors(t *testing.T) {
	e, _ := cachingEngine()
	cfg := mustConfig(t, Options{MaxRetries: intPtr(0)})
	for _, reply := range []Reply{
		statusReply(404, ``),
		statusReply(500, `{"error":{"message":"down"}}`),
		okReply(`not json`),
		{Kind: ReplyTimeout},
		okReply(`{"title":"T","content":"  "}`), // no content: an error for fetch only
	} {
		s, n := run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/x", Config: cfg}, &reply)
		require.Equal(t, 1, n)
		require.NotNil(t, s.Err)
		if reply.Status == 200 && strings.Contains(string(reply.Body), "content") {
			continue
		}
		s, n = run(t, e, Operation{Kind: KindSearch, Query: "q", Config: cfg}, &reply)
		require.Equal(t, 1, n)
		require.NotNil(t, s.Err)
	}
	require.Equal(t, CacheStats{}, e.CacheStats())

	// A cancelled fetch keeps nothing either.
	s := e.Start(Operation{Kind: KindFetch, URL: "https://go.dev/x", Config: cfg, APIKey: testKey})
	e.Cancel(s.Handle)
	require.Equal(t, CacheStats{}, e.CacheStats())

	// A page whose offset was past its end is kept (the page was fine), the
	// error is not: the next call is answered from the cache.
	s, n := run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/x", Offset: 10, Config: cfg}, pageReply(t, "", "short"))
	require.Equal(t, 1, n)
	require.EqualError(t, s.Err, "DeepSeek Fetch: offset 10 is past the end of the page: it has 5 characters (the last offset is 4)")
	s, n = run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/x", Config: cfg}, nil)
	require.Zero(t, n)
	require.Equal(t, "short", s.Result.Fetch.Text)
}

func TestCacheExpiry(t *testing.T) {
	e, clk := cachingEngine()
	cfg := mustConfig(t, Options{})
	fetchA := func(reply *Reply) int {
		_, n := run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/a", Config: cfg}, reply)
		return n
	}
	require.Equal(t, 1, fetchA(pageReply(t, "", "a")))
	// 15 minutes since the last use, not since the fetch.
	for i := 0; i < 3; i++ {
		clk.advance(15*time.Minute - time.Second)
		require.Zero(t, fetchA(nil), "used %d times", i)
	}
	clk.advance(15 * time.Minute)
	require.Equal(t, 1, fetchA(pageReply(t, "", "a")))
	require.Equal(t, 1, e.CacheStats().Pages)

	// A shorter cacheTTL applies to the calls made with it.
	short := mustConfig(t, Options{CacheTTL: intPtr(1)})
	clk.advance(time.Minute)
	_, n := run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/a", Config: short}, pageReply(t, "", "a"))
	require.Equal(t, 1, n)

	// Searches live 5 minutes from the request, however often they are used.
	search := func(reply *Reply) int {
		_, n := run(t, e, Operation{Kind: KindSearch, Query: "wasi", Config: cfg}, reply)
		return n
	}
	body := okReply(resultsBody(t, item{URL: "https://a.example/", Title: "A", Summary: "s"}))
	require.Equal(t, 1, search(&body))
	clk.advance(4 * time.Minute)
	require.Zero(t, search(nil))
	clk.advance(time.Minute - time.Second)
	require.Zero(t, search(nil))
	clk.advance(time.Second)
	require.Equal(t, 1, search(&body))
}

func TestCacheOff(t *testing.T) {
	for _, o := range []Options{{CacheTTL: intPtr(0)}, {CacheMaxMB: intPtr(0)}} {
		e, _ := cachingEngine()
		cfg := mustConfig(t, o)
		require.Zero(t, cfg.CacheTTLMinutes)
		require.Zero(t, cfg.CacheMaxBytes)
		for i := 0; i < 2; i++ {
			_, n := run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/a", Config: cfg}, pageReply(t, "", "a"))
			require.Equal(t, 1, n)
			body := okReply(resultsBody(t))
			_, n = run(t, e, Operation{Kind: KindSearch, Query: "q", Config: cfg}, &body)
			require.Equal(t, 1, n)
		}
		require.Equal(t, CacheStats{}, e.CacheStats())
	}
	// No clock, no cache.
	e := NewEngine(Env{})
	for i := 0; i < 2; i++ {
		_, n := run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/a"}, pageReply(t, "", "a"))
		require.Equal(t, 1, n)
	}
}

func TestCacheSearch(t *testing.T) {
	e, _ := cachingEngine()
	cfg := mustConfig(t, Options{})
	body := okReply(resultsBody(t, item{URL: "https://a.example/", Title: "A", Summary: "first"}, item{URL: "https://b.example/", Title: "B", Summary: "second", Rerank: 0.4}))
	s, n := run(t, e, Operation{Kind: KindSearch, Query: "  wasi  ", Config: cfg}, &body)
	require.Equal(t, 1, n)
	want := s.Result.Search
	require.False(t, want.Cached)
	first := *want
	first.Hits = append([]Hit(nil), want.Hits...)
	want.Hits[0].Title = "edited by the first caller"
	want = &first

	// The same final query (after trimming) with the same options.
	s, n = run(t, e, Operation{Kind: KindSearch, Query: "wasi", Config: cfg}, nil)
	require.Zero(t, n)
	got := s.Result.Search
	require.True(t, got.Cached)
	got.Cached = false
	require.Equal(t, want, got)

	for _, tt := range []struct {
		name string
		op   Operation
	}{
		{"another query", Operation{Kind: KindSearch, Query: "wasi preview", Config: cfg}},
		{"another count", Operation{Kind: KindSearch, Query: "wasi", Config: mustConfig(t, Options{MaxResults: 5})}},
		{"a filter applied afterwards", Operation{Kind: KindSearch, Query: "wasi", Config: mustConfig(t, Options{MinRerank: 1})}},
		{"shorter summaries", Operation{Kind: KindSearch, Query: "wasi", Config: mustConfig(t, Options{MaxSummaryChars: 100})}},
		{"the user's question", Operation{Kind: KindSearch, Query: "wasi", OriQuestion: "is WASI stable?", Config: cfg}},
		{"an operator", Operation{Kind: KindSearch, Query: "wasi", Config: mustConfig(t, Options{Language: "en"})}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, n := run(t, e, tt.op, &body)
			require.Equal(t, 1, n)
		})
	}
	// A cached answer handed out is the caller's: editing it changes nothing.
	s, _ = run(t, e, Operation{Kind: KindSearch, Query: "wasi", Config: cfg}, nil)
	s.Result.Search.Hits[0].Title = "edited"
	s, _ = run(t, e, Operation{Kind: KindSearch, Query: "wasi", Config: cfg}, nil)
	require.Equal(t, "A", s.Result.Search.Hits[0].Title)
}

func TestCacheLRUEviction(t *testing.T) {
	e, clk := cachingEngine()
	cfg := mustConfig(t, Options{})
	url := func(i int) string { return fmt.Sprintf("https://go.dev/p/%d", i) }
	for i := 0; i < MaxCachedPages; i++ {
		run(t, e, Operation{Kind: KindFetch, URL: url(i), Config: cfg}, pageReply(t, "", "page"))
		clk.advance(time.Second)
	}
	require.Equal(t, MaxCachedPages, e.CacheStats().Pages)
	// Page 0 is used again; a new page then evicts page 1, the least
	// recently used.
	_, n := run(t, e, Operation{Kind: KindFetch, URL: url(0), Config: cfg}, nil)
	require.Zero(t, n)
	run(t, e, Operation{Kind: KindFetch, URL: url(MaxCachedPages), Config: cfg}, pageReply(t, "", "page"))
	require.Equal(t, MaxCachedPages, e.CacheStats().Pages)
	_, n = run(t, e, Operation{Kind: KindFetch, URL: url(0), Config: cfg}, nil)
	require.Zero(t, n)
	_, n = run(t, e, Operation{Kind: KindFetch, URL: url(1), Config: cfg}, pageReply(t, "", "page"))
	require.Equal(t, 1, n)

	// The byte budget: 1 MiB holds three pages of 300,000 bytes.
	small := mustConfig(t, Options{CacheMaxMB: intPtr(1)})
	e, _ = cachingEngine()
	big := strings.Repeat("x", 300000)
	for i := 0; i < 5; i++ {
		run(t, e, Operation{Kind: KindFetch, URL: url(i), Config: small}, pageReply(t, "", big))
	}
	st := e.CacheStats()
	require.Equal(t, 3, st.Pages)
	require.LessOrEqual(t, st.Bytes, int64(1<<20))
	_, n = run(t, e, Operation{Kind: KindFetch, URL: url(4), Config: small}, nil)
	require.Zero(t, n)
	// A page larger than the whole budget is served but not kept.
	run(t, e, Operation{Kind: KindFetch, URL: url(9), Config: small}, pageReply(t, "", strings.Repeat("y", 1<<20)))
	require.Equal(t, st, e.CacheStats())
}

// TestCacheMemoryBound fetches 1,000 distinct pages (and searches) through
// one engine: the cache never holds more than 64 pages, 32 searches or its
// byte budget. Pages are scaled to a 4 MiB budget to keep the test quick;
// the default 64 MiB budget is then filled with 1.5 MB pages.
func TestCacheMemoryBound(t *testing.T) {
	for _, tt := range []struct {
		name   string
		maxMB  *int
		budget int64
		pages  int
		sizes  []int
	}{
		{"1,000 pages, 4 MiB", intPtr(4), 4 << 20, 1000, []int{100, 600, 120_000, 310_000, 200, 900, 100, 100, 100, 50}},
		{"100 pages, the default 64 MiB", nil, 64 << 20, 100, []int{1_500_000}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, clk := cachingEngine()
			cfg := mustConfig(t, Options{CacheMaxMB: tt.maxMB})
			bodies := make([]*Reply, len(tt.sizes))
			for i, n := range tt.sizes {
				bodies[i] = pageReply(t, "T", strings.Repeat("a", n))
			}
			search := okReply(resultsBody(t, item{URL: "https://a.example/", Title: "A", Summary: strings.Repeat("s", 1000)}))
			most := CacheStats{}
			for i := 0; i < tt.pages; i++ {
				s, n := run(t, e, Operation{Kind: KindFetch, URL: fmt.Sprintf("https://go.dev/%d", i), Config: cfg}, bodies[i%len(bodies)])
				require.Equal(t, 1, n)
				require.Nil(t, s.Err)
				_, n = run(t, e, Operation{Kind: KindSearch, Query: fmt.Sprintf("q%d", i), Config: cfg}, &search)
				require.Equal(t, 1, n)
				st := e.CacheStats()
				require.LessOrEqual(t, st.Pages, MaxCachedPages)
				require.LessOrEqual(t, st.Searches, MaxCachedSearches)
				require.LessOrEqual(t, st.Bytes, tt.budget)
				most.Pages, most.Bytes = max(most.Pages, st.Pages), max(most.Bytes, st.Bytes)
				clk.advance(time.Second)
			}
			require.Equal(t, MaxCachedSearches, e.CacheStats().Searches)
			if len(tt.sizes) > 1 {
				require.Equal(t, MaxCachedPages, most.Pages, "small pages fill the 64 entries")
			} else {
				require.Greater(t, most.Bytes, tt.budget*9/10, "the budget is used, not left idle")
			}
		})
	}
}

func TestCacheKeyNeverPrintsTheAPIKey(t *testing.T) {
	// A proxy whose path holds the key is the only way a key can reach a
	// cache key's text: queries and URLs holding it are refused earlier.
	cfg := mustConfig(t, Options{BaseURL: "https://proxy.example/" + testKey})
	o, err := prepare(Operation{Kind: KindFetch, URL: "https://go.dev/", Config: cfg, APIKey: testKey})
	require.Nil(t, err)
	k := fetchKey(o)
	require.Equal(t, "fetch https://proxy.example/[redacted]/v1/tools/fetch https://go.dev/", k.String())
	for _, printed := range []string{k.String(), fmt.Sprint(k), fmt.Sprintf("%v %+v %s", k, k, k)} {
		require.NotContains(t, printed, testKey)
		require.NotContains(t, printed, "0123456789abcdef")
	}
	o, err = prepare(Operation{Kind: KindSearch, Query: "wasi", Config: cfg, APIKey: testKey})
	require.Nil(t, err)
	k = searchKey(o)
	require.Equal(t, `search https://proxy.example/[redacted]/v1/tools/search {"query":"wasi","count":10,"need_content":false} maxResults=10 messagesSummary=false minRerank=0 minAuthority=0 allowUnknownAuthority=true maxSummaryChars=1200 includeDomains= blockedDomains=`, k.String())
	require.NotContains(t, fmt.Sprintf("%v %+v", k, k), testKey)
	// The credential still tells two keys apart.
	o2, _ := prepare(Operation{Kind: KindSearch, Query: "wasi", Config: cfg, APIKey: testKey + "0"})
	require.NotEqual(t, k, searchKey(o2))
}

func TestCacheDrop(t *testing.T) {
	e, _ := cachingEngine()
	run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/a"}, pageReply(t, "", "a"))
	require.Equal(t, 1, e.CacheStats().Pages)
	e.DropCache()
	require.Equal(t, CacheStats{}, e.CacheStats())
	_, n := run(t, e, Operation{Kind: KindFetch, URL: "https://go.dev/a"}, pageReply(t, "", "a"))
	require.Equal(t, 1, n)
}

func TestCacheConcurrentUse(t *testing.T) {
	e, clk := cachingEngine()
	// Eight at once: within the admission limits.
	cfg := mustConfig(t, Options{CacheMaxMB: intPtr(1), MaxHeldMB: 128})
	body := okReply(fetchBodyJSON(t, "", strings.Repeat("z", 100_000)))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				s := e.Start(Operation{Kind: KindFetch, URL: fmt.Sprintf("https://go.dev/%d", (g*7+i)%40), Offset: i % 3 * 1000, Config: cfg, APIKey: testKey})
				for !s.Done {
					s = e.Resume(s.Handle, body)
				}
				if s.Err != nil {
					panic(s.Err)
				}
				clk.advance(time.Millisecond)
			}
		}(g)
	}
	wg.Wait()
	st := e.CacheStats()
	require.LessOrEqual(t, st.Bytes, int64(1<<20))
	require.Greater(t, st.Pages, 0)
}

func TestCacheOptions(t *testing.T) {
	o, _, err := ParseOptions([]byte(`{"cacheTTL": 30, "cacheMaxMB": 8}`))
	require.NoError(t, err)
	cfg := mustConfig(t, o)
	require.Equal(t, 30, cfg.CacheTTLMinutes)
	require.Equal(t, int64(8<<20), cfg.CacheMaxBytes)
	o, _, err = ParseOptions([]byte(`{"cacheTTL": 0}`))
	require.NoError(t, err)
	require.Zero(t, mustConfig(t, o).CacheMaxBytes)
	for _, tt := range []struct{ in, want string }{
		{`{"cacheTTL": 61}`, `option "cacheTTL": want a whole number from 0 to 60, got 61`},
		{`{"cacheTTL": -1}`, `option "cacheTTL": want a whole number from 0 to 60, got -1`},
		{`{"cacheTTL": 1.5}`, `option "cacheTTL": want a whole number, got 1.5`},
		{`{"cacheMaxMB": 65}`, `option "cacheMaxMB": want a whole number from 0 to 64, got 65`},
		{`{"cacheMaxMB": "big"}`, `option "cacheMaxMB": want a whole number, got "big"`},
	} {
		_, _, err := ParseOptions([]byte(tt.in))
		require.EqualError(t, err, tt.want)
	}
	_, _, err = NewConfig(Options{CacheMaxMB: intPtr(100)})
	require.EqualError(t, err, `option "cacheMaxMB": want a whole number from 0 to 64, got 100`)
	_, warnings, err := ParseOptions([]byte(`{"cachettl": 5}`))
	require.NoError(t, err)
	require.Equal(t, []string{`unknown option "cachettl" ignored (did you mean "cacheTTL"?)`}, warnings)
}
