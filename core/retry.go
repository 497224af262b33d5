package core

import (
	"math"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/date"
)

// retryDelay returns the wait before the next attempt, in milliseconds,
// after attempt number attempt (1-based) failed with a retryable status:
// Retry-After (seconds or HTTP-date) when present and valid, otherwise
// exponential backoff from 500 ms with jitter; never more than 10 s.
func retryDelay(attempt int, retryAfter string, env Env) int64 {
	if ms, ok := ParseRetryAfter(retryAfter, env.Now); ok {
		return ms
	}
	r := 0.5
	if env.Random != nil {
		r = env.Random()
		if !(r >= 0 && r < 1) {
			r = 0.5
		}
	}
	return Backoff(attempt, r)
}

// Backoff returns the delay after the given failed attempt (1-based), in
// milliseconds: 500·2^(attempt-1) scaled by a jitter factor 0.5+r, where r
// is in [0, 1), capped at 10 s. r = 0.5 gives the plain exponential series.
func Backoff(attempt int, r float64) int64 {
	if attempt < 1 {
		attempt = 1
	}
	d := float64(BaseBackoffMs) * math.Pow(2, float64(min(attempt-1, 20)))
	d *= 0.5 + r
	return min(int64(d), MaxRetryAfterMs)
}

// ParseRetryAfter reads a Retry-After value: delay-seconds or an HTTP-date,
// measured from now(), the current time in Unix milliseconds (a nil now
// disables dates; it is called only for a date). It returns the delay in
// milliseconds capped at 10 s, and false when the value is absent or
// invalid. A date in the past means no delay; one less than a millisecond
// ahead means 1 ms.
func ParseRetryAfter(v string, now func() int64) (int64, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		for i := 0; i < len(v); i++ {
			if v[i] < '0' || v[i] > '9' {
				return 0, false
			}
		}
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs > MaxRetryAfterMs/1000 {
			return MaxRetryAfterMs, true // too large to parse is still "long"
		}
		return secs * 1000, true
	}
	if now == nil || len(v) > 64 {
		return 0, false
	}
	// The last layout is time.ANSIC.
	for _, layout := range []string{"Mon, 02 Jan 2006 15:04:05 GMT", "Monday, 02-Jan-06 15:04:05 GMT", "Mon Jan _2 15:04:05 2006"} {
		if t, ok := date.Parse(layout, v); ok {
			return delayUntil(t, now()), true
		}
	}
	return 0, false
}

// delayUntil returns the milliseconds from nowMs until t, rounded down but
// at least 1 when t is later at all, and within [0, MaxRetryAfterMs]. It
// compares before it subtracts, so no clock reading overflows it.
func delayUntil(t date.Time, nowMs int64) int64 {
	ms := t.UnixMilli() // a parsed date is within years 0–9999
	switch {
	case nowMs > ms:
		return 0
	case nowMs == ms:
		if t.Nanosecond()%1e6 > 0 {
			return 1
		}
		return 0
	case nowMs <= ms-MaxRetryAfterMs:
		return MaxRetryAfterMs
	}
	return ms - nowMs
}
