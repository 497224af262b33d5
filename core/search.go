package core

import (
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/date"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/host"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/weburl"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/wire"
)

// processSearch turns a search response body into results (SPEC §2.4–2.5).
// redact masks the API key in every field before anything is cut.
func processSearch(body []byte, query string, cfg *Config, redact func(string) string) (*SearchResult, error) {
	items, err := wire.DecodeSearch(body)
	if err != nil {
		return nil, err
	}
	for i := range items {
		it := &items[i]
		for _, f := range []*string{&it.URL, &it.Title, &it.Snippet, &it.Summary, &it.Date, &it.SiteName} {
			*f = redact(*f)
		}
	}
	res := &SearchResult{Query: query, Hits: make([]Hit, 0, min(len(items), cfg.MaxResults))}
	// The hits' scores point into one array rather than an allocation each
	// (twenty of a ten-result step's; allocating is dear in WebAssembly).
	scores := make([]float64, 0, 2*cap(res.Hits))
	seen := make(map[string]struct{}, len(items))
	withheld := 0
	var u weburl.URL // each result's, parsed in place rather than allocated
	for _, it := range items {
		if len(res.Hits) == cfg.MaxResults {
			break
		}
		host, key, ok := resultHostKey(it.URL, &u)
		if !ok {
			continue
		}
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		if !domainAllowed(host, cfg.IncludeDomains, cfg.BlockedDomains) {
			continue
		}
		if !passesThresholds(it, cfg) {
			continue
		}
		if refusedResult(it.URL) {
			withheld++
			continue
		}
		h := Hit{
			URL:   strings.TrimSpace(it.URL),
			Title: collapse(it.Title),
			Site:  collapse(it.SiteName),
			Date:  strings.TrimSpace(it.Date),
		}
		text := it.Summary
		if strings.TrimSpace(text) == "" {
			text = it.Snippet
		}
		h.Text = ellipsize(collapseN(text, cfg.MaxSummaryChars+1), cfg.MaxSummaryChars)
		if it.HasRerank {
			scores = append(scores, it.Rerank)
			h.Rerank = &scores[len(scores)-1]
		}
		if it.HasAuthority {
			scores = append(scores, it.Authority)
			h.Authority = &scores[len(scores)-1]
		}
		h.Published, _ = parseDate(h.Date)
		res.Hits = append(res.Hits, h)
	}
	res.noteWithheld(withheld)
	return res, nil
}

// refusedResult reports whether the fetch URL policy (CheckFetchURL,
// without domain lists) refuses a result's URL: a private, local,
// link-local or loopback host in any spelling, a user name or password, or
// a URL parsers read differently. Such a result is withheld: a model handed
// it might pass it to a fetch tool that does not refuse it. A URL written
// plainly (weburl.PlainHTTP, host.ParsesUnchanged), as nearly all are, is
// judged by its name alone; FuzzRefusedResult holds that to CheckFetchURL.
func refusedResult(raw string) bool {
	raw = strings.TrimSpace(raw)
	if h, ok := weburl.PlainHTTP(raw); ok && host.ParsesUnchanged(h) && len(raw) <= MaxURLChars && printableASCII(raw) {
		return privateHost(h) != ""
	}
	_, err := CheckFetchURL(raw, nil, nil)
	return err != nil
}

// printableASCII reports whether s is all printable ASCII (space to ~).
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// noteWithheld tells the model how many results refusedResult withheld
// and why, in one line among the notes.
func (r *SearchResult) noteWithheld(n int) {
	switch {
	case n == 1:
		r.Notes = append(r.Notes, withheldOne)
	case n > 1:
		r.Notes = append(r.Notes, "("+strconv.Itoa(n)+withheldMany)
	}
}

// The note of withheld results (SearchResult.Notes).
const (
	withheldOne  = "(1 result withheld: its URL points at a private or local address or carries a user name or password.)"
	withheldMany = " results withheld: their URLs point at private or local addresses or carry a user name or password.)"
)

// resultURL accepts absolute http(s) URLs with a host, read as Go's
// net/url reads them.
func resultURL(raw string) (*weburl.URL, string, bool) {
	u := new(weburl.URL)
	host, ok := parseResultURL(raw, u)
	if !ok {
		return nil, "", false
	}
	return u, host, true
}

// parseResultURL is resultURL into u: processSearch keeps one URL for all
// its results rather than allocating one per result (ten allocations of a
// ten-result step; allocating is dear in WebAssembly).
func parseResultURL(raw string, u *weburl.URL) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > MaxURLChars {
		return "", false
	}
	if !u.Parse(raw) || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return "", false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return "", false
	}
	return canonicalHost(host), true
}

// resultHostKey is parseResultURL, then dedupKey: a result's host and
// dedup key. A URL written plainly (plainURL), as search results' URLs
// usually are, is not parsed at all, which shortens every search step
// (BenchmarkResultURL). FuzzResultKey checks that both ways agree.
func resultHostKey(raw string, u *weburl.URL) (host, key string, ok bool) {
	if host, key, ok = plainURL(strings.TrimSpace(raw)); ok {
		return host, key, true
	}
	if host, ok = parseResultURL(raw, u); !ok {
		return "", "", false
	}
	return host, dedupKey(u), true
}

// plainURL reads the host and dedup key of a trimmed URL that
// parseResultURL accepts and that is written as dedupKey prints it
// (weburl.PlainHTTP) with a plain host: the key is the URL up to its
// fragment. It reports false for any other URL, which its callers parse
// (processSearch's results, fetchKey's pages).
func plainURL(raw string) (hostname, key string, ok bool) {
	if len(raw) > MaxURLChars {
		return "", "", false
	}
	if hostname, ok = weburl.PlainHTTP(raw); !ok || !host.ParsesUnchanged(hostname) {
		return "", "", false
	}
	key, _, _ = strings.Cut(raw, "#")
	return hostname, key, true
}

// canonicalHost spells a result's host the way normalizeDomain spells domain
// list entries (Punycode names, canonical addresses), so that blockedDomains
// and includeDomains match every spelling; a host the WHATWG parser rejects
// is compared as it is.
func canonicalHost(h string) string {
	in := h
	if strings.Contains(h, ":") {
		in = "[" + h + "]"
	}
	p, err := host.Parse(in)
	switch {
	case err != nil:
		return h
	case p.IsAddr():
		return p.Addr().String()
	}
	return p.Name()
}

// dedupKey is the URL with scheme and host lower-cased and no fragment.
func dedupKey(u *weburl.URL) string {
	c := *u
	c.Scheme = strings.ToLower(c.Scheme)
	c.Host = strings.ToLower(c.Host)
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// domainAllowed applies blockedDomains and, when set, includeDomains.
func domainAllowed(host string, include, blocked []string) bool {
	for _, d := range blocked {
		if matchDomain(host, d) {
			return false
		}
	}
	if len(include) == 0 {
		return true
	}
	for _, d := range include {
		if matchDomain(host, d) {
			return true
		}
	}
	return false
}

func passesThresholds(it wire.SearchItem, cfg *Config) bool {
	if cfg.MinRerank > 0 && (!it.HasRerank || it.Rerank < cfg.MinRerank) {
		return false
	}
	if cfg.MinAuthority > 0 {
		unknown := !it.HasAuthority || it.Authority == -1
		if unknown {
			return cfg.AllowUnknownAuthority
		}
		return it.Authority >= cfg.MinAuthority
	}
	return true
}

// parseDate reads an RFC 3339 date, also accepting a bare date or a
// space instead of the T, as Unix milliseconds. It returns false when
// nothing parses, or when the first layout that parses gives January 1 of
// year 1, 00:00 UTC (the zero time.Time that meant "no date" before
// core/internal/date replaced package time; kept so results do not move).
func parseDate(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	t, ok := date.ParseRFC3339(s)
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02"} {
		if ok {
			break
		}
		t, ok = date.Parse(layout, s)
	}
	if !ok || t.IsZero() {
		return 0, false
	}
	return t.UnixMilli(), true
}
