package core

import (
	"strconv"
	"strings"
)

// Several queries or pages in one call: deepseek_search's "queries" and
// deepseek_fetch's "urls". The host runs one operation per query or URL
// (concurrently, under the engine's admission limits, each cached and
// coalesced as alone) and joins their steps here, so every host words a
// batch the same way.

// Bounds of a batch.
const (
	// MaxBatchQueries is the most queries one search call takes.
	MaxBatchQueries = 4
	// MaxBatchURLs is the most pages one fetch call takes.
	MaxBatchURLs = 5
	// BatchFetchChars caps the pages of one fetch call together, in code
	// points, so the answer stays under what hosts accept (Claude Code
	// refuses an MCP result over 25,000 tokens by default): each page gets
	// an equal share, at most fetchMaxChars.
	BatchFetchChars = 60000
)

// BatchConfig is cfg for each page of a fetch of n pages: fetchMaxChars
// lowered to the page's share of BatchFetchChars.
func BatchConfig(cfg *Config, n int) *Config {
	if cfg == nil {
		cfg = defaultConfig
	}
	share := BatchFetchChars / max(n, 1)
	if n <= 1 || cfg.FetchMaxChars <= share {
		return cfg
	}
	c := *cfg
	c.FetchMaxChars = share
	return &c
}

// MergeSearches joins the answers to a call's queries into one result: the
// hits taken in turn from each query's list (each query's first, then
// each one's second, …), a URL already listed left out, each hit marked
// with the query that found it. A query that failed adds a note with its
// error. All failing is an error: the first query's.
func MergeSearches(queries []string, steps []Step) (*Result, *Error) {
	merged := &SearchResult{Query: strings.Join(queries, " | "), Cached: true}
	var lists [][]Hit
	var firstErr *Error
	for i, s := range steps {
		if s.Err != nil {
			if firstErr == nil {
				firstErr = s.Err
			}
			merged.Notes = append(merged.Notes, "The search for "+strconv.Quote(queries[i])+" failed: "+s.Err.Message)
			continue
		}
		r := s.Result.Search
		merged.Cached = merged.Cached && r.Cached
		merged.Notes = append(merged.Notes, r.Notes...)
		merged.Dropped += r.Dropped
		if r.Usage != nil {
			if merged.Usage == nil {
				merged.Usage = &Usage{}
			}
			merged.Usage.add(r.Usage)
		}
		hits := make([]Hit, len(r.Hits))
		for j, h := range r.Hits {
			h.FoundBy = queries[i]
			hits[j] = h
		}
		lists = append(lists, hits)
	}
	if len(lists) == 0 {
		return nil, firstErr
	}
	seen := map[string]bool{}
	for rank := 0; ; rank++ {
		more := false
		for _, l := range lists {
			if rank >= len(l) {
				continue
			}
			more = true
			if h := l[rank]; !seen[h.URL] {
				seen[h.URL] = true
				merged.Hits = append(merged.Hits, h)
			}
		}
		if !more {
			break
		}
	}
	return &Result{Search: merged}, nil
}

// JoinFetches joins the parts of a call's pages into one text, in the
// order of urls: each page under a line naming it, a page that failed
// with its error in its place. It is an error only when every page
// failed: the first page's.
func JoinFetches(urls []string, steps []Step) (string, *Error) {
	var b strings.Builder
	var firstErr *Error
	ok := 0
	for i, s := range steps {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("=== Page " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(urls)) + ": " + urls[i] + " ===\n\n")
		if s.Err != nil {
			if firstErr == nil {
				firstErr = s.Err
			}
			b.WriteString(s.Err.Message)
			continue
		}
		ok++
		b.WriteString(s.Result.Fetch.Text)
	}
	if ok == 0 {
		return "", firstErr
	}
	return b.String(), nil
}
