package core

// The options of the native hosts' shared database (the MCP server, the
// CLI, a gateway without Redis): the answer cache every process of the
// machine shares (package diskcache) and the daily budget the usage
// ledger enforces (package ledger). The core only validates them; the
// hosts act on them.

// Defaults and bounds of the shared cache and the budget.
const (
	// DefaultDiskCacheMB is the shared cache's bound on disk, in MiB.
	DefaultDiskCacheMB = 256
	// DefaultDiskPageTTL is how long a page stays in the shared cache, in
	// minutes (24 hours).
	DefaultDiskPageTTL = 24 * 60
	// DefaultDiskSearchTTL is how long a search answer stays, in minutes.
	DefaultDiskSearchTTL = 60

	maxDiskCacheMB   = 16384
	maxDiskPageTTL   = 30 * 24 * 60
	maxDiskSearchTTL = 7 * 24 * 60
	maxDailyBudget   = 1000000
)

// HostOptions are the shared cache's and the budget's options, part of
// [Options].
type HostOptions struct {
	// DiskCacheMaxMB bounds the shared cache on disk, in MiB; nil means
	// DefaultDiskCacheMB, 0 turns the shared cache off.
	DiskCacheMaxMB *int `json:"diskCacheMaxMB,omitempty"`
	// DiskPageTTL and DiskSearchTTL are how long an answer stays in the
	// shared cache, in minutes; nil means the default, 0 keeps none of
	// that kind.
	DiskPageTTL   *int `json:"diskPageTTL,omitempty"`
	DiskSearchTTL *int `json:"diskSearchTTL,omitempty"`
	// DailyBudget is the most billed DeepSeek requests a day, every
	// process of the machine together; 0 means no limit.
	DailyBudget int `json:"dailyBudget,omitempty"`
}

// HostConfig is the resolved [HostOptions], part of [Config].
type HostConfig struct {
	// DiskCacheMaxBytes bounds the shared cache; 0 when it is off.
	DiskCacheMaxBytes int64
	// DiskPageTTLMinutes and DiskSearchTTLMinutes are the shared cache's
	// lifetimes; 0 keeps none of that kind.
	DiskPageTTLMinutes, DiskSearchTTLMinutes int
	// DailyBudget is the most billed requests a day; 0 means no limit.
	DailyBudget int
}

func (h *HostOptions) parse(name string, v []byte) (known bool, err error) {
	var dst **int
	switch name {
	case "diskCacheMaxMB":
		dst = &h.DiskCacheMaxMB
	case "diskPageTTL":
		dst = &h.DiskPageTTL
	case "diskSearchTTL":
		dst = &h.DiskSearchTTL
	case "dailyBudget":
		return true, decodeRange(v, &h.DailyBudget, name)
	default:
		return false, nil
	}
	var n int
	err = decodeRange(v, &n, name)
	*dst = &n
	return true, err
}

// setHost resolves o into c.Host.
func (c *Config) setHost(o HostOptions) error {
	c.Host = HostConfig{DiskCacheMaxBytes: DefaultDiskCacheMB << 20, DiskPageTTLMinutes: DefaultDiskPageTTL, DiskSearchTTLMinutes: DefaultDiskSearchTTL}
	for _, f := range []struct {
		name string
		in   *int
		out  *int
	}{
		{"diskPageTTL", o.DiskPageTTL, &c.Host.DiskPageTTLMinutes},
		{"diskSearchTTL", o.DiskSearchTTL, &c.Host.DiskSearchTTLMinutes},
	} {
		if f.in == nil {
			continue
		}
		if err := checkRange(f.name, *f.in); err != nil {
			return &OptionError{Option: f.name, Reason: err.Error()}
		}
		*f.out = *f.in
	}
	if o.DiskCacheMaxMB != nil {
		if err := checkRange("diskCacheMaxMB", *o.DiskCacheMaxMB); err != nil {
			return &OptionError{Option: "diskCacheMaxMB", Reason: err.Error()}
		}
		c.Host.DiskCacheMaxBytes = int64(*o.DiskCacheMaxMB) << 20
	}
	if err := checkRange("dailyBudget", o.DailyBudget); err != nil {
		return &OptionError{Option: "dailyBudget", Reason: err.Error()}
	}
	c.Host.DailyBudget = o.DailyBudget
	return nil
}
