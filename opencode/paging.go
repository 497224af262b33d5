package opencode

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// pagingHelp tells the model how long pages are read (cfg decides whether
// later parts are free).
func pagingHelp(cfg *core.Config) string {
	s := "A longer page ends with a line \"[content truncated: showing A–B of N characters; call deepseek_fetch with offset B for more]\": call again with the same url and that offset to read the next part"
	if cfg.CacheTTLMinutes > 0 {
		s += " (the page is kept for " + strconv.Itoa(cfg.CacheTTLMinutes) + " minutes after its last use, so later parts cost no new request)"
	}
	return s + ". "
}

// offsetArg reads deepseek_fetch's optional offset: a whole number ≥ 0,
// also accepted as a string of digits (models sometimes quote numbers).
// Absent or null means 0.
func offsetArg(tool string, v []byte) (int, error) {
	raw := strings.TrimSpace(string(v))
	if raw == "" || raw == "null" {
		return 0, nil
	}
	bad := errors.New(tool + `: "offset" must be a whole number of characters, 0 or more (the number the last part's "[content truncated: …]" line names), got ` + clipRaw(raw))
	if s, ok := jsonlite.Unquote(v); ok {
		raw = strings.TrimSpace(s)
	}
	// Decimal only: ParseFloat also reads hex floats ("0x1p4" is 16).
	if strings.Trim(raw, "0123456789.eE+-") != "" {
		return 0, bad
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		return 0, bad
	}
	return int(f), nil
}

func clipRaw(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
