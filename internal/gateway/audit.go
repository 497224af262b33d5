package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// AuditRecord is one audit line: one tool call.
type AuditRecord struct {
	// Time is when the call started (written in UTC, RFC 3339 with
	// milliseconds).
	Time time.Time
	// Member is the authenticated member's name.
	Member string
	// Tool is the tool called (search, fetch).
	Tool string
	// Query is the search query; URL the fetched URL. Empty ones are
	// left out.
	Query, URL string
	// Outcome is how the call ended.
	Outcome CallOutcome
	// Error is the error text given to the member, if any.
	Error string
	// Status is DeepSeek's last HTTP status (0: no request was made).
	Status int
	// Bytes is the size of the answer given to the member, in bytes.
	Bytes int64
	// Billed reports whether DeepSeek bills the call's requests.
	Billed bool
	// Cache says where the answer came from: hit, coalesced or
	// computed (see [Source]).
	Cache Source
	// Duration is how long the call took.
	Duration time.Duration
}

// auditLine is the JSON shape of an AuditRecord; its field order is the line's.
type auditLine struct {
	Time       string `json:"time"`
	Member     string `json:"member"`
	Tool       string `json:"tool"`
	Query      string `json:"query,omitempty"`
	URL        string `json:"url,omitempty"`
	Outcome    string `json:"outcome"`
	Error      string `json:"error,omitempty"`
	Status     int    `json:"deepseek_status"`
	Bytes      int64  `json:"bytes"`
	Billed     bool   `json:"billed"`
	CacheHit   bool   `json:"cache_hit"`
	Coalesced  bool   `json:"coalesced"`
	DurationMS int64  `json:"duration_ms"`
}

// maxAuditField is the most bytes of a string field an audit line holds
// (after masking); a longer one is cut there and marked with its length.
const maxAuditField = 1024

// Audit writes one JSON line per call to an io.Writer. Every string field
// goes through the mask function first, and so does the finished line, so
// a key or token pasted into a query, a URL or an error text is masked
// whatever JSON escaping does to it. A field longer than 1 KiB is cut
// there and ends "… (N bytes, truncated)", N its length as the member
// sent it: a call refused for a 4 MB query costs a short line, not 4 MB of
// log. Safe for concurrent use: each line is one Write.
type Audit struct {
	mask func(string) string

	mu sync.Mutex
	w  io.Writer
}

// NewAudit returns an Audit writing to w. mask replaces secrets in a
// string (for the API key, core.NewRedactor(key).Mask); nil masks nothing.
func NewAudit(w io.Writer, mask func(string) string) *Audit {
	if mask == nil {
		mask = func(s string) string { return s }
	}
	return &Audit{w: w, mask: mask}
}

// Log writes r as one line.
func (a *Audit) Log(r AuditRecord) error {
	l := auditLine{
		Time:       r.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Member:     a.field(r.Member),
		Tool:       a.field(r.Tool),
		Query:      a.field(r.Query),
		URL:        a.field(r.URL),
		Outcome:    a.field(string(r.Outcome)),
		Error:      a.field(r.Error),
		Status:     r.Status,
		Bytes:      r.Bytes,
		Billed:     r.Billed,
		CacheHit:   r.Cache == CacheHit,
		Coalesced:  r.Cache == Coalesced,
		DurationMS: r.Duration.Milliseconds(),
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	line := []byte(a.mask(buf.String()))
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.w.Write(line); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// field masks s, then cuts it to maxAuditField bytes (masking first, so
// no cut leaves part of a secret that the mask would no longer know).
func (a *Audit) field(s string) string {
	m := a.mask(s)
	if len(m) <= maxAuditField {
		return m
	}
	cut := maxAuditField
	for cut > 0 && !utf8.RuneStart(m[cut]) {
		cut--
	}
	return m[:cut] + "… (" + strconv.Itoa(len(s)) + " bytes, truncated)"
}
