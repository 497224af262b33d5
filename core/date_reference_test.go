package core

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The date readers as they were with package time, kept as the reference
// for core/internal/date. timeParse is time.Parse as the module ran it: its
// local zone, like UTC, has no abbreviations, so the reference does not
// depend on the machine's zone.
func timeParse(layout, s string) (time.Time, error) { return time.ParseInLocation(layout, s, time.UTC) }

func refParseDate(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := timeParse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

func refParsePageAge(s string) time.Time {
	if t := refParseDate(s); !t.IsZero() {
		return t
	}
	for _, layout := range []string{"January 2, 2006", "Jan 2, 2006", "2 January 2006", "2 Jan 2006", time.RFC1123, time.RFC1123Z} {
		if t, err := timeParse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// refPublished is what PublishedMs gave for a date read by parse.
func refPublished(t time.Time) (int64, bool) {
	if t.IsZero() {
		return 0, false
	}
	return t.UnixMilli(), true
}

func refParseRetryAfter(v string, now time.Time) (int64, bool) {
	v = strings.TrimSpace(v)
	if v == "" || v[0] >= '0' && v[0] <= '9' {
		return ParseRetryAfter(v, nil) // unchanged: no date involved
	}
	if now.IsZero() || len(v) > 64 {
		return 0, false
	}
	for _, layout := range []string{"Mon, 02 Jan 2006 15:04:05 GMT", "Monday, 02-Jan-06 15:04:05 GMT", time.ANSIC} {
		t, err := timeParse(layout, v)
		if err != nil {
			continue
		}
		d := t.Sub(now).Milliseconds()
		if t.Sub(now) > 0 && d == 0 {
			d = 1
		}
		return max(0, min(d, MaxRetryAfterMs)), true
	}
	return 0, false
}

// dateSeeds are result dates and page ages as DeepSeek and the web write
// them, and edge cases of each layout.
var dateSeeds = []string{
	"", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00.123456789+02:00", "2024-05-01T10:00:00", "2024-05-01 10:00:00+08:00",
	"2024-05-01 10:00:00", "2024-05-01", "2024-5-1", "2024-02-30", "2024-02-29", "2023-02-29", "0001-01-01",
	"0001-01-01T00:00:00Z", "0001-01-01T00:00:00.0000001Z", "0001-01-01T01:00:00+01:00", "0000-01-01T00:00:00+01:00",
	"9999-12-31T23:59:59-24:60", "2024-05-01T10:00:00.5", "2024-05-01 10:00:00,5Z", "January 25, 2024",
	"Jan 25, 2024", "25 January 2024", "25 Jan 2024", "january 1, 0001", "April 31, 2025", "3 days ago",
	"Tue, 04 Mar 2025 05:06:07 GMT", "Tue, 04 Mar 2025 05:06:07 EST", "Tue, 04 Mar 2025 05:06:07 GMT+5",
	"Tue, 04 Mar 2025 05:06:07 +0530", "Mon, 01 Jan 0001 00:00:00 UTC", "Mon, 01 Jan 0001 01:00:00 +0100",
	"Tuesday, 04-Mar-25 05:06:12 GMT", "Tue Mar  4 05:06:09 2025", "Tue, 04 Mar 2025 05:06:07.5 GMT",
}

func TestPublishedDatesMatchTime(t *testing.T) {
	for _, s := range dateSeeds {
		ms, ok := parseDate(s)
		wantMs, wantOK := refPublished(refParseDate(s))
		require.Equal(t, wantOK, ok, "parseDate %q", s)
		require.Equal(t, wantMs, ms, "parseDate %q", s)
		ms, ok = parsePageAge(s)
		wantMs, wantOK = refPublished(refParsePageAge(s))
		require.Equal(t, wantOK, ok, "parsePageAge %q", s)
		require.Equal(t, wantMs, ms, "parsePageAge %q", s)
	}
	// A date at the zero time.Time stays "no date", as before.
	_, ok := parsePageAge("0001-01-01T00:00:00Z")
	require.False(t, ok)
	ms, ok := parsePageAge("0001-01-01T00:00:00.0000001Z")
	require.True(t, ok)
	require.Equal(t, int64(-62135596800000), ms)
}

func TestParseRetryAfterMatchesTime(t *testing.T) {
	for _, v := range append(dateSeeds, "Tue, 04 Mar 2025 05:06:10 GMT", "Wed, 05 Mar 2025 05:06:10 GMT", "5", "Tue, 04 Mar 2025 05:06:08.0005 GMT") {
		for _, now := range []time.Time{pinnedNow, pinnedNow.Add(999 * time.Millisecond), pinnedNow.Add(time.Second), time.UnixMilli(0)} {
			want, wantOK := refParseRetryAfter(v, now)
			got, ok := ParseRetryAfter(v, func() int64 { return now.UnixMilli() })
			require.Equal(t, wantOK, ok, "%q at %v", v, now)
			require.Equal(t, want, got, "%q at %v", v, now)
		}
	}
}

// FuzzPublishedDates holds parseDate and parsePageAge to the time-based
// readers they replaced.
func FuzzPublishedDates(f *testing.F) {
	for _, s := range dateSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, ok := parseDate(s)
		if wantMs, wantOK := refPublished(refParseDate(s)); ms != wantMs || ok != wantOK {
			t.Fatalf("parseDate %q: got %d %v, time gives %d %v", s, ms, ok, wantMs, wantOK)
		}
		ms, ok = parsePageAge(s)
		if wantMs, wantOK := refPublished(refParsePageAge(s)); ms != wantMs || ok != wantOK {
			t.Fatalf("parsePageAge %q: got %d %v, time gives %d %v", s, ms, ok, wantMs, wantOK)
		}
	})
}

// FuzzParseRetryAfterMatchesTime holds ParseRetryAfter to the time-based
// reader it replaced, for a clock read in milliseconds.
func FuzzParseRetryAfterMatchesTime(f *testing.F) {
	for _, v := range append(dateSeeds, "Tue, 04 Mar 2025 05:06:10 GMT", "Tue, 04 Mar 2025 05:06:08.0005 GMT", "Tuesday, 04-Mar-69 05:06:12 GMT") {
		f.Add(v, pinnedNow.UnixMilli())
		f.Add(v, pinnedNow.UnixMilli()+1000)
	}
	f.Fuzz(func(t *testing.T, v string, nowMs int64) {
		now := time.UnixMilli(nowMs)
		if now.IsZero() {
			return // the old reader took the zero time for "no clock"
		}
		want, wantOK := refParseRetryAfter(v, now)
		got, ok := ParseRetryAfter(v, func() int64 { return nowMs })
		if got != want || ok != wantOK {
			t.Fatalf("%q at %d: got %d %v, time gives %d %v", v, nowMs, got, ok, want, wantOK)
		}
	})
}
