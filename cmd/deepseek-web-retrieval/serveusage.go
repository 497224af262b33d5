package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ledger"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/localdb"
)

var serveUsageHelp = helpText{
	usage: "deepseek-web-retrieval serve usage [--redis URL] [--since 7d] [--by member|day|tool] [--json]",
	about: `Each member's use of the team gateway: the calls DeepSeek billed, those the
shared cache and identical calls in flight saved, those quotas and limits
refused, and those that failed. Replicas that share a Redis count there
(--redis, or DEEPSEEK_WEB_RETRIEVAL_REDIS, as serve reads it); a gateway
without Redis counts in this machine's shared database
($XDG_CACHE_HOME/deepseek-web-retrieval/shared.db). Days are UTC.`,
	exit: "0 done, 1 the counts could not be read, 2 usage error.",
}

// serveUsageFlags is the command line of serve usage.
type serveUsageFlags struct {
	redisURL, since, by string
	asJSON              bool
}

// newServeUsageFlags returns the FlagSet of serve usage, filling f.
func newServeUsageFlags(f *serveUsageFlags) *flag.FlagSet {
	fl := flag.NewFlagSet("serve usage", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.StringVar(&f.redisURL, "redis", "", "`URL` the replicas' Redis")
	fl.StringVar(&f.since, "since", "7d", "`N` 24h, 7d, 30d: whole UTC days back from today")
	fl.StringVar(&f.by, "by", "member", "`KEY` member, day or tool")
	fl.BoolVar(&f.asJSON, "json", false, "the report as JSON")
	return fl
}

// runServeUsage is "serve usage".
func runServeUsage(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f serveUsageFlags
	fl := newServeUsageFlags(&f)
	positional, code, done := parseInterspersed(fl, args, serveUsageHelp, stdout, stderr)
	if done {
		return code
	}
	if len(positional) > 0 {
		return usageErr(stderr, "serve usage", fmt.Sprintf("takes no arguments, got %q", positional[0]))
	}
	if _, err := optionEnv(fl, os.Getenv); err != nil {
		return usageErr(stderr, "serve usage", err.Error())
	}
	if f.by != "member" && f.by != "day" && f.by != "tool" {
		return usageErr(stderr, "serve usage", fmt.Sprintf("--by %q: want member, day or tool", f.by))
	}
	from, err := ledger.ParseSince(f.since, time.Now())
	if err != nil {
		return usageErr(stderr, "serve usage", err.Error())
	}
	day := gateway.UsageDay(from)
	book, source, closeBook, err := openUsageBook(f.redisURL, stderr)
	if err != nil {
		return usageErr(stderr, "serve usage", err.Error())
	}
	if book == nil {
		return exitFailed
	}
	defer closeBook()
	rows, err := book.ReadUsage(ctx, day)
	if err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval serve usage: reading the counts: %v\n", err)
		return exitFailed
	}
	rep := gateway.ReportUsage(rows, day, f.by)
	if f.asJSON {
		return writeJSON(stdout, stderr, "serve usage", struct {
			Source string `json:"source"`
			*gateway.UsageReport
		}{source, rep})
	}
	printServeUsage(stdout, rep, day, f.by, source)
	return exitOK
}

// openUsageBook opens where serve usage reads the counts: Redis with
// --redis, else the machine's database, which a gateway without Redis
// counts in. The error is a usage error; a nil book without one means
// the failure was reported on stderr.
func openUsageBook(redisURL string, stderr io.Writer) (book gateway.UsageBook, source string, closeBook func(), err error) {
	if redisURL != "" {
		r, err := gateway.OpenRedis(redisURL, gateway.RedisOptions{Timeout: 5 * time.Second})
		if err != nil {
			return nil, "", nil, fmt.Errorf("--redis: %v", err)
		}
		return r, "redis", func() { r.Close() }, nil
	}
	dir, err := localdb.Dir()
	if err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval serve usage: no cache directory: %v\n", err)
		return nil, "", nil, nil
	}
	path := filepath.Join(dir, localdb.FileName)
	db := localdb.New(path, func(format string, args ...any) {
		fmt.Fprintf(stderr, "deepseek-web-retrieval serve usage: "+format+"\n", args...)
	}, gateway.UsageSchema)
	return gateway.NewLocalUsage(db), path, func() { db.Close() }, nil
}

// printServeUsage writes the report as a table, one row per group and a total.
func printServeUsage(w io.Writer, rep *gateway.UsageReport, day, by, source string) {
	fmt.Fprintf(w, "Gateway usage since %s (UTC), by %s, from %s:\n", day, by, source)
	fmt.Fprintf(w, "  %-32s %8s %8s %10s %8s %8s\n", by, "billed", "cached", "coalesced", "refused", "failed")
	for _, r := range append(rep.Rows, gateway.UsageGroup{Key: "total", UsageCounts: rep.Total}) {
		fmt.Fprintf(w, "  %-32s %8d %8d %10d %8d %8d\n", r.Key, r.Billed, r.Cached, r.Coalesced, r.Refused, r.Failed)
	}
}
