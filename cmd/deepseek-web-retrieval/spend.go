package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/httpdriver"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/diskcache"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ledger"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/localdb"
)

// shared is the machine's shared database with the cache and ledger cfg
// asks for; every field is nil when the user's cache directory is
// unknown. Nothing is opened until a call needs it.
type shared struct {
	db     *localdb.DB
	cache  *diskcache.Cache
	ledger *ledger.Ledger
}

// openShared returns the shared database of cfg for the command cmd,
// whose warnings go to stderr.
func openShared(cfg *core.Config, cmd string, stderr io.Writer) shared {
	dir, err := localdb.Dir()
	if err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval %s: warning: no cache directory (%v); no shared cache, usage ledger or daily budget\n", cmd, err)
		return shared{}
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "deepseek-web-retrieval "+cmd+": warning: "+format+"\n", args...)
	}
	db := localdb.New(filepath.Join(dir, localdb.FileName), logf, diskcache.Schema, diskcache.SchemaIndex, ledger.Schema, ledger.SchemaIndex, gateway.UsageSchema)
	return shared{db: db, cache: diskcache.New(db, cfg), ledger: ledger.New(db, cfg)}
}

// sharedFor is what cache and usage start with: the options of their
// flags and the DEEPSEEK_WEB_RETRIEVAL_ variables, and the shared
// database. When ok is false the command ends with code (the reason was
// printed). o is filled by fl, so the variables land in it.
func sharedFor(fl *flag.FlagSet, o *install.Options, cmd string, stderr io.Writer) (cfg *core.Config, sh shared, code int, ok bool) {
	if _, err := optionEnv(fl, os.Getenv); err != nil {
		return nil, sh, usageErr(stderr, cmd, err.Error()), false
	}
	cfg, _, err := configFrom(*o)
	if err != nil {
		return nil, sh, usageErr(stderr, cmd, err.Error()), false
	}
	if sh = openShared(cfg, cmd, stderr); sh.db == nil {
		return nil, sh, exitFailed, false
	}
	return cfg, sh, exitOK, true
}

var cacheHelp = helpText{
	usage: "deepseek-web-retrieval cache stats|clear [--json]",
	about: `The cache every process of yours on this machine shares (the MCP server of
every agent session, search and fetch, a gateway without Redis): pages for
--disk-page-ttl minutes, searches for --disk-search-ttl, at most
--disk-cache-max-mb MiB. It lives in
$XDG_CACHE_HOME/deepseek-web-retrieval/shared.db (~/.cache/... by default)
beside the usage ledger, and holds answers, never a key.

  stats    what it holds
  clear    delete every answer (the usage ledger stays)`,
	groups: []flagGroup{
		{"Flags:", []string{"json"}},
		{"The shared cache's options:", optionFlags("diskCacheMaxMB", "diskPageTTL", "diskSearchTTL")},
		otherOptions,
	},
	exit: "0 done, 1 the database cannot be opened, 2 usage error.",
}

// newCacheFlags returns cache's FlagSet, filling asJSON and o.
func newCacheFlags(asJSON *bool, o *install.Options) *flag.FlagSet {
	fl := flag.NewFlagSet("cache", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.BoolVar(asJSON, "json", false, "print the stats as JSON")
	bindOptionFlags(fl, o)
	return fl
}

func runCache(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var (
		asJSON bool
		o      install.Options
	)
	fl := newCacheFlags(&asJSON, &o)
	positional, code, done := parseInterspersed(fl, args, cacheHelp, stdout, stderr)
	if done {
		return code
	}
	if len(positional) != 1 || (positional[0] != "stats" && positional[0] != "clear") {
		return usageErr(stderr, "cache", "want stats or clear")
	}
	cfg, sh, code, ok := sharedFor(fl, &o, "cache", stderr)
	if !ok {
		return code
	}
	defer sh.db.Close()
	c := sh.cache
	if c == nil {
		// Off in these options; stats and clear still see the file.
		c = diskcache.New(sh.db, &core.Config{Host: core.HostConfig{DiskCacheMaxBytes: 1, DiskPageTTLMinutes: 1}})
	}
	if positional[0] == "clear" {
		n, err := c.Clear(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "deepseek-web-retrieval cache: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "Deleted %d answers from %s.\n", n, sh.db.Path())
		return exitOK
	}
	s, err := c.Stats(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval cache: %v\n", err)
		return exitFailed
	}
	s.MaxBytes = cfg.Host.DiskCacheMaxBytes // 0 when these options turn it off
	if asJSON {
		return writeJSON(stdout, stderr, "cache", s)
	}
	fmt.Fprintf(stdout, "Shared cache %s\n  pages      %d\n  searches   %d\n  expired    %d (deleted as room is needed)\n  size       %.1f MiB of %.0f MiB\n",
		s.Path, s.Pages, s.Searches, s.Expired, float64(s.Bytes)/(1<<20), float64(cfg.Host.DiskCacheMaxBytes)/(1<<20))
	return exitOK
}

var usageHelp = helpText{
	usage: "deepseek-web-retrieval usage [--since 24h|7d|30d] [--by day|host|tool] [--json]",
	about: `What every process of yours on this machine asked of DeepSeek: billed
requests, calls the shared cache or an identical call in flight saved, and
failed requests, from the usage ledger beside the shared cache
($XDG_CACHE_HOME/deepseek-web-retrieval/shared.db). Then the daily budget
(--daily-budget) and your account's balance, which DeepSeek's
/user/balance endpoint gives for the key (read now, only by usage and
doctor; --no-balance skips it).`,
	groups: []flagGroup{
		{"Flags:", []string{"since", "by", "json", "no-balance"}},
		otherOptions,
	},
	exit: "0 done, 1 the ledger cannot be opened, 2 usage error.",
}

// usageFlags is the command line of usage.
type usageFlags struct {
	since, by         string
	asJSON, noBalance bool
	options           install.Options
}

// newUsageFlags returns usage's FlagSet, filling f.
func newUsageFlags(f *usageFlags) *flag.FlagSet {
	fl := flag.NewFlagSet("usage", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.StringVar(&f.since, "since", "24h", "`D` hours or days back: 24h, 7d, 30d")
	fl.StringVar(&f.by, "by", "", "`G` group by day, host (the MCP client's name, cli) or tool")
	fl.BoolVar(&f.asJSON, "json", false, "the report as JSON")
	fl.BoolVar(&f.noBalance, "no-balance", false, "do not ask DeepSeek for the balance")
	bindOptionFlags(fl, &f.options)
	return fl
}

// usageReport is usage --json.
type usageReport struct {
	Database string         `json:"database"`
	Report   *ledger.Report `json:"report"`
	Budget   *budgetState   `json:"budget"`
	Balance  *balance       `json:"balance"`
}

type budgetState struct {
	Daily      int   `json:"daily"`
	SpentToday int64 `json:"spentToday"`
}

func runUsage(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	early := httpdriver.NewMaskingWriter(stderr, os.Getenv(core.DefaultAPIKeyEnv))
	defer early.Flush()
	stderr = early
	var f usageFlags
	fl := newUsageFlags(&f)
	positional, code, done := parseInterspersed(fl, args, usageHelp, stdout, stderr)
	if done {
		return code
	}
	if len(positional) > 0 {
		return usageErr(stderr, "usage", fmt.Sprintf("takes no arguments, got %q", positional[0]))
	}
	now := time.Now()
	from, err := ledger.ParseSince(f.since, now)
	if err != nil {
		return usageErr(stderr, "usage", err.Error())
	}
	cfg, sh, code, ok := sharedFor(fl, &f.options, "usage", stderr)
	if !ok {
		return code
	}
	defer sh.db.Close()
	rep, err := sh.ledger.Report(ctx, from, f.by)
	if err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval usage: %v\n", err)
		if strings.HasPrefix(err.Error(), "--by") {
			return exitUsage
		}
		return exitFailed
	}
	out := usageReport{Database: sh.db.Path(), Report: rep}
	if cfg.Host.DailyBudget > 0 {
		today, err := sh.ledger.Report(ctx, time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location()), "")
		if err == nil {
			out.Budget = &budgetState{Daily: cfg.Host.DailyBudget, SpentToday: today.Total.Billed}
		}
	}
	key := cfg.ResolveKey(os.Getenv)
	if !f.noBalance && key != "" {
		out.Balance = readBalance(ctx, cfg, key)
	}
	masked := httpdriver.NewMaskingWriter(stdout, key)
	defer masked.Flush()
	if f.asJSON {
		return writeJSON(masked, stderr, "usage", out)
	}
	printUsage(masked, out, f.since)
	return exitOK
}

func printUsage(w io.Writer, u usageReport, since string) {
	r := u.Report
	fmt.Fprintf(w, "DeepSeek usage in the last %s (since %s), every process on this machine:\n", since, r.Since.Format("2006-01-02 15:04"))
	fmt.Fprintf(w, "  billed requests        %d\n  saved by the cache     %d\n  saved by coalescing    %d\n  failed requests        %d\n",
		r.Total.Billed, r.Total.Cached, r.Total.Coalesced, r.Total.Failed)
	if len(r.Rows) > 0 {
		fmt.Fprintf(w, "\nBy %s:\n", r.By)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\tbilled\tcached\tcoalesced\tfailed\t\n", r.By)
		for _, row := range r.Rows {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", row.Key, row.Billed, row.Cached, row.Coalesced, row.Failed)
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	if u.Budget != nil {
		fmt.Fprintf(w, "Daily budget: %d of %d billed requests spent today; it resets at 00:00 local time.\n", u.Budget.SpentToday, u.Budget.Daily)
	} else {
		fmt.Fprintln(w, "Daily budget: none (--daily-budget N sets one for the MCP server and the CLI).")
	}
	if u.Balance != nil {
		fmt.Fprintln(w, u.Balance.line())
	}
	fmt.Fprintf(w, "Ledger: %s\n", u.Database)
}

// balance is what DeepSeek's GET /user/balance answers, or why it could
// not be read.
type balance struct {
	Available bool          `json:"isAvailable"`
	Infos     []balanceInfo `json:"balances,omitempty"`
	Error     string        `json:"error,omitempty"`
}

// line is the balance as usage and doctor print it.
func (b *balance) line() string {
	if b.Error != "" {
		return "Account balance: not available (" + b.Error + ")."
	}
	var parts []string
	for _, i := range b.Infos {
		parts = append(parts, i.Total+" "+i.Currency)
	}
	state := "available"
	if !b.Available {
		state = "not enough for API calls"
	}
	return "Account balance: " + strings.Join(parts, ", ") + " (" + state + ")."
}

type balanceInfo struct {
	Currency string `json:"currency"`
	Total    string `json:"total"`
}

// readBalance asks DeepSeek for the key's balance. The error it keeps
// names only the status or the failure's kind, never a body.
func readBalance(ctx context.Context, cfg *core.Config, key string) *balance {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(cfg.TimeoutMs)*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.BaseURL+"/user/balance", nil)
	if err != nil {
		return &balance{Error: "bad base URL"}
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", "application/json")
	resp, err := httpdriver.NewClient().Do(req)
	if err != nil {
		return &balance{Error: "the request failed"}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &balance{Error: fmt.Sprintf("HTTP %d", resp.StatusCode)}
	}
	var body struct {
		IsAvailable  bool `json:"is_available"`
		BalanceInfos []struct {
			Currency     string `json:"currency"`
			TotalBalance string `json:"total_balance"`
		} `json:"balance_infos"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body); err != nil {
		return &balance{Error: "the answer was not DeepSeek's balance"}
	}
	b := &balance{Available: body.IsAvailable}
	for _, i := range body.BalanceInfos {
		b.Infos = append(b.Infos, balanceInfo{Currency: i.Currency, Total: i.TotalBalance})
	}
	return b
}

func writeJSON(stdout, stderr io.Writer, cmd string, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval %s: %v\n", cmd, err)
		return exitFailed
	}
	return exitOK
}
