package tool

import (
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// Output is a finished call as a host that shows tool output receives it:
// text content for the model, a title for the host's UI (OpenCode 1.x
// shows it; 2.x results have none) and metadata for the host. It is what
// the module's "opencode.tool" kind returns.
type Output struct {
	Content string `json:"content"`
	Title   string `json:"title"`
	// Metadata is nil, a FetchMetadata, a PagesMetadata or a SearchMetadata.
	Metadata any `json:"metadata,omitempty"`
}

// FetchMetadata is deepseek_fetch's metadata: a [core.FetchResult] without its
// text. It has no "truncated" key on purpose: OpenCode 2.x skips its own
// output bound whenever that key is defined, with any value, and the bound
// (with the full text saved to a file) is worth keeping; contentTruncated
// says whether we cut the page.
type FetchMetadata struct {
	URL              string `json:"url"`
	Title            string `json:"title"`
	Chars            int    `json:"chars"`
	ContentTruncated bool   `json:"contentTruncated"`
	// Offset is where this part starts, NextOffset where the next one does
	// (absent for the last part), TotalChars the page's length; all in code
	// points.
	Offset     int `json:"offset"`
	NextOffset int `json:"nextOffset,omitempty"`
	TotalChars int `json:"totalChars"`
	// Cached is true when the page came from the cache, with no request.
	Cached bool `json:"cached"`
}

// SearchMetadata is deepseek_search's metadata: a [core.SearchResult]'s query
// and number of results, without the results.
type SearchMetadata struct {
	Query   string `json:"query"`
	Results int    `json:"results"`
	// Usage is what a search on the Messages backend cost.
	Usage *core.Usage `json:"usage,omitempty"`
	// Cached is true when the answer came from the cache, with no request.
	Cached bool `json:"cached"`
}

// PagesMetadata is deepseek_fetch's metadata for a call that read several
// pages ("urls"): their URLs in order, how many failed, and whether every
// page that was read came from the cache.
type PagesMetadata struct {
	URLs   []string `json:"urls"`
	Failed int      `json:"failed"`
	Cached bool     `json:"cached"`
}

// Join is the output of a call that ran several operations, one per query
// or page ([ParseBatch]), from their finished steps in the same order:
// the searches merged by [core.MergeSearches], the pages joined by
// [core.JoinFetches]. It is an error only when every operation failed.
func Join(ops []core.Operation, steps []core.Step) (Output, *core.Error) {
	subjects := make([]string, len(ops))
	for i, op := range ops {
		subjects[i] = op.Query + op.URL
	}
	if ops[0].Kind == core.KindSearch {
		r, err := core.MergeSearches(subjects, steps)
		if err != nil {
			return Output{}, err
		}
		return OutputOf(r), nil
	}
	text, err := core.JoinFetches(subjects, steps)
	if err != nil {
		return Output{}, err
	}
	m := PagesMetadata{URLs: subjects, Cached: true}
	for _, s := range steps {
		if s.Err != nil {
			m.Failed++
		} else {
			m.Cached = m.Cached && s.Result.Fetch.Cached
		}
	}
	short := make([]string, len(subjects))
	for i, u := range subjects {
		short[i] = strings.TrimPrefix(Title(FetchName, u), FetchName+" ")
	}
	return Output{Content: text, Title: Title(FetchName, strings.Join(short, ", ")), Metadata: m}, nil
}

// Text is the text a result shows the model: exactly what the CLI's search
// and fetch print (SPEC §6), without the final newline. Every host gives
// the model this text.
func Text(r *core.Result) string {
	if r.Search != nil {
		return r.Search.Text()
	}
	return r.Fetch.Text
}

// OutputOf maps an operation's result onto a call's output; its content is
// [Text].
func OutputOf(r *core.Result) Output {
	if f := r.Fetch; f != nil {
		return Output{Content: Text(r), Title: Title(FetchName, f.URL), Metadata: FetchMetadata{URL: f.URL, Title: f.Title, Chars: f.Chars, ContentTruncated: f.Truncated,
			Offset: f.Offset, NextOffset: f.NextOffset, TotalChars: f.TotalChars, Cached: f.Cached}}
	}
	s := r.Search
	return Output{Content: Text(r), Title: Title(SearchName, s.Query), Metadata: SearchMetadata{Query: s.Query, Results: len(s.Hits), Usage: s.Usage, Cached: s.Cached}}
}
