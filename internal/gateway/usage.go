package gateway

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// Per-member usage for the admin: every call adds to its member's counts
// for the day (UTC) and tool, in a [UsageBook] that replicas share (Redis)
// or that the machine keeps (SQLite, for one replica); "serve usage" reads
// them.

// UsageCounts are what a member's calls came to.
type UsageCounts struct {
	// Billed is the calls DeepSeek billed a request for.
	Billed int64 `json:"billed"`
	// Cached and Coalesced are the calls the shared cache or an identical
	// call in flight answered, with no request.
	Cached    int64 `json:"cached"`
	Coalesced int64 `json:"coalesced"`
	// Refused is the calls the member's quota or the team's limits turned
	// away.
	Refused int64 `json:"refused"`
	// Failed is the calls that ended in an error (a failed request, bad
	// input, a cancelled call).
	Failed int64 `json:"failed"`
}

func (c *UsageCounts) add(o UsageCounts) {
	c.Billed += o.Billed
	c.Cached += o.Cached
	c.Coalesced += o.Coalesced
	c.Refused += o.Refused
	c.Failed += o.Failed
}

// UsageRow is one day's counts of one member's calls of one tool.
type UsageRow struct {
	Day    string `json:"day"` // YYYY-MM-DD, UTC
	Member string `json:"member"`
	Tool   string `json:"tool"`
	UsageCounts
}

// UsageBook keeps the counts.
type UsageBook interface {
	// AddUsage adds c to the counts of row's day, member and tool.
	AddUsage(ctx context.Context, row UsageRow) error
	// ReadUsage returns every row from day since (YYYY-MM-DD) on.
	ReadUsage(ctx context.Context, since string) ([]UsageRow, error)
}

// usageOf is what one call adds: billed when one of its requests was,
// and what its outcome and source say.
func usageOf(outcome CallOutcome, src Source, billed bool) UsageCounts {
	var c UsageCounts
	if billed {
		c.Billed = 1
	}
	switch {
	case outcome.Refused():
		c.Refused = 1
	case outcome != OutcomeOK:
		c.Failed = 1
	case src == Coalesced:
		c.Coalesced = 1
	case !billed: // the shared cache, or this replica's memory
		c.Cached = 1
	}
	return c
}

// UsageDay is the day a call at t counts for.
func UsageDay(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// UsageReport is the counts grouped by member, day or tool.
type UsageReport struct {
	Since string       `json:"since"`
	By    string       `json:"by"`
	Rows  []UsageGroup `json:"rows"`
	Total UsageCounts  `json:"total"`
}

// UsageGroup is the counts of one member, day or tool.
type UsageGroup struct {
	Key string `json:"key"`
	UsageCounts
}

// ReportUsage groups rows by "member", "day" or "tool", in order of key.
func ReportUsage(rows []UsageRow, since, by string) *UsageReport {
	r := &UsageReport{Since: since, By: by, Rows: []UsageGroup{}}
	at := map[string]int{}
	for _, row := range rows {
		key := row.Member
		switch by {
		case "day":
			key = row.Day
		case "tool":
			key = row.Tool
		}
		i, ok := at[key]
		if !ok {
			i = len(r.Rows)
			at[key] = i
			r.Rows = append(r.Rows, UsageGroup{Key: key})
		}
		r.Rows[i].add(row.UsageCounts)
		r.Total.add(row.UsageCounts)
	}
	slices.SortFunc(r.Rows, func(a, b UsageGroup) int { return cmp.Compare(a.Key, b.Key) })
	return r
}
