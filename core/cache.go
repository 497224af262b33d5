package core

import (
	"container/list"
	"hash/maphash"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/weburl"
)

// Bounds of an engine's cache that no option raises. See RATIONALE.md.
const (
	// MaxCachedPages is the most pages one engine keeps.
	MaxCachedPages = 64
	// MaxCachedSearches is the most search answers one engine keeps.
	MaxCachedSearches = 32
	// SearchCacheTTLMinutes is how long, in minutes, an identical search is
	// answered from the cache, counted from the request that filled it
	// (never extended by use); a shorter cacheTTL shortens it.
	SearchCacheTTLMinutes = 5
)

// setCache applies the cacheTTL (minutes) and cacheMaxMB (MiB) options;
// either one at 0 turns caching off.
func (c *Config) setCache(ttl, maxMB *int) error {
	if ttl != nil {
		if err := checkRange("cacheTTL", *ttl); err != nil {
			return &OptionError{Option: "cacheTTL", Reason: err.Error()}
		}
		c.CacheTTLMinutes = *ttl
	}
	if maxMB != nil {
		if err := checkRange("cacheMaxMB", *maxMB); err != nil {
			return &OptionError{Option: "cacheMaxMB", Reason: err.Error()}
		}
		c.CacheMaxBytes = int64(*maxMB) << 20
	}
	if c.CacheTTLMinutes == 0 || c.CacheMaxBytes == 0 {
		c.CacheTTLMinutes, c.CacheMaxBytes = 0, 0
	}
	return nil
}

// cacheTTLMs is CacheTTLMinutes in milliseconds.
func (c *Config) cacheTTLMs() int64 { return int64(c.CacheTTLMinutes) * minuteMs }

// CacheStats describes what an engine's cache holds.
type CacheStats struct {
	Pages, Searches int
	// Bytes is the memory the entries are counted as, an estimate that
	// includes the pages' text, their offset index and the keys.
	Bytes int64
}

// CacheStats returns what the engine's cache holds now.
func (e *Engine) CacheStats() CacheStats {
	c := e.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Pages: c.pages, Searches: c.searches, Bytes: c.bytes}
}

// DropCache empties the engine's cache. Hosts call it when something went
// wrong under a call (a recovered panic), so no half-updated entry survives.
func (e *Engine) DropCache() {
	c := e.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reset()
}

// cacheKey identifies a cached answer: what was asked, of which DeepSeek
// endpoint, with the options that change the answer, and by which
// credential (a seeded 64-bit hash of the API key, so one key's answers are
// never served to a call with another, and the key itself is not kept).
// Only text is ever printed.
type cacheKey struct {
	text string
	cred uint64
}

// credSeed seeds the credential hash; it is random per process.
var credSeed = maphash.MakeSeed()

// String is the key's printed form; it never holds the API key.
func (k cacheKey) String() string { return k.text }

func newCacheKey(text, apiKey string) cacheKey {
	return cacheKey{text: maskKey(text, apiKey), cred: maphash.String(credSeed, apiKey)}
}

// fetchKey keys a page by the fetch endpoint and the page URL with scheme
// and host lower-cased and no fragment. FetchMaxChars and the offset are
// not part of it: the whole page is kept, and every part is cut from it.
func fetchKey(o *operation) cacheKey {
	page := o.url
	if _, key, plain := plainURL(page); o.urlChecked && plain {
		// As for search results: a URL CheckFetchURL accepted that is
		// written as dedupKey prints it, as nearly every one is, is its own
		// key up to the fragment, without a parse and a print (two
		// allocations). FuzzFetchKey checks it against them.
		page = key
	} else if u, ok := weburl.Parse(o.url); ok {
		page = dedupKey(u)
	}
	return newCacheKey("fetch "+o.request.URL+" "+page, o.key)
}

// cacheKey is o's key in the cache, built once: Start looks the answer up
// under it and remember stores it there (what it is built from is all set
// by prepare, before either).
func (o *operation) cacheKey() cacheKey {
	if o.ckey.text == "" {
		if o.kind == KindFetch {
			o.ckey = fetchKey(o)
		} else {
			o.ckey = searchKey(o)
		}
	}
	return o.ckey
}

// searchKey keys a search answer by the endpoint, the request body (final
// query, count, ori_question, localization) and the options applied to
// the results afterwards.
func searchKey(o *operation) cacheKey {
	c := o.cfg
	body := o.request.Body
	if o.messages != nil {
		// A paused turn's continuations change the request body.
		body = o.messages.first
	}
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	return newCacheKey("search "+o.request.URL+" "+string(body)+
		" maxResults="+strconv.Itoa(c.MaxResults)+
		" messagesSummary="+strconv.FormatBool(c.Messages.Summary)+
		" minRerank="+g(c.MinRerank)+
		" minAuthority="+g(c.MinAuthority)+
		" allowUnknownAuthority="+strconv.FormatBool(c.AllowUnknownAuthority)+
		" maxSummaryChars="+strconv.Itoa(c.MaxSummaryChars)+
		" includeDomains="+strings.Join(c.IncludeDomains, ",")+
		" blockedDomains="+strings.Join(c.BlockedDomains, ","), o.key)
}

type cacheEntry struct {
	key    cacheKey
	page   *Page         // a fetched page, or
	search *SearchResult // a search answer
	size   int64
	ttl    int64 // ms
	stored int64 // Unix ms when the answer arrived (searches expire from here)
	used   int64 // Unix ms of the last use (pages expire from here)
}

// lifetime is when e's life under ttl (ms) began (Unix ms) and how long it
// lasts (ms): searches live from their arrival and at most
// SearchCacheTTLMinutes, pages from their last use; e's own ttl bounds both.
func (e *cacheEntry) lifetime(ttl int64) (from, span int64) {
	if e.search != nil {
		return e.stored, min(ttl, e.ttl, SearchCacheTTLMinutes*minuteMs)
	}
	return e.used, min(ttl, e.ttl)
}

// expired reports whether e has outlived ttl (ms) or its own, at now (Unix
// ms).
func (e *cacheEntry) expired(now, ttl int64) bool {
	from, span := e.lifetime(ttl)
	return now-from >= span
}

// expiresAt is the first time (Unix ms) at which e.expired(t, e.ttl)
// holds, or 0 when e's times are outside [0, 2^62), where that sum could
// wrap (cache.expire then looks at every entry).
func (e *cacheEntry) expiresAt() int64 {
	from, span := e.lifetime(e.ttl)
	const limit = 1 << 62
	if from < 0 || from >= limit || span < 0 || span >= limit {
		return 0
	}
	return from + span
}

// minuteMs is a minute in milliseconds.
const minuteMs = 60_000

// cache is an engine's least-recently-used cache of pages and search
// answers, bounded in entries, bytes and age.
type cache struct {
	mu       sync.Mutex
	entries  map[cacheKey]*list.Element
	lru      list.List // of *cacheEntry, most recently used first
	bytes    int64
	pages    int
	searches int
	// soonest is at or before every entry's expiresAt: expire has nothing
	// to drop before then, so get and put do not walk every entry
	// (MaxCachedPages + MaxCachedSearches) each time.
	soonest int64
}

func newCache() *cache {
	return &cache{entries: make(map[cacheKey]*list.Element)}
}

func (c *cache) reset() {
	c.entries = make(map[cacheKey]*list.Element)
	c.lru.Init()
	c.bytes, c.pages, c.searches, c.soonest = 0, 0, 0, 0
}

func (c *cache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.entries, e.key)
	c.bytes -= e.size
	if e.page != nil {
		c.pages--
	} else {
		c.searches--
	}
}

// expire drops every entry past its own lifetime.
func (c *cache) expire(now int64) {
	if 0 <= now && now < c.soonest {
		return
	}
	soonest := int64(math.MaxInt64)
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if e := el.Value.(*cacheEntry); e.expired(now, e.ttl) {
			c.remove(el)
		} else {
			soonest = min(soonest, e.expiresAt())
		}
		el = next
	}
	c.soonest = soonest
}

// get returns the live entry for k, marking it used at now (Unix ms), or
// nil. ttl is in milliseconds.
func (c *cache) get(k cacheKey, now, ttl int64) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	el := c.entries[k]
	if el == nil {
		return nil
	}
	e := el.Value.(*cacheEntry)
	if e.expired(now, ttl) {
		c.remove(el)
		return nil
	}
	e.used, e.ttl = now, ttl
	c.soonest = min(c.soonest, e.expiresAt())
	c.lru.MoveToFront(el)
	return e
}

// put stores e as the most recently used entry, then evicts the least
// recently used ones until the cache holds at most maxBytes and the
// per-kind entry limits. An entry larger than maxBytes is not stored.
func (c *cache) put(e *cacheEntry, maxBytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(e.used)
	if el := c.entries[e.key]; el != nil {
		c.remove(el)
	}
	maxBytes = min(maxBytes, MaxCacheMB<<20)
	if e.size > maxBytes {
		return
	}
	c.entries[e.key] = c.lru.PushFront(e)
	c.soonest = min(c.soonest, e.expiresAt())
	c.bytes += e.size
	if e.page != nil {
		c.pages++
	} else {
		c.searches++
	}
	for el := c.lru.Back(); el != nil && (c.bytes > maxBytes || c.pages > MaxCachedPages || c.searches > MaxCachedSearches); {
		prev := el.Prev()
		v := el.Value.(*cacheEntry)
		over := c.bytes > maxBytes || v.page != nil && c.pages > MaxCachedPages || v.search != nil && c.searches > MaxCachedSearches
		if over && v != e {
			c.remove(el)
		}
		el = prev
	}
}

// caching reports whether o may use the cache.
func (e *Engine) caching(o *operation) bool {
	return e.env.Now != nil && o.cfg.CacheTTLMinutes > 0 && o.cfg.CacheMaxBytes > 0
}

// fromCache answers o from the cache when it can: a done step, and true.
func (e *Engine) fromCache(o *operation) (Step, bool) {
	if !e.caching(o) {
		return Step{}, false
	}
	now := e.env.Now()
	switch o.kind {
	case KindFetch:
		ent := e.cache.get(o.cacheKey(), now, o.cfg.cacheTTLMs())
		if ent == nil {
			return Step{}, false
		}
		r, err := partOf(ent.page, o.url, o.offset, o.cfg, o.hint)
		if err != nil {
			return Step{Done: true, Err: err}, true
		}
		r.Cached = true
		return Step{Done: true, Result: &Result{Fetch: r}}, true
	case KindSearch:
		ent := e.cache.get(o.cacheKey(), now, o.cfg.cacheTTLMs())
		if ent == nil {
			return Step{}, false
		}
		r := *ent.search
		r.Hits = append([]Hit(nil), r.Hits...)
		r.Notes = append([]string(nil), r.Notes...)
		r.Cached = true
		r.Usage = nil // a cached answer cost nothing
		return Step{Done: true, Result: &Result{Search: &r}}, true
	}
	return Step{}, false
}

// remember stores a page or a search answer o received. Errors are never
// stored.
func (o *operation) remember(page *Page, search *SearchResult, env Env) {
	if o.cache == nil {
		return
	}
	now := env.Now()
	e := &cacheEntry{page: page, search: search, ttl: o.cfg.cacheTTLMs(), stored: now, used: now}
	if page != nil {
		e.key = o.cacheKey()
		e.size = page.size()
	} else {
		// The caller gets res itself: keep a copy it cannot edit.
		cp := *search
		cp.Hits = append([]Hit(nil), search.Hits...)
		cp.Notes = append([]string(nil), search.Notes...)
		e.search, e.key, e.size = &cp, o.cacheKey(), searchSize(search)
	}
	e.size += int64(len(e.key.text)) + 128
	o.cache.put(e, o.cfg.CacheMaxBytes)
}

func searchSize(r *SearchResult) int64 {
	n := int64(len(r.Query) + len(r.Summary))
	for _, s := range r.Notes {
		n += int64(len(s))
	}
	for _, h := range r.Hits {
		n += int64(len(h.URL)+len(h.Title)+len(h.Text)+len(h.Site)+len(h.Date)) + 128
	}
	return n
}
