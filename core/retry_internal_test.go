package core

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// White-box tests of retryDelay, the wait Backoff and ParseRetryAfter
// combine into.

func TestRetryDelay(t *testing.T) {
	seq := func(vals ...float64) func() float64 {
		return func() float64 { v := vals[0]; vals = vals[1:]; return v }
	}
	env := Env{Now: func() int64 { return pinnedNow.UnixMilli() }, Random: seq(0.25)}
	require.Equal(t, int64(375), retryDelay(1, "", env))
	// Retry-After wins over backoff and draws no randomness.
	env.Random = func() float64 { panic("no jitter with Retry-After") }
	require.Equal(t, int64(4000), retryDelay(3, "4", env))
	require.Equal(t, int64(3000), retryDelay(1, "Tue, 04 Mar 2025 05:06:10 GMT", env))
	// Invalid Retry-After falls back to backoff.
	require.Equal(t, int64(1000), retryDelay(2, "later", Env{}))
	// Zero Env: no clock (dates ignored), no jitter.
	require.Equal(t, int64(2000), retryDelay(3, "Tue, 04 Mar 2025 05:06:10 GMT", Env{}))
	// Random out of [0, 1) is treated as 0.5.
	for _, r := range []float64{-0.1, 1, 7} {
		require.Equal(t, int64(500), retryDelay(1, "", Env{Random: func() float64 { return r }}))
	}
}
