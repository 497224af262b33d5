package core

import (
	"strconv"
	"strings"
)

// BuildQuery returns the query DeepSeek receives for q under cfg: q trimmed,
// then each includeDomains entry as site:D, each blockedDomains entry as
// -site:D, then lang:L (SPEC §2.2). It fails without a request when q is
// blank or the result is over 128 code points. A nil cfg means defaults.
func BuildQuery(q string, cfg *Config) (string, error) {
	s, err := buildQuery(q, cfg)
	if err != nil {
		return "", err
	}
	return s, nil
}

func buildQuery(q string, cfg *Config) (string, *Error) {
	if cfg == nil {
		cfg = defaultConfig
	}
	q = strings.TrimSpace(q)
	if q == "" {
		return "", &Error{Code: CodeInvalidInput, Message: "DeepSeek Search: the query is empty"}
	}
	// With no operators, as with the default options, the query is q
	// itself, without a builder's copy.
	full := q
	if len(cfg.IncludeDomains) > 0 || len(cfg.BlockedDomains) > 0 || cfg.Language != "" {
		var b strings.Builder
		b.WriteString(q)
		for _, d := range cfg.IncludeDomains {
			b.WriteString(" site:" + d)
		}
		for _, d := range cfg.BlockedDomains {
			b.WriteString(" -site:" + d)
		}
		if cfg.Language != "" {
			b.WriteString(" lang:" + cfg.Language)
		}
		full = b.String()
	}
	if n := runeCount(full); n > MaxQueryChars {
		qn := runeCount(q)
		if qn == n {
			return "", &Error{Code: CodeInvalidInput, Message: "DeepSeek Search: the query is " + strconv.Itoa(n) + " characters long; DeepSeek accepts at most " + strconv.Itoa(MaxQueryChars) + ". Shorten the query"}
		}
		return "", &Error{Code: CodeInvalidInput, Message: "DeepSeek Search: the query is " + strconv.Itoa(n) + " characters long with the configured site:/lang: operators (" + strconv.Itoa(qn) + " without them); DeepSeek accepts at most " + strconv.Itoa(MaxQueryChars) + ". Shorten the query"}
	}
	return full, nil
}
