package core_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func TestBackoff(t *testing.T) {
	tests := []struct {
		attempt int
		r       float64
		want    int64
	}{
		{1, 0.5, 500},
		{2, 0.5, 1000},
		{3, 0.5, 2000},
		{4, 0.5, 4000},
		{5, 0.5, 8000},
		{6, 0.5, 10000},
		{100, 0.5, 10000},
		{0, 0.5, 500},
		{-3, 0.5, 500},
		{1, 0, 250},
		{1, 0.999, 749},
		{2, 0.25, 750},
		{4, 0.75, 5000},
		{5, 0.9, 10000},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, core.Backoff(tt.attempt, tt.r), "attempt %d r %g", tt.attempt, tt.r)
	}
}

func TestParseRetryAfter(t *testing.T) {
	at := func(t time.Time) func() int64 { return func() int64 { return t.UnixMilli() } }
	now := at(pinnedNow) // Tue, 04 Mar 2025 05:06:07 GMT
	tests := []struct {
		name  string
		v     string
		now   func() int64
		want  int64
		valid bool
	}{
		{"empty", "", now, 0, false},
		{"blank", "  ", now, 0, false},
		{"zero", "0", now, 0, true},
		{"one second", "1", now, 1000, true},
		{"padded", " 3 ", now, 3000, true},
		{"leading zeros", "007", now, 7000, true},
		{"ten", "10", now, 10000, true},
		{"eleven capped", "11", now, 10000, true},
		{"huge capped", "99999999999999999999999999", now, 10000, true},
		{"negative", "-1", now, 0, false},
		{"fraction", "1.5", now, 0, false},
		{"digits and text", "5s", now, 0, false},
		{"very long number capped", strings.Repeat("1", 65), now, 10000, true},
		{"very long date", "Tue, 04 Mar 2025 05:06:10 GMT" + strings.Repeat(" ", 40) + "x", now, 0, false},
		{"http-date in 3 s", "Tue, 04 Mar 2025 05:06:10 GMT", now, 3000, true},
		{"http-date far future capped", "Wed, 05 Mar 2025 05:06:10 GMT", now, 10000, true},
		{"http-date now", "Tue, 04 Mar 2025 05:06:07 GMT", now, 0, true},
		{"http-date in the past", "Mon, 03 Mar 2025 05:06:07 GMT", now, 0, true},
		{"http-date a millisecond ahead", "Tue, 04 Mar 2025 05:06:08 GMT", at(pinnedNow.Add(999 * time.Millisecond)), 1, true},
		{"http-date under a millisecond", "Tue, 04 Mar 2025 05:06:08.0005 GMT", at(pinnedNow.Add(time.Second)), 1, true},
		{"http-date a fraction behind", "Tue, 04 Mar 2025 05:06:07.9995 GMT", at(pinnedNow.Add(time.Second)), 0, true},
		{"http-date with any clock reading", "Tue, 04 Mar 2025 05:06:08 GMT", func() int64 { return math.MinInt64 }, 10000, true},
		{"http-date behind any clock reading", "Tue, 04 Mar 2025 05:06:08 GMT", func() int64 { return math.MaxInt64 }, 0, true},
		{"rfc 850 date", "Tuesday, 04-Mar-25 05:06:12 GMT", now, 5000, true},
		{"asctime date", "Tue Mar  4 05:06:09 2025", now, 2000, true},
		{"http-date without clock", "Tue, 04 Mar 2025 05:06:10 GMT", nil, 0, false},
		{"garbage", "soon", now, 0, false},
		{"wrong zone", "Tue, 04 Mar 2025 05:06:10 PST", now, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := core.ParseRetryAfter(tt.v, tt.now)
			require.Equal(t, tt.valid, ok)
			require.Equal(t, tt.want, got)
		})
	}
}
