package core

import "strings"

// Kind names an operation.
type Kind string

// Operation kinds.
const (
	KindSearch Kind = "search"
	KindFetch  Kind = "fetch"
)

// Handle identifies an operation in flight within one [Engine]. Handles are
// never zero and are not reused while the engine lives.
type Handle uint32

// Operation is what a host asks the engine to do.
type Operation struct {
	Kind Kind
	// Query is the search query (KindSearch).
	Query string
	// OriQuestion is the user's original question, when the host has it
	// (KindSearch). It is trimmed, clamped to 128 code points and omitted
	// when blank.
	OriQuestion string
	// URL is the page to fetch (KindFetch).
	URL string
	// Format is the requested fetch format; "" and "markdown" are accepted.
	Format string
	// Offset is where the part to return starts, in code points into the
	// page (KindFetch); 0 is the start. See [Page.Part].
	Offset int
	// ContinueHint ends the line that tells the reader how to read on, with
	// "{offset}" for the next offset (KindFetch); "" means
	// [DefaultContinueHint], which names the deepseek_fetch tool.
	ContinueHint string
	// Config holds the resolved options. Nil means all defaults.
	Config *Config
	// APIKey is the credential the host resolved for this call ("" when
	// none is set). It is sent only in the Authorization header of requests
	// to Config.BaseURL.
	APIKey string
}

// Step is what the engine asks of the host next: either an HTTP request to
// perform (Request non-nil) or the end of the operation (Done).
type Step struct {
	Handle Handle
	// Request is non-nil when the host must perform it and call
	// [Engine.Resume] with the outcome.
	Request *Request
	// Done is true when the operation has ended; its handle is released.
	Done bool
	// Result is set on success; Err on failure.
	Result *Result
	Err    *Error
}

// Request is one HTTP attempt the host must perform.
type Request struct {
	// DelayMs is how long to wait before sending, in milliseconds (0 for the
	// first attempt; backoff or Retry-After on retries). A cancel during the
	// wait ends the operation.
	DelayMs int64
	Method  string
	URL     string
	Header  []HeaderField
	Body    []byte
	// TimeoutMs bounds the whole attempt: connect, headers and body.
	TimeoutMs int64
	// MaxBytes is the largest body the host may read; a larger body must be
	// reported as [ReplyTooLarge] without buffering past the cap.
	MaxBytes int64
	// FollowRedirects is always false: a 3xx is reported as it is.
	FollowRedirects bool
	// Attempt counts from 1.
	Attempt int
}

// HeaderField is one request or response header.
type HeaderField struct {
	Name, Value string
}

// ReplyKind says how an HTTP attempt ended.
type ReplyKind string

// How an attempt can end.
const (
	// ReplyResponse: a response arrived (any status), body read in full.
	ReplyResponse ReplyKind = "response"
	// ReplyNetwork: connecting, sending or reading failed.
	ReplyNetwork ReplyKind = "network"
	// ReplyTimeout: the attempt's TimeoutMs ran out.
	ReplyTimeout ReplyKind = "timeout"
	// ReplyTooLarge: the body exceeded MaxBytes.
	ReplyTooLarge ReplyKind = "too_large"
	// ReplyCancelled: the host cancelled the call.
	ReplyCancelled ReplyKind = "cancelled"
)

// Reply is the host's account of one HTTP attempt.
type Reply struct {
	Kind ReplyKind
	// Status, Header and Body describe the response (ReplyResponse).
	// The engine keeps no part of Header or Body once Resume has returned
	// (what it keeps, it copies): a host may reuse their memory.
	Status int
	Header []HeaderField
	Body   []byte
	// Message describes a network failure (ReplyNetwork); optional.
	Message string
}

// Get returns the first value of the named header (case-insensitive).
func (r *Reply) Get(name string) string {
	for _, h := range r.Header {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// Result is a successful operation's outcome. Exactly one field is set.
type Result struct {
	Search *SearchResult
	Fetch  *FetchResult
}

// SearchResult is the processed answer to a search. Its JSON
// ([SearchResult.AppendJSON]) adds the text the model is shown.
type SearchResult struct {
	// Query is the query as sent, operators included.
	Query string `json:"query"`
	// Hits keep DeepSeek's order after de-duplication and filtering.
	Hits []Hit `json:"results"`
	// Cached is true when the answer came from the engine's cache, with no
	// request to DeepSeek.
	Cached bool `json:"cached"`

	// The fields below are set by the Messages backend (messages.go) only.

	// Summary is DeepSeek's own prose, when messagesSummary is on.
	Summary string `json:"summary,omitempty"`
	// Dropped counts the results maxResults left out.
	Dropped int `json:"dropped,omitempty"`
	// Notes are sentences about an incomplete answer: searches that failed
	// beside ones that ran, a turn paused or cut at max_tokens.
	Notes []string `json:"notes,omitempty"`
	// Usage is what the call cost; nil on the Search API.
	Usage *Usage `json:"usage,omitempty"`
}

// Hit is one search result.
type Hit struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	// Text is the summary (or snippet), whitespace-collapsed and cut to
	// MaxSummaryChars code points.
	Text string `json:"text"`
	// Rerank is DeepSeek's 0–3 score; nil when missing.
	Rerank *float64 `json:"rerank,omitempty"`
	// Authority is 0–4, -1 for unknown; nil when missing.
	Authority *float64 `json:"authority,omitempty"`
	// Site is site_name; "" when missing.
	Site string `json:"site,omitempty"`
	// Date is the raw date string.
	Date string `json:"date,omitempty"`
	// Published is Date's instant in Unix milliseconds; 0 when Date is
	// missing or does not parse (a date of exactly 1970-01-01T00:00:00Z
	// reads as none). See [Hit.PublishedMs].
	Published int64 `json:"published,omitempty"`
	// FoundBy is the query that found the hit when one call searched
	// several ([MergeSearches]); "" for a single query.
	FoundBy string `json:"foundBy,omitempty"`
}

// FetchResult is a fetched page, formatted for the model, and its JSON
// ([FetchResult.AppendJSON]).
type FetchResult struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	// Text is the part of the formatted page that was asked for (see
	// [Page.Part]): the title heading only at offset 0, and the continue
	// line "[content truncated: …]" when more follows.
	Text string `json:"text"`
	// Chars is the length of Text in code points.
	Chars int `json:"chars"`
	// Truncated is true when more of the page follows this part.
	Truncated bool `json:"truncated"`
	// Offset is where this part starts in the page, in code points.
	Offset int `json:"offset"`
	// NextOffset is where the next part starts; 0 when this part is the
	// last.
	NextOffset int `json:"nextOffset,omitempty"`
	// TotalChars is the whole page's length in code points.
	TotalChars int `json:"totalChars"`
	// Cached is true when the page came from the engine's cache, with no
	// request to DeepSeek.
	Cached bool `json:"cached"`
}
