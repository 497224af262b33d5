package gateway

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway/redistest"
)

func TestUsageOf(t *testing.T) {
	for _, tc := range []struct {
		outcome CallOutcome
		src     Source
		billed  bool
		want    UsageCounts
	}{
		{"ok", Computed, true, UsageCounts{Billed: 1}},
		{"ok", CacheHit, false, UsageCounts{Cached: 1}},
		{"ok", Coalesced, false, UsageCounts{Coalesced: 1}},
		{"ok", Computed, false, UsageCounts{Cached: 1}}, // this replica's memory
		{"quota", Computed, false, UsageCounts{Refused: 1}},
		{"busy", Computed, false, UsageCounts{Refused: 1}},
		{"error", Computed, true, UsageCounts{Billed: 1, Failed: 1}}, // billed, then unusable
		{"invalid", Computed, false, UsageCounts{Failed: 1}},
		{"cancelled", Computed, false, UsageCounts{Failed: 1}},
	} {
		require.Equal(t, tc.want, usageOf(tc.outcome, tc.src, tc.billed), "%+v", tc)
	}
}

// Redis is read, not trusted: fields a gateway does not write are
// skipped, and a day's hash too large to be one is not read.
func TestRedisUsageUntrusted(t *testing.T) {
	srv := redistest.Start(t)
	r, err := OpenRedis(srv.URL, RedisOptions{Timeout: time.Second})
	require.NoError(t, err)
	defer r.Close()
	ctx := context.Background()
	day := UsageDay(time.Now())
	require.NoError(t, r.AddUsage(ctx, UsageRow{Day: day, Member: "alice", Tool: "deepseek_fetch", UsageCounts: UsageCounts{Billed: 2, Cached: 1}}))
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer c.Close()
	key := "dwr:usage:" + day
	require.NoError(t, c.HSet(ctx, key,
		"alice\tdeepseek_fetch\tfailed", "-3", // negative
		"bob\tdeepseek_fetch\tbilled", "many", // not a count
		"bob\tdeepseek_fetch\tstolen", "7", // unknown count
		"bad name!\tdeepseek_fetch\tbilled", "1", // not a member name
		"no-tabs", "1").Err())
	require.NoError(t, c.Set(ctx, "dwr:usage:"+UsageDay(time.Now().AddDate(0, 0, -1)), "a string", 0).Err())
	rows, err := r.ReadUsage(ctx, UsageDay(time.Now().AddDate(0, 0, -2)))
	require.NoError(t, err)
	require.Equal(t, []UsageRow{{Day: day, Member: "alice", Tool: "deepseek_fetch", UsageCounts: UsageCounts{Billed: 2, Cached: 1}}}, rows)

	fields := make([]any, 0, 2*(maxUsageFields+1))
	for i := range maxUsageFields + 1 {
		fields = append(fields, fmt.Sprintf("m%d\tt\tbilled", i), "1")
	}
	require.NoError(t, c.HSet(ctx, key, fields...).Err())
	_, err = r.ReadUsage(ctx, day)
	require.ErrorContains(t, err, "more than a gateway writes")
}

func TestReportUsage(t *testing.T) {
	rows := []UsageRow{
		{Day: "2026-12-03", Member: "bob", Tool: "deepseek_search", UsageCounts: UsageCounts{Billed: 1}},
		{Day: "2026-12-04", Member: "alice", Tool: "deepseek_fetch", UsageCounts: UsageCounts{Cached: 2, Refused: 1}},
		{Day: "2026-12-04", Member: "bob", Tool: "deepseek_fetch", UsageCounts: UsageCounts{Coalesced: 1}},
	}
	r := ReportUsage(rows, "2026-12-01", "member")
	require.Equal(t, []UsageGroup{{Key: "alice", UsageCounts: UsageCounts{Cached: 2, Refused: 1}}, {Key: "bob", UsageCounts: UsageCounts{Billed: 1, Coalesced: 1}}}, r.Rows)
	require.Equal(t, UsageCounts{Billed: 1, Cached: 2, Coalesced: 1, Refused: 1}, r.Total)
	r = ReportUsage(rows, "2026-12-01", "day")
	require.Equal(t, []string{"2026-12-03", "2026-12-04"}, []string{r.Rows[0].Key, r.Rows[1].Key})
	r = ReportUsage(nil, "2026-12-01", "tool")
	require.Equal(t, []UsageGroup{}, r.Rows)
}
