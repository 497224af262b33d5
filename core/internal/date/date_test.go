package date

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// layouts are every layout core parses (core/search.go parseDate,
// core/messages.go parsePageAge, core/retry.go ParseRetryAfter).
var layouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02",
	"January 2, 2006", "Jan 2, 2006", "2 January 2006", "2 Jan 2006", time.RFC1123, time.RFC1123Z,
	"Mon, 02 Jan 2006 15:04:05 GMT", "Monday, 02-Jan-06 15:04:05 GMT", time.ANSIC,
}

// reference is time.Parse as the module ran it: its local zone, like UTC,
// has no zone abbreviations, so ParseInLocation with UTC behaves the same
// on every machine.
func reference(layout, s string) (Time, bool) {
	t, err := time.ParseInLocation(layout, s, time.UTC)
	if err != nil {
		return Time{}, false
	}
	return Time{sec: t.Unix(), nsec: int32(t.Nanosecond())}, true
}

// requireSame checks that Parse agrees with time on s in layout, including
// the zero-time check and the milliseconds core keeps.
func requireSame(t *testing.T, layout, s string) {
	t.Helper()
	want, wantOK := reference(layout, s)
	got, ok := Parse(layout, s)
	require.Equal(t, wantOK, ok, "accepted? layout %q value %q", layout, s)
	require.Equal(t, want, got, "instant: layout %q value %q", layout, s)
	if ok {
		ref, _ := time.ParseInLocation(layout, s, time.UTC)
		require.Equal(t, ref.IsZero(), got.IsZero(), "IsZero %q %q", layout, s)
		require.Equal(t, ref.UnixMilli(), got.UnixMilli(), "UnixMilli %q %q", layout, s)
		require.Equal(t, ref.Nanosecond(), got.Nanosecond(), "Nanosecond %q %q", layout, s)
	}
}

// seeds are values for every layout: each layout's own rendering of some
// instants, and hand-written edge cases.
func seeds() []string {
	var out []string
	instants := []time.Time{
		time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC),
		time.Date(2025, 1, 25, 0, 0, 0, 0, time.UTC),
		time.Date(2000, 2, 29, 23, 59, 59, 999999999, time.UTC),
		time.Date(1999, 12, 31, 7, 8, 9, 120000000, time.FixedZone("", -5*3600)),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.FixedZone("X", 14*3600)),
		time.Date(2068, 6, 6, 1, 2, 3, 4, time.FixedZone("CEST", 2*3600)),
		time.Date(1969, 7, 20, 20, 17, 40, 0, time.UTC),
	}
	for _, l := range layouts {
		for _, at := range instants {
			out = append(out, at.Format(l))
		}
	}
	return append(out,
		"", " ", "2024", "2024-05-01", "2024-5-1", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00.123Z",
		"2024-05-01T10:00:00,5+02:00", "2024-05-01T10:00:00.1234567891234Z", "2024-05-01T1:00:00Z",
		"2024-05-01T24:00:00Z", "2024-05-01T10:60:00Z", "2024-05-01T10:00:60Z", "2024-02-30", "2023-02-29",
		"2024-02-29", "1900-02-29", "2000-02-29", "0000-02-29", "0000-01-01T00:00:00+01:00",
		"0001-01-01T00:00:00Z", "0001-01-01T00:00:00.0000001Z", "0001-01-01T01:00:00+01:00",
		"9999-12-31T23:59:59-24:60", "2024-05-01T10:00:00+24:60", "2024-05-01T10:00:00+25:00",
		"2024-05-01T10:00:00+0200", "2024-05-01T10:00:00z", "2024-05-01 10:00:00Z", "2024-05-01  10:00:00",
		"2024-05-01 10:00:00.5", "2024-05-01T10:00:00.", "2024-05-01T10:00:00.Z", "+024-05-01", "2024-05-01x",
		"April 30, 2025", "april 30, 2025", "APRIL 30,   2025", "Apr 30, 2025", "Sept 30, 2025",
		"30 April 2025", "30 Apr 2025", "1 Jan 2025", "31 Apr 2025", "3 days ago", "Jan 2 2006",
		"Tue, 04 Mar 2025 05:06:07 GMT", "Tue, 04 Mar 2025 05:06:07 UTC", "Tue, 04 Mar 2025 05:06:07 EST",
		"Tue, 04 Mar 2025 05:06:07 GMT+5", "Tue, 04 Mar 2025 05:06:07 GMT-23", "Tue, 04 Mar 2025 05:06:07 GMT+24",
		"Tue, 04 Mar 2025 05:06:07 +05", "Tue, 04 Mar 2025 05:06:07 CEST", "Tue, 04 Mar 2025 05:06:07 WITA",
		"Tue, 04 Mar 2025 05:06:07 ChST", "Tue, 04 Mar 2025 05:06:07 ABCD", "Tue, 04 Mar 2025 05:06:07 ABCDEF",
		"Tue, 04 Mar 2025 05:06:07 +0100", "Tue, 04 Mar 2025 05:06:07 -0730", "Tue, 04 Mar 2025 05:06:07.5 GMT",
		"Fri, 04 Mar 2025 05:06:07 GMT", "tue, 04 mar 2025 05:06:07 GMT", "Tuesday, 04-Mar-25 05:06:07 GMT",
		"Tuesday, 04-Mar-69 05:06:07 GMT", "Tuesday, 04-Mar-68 05:06:07 GMT", "Tuesday, 04-Mar-+5 05:06:07 GMT",
		"Tuesday, 04-Mar--5 05:06:07 GMT", "Tue Mar  4 05:06:07 2025", "Tue Mar 4 05:06:07 2025",
		"Tue Mar 14 05:06:07 2025", "Tue Mar 32 05:06:07 2025", "Thu Jan  1 00:00:00 1970",
	)
}

func TestParseMatchesTime(t *testing.T) {
	for _, l := range layouts {
		for _, s := range seeds() {
			requireSame(t, l, s)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		layout, in string
		ms         int64 // Unix milliseconds; -1 when refused
	}{
		{time.RFC3339Nano, "2024-05-01T10:00:00Z", 1714557600000},
		{time.RFC3339Nano, "2024-05-01T12:00:00.9999+02:00", 1714557600999},
		{"2006-01-02T15:04:05", "2024-05-01T10:00:00,25", 1714557600250},
		{"2006-01-02", "2024-02-29", 1709164800000},
		{"2006-01-02", "2023-02-29", -1},
		{"January 2, 2006", "january 25, 2024", 1706140800000},
		{"2 Jan 2006", "25 JAN 2024", 1706140800000},
		{time.RFC1123, "Tue, 04 Mar 2025 05:06:07 EST", 1741064767000},
		{time.RFC1123, "Tue, 04 Mar 2025 05:06:07 GMT+5", 1741064767000},
		{time.RFC1123, "Tue, 04 Mar 2025 05:06:07 ABCD", -1},
		{time.RFC1123Z, "Sun, 04 Mar 2025 05:06:07 -0100", 1741068367000},
		{"Monday, 02-Jan-06 15:04:05 GMT", "Tuesday, 04-Mar-68 05:06:07 GMT", 3098063167000},
		{"Monday, 02-Jan-06 15:04:05 GMT", "Tuesday, 04-Mar-69 05:06:07 GMT", -26160833000},
		{time.ANSIC, "Tue Mar  4 05:06:07 2025", 1741064767000},
		{"2006-01-02", "0001-01-01", -62135596800000},
	}
	for _, tt := range tests {
		t.Run(tt.layout+" "+tt.in, func(t *testing.T) {
			got, ok := Parse(tt.layout, tt.in)
			if tt.ms == -1 {
				require.False(t, ok)
				return
			}
			require.True(t, ok)
			require.Equal(t, tt.ms, got.UnixMilli())
			requireSame(t, tt.layout, tt.in)
		})
	}
	zero, ok := Parse("2006-01-02", "0001-01-01")
	require.True(t, ok)
	require.True(t, zero.IsZero())
}

func TestFormatDay(t *testing.T) {
	tests := []struct {
		ms   int64
		want string
	}{
		{0, "1970-01-01"},
		{-1, "1969-12-31"},
		{1714557600000, "2024-05-01"},
		{951782400000, "2000-02-29"},
		{-62135596800000, "0001-01-01"},
		{-62135596800001, "0000-12-31"},
		{-62167219200001, "-0001-12-31"},
		{253402300800000, "10000-01-01"},
		{math.MaxInt64, "292278994-08-17"},
		{math.MinInt64, "-292275055-05-16"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, FormatDay(tt.ms), "%d", tt.ms)
		require.Equal(t, time.UnixMilli(tt.ms).UTC().Format("2006-01-02"), FormatDay(tt.ms), "%d", tt.ms)
	}
}

// FuzzParse holds Parse to time.Parse for every layout core uses: the same
// verdict and the same instant.
func FuzzParse(f *testing.F) {
	for i := range layouts {
		for _, s := range seeds() {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, i uint8, s string) {
		layout := layouts[int(i)%len(layouts)]
		want, wantOK := reference(layout, s)
		got, ok := Parse(layout, s)
		if ok != wantOK || got != want {
			t.Fatalf("layout %q value %q: got %v %v, time gives %v %v", layout, s, got, ok, want, wantOK)
		}
		if ok && strings.Contains(layout, "2006") {
			ref, _ := time.ParseInLocation(layout, s, time.UTC)
			if ref.IsZero() != got.IsZero() || ref.UnixMilli() != got.UnixMilli() {
				t.Fatalf("layout %q value %q: IsZero/UnixMilli differ", layout, s)
			}
		}
	})
}

// FuzzParseRFC3339 holds ParseRFC3339's fast path to Parse: the same
// verdict and instant for any text.
func FuzzParseRFC3339(f *testing.F) {
	require.Equal(f, time.RFC3339Nano, RFC3339Nano)
	for _, s := range seeds() {
		f.Add(s)
	}
	for _, s := range []string{"2024-01-15T00:00:00Z", "2024-00-15T00:00:00Z", "2024-13-15T00:00:00Z", "2024-02-30T00:00:00Z",
		"2024-01-00T00:00:00Z", "2024-01-15T23:59:59Z", "2024-01-15T24:00:00Z", "0001-01-01T00:00:00Z", "0000-02-29T00:00:00Z",
		"2024-0a-15T00:00:00Z", "+024-01-15T00:00:00Z", "2024-01-15T0 :00:00Z", "2024-01-15t00:00:00Z", "2024-01-15T00:00:00z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, wantOK := Parse(RFC3339Nano, s)
		got, ok := ParseRFC3339(s)
		if ok != wantOK || got != want {
			t.Fatalf("%q: got %v %v, Parse gives %v %v", s, got, ok, want, wantOK)
		}
	})
}

// FuzzFormatDay holds FormatDay to time's Format("2006-01-02") in UTC.
func FuzzFormatDay(f *testing.F) {
	for _, ms := range []int64{0, -1, 1714557600000, -62135596800000, -62167219200001, 253402300800000, math.MaxInt64, math.MinInt64, 86399999, -86400000} {
		f.Add(ms)
	}
	f.Fuzz(func(t *testing.T, ms int64) {
		if got, want := FormatDay(ms), time.UnixMilli(ms).UTC().Format("2006-01-02"); got != want {
			t.Fatalf("%d: got %q, time gives %q", ms, got, want)
		}
	})
}
