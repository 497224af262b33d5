package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// This file keeps the encoding/json-based options parser that jsonvalue.go
// replaced, verbatim but for its names, as the reference the equivalence
// tests and FuzzParseOptionsReference hold ParseOptions to.

func refParseOptions(data []byte) (Options, []string, error) {
	var o Options
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return o, nil, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return o, nil, fmt.Errorf("options: not a JSON object: %w", err)
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
			err = refDecodeString(v, (*string)(&o.Search))
		case "fetch":
			err = refDecodeString(v, (*string)(&o.Fetch))
		case "apiKeyEnv":
			err = refDecodeString(v, &o.APIKeyEnv)
		case "apiKey":
			if json.Unmarshal(v, &o.APIKey) != nil {
				err = fmt.Errorf("want a string such as \"${DEEPSEEK_API_KEY}\"")
			}
		case "baseURL":
			err = refDecodeString(v, &o.BaseURL)
		case "maxResults":
			err = refDecodeRange(v, &o.MaxResults, "maxResults")
		case "maxSummaryChars":
			err = refDecodeRange(v, &o.MaxSummaryChars, "maxSummaryChars")
		case "minRerank":
			err = refDecodeNumber(v, &o.MinRerank)
		case "minAuthority":
			err = refDecodeNumber(v, &o.MinAuthority)
		case "allowUnknownAuthority":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				err = fmt.Errorf("want true or false, got %s", quoteRaw(v))
			}
			o.AllowUnknownAuthority = &b
		case "includeDomains":
			err = refDecodeStrings(v, &o.IncludeDomains)
		case "allowedDomains":
			err = refDecodeStrings(v, &o.AllowedDomains)
		case "blockedDomains":
			err = refDecodeStrings(v, &o.BlockedDomains)
		case "language":
			err = refDecodeString(v, &o.Language)
		case "localization":
			err = refDecodeString(v, &o.Localization)
		case "fetchMaxChars":
			err = refDecodeRange(v, &o.FetchMaxChars, "fetchMaxChars")
		case "timeoutMs":
			err = refDecodeRange(v, &o.TimeoutMs, "timeoutMs")
		case "maxRetries":
			var n int
			err = refDecodeRange(v, &n, "maxRetries")
			o.MaxRetries = &n
		case "cacheTTL", "cacheMaxMB":
			var n int
			err = refDecodeRange(v, &n, k)
			if k == "cacheTTL" {
				o.CacheTTL = &n
			} else {
				o.CacheMaxMB = &n
			}
		default:
			var known bool
			if known, err = refParseMessages(&o.MessagesOptions, k, v); !known {
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

func refParseMessages(m *MessagesOptions, name string, v json.RawMessage) (known bool, err error) {
	switch name {
	case "searchBackend":
		err = refDecodeString(v, (*string)(&m.SearchBackend))
	case "messagesBaseURL":
		err = refDecodeString(v, &m.MessagesBaseURL)
	case "messagesModel":
		err = refDecodeString(v, &m.MessagesModel)
	case "messagesMaxTokens":
		err = refDecodeBetween(v, &m.MessagesMaxTokens, minMessagesMaxTokens, maxMessagesMaxTokens)
	case "messagesMaxUses":
		err = refDecodeBetween(v, &m.MessagesMaxUses, minMessagesMaxUses, maxMessagesMaxUses)
	case "anthropicVersion":
		err = refDecodeString(v, &m.AnthropicVersion)
	case "messagesSummary":
		if json.Unmarshal(v, &m.MessagesSummary) != nil {
			err = fmt.Errorf("want true or false, got %s", quoteRaw(v))
		}
	default:
		return false, nil
	}
	return true, err
}

func refDecodeBetween(v json.RawMessage, dst *int, lo, hi int) error {
	if err := refDecodeInt(v, dst); err != nil {
		return err
	}
	return between(*dst, lo, hi)
}

func refDecodeString(v json.RawMessage, dst *string) error {
	if json.Unmarshal(v, dst) != nil {
		return fmt.Errorf("want a string, got %s", quoteRaw(v))
	}
	return nil
}

func refDecodeNumber(v json.RawMessage, dst *float64) error {
	if json.Unmarshal(v, dst) != nil {
		return fmt.Errorf("want a number, got %s", quoteRaw(v))
	}
	return nil
}

func refDecodeInt(v json.RawMessage, dst *int) error {
	var f float64
	if json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return fmt.Errorf("want a whole number, got %s", quoteRaw(v))
	}
	*dst = int(f)
	return nil
}

func refDecodeRange(v json.RawMessage, dst *int, name string) error {
	if err := refDecodeInt(v, dst); err != nil {
		return err
	}
	return checkRange(name, *dst)
}

func refDecodeStrings(v json.RawMessage, dst *[]string) error {
	if json.Unmarshal(v, dst) == nil {
		return nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		*dst = splitList(s)
		return nil
	}
	return fmt.Errorf("want a list of domain names, got %s", quoteRaw(v))
}
