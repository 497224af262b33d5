package core

import (
	"bytes"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/ipaddr"
)

// Tier says how strongly a capability (search or fetch) is offered to the
// model on a host. See SPEC §5.
type Tier string

// The four tiers, weakest first.
const (
	// TierOff registers nothing.
	TierOff Tier = "off"
	// TierOptional registers the capability beside what the host has.
	TierOptional Tier = "optional"
	// TierPreferred registers it and makes it the default.
	TierPreferred Tier = "preferred"
	// TierForced makes it the default and exclusive, or fails setup.
	TierForced Tier = "forced"
)

// Valid reports whether t is one of the four tiers.
func (t Tier) Valid() bool {
	switch t {
	case TierOff, TierOptional, TierPreferred, TierForced:
		return true
	}
	return false
}

// Defaults and limits of the options in SPEC §5.
const (
	DefaultBaseURL         = "https://api.deepseek.com"
	DefaultAPIKeyEnv       = "DEEPSEEK_API_KEY"
	DefaultMaxResults      = 10
	DefaultMaxSummaryChars = 1200
	DefaultFetchMaxChars   = 16000
	DefaultTimeoutMs       = 30000
	DefaultMaxRetries      = 2

	// MaxResponseBytes is the largest response body accepted (5 MiB).
	MaxResponseBytes = 5 << 20
	// MaxQueryChars is DeepSeek's limit on the final query, in code points.
	MaxQueryChars = 128
	// MaxOriQuestionChars is the clamp applied to ori_question, in code points.
	MaxOriQuestionChars = 128
	// MaxURLChars is the longest fetch URL accepted, in characters.
	MaxURLChars = 8192
	// MaxRetryAfterMs caps any Retry-After or backoff delay, in milliseconds.
	MaxRetryAfterMs = 10000
	// BaseBackoffMs is the first exponential backoff delay, in milliseconds.
	BaseBackoffMs = 500
)

// Options is the flat, JSON-shaped set of options of SPEC §5, as a user
// writes them in OpenCode's `options` object. A zero field means "use the
// default"; fields whose zero value is a meaningful setting (maxRetries 0,
// allowUnknownAuthority false) are pointers.
//
// Options are not used directly: [NewConfig] validates them and fills in the
// defaults.
type Options struct {
	// Search and Fetch are the tiers; default preferred and optional.
	Search Tier `json:"search,omitempty"`
	Fetch  Tier `json:"fetch,omitempty"`
	// APIKeyEnv names the environment variable holding the key; default
	// DEEPSEEK_API_KEY.
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	// APIKey is a `${VAR}` or `{env:VAR}` reference or, discouraged, a
	// literal key.
	APIKey string `json:"apiKey,omitempty"`
	// BaseURL is DeepSeek's origin; default https://api.deepseek.com. It
	// must be https unless the host is loopback.
	BaseURL string `json:"baseURL,omitempty"`
	// MaxResults caps the results returned (1–50); default 10.
	MaxResults int `json:"maxResults,omitempty"`
	// MaxSummaryChars caps each result's text, in code points; default 1200.
	MaxSummaryChars int `json:"maxSummaryChars,omitempty"`
	// MinRerank drops results scored below it (0–3); default 0 (off).
	MinRerank float64 `json:"minRerank,omitempty"`
	// MinAuthority drops results below this authority (0–4); default 0.
	MinAuthority float64 `json:"minAuthority,omitempty"`
	// AllowUnknownAuthority lets results of unknown authority pass a
	// non-zero MinAuthority; nil means true.
	AllowUnknownAuthority *bool `json:"allowUnknownAuthority,omitempty"`
	// IncludeDomains restricts search to these domains (site: operators).
	IncludeDomains []string `json:"includeDomains,omitempty"`
	// AllowedDomains restricts fetch to these domains and their subdomains.
	AllowedDomains []string `json:"allowedDomains,omitempty"`
	// BlockedDomains are excluded from search and refused by fetch.
	BlockedDomains []string `json:"blockedDomains,omitempty"`
	// Language adds a lang: operator, e.g. "zh,en".
	Language string `json:"language,omitempty"`
	// Localization is an IPv4 or IPv6 address sent to prefer local results.
	Localization string `json:"localization,omitempty"`
	// FetchMaxChars caps fetched text, in code points; default 16000.
	FetchMaxChars int `json:"fetchMaxChars,omitempty"`
	// TimeoutMs is the per-attempt timeout (1000–120000); default 30000.
	TimeoutMs int `json:"timeoutMs,omitempty"`
	// MaxRetries is the number of retries (0–5); nil means 2.
	MaxRetries *int `json:"maxRetries,omitempty"`
	// CacheTTL is how long a cached page lives after its last use, in
	// minutes (0–60); nil means 15, 0 turns the page and search caches off.
	CacheTTL *int `json:"cacheTTL,omitempty"`
	// CacheMaxMB caps the cache's memory, in MiB (0–64); nil means 64, 0
	// turns the page and search caches off.
	CacheMaxMB *int `json:"cacheMaxMB,omitempty"`
	// MaxCalls bounds the calls in flight in one process (1–256); 0 means
	// DefaultMaxCalls. See admission.go.
	MaxCalls int `json:"maxCalls,omitempty"`
	// MaxHeldMB bounds the request and response bytes the calls in flight
	// may hold together, in MiB (16–1024); 0 means DefaultMaxHeldMB.
	MaxHeldMB int `json:"maxHeldMB,omitempty"`
	// MessagesMaxRequestMB caps one Messages request, in MiB (1–64); 0
	// means DefaultMessagesMaxRequestMB.
	MessagesMaxRequestMB int `json:"messagesMaxRequestMB,omitempty"`

	// The shared cache and the daily budget, which the native hosts keep
	// in a database every process of the machine shares (hostopts.go).
	HostOptions

	// The Messages search backend (messages.go).
	MessagesOptions
}

// Limits on options that SPEC §5 leaves open; see RATIONALE.md.
const (
	minSummaryChars  = 20
	maxSummaryChars  = 20000
	minFetchMaxChars = 200
	maxFetchMaxChars = 1000000
	minTimeoutMs     = 1000
	maxTimeoutMs     = 120000
	maxMaxRetries    = 5
	maxMaxResults    = 50
	maxDomainEntries = 100
)

// Cache defaults and hard bounds; see cache.go and RATIONALE.md.
const (
	// DefaultCacheTTLMinutes is how long a page stays cached after its last
	// use.
	DefaultCacheTTLMinutes = 15
	// MaxCacheTTLMinutes is the largest cacheTTL accepted.
	MaxCacheTTLMinutes = 60
	// MaxCacheMB is the most memory the cache of one engine may hold, in
	// MiB; also the default.
	MaxCacheMB = 64
)

// OptionError is an invalid option value; [ParseOptions] and [NewConfig]
// return it so callers (the CLI, the installer) can name the option their
// own way, e.g. as a flag.
type OptionError struct {
	// Option is the SPEC §5 name, e.g. "maxResults".
	Option string
	// Reason says what is wrong, e.g. "want a whole number from 1 to 50, got 0".
	Reason string
}

func (e *OptionError) Error() string { return "option " + strconv.Quote(e.Option) + ": " + e.Reason }

// ParseOptions decodes a JSON options object. Unknown option names are
// ignored with a warning; a value of the wrong type is an error naming the
// option. JSON null for any option means "default". An empty or `null`
// input yields zero Options.
func ParseOptions(data []byte) (Options, []string, error) {
	var o Options
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return o, nil, nil
	}
	raw, err := jsonObjectMembers(data)
	if err != nil {
		return o, nil, &notObjectError{err}
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var warnings []string
	for _, k := range keys {
		v := raw[k]
		if string(bytes.TrimSpace(v)) == "null" {
			continue
		}
		var err error
		switch k {
		case "search":
			err = decodeString(v, (*string)(&o.Search))
		case "fetch":
			err = decodeString(v, (*string)(&o.Fetch))
		case "apiKeyEnv":
			err = decodeString(v, &o.APIKeyEnv)
		case "apiKey":
			// Never echo the value: it may be a literal key.
			if !jsonString(v, &o.APIKey) {
				err = errors.New("want a string such as \"${DEEPSEEK_API_KEY}\"")
			}
		case "baseURL":
			err = decodeString(v, &o.BaseURL)
		case "maxResults":
			err = decodeRange(v, &o.MaxResults, "maxResults")
		case "maxSummaryChars":
			err = decodeRange(v, &o.MaxSummaryChars, "maxSummaryChars")
		case "minRerank":
			err = decodeNumber(v, &o.MinRerank)
		case "minAuthority":
			err = decodeNumber(v, &o.MinAuthority)
		case "allowUnknownAuthority":
			var b bool
			if !jsonBool(v, &b) {
				err = errors.New("want true or false, got " + quoteRaw(v))
			}
			o.AllowUnknownAuthority = &b
		case "includeDomains":
			err = decodeStrings(v, &o.IncludeDomains)
		case "allowedDomains":
			err = decodeStrings(v, &o.AllowedDomains)
		case "blockedDomains":
			err = decodeStrings(v, &o.BlockedDomains)
		case "language":
			err = decodeString(v, &o.Language)
		case "localization":
			err = decodeString(v, &o.Localization)
		case "fetchMaxChars":
			err = decodeRange(v, &o.FetchMaxChars, "fetchMaxChars")
		case "timeoutMs":
			err = decodeRange(v, &o.TimeoutMs, "timeoutMs")
		case "maxRetries":
			var n int
			err = decodeRange(v, &n, "maxRetries")
			o.MaxRetries = &n
		case "maxCalls":
			err = decodeRange(v, &o.MaxCalls, k)
		case "maxHeldMB":
			err = decodeRange(v, &o.MaxHeldMB, k)
		case "messagesMaxRequestMB":
			err = decodeRange(v, &o.MessagesMaxRequestMB, k)
		case "cacheTTL", "cacheMaxMB":
			var n int
			err = decodeRange(v, &n, k)
			if k == "cacheTTL" {
				o.CacheTTL = &n
			} else {
				o.CacheMaxMB = &n
			}
		default:
			var known bool
			if known, err = o.HostOptions.parse(k, v); known {
				break
			}
			if known, err = o.MessagesOptions.parse(k, v); !known {
				warnings = append(warnings, unknownOptionWarning(k))
				continue
			}
		}
		if err == nil {
			err = explicitZero(k, o)
		}
		if err != nil {
			return Options{}, nil, &OptionError{Option: k, Reason: err.Error()}
		}
	}
	return o, warnings, nil
}

// explicitZero rejects a 0 written for an option whose Options field uses 0
// for "not set": in JSON it was set, and 0 is out of its range.
func explicitZero(name string, o Options) error {
	for _, f := range []struct {
		name string
		v    int
	}{
		{"maxResults", o.MaxResults},
		{"maxSummaryChars", o.MaxSummaryChars},
		{"fetchMaxChars", o.FetchMaxChars},
		{"timeoutMs", o.TimeoutMs},
		{"maxCalls", o.MaxCalls},
		{"maxHeldMB", o.MaxHeldMB},
		{"messagesMaxRequestMB", o.MessagesMaxRequestMB},
	} {
		if f.name == name && f.v == 0 {
			return checkRange(name, 0)
		}
	}
	return nil
}

func unknownOptionWarning(name string) string {
	for _, known := range optionTable {
		if strings.EqualFold(known.Name, name) {
			return "unknown option " + quoteForMessage(name, 60) + " ignored (did you mean " + strconv.Quote(known.Name) + "?)"
		}
	}
	return "unknown option " + quoteForMessage(name, 60) + " ignored"
}

func quoteRaw(v []byte) string {
	s := string(bytes.TrimSpace(v))
	if looksLikeKey(s) {
		return "a value that looks like an API key (not repeated here)"
	}
	return clip(s, 40)
}

func decodeString(v []byte, dst *string) error {
	if !jsonString(v, dst) {
		return errors.New("want a string, got " + quoteRaw(v))
	}
	return nil
}

func decodeNumber(v []byte, dst *float64) error {
	if !jsonFloat(v, dst) {
		return errors.New("want a number, got " + quoteRaw(v))
	}
	return nil
}

func decodeInt(v []byte, dst *int) error {
	var f float64
	if !jsonFloat(v, &f) || f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return errors.New("want a whole number, got " + quoteRaw(v))
	}
	*dst = int(f)
	return nil
}

func checkRange(name string, n int) error {
	lo, hi, _ := intRange(name)
	return between(n, lo, hi)
}

// decodeRange decodes a whole number and checks its range, so a written 0
// is an error rather than "the default" (a zero Options field means unset).
func decodeRange(v []byte, dst *int, name string) error {
	if err := decodeInt(v, dst); err != nil {
		return err
	}
	return checkRange(name, *dst)
}

func decodeStrings(v []byte, dst *[]string) error {
	if jsonStrings(v, dst) {
		return nil
	}
	// A single string is accepted as a one-entry list, or as a
	// comma-separated list, the way flags and env vars spell lists.
	var s string
	if jsonString(v, &s) {
		*dst = splitList(s)
		return nil
	}
	return errors.New("want a list of domain names, got " + quoteRaw(v))
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// Config is a validated, defaulted set of options. Make one with
// [NewConfig]; the zero Config is not valid.
type Config struct {
	Search, Fetch         Tier
	APIKeyEnv             string // variable holding the key, when no literal key is set
	literalKey            string // a literal apiKey option; never printed
	BaseURL               string // origin and optional path prefix, no trailing slash
	MaxResults            int
	MaxSummaryChars       int
	MinRerank             float64
	MinAuthority          float64
	AllowUnknownAuthority bool
	IncludeDomains        []string // normalized
	AllowedDomains        []string // normalized
	BlockedDomains        []string // normalized
	Language              string
	Localization          string // a valid IP address or ""
	FetchMaxChars         int
	TimeoutMs             int
	MaxRetries            int
	// CacheTTLMinutes is how long a cached page lives after its last use,
	// in minutes; 0 when caching is off.
	CacheTTLMinutes int
	// CacheMaxBytes caps the cache's memory; 0 when caching is off.
	CacheMaxBytes int64
	// Limits bound the work an engine holds at once (admission.go).
	Limits Limits
	// Host holds the shared cache's bounds and the daily budget
	// (hostopts.go).
	Host HostConfig

	// Messages holds the search backend and the Messages backend's
	// settings (messages.go).
	Messages MessagesConfig
}

// HasLiteralKey reports whether the options held a literal API key rather
// than a reference to an environment variable.
func (c *Config) HasLiteralKey() bool { return c.literalKey != "" }

// ResolveKey returns the API key for a call, reading the environment through
// getenv at call time. It returns "" when no key is set.
func (c *Config) ResolveKey(getenv func(string) string) string {
	if c.literalKey != "" {
		return c.literalKey
	}
	if getenv == nil {
		return ""
	}
	return strings.TrimSpace(getenv(c.APIKeyEnv))
}

// MissingKeyMessage is the one sentence every surface shows when no key is
// available for c.
func (c *Config) MissingKeyMessage() string {
	return "DeepSeek API key not found: set the " + c.APIKeyEnv + " environment variable"
}

// NewConfig validates o and fills in defaults. Invalid values are errors that
// name the option; values that are dropped (an invalid localization, a
// literal apiKey) produce warnings.
func NewConfig(o Options) (*Config, []string, error) {
	c := &Config{
		Search:                TierPreferred,
		Fetch:                 TierOptional,
		APIKeyEnv:             DefaultAPIKeyEnv,
		BaseURL:               DefaultBaseURL,
		MaxResults:            DefaultMaxResults,
		MaxSummaryChars:       DefaultMaxSummaryChars,
		AllowUnknownAuthority: true,
		FetchMaxChars:         DefaultFetchMaxChars,
		TimeoutMs:             DefaultTimeoutMs,
		MaxRetries:            DefaultMaxRetries,
		CacheTTLMinutes:       DefaultCacheTTLMinutes,
		CacheMaxBytes:         MaxCacheMB << 20,
	}
	var warnings []string
	for _, set := range []func() error{
		func() error { return c.setTiers(o) },
		func() error { w, err := c.setKey(o); warnings = append(warnings, w...); return err },
		func() error { return c.setTransport(o) },
		func() error { return c.setCache(o.CacheTTL, o.CacheMaxMB) },
		func() error { return c.setLimits(o) },
		func() error { return c.setHost(o.HostOptions) },
		func() error { return c.setFilters(o) },
		func() error { w, err := c.setLocale(o); warnings = append(warnings, w...); return err },
		func() error { return c.resolveMessages(o) },
	} {
		if err := set(); err != nil {
			return nil, nil, err
		}
	}
	return c, warnings, nil
}

// setTiers sets the search and fetch tiers.
func (c *Config) setTiers(o Options) error {
	for _, t := range []struct {
		name string
		in   Tier
		out  *Tier
	}{{"search", o.Search, &c.Search}, {"fetch", o.Fetch, &c.Fetch}} {
		if t.in == "" {
			continue
		}
		if !t.in.Valid() {
			return &OptionError{Option: t.name, Reason: "want off, optional, preferred or forced, got " + quoteForMessage(string(t.in), 40)}
		}
		*t.out = t.in
	}
	return nil
}

// setKey sets where the key comes from: apiKeyEnv, or apiKey as a
// reference to a variable or a literal key (with a warning).
func (c *Config) setKey(o Options) ([]string, error) {
	if o.APIKeyEnv != "" {
		// A key pasted here can be a valid name (ghp_…): refuse known key
		// shapes rather than read a variable named after the key.
		if !validEnvName(o.APIKeyEnv) || hasKeyPrefix(o.APIKeyEnv) {
			return nil, &OptionError{Option: "apiKeyEnv", Reason: quoteForMessage(o.APIKeyEnv, 60) + " is not an environment variable name"}
		}
		c.APIKeyEnv = o.APIKeyEnv
	}
	k := strings.TrimSpace(o.APIKey)
	if k == "" {
		return nil, nil
	}
	if name, ok := envReference(k); ok {
		if !validEnvName(name) {
			return nil, &OptionError{Option: "apiKey", Reason: "the reference names " + quoteForMessage(name, 60) + ", which is not an environment variable name"}
		}
		c.APIKeyEnv = name
		return nil, nil
	}
	if !validKey(k) {
		return nil, &OptionError{Option: "apiKey", Reason: "the literal key is not usable: " + keyCharsRule}
	}
	c.literalKey = k
	return []string{`option "apiKey" holds a literal key; prefer "{env:DEEPSEEK_API_KEY}" so no secret sits in a config file`}, nil
}

// setTransport sets the base URL, the result and size bounds, the timeout
// and the retries.
func (c *Config) setTransport(o Options) error {
	if o.BaseURL != "" {
		u, err := checkBaseURL(o.BaseURL)
		if err != nil {
			return &OptionError{Option: "baseURL", Reason: err.Error()}
		}
		c.BaseURL = u
	}
	for _, f := range []struct {
		name string
		in   int
		out  *int
	}{
		{"maxResults", o.MaxResults, &c.MaxResults},
		{"maxSummaryChars", o.MaxSummaryChars, &c.MaxSummaryChars},
		{"fetchMaxChars", o.FetchMaxChars, &c.FetchMaxChars},
		{"timeoutMs", o.TimeoutMs, &c.TimeoutMs},
	} {
		if f.in == 0 {
			continue
		}
		if err := checkRange(f.name, f.in); err != nil {
			return &OptionError{Option: f.name, Reason: err.Error()}
		}
		*f.out = f.in
	}
	if o.MaxRetries != nil {
		if err := checkRange("maxRetries", *o.MaxRetries); err != nil {
			return &OptionError{Option: "maxRetries", Reason: err.Error()}
		}
		c.MaxRetries = *o.MaxRetries
	}
	return nil
}

// setFilters sets the score floors and the domain lists.
func (c *Config) setFilters(o Options) error {
	if o.MinRerank < 0 || o.MinRerank > 3 || math.IsNaN(o.MinRerank) {
		return &OptionError{Option: "minRerank", Reason: "want a number from 0 to 3, got " + strconv.FormatFloat(o.MinRerank, 'g', -1, 64)}
	}
	c.MinRerank = o.MinRerank
	if o.MinAuthority < 0 || o.MinAuthority > 4 || math.IsNaN(o.MinAuthority) {
		return &OptionError{Option: "minAuthority", Reason: "want a number from 0 to 4, got " + strconv.FormatFloat(o.MinAuthority, 'g', -1, 64)}
	}
	c.MinAuthority = o.MinAuthority
	if o.AllowUnknownAuthority != nil {
		c.AllowUnknownAuthority = *o.AllowUnknownAuthority
	}
	for _, l := range []struct {
		name string
		in   []string
		out  *[]string
	}{
		{"includeDomains", o.IncludeDomains, &c.IncludeDomains},
		{"allowedDomains", o.AllowedDomains, &c.AllowedDomains},
		{"blockedDomains", o.BlockedDomains, &c.BlockedDomains},
	} {
		if len(l.in) > maxDomainEntries {
			return &OptionError{Option: l.name, Reason: "at most " + strconv.Itoa(maxDomainEntries) + " entries, got " + strconv.Itoa(len(l.in))}
		}
		for i, d := range l.in {
			n, err := normalizeDomain(d)
			if err != nil {
				return &OptionError{Option: l.name, Reason: "entry " + strconv.Itoa(i+1) + ": " + err.Error()}
			}
			if !containsString(*l.out, n) {
				*l.out = append(*l.out, n)
			}
		}
	}
	return nil
}

// setLocale sets the language and the localization; a localization that
// is not an address is dropped with a warning.
func (c *Config) setLocale(o Options) ([]string, error) {
	if lang := strings.TrimSpace(o.Language); lang != "" {
		if !validLanguage(lang) {
			return nil, &OptionError{Option: "language", Reason: "want language codes separated by commas, such as \"zh,en\", got " + quoteForMessage(lang, 40)}
		}
		c.Language = lang
	}
	loc := strings.TrimSpace(o.Localization)
	if loc == "" {
		return nil, nil
	}
	if a, ok := ipaddr.Parse(loc); ok && a.Zone() == "" {
		c.Localization = a.String()
		return nil, nil
	}
	return []string{"option \"localization\": " + quoteForMessage(loc, 60) + " is not an IPv4 or IPv6 address; it is not sent"}, nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// envReference recognises `${VAR}` and `{env:VAR}`.
func envReference(s string) (string, bool) {
	switch {
	case strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}"):
		return strings.TrimSpace(s[2 : len(s)-1]), true
	case strings.HasPrefix(s, "{env:") && strings.HasSuffix(s, "}"):
		return strings.TrimSpace(s[5 : len(s)-1]), true
	}
	return "", false
}

// IsEnvReference reports whether s is a `${VAR}` or `{env:VAR}` reference
// rather than a literal value.
func IsEnvReference(s string) bool {
	name, ok := envReference(strings.TrimSpace(s))
	return ok && validEnvName(name)
}

func validEnvName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func validLanguage(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			return false
		}
		for _, r := range part {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}
