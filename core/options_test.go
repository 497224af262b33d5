package core_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

func TestNewConfigDefaults(t *testing.T) {
	cfg, warnings, err := core.NewConfig(core.Options{})
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.Equal(t, &core.Config{
		Search:                core.TierPreferred,
		Fetch:                 core.TierOptional,
		APIKeyEnv:             "DEEPSEEK_API_KEY",
		BaseURL:               "https://api.deepseek.com",
		MaxResults:            10,
		MaxSummaryChars:       1200,
		MinRerank:             0,
		MinAuthority:          0,
		AllowUnknownAuthority: true,
		FetchMaxChars:         16000,
		TimeoutMs:             30000,
		MaxRetries:            2,
		CacheTTLMinutes:       15,
		CacheMaxBytes:         64 << 20,
		Limits:                core.Limits{MaxCalls: 16, MaxHeldBytes: 64 << 20, MessagesMaxRequestBytes: 8 << 20},
		Host:                  core.HostConfig{DiskCacheMaxBytes: 256 << 20, DiskPageTTLMinutes: 1440, DiskSearchTTLMinutes: 60},
		Messages: core.MessagesConfig{
			Backend:          core.BackendSearch,
			BaseURL:          "https://api.deepseek.com/anthropic",
			Endpoint:         "https://api.deepseek.com/anthropic/v1/messages",
			Model:            "deepseek-v4-flash",
			MaxTokens:        4096,
			MaxUses:          5,
			AnthropicVersion: "2023-06-01",
			TimeoutMs:        60000,
		},
	}, cfg)
	require.False(t, cfg.HasLiteralKey())
	require.Equal(t, "DeepSeek API key not found: set the DEEPSEEK_API_KEY environment variable", cfg.MissingKeyMessage())
}

func TestNewConfigValues(t *testing.T) {
	tests := []struct {
		name  string
		in    core.Options
		check func(t *testing.T, c *core.Config)
	}{
		{"search tier off", core.Options{Search: core.TierOff}, func(t *testing.T, c *core.Config) { require.Equal(t, core.TierOff, c.Search) }},
		{"search tier forced", core.Options{Search: core.TierForced}, func(t *testing.T, c *core.Config) { require.Equal(t, core.TierForced, c.Search) }},
		{"fetch tier preferred", core.Options{Fetch: core.TierPreferred}, func(t *testing.T, c *core.Config) { require.Equal(t, core.TierPreferred, c.Fetch) }},
		{"fetch tier optional", core.Options{Fetch: core.TierOptional}, func(t *testing.T, c *core.Config) { require.Equal(t, core.TierOptional, c.Fetch) }},
		{"apiKeyEnv", core.Options{APIKeyEnv: "MY_KEY_2"}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "MY_KEY_2", c.APIKeyEnv)
			require.Equal(t, "DeepSeek API key not found: set the MY_KEY_2 environment variable", c.MissingKeyMessage())
		}},
		{"apiKey ${VAR}", core.Options{APIKey: "${OTHER_KEY}"}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "OTHER_KEY", c.APIKeyEnv)
			require.False(t, c.HasLiteralKey())
		}},
		{"apiKey {env:VAR}", core.Options{APIKey: " {env:OTHER_KEY} "}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "OTHER_KEY", c.APIKeyEnv)
			require.False(t, c.HasLiteralKey())
		}},
		{"apiKey reference wins over apiKeyEnv", core.Options{APIKeyEnv: "A", APIKey: "{env:B}"}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "B", c.APIKeyEnv)
		}},
		{"baseURL https with path", core.Options{BaseURL: "https://proxy.example.com/deepseek/"}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "https://proxy.example.com/deepseek", c.BaseURL)
		}},
		{"baseURL trailing slash", core.Options{BaseURL: " https://api.deepseek.com/ "}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "https://api.deepseek.com", c.BaseURL)
		}},
		{"baseURL http localhost", core.Options{BaseURL: "http://localhost:8080"}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "http://localhost:8080", c.BaseURL)
		}},
		{"baseURL http LOCALHOST", core.Options{BaseURL: "http://LocalHost:8080"}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "http://LocalHost:8080", c.BaseURL)
		}},
		{"baseURL http 127.0.0.1", core.Options{BaseURL: "http://127.0.0.1:9/"}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "http://127.0.0.1:9", c.BaseURL)
		}},
		{"baseURL http 127.8.9.10", core.Options{BaseURL: "http://127.8.9.10"}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "http://127.8.9.10", c.BaseURL)
		}},
		{"baseURL http [::1]", core.Options{BaseURL: "http://[::1]:3000/v"}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "http://[::1]:3000/v", c.BaseURL)
		}},
		{"baseURL http mapped loopback", core.Options{BaseURL: "http://[::ffff:127.0.0.1]"}, func(t *testing.T, c *core.Config) {
			require.Equal(t, "http://[::ffff:127.0.0.1]", c.BaseURL)
		}},
		{"maxResults bounds", core.Options{MaxResults: 50}, func(t *testing.T, c *core.Config) { require.Equal(t, 50, c.MaxResults) }},
		{"maxResults 1", core.Options{MaxResults: 1}, func(t *testing.T, c *core.Config) { require.Equal(t, 1, c.MaxResults) }},
		{"maxSummaryChars", core.Options{MaxSummaryChars: 20}, func(t *testing.T, c *core.Config) { require.Equal(t, 20, c.MaxSummaryChars) }},
		{"minRerank", core.Options{MinRerank: 1.5}, func(t *testing.T, c *core.Config) { require.Equal(t, 1.5, c.MinRerank) }},
		{"minAuthority", core.Options{MinAuthority: 4}, func(t *testing.T, c *core.Config) { require.Equal(t, 4.0, c.MinAuthority) }},
		{"allowUnknownAuthority false", core.Options{AllowUnknownAuthority: boolPtr(false)}, func(t *testing.T, c *core.Config) {
			require.False(t, c.AllowUnknownAuthority)
		}},
		{"allowUnknownAuthority true", core.Options{AllowUnknownAuthority: boolPtr(true)}, func(t *testing.T, c *core.Config) {
			require.True(t, c.AllowUnknownAuthority)
		}},
		{"domain lists deduplicated", core.Options{IncludeDomains: []string{"go.dev", "go.dev"}, BlockedDomains: []string{"spam.example"}, AllowedDomains: []string{"docs.example"}}, func(t *testing.T, c *core.Config) {
			require.Equal(t, []string{"go.dev"}, c.IncludeDomains)
			require.Equal(t, []string{"spam.example"}, c.BlockedDomains)
			require.Equal(t, []string{"docs.example"}, c.AllowedDomains)
		}},
		{"language", core.Options{Language: " zh,en "}, func(t *testing.T, c *core.Config) { require.Equal(t, "zh,en", c.Language) }},
		{"language with region", core.Options{Language: "zh-CN,en_US"}, func(t *testing.T, c *core.Config) { require.Equal(t, "zh-CN,en_US", c.Language) }},
		{"localization IPv4", core.Options{Localization: " 203.0.113.7 "}, func(t *testing.T, c *core.Config) { require.Equal(t, "203.0.113.7", c.Localization) }},
		{"localization IPv6 canonical", core.Options{Localization: "2001:DB8:0::1"}, func(t *testing.T, c *core.Config) { require.Equal(t, "2001:db8::1", c.Localization) }},
		{"fetchMaxChars", core.Options{FetchMaxChars: 200}, func(t *testing.T, c *core.Config) { require.Equal(t, 200, c.FetchMaxChars) }},
		{"fetchMaxChars max", core.Options{FetchMaxChars: 1000000}, func(t *testing.T, c *core.Config) { require.Equal(t, 1000000, c.FetchMaxChars) }},
		{"timeoutMs low", core.Options{TimeoutMs: 1000}, func(t *testing.T, c *core.Config) { require.Equal(t, 1000, c.TimeoutMs) }},
		{"timeoutMs high", core.Options{TimeoutMs: 120000}, func(t *testing.T, c *core.Config) { require.Equal(t, 120000, c.TimeoutMs) }},
		{"maxRetries 0", core.Options{MaxRetries: intPtr(0)}, func(t *testing.T, c *core.Config) { require.Equal(t, 0, c.MaxRetries) }},
		{"maxRetries 5", core.Options{MaxRetries: intPtr(5)}, func(t *testing.T, c *core.Config) { require.Equal(t, 5, c.MaxRetries) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warnings, err := core.NewConfig(tt.in)
			require.NoError(t, err)
			require.Empty(t, warnings)
			tt.check(t, c)
		})
	}
}

func TestNewConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		in   core.Options
		want string
	}{
		{"search tier", core.Options{Search: "always"}, `option "search": want off, optional, preferred or forced, got "always"`},
		{"fetch tier", core.Options{Fetch: "Preferred"}, `option "fetch": want off, optional, preferred or forced, got "Preferred"`},
		{"apiKeyEnv", core.Options{APIKeyEnv: "1BAD"}, `option "apiKeyEnv": "1BAD" is not an environment variable name`},
		{"apiKeyEnv dash", core.Options{APIKeyEnv: "MY-KEY"}, `option "apiKeyEnv": "MY-KEY" is not an environment variable name`},
		{"apiKey bad reference", core.Options{APIKey: "${MY KEY}"}, `option "apiKey": the reference names "MY KEY", which is not an environment variable name`},
		{"apiKey empty reference", core.Options{APIKey: "{env:}"}, `option "apiKey": the reference names "", which is not an environment variable name`},
		{"apiKey literal with space", core.Options{APIKey: "sk-abc def"}, `option "apiKey": the literal key is not usable: an API key is 1 to 1,024 letters, digits and - _ . ~ + / = :`},
		{"baseURL http remote", core.Options{BaseURL: "http://api.deepseek.com"}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://api.deepseek.com"`},
		{"baseURL http private", core.Options{BaseURL: "http://10.0.0.1"}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://10.0.0.1"`},
		{"baseURL http localhost lookalike", core.Options{BaseURL: "http://localhost.example.com"}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://localhost.example.com"`},
		{"baseURL http sub.localhost", core.Options{BaseURL: "http://evil.localhost:18080"}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://evil.localhost:18080"`},
		{"baseURL http localhost dot", core.Options{BaseURL: "http://localhost.:18080"}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://localhost.:18080"`},
		{"baseURL http sub.localhost dot", core.Options{BaseURL: "http://api.localhost."}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://api.localhost."`},
		{"baseURL http 127.1", core.Options{BaseURL: "http://127.1/"}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://127.1/"`},
		{"baseURL http decimal loopback", core.Options{BaseURL: "http://2130706433/"}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://2130706433/"`},
		{"baseURL http zone", core.Options{BaseURL: "http://[::1%25lo]:9"}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://[::1%25lo]:9"`},
		{"baseURL http link-local", core.Options{BaseURL: "http://169.254.169.254"}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://169.254.169.254"`},
		{"baseURL http ULA", core.Options{BaseURL: "http://[fd00::1]"}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://[fd00::1]"`},
		{"baseURL http 0.0.0.0", core.Options{BaseURL: "http://0.0.0.0:80"}, `option "baseURL": must use https; plain http is allowed only for localhost and loopback IP addresses (127.0.0.0/8, [::1]), got "http://0.0.0.0:80"`},
		{"baseURL ftp", core.Options{BaseURL: "ftp://api.deepseek.com"}, `option "baseURL": must use https, got "ftp://api.deepseek.com"`},
		{"baseURL no scheme", core.Options{BaseURL: "api.deepseek.com"}, `option "baseURL": "api.deepseek.com" is not an absolute URL`},
		{"baseURL unparsable", core.Options{BaseURL: "https://[::1"}, `option "baseURL": "https://[::1" is not an absolute URL`},
		{"baseURL user", core.Options{BaseURL: "https://u:p@api.deepseek.com"}, `option "baseURL": must not contain a user name or password`},
		{"baseURL query", core.Options{BaseURL: "https://api.deepseek.com/?x=1"}, `option "baseURL": must not contain a query or fragment`},
		{"baseURL fragment", core.Options{BaseURL: "https://api.deepseek.com/#x"}, `option "baseURL": must not contain a query or fragment`},
		{"maxResults high", core.Options{MaxResults: 51}, `option "maxResults": want a whole number from 1 to 50, got 51`},
		{"maxResults negative", core.Options{MaxResults: -1}, `option "maxResults": want a whole number from 1 to 50, got -1`},
		{"maxSummaryChars low", core.Options{MaxSummaryChars: 19}, `option "maxSummaryChars": want a whole number from 20 to 20000, got 19`},
		{"maxSummaryChars high", core.Options{MaxSummaryChars: 20001}, `option "maxSummaryChars": want a whole number from 20 to 20000, got 20001`},
		{"fetchMaxChars low", core.Options{FetchMaxChars: 199}, `option "fetchMaxChars": want a whole number from 200 to 1000000, got 199`},
		{"fetchMaxChars high", core.Options{FetchMaxChars: 1000001}, `option "fetchMaxChars": want a whole number from 200 to 1000000, got 1000001`},
		{"timeoutMs low", core.Options{TimeoutMs: 999}, `option "timeoutMs": want a whole number from 1000 to 120000, got 999`},
		{"timeoutMs high", core.Options{TimeoutMs: 120001}, `option "timeoutMs": want a whole number from 1000 to 120000, got 120001`},
		{"maxRetries high", core.Options{MaxRetries: intPtr(6)}, `option "maxRetries": want a whole number from 0 to 5, got 6`},
		{"maxRetries negative", core.Options{MaxRetries: intPtr(-1)}, `option "maxRetries": want a whole number from 0 to 5, got -1`},
		{"minRerank high", core.Options{MinRerank: 3.5}, `option "minRerank": want a number from 0 to 3, got 3.5`},
		{"minRerank negative", core.Options{MinRerank: -0.1}, `option "minRerank": want a number from 0 to 3, got -0.1`},
		{"minAuthority high", core.Options{MinAuthority: 5}, `option "minAuthority": want a number from 0 to 4, got 5`},
		{"minAuthority negative", core.Options{MinAuthority: -1}, `option "minAuthority": want a number from 0 to 4, got -1`},
		{"language spaces", core.Options{Language: "zh en"}, `option "language": want language codes separated by commas, such as "zh,en", got "zh en"`},
		{"language empty part", core.Options{Language: "zh,,en"}, `option "language": want language codes separated by commas, such as "zh,en", got "zh,,en"`},
		{"language too long", core.Options{Language: strings.Repeat("a", 65)}, `option "language": want language codes separated by commas, such as "zh,en", got "` + strings.Repeat("a", 40) + `"`},
		{"includeDomains too many", core.Options{IncludeDomains: make([]string, 101)}, `option "includeDomains": at most 100 entries, got 101`},
		{"blockedDomains too many", core.Options{BlockedDomains: make([]string, 101)}, `option "blockedDomains": at most 100 entries, got 101`},
		{"allowedDomains too many", core.Options{AllowedDomains: make([]string, 101)}, `option "allowedDomains": at most 100 entries, got 101`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warnings, err := core.NewConfig(tt.in)
			require.EqualError(t, err, tt.want)
			require.Nil(t, c)
			require.Nil(t, warnings)
		})
	}
}

func TestNewConfigDomainEntryErrorsNameTheOption(t *testing.T) {
	for _, name := range []string{"includeDomains", "allowedDomains", "blockedDomains"} {
		var o core.Options
		list := []string{"go.dev", ""}
		switch name {
		case "includeDomains":
			o.IncludeDomains = list
		case "allowedDomains":
			o.AllowedDomains = list
		case "blockedDomains":
			o.BlockedDomains = list
		}
		_, _, err := core.NewConfig(o)
		require.ErrorContains(t, err, `option "`+name+`": entry 2: `)
	}
}

func TestNewConfigWarnings(t *testing.T) {
	t.Run("literal key", func(t *testing.T) {
		c, warnings, err := core.NewConfig(core.Options{APIKey: " " + testKey + " "})
		require.NoError(t, err)
		require.Equal(t, []string{`option "apiKey" holds a literal key; prefer "{env:DEEPSEEK_API_KEY}" so no secret sits in a config file`}, warnings)
		require.True(t, c.HasLiteralKey())
		require.Equal(t, testKey, c.ResolveKey(nil))
		require.Equal(t, testKey, c.ResolveKey(func(string) string { return "other" }))
		for _, w := range warnings {
			require.NotContains(t, w, testKey)
		}
	})
	t.Run("unterminated reference is no key", func(t *testing.T) {
		_, _, err := core.NewConfig(core.Options{APIKey: "${DEEPSEEK_API_KEY"})
		require.EqualError(t, err, `option "apiKey": the literal key is not usable: an API key is 1 to 1,024 letters, digits and - _ . ~ + / = :`)
	})
	for _, loc := range []string{"not-an-ip", "fe80::1%eth0", "1.2.3", "203.0.113.7/24"} {
		t.Run("localization "+loc, func(t *testing.T) {
			c, warnings, err := core.NewConfig(core.Options{Localization: loc})
			require.NoError(t, err)
			require.Equal(t, []string{`option "localization": "` + loc + `" is not an IPv4 or IPv6 address; it is not sent`}, warnings)
			require.Empty(t, c.Localization)
		})
	}
	t.Run("blank localization is silent", func(t *testing.T) {
		c, warnings, err := core.NewConfig(core.Options{Localization: "  "})
		require.NoError(t, err)
		require.Empty(t, warnings)
		require.Empty(t, c.Localization)
	})
}

func TestResolveKey(t *testing.T) {
	env := map[string]string{"DEEPSEEK_API_KEY": " " + testKey + "\n", "OTHER": "sk-other"}
	getenv := func(k string) string { return env[k] }
	require.Equal(t, testKey, mustConfig(t, core.Options{}).ResolveKey(getenv))
	require.Equal(t, "sk-other", mustConfig(t, core.Options{APIKey: "${OTHER}"}).ResolveKey(getenv))
	require.Equal(t, "sk-other", mustConfig(t, core.Options{APIKeyEnv: "OTHER"}).ResolveKey(getenv))
	require.Equal(t, "", mustConfig(t, core.Options{APIKey: "{env:UNSET}"}).ResolveKey(getenv))
	require.Equal(t, "", mustConfig(t, core.Options{}).ResolveKey(nil))
	// Read at call time: a later change is seen.
	c := mustConfig(t, core.Options{})
	env["DEEPSEEK_API_KEY"] = "sk-new"
	require.Equal(t, "sk-new", c.ResolveKey(getenv))
}

func TestIsEnvReference(t *testing.T) {
	for s, want := range map[string]bool{
		"${DEEPSEEK_API_KEY}":                 true,
		"{env:DEEPSEEK_API_KEY}":              true,
		" {env: X_1 } ":                       true,
		"${}":                                 false,
		"${1X}":                               false,
		"{env:A B}":                           false,
		"sk-0123":                             false,
		"$DEEPSEEK_API_KEY":                   false,
		"{DEEPSEEK_API_KEY}":                  false,
		"${" + strings.Repeat("A", 129) + "}": false,
	} {
		require.Equal(t, want, core.IsEnvReference(s), s)
	}
}

func TestTierValid(t *testing.T) {
	for _, tier := range []core.Tier{core.TierOff, core.TierOptional, core.TierPreferred, core.TierForced} {
		require.True(t, tier.Valid(), tier)
	}
	for _, tier := range []core.Tier{"", "OFF", "default", "exclusive"} {
		require.False(t, tier.Valid(), tier)
	}
}

func TestParseOptions(t *testing.T) {
	t.Run("every option", func(t *testing.T) {
		o, warnings, err := core.ParseOptions([]byte(`{
			"search": "forced", "fetch": "off", "apiKeyEnv": "K", "apiKey": "{env:K2}",
			"baseURL": "https://x.example", "maxResults": 5, "maxSummaryChars": 300.0,
			"minRerank": 1.5, "minAuthority": 2, "allowUnknownAuthority": false,
			"includeDomains": ["go.dev"], "allowedDomains": "a.example, b.example ,",
			"blockedDomains": "spam.example", "language": "zh,en", "localization": "1.2.3.4",
			"fetchMaxChars": 5000, "timeoutMs": 2000, "maxRetries": 0}`))
		require.NoError(t, err)
		require.Empty(t, warnings)
		require.Equal(t, core.Options{
			Search: core.TierForced, Fetch: core.TierOff, APIKeyEnv: "K", APIKey: "{env:K2}",
			BaseURL: "https://x.example", MaxResults: 5, MaxSummaryChars: 300,
			MinRerank: 1.5, MinAuthority: 2, AllowUnknownAuthority: boolPtr(false),
			IncludeDomains: []string{"go.dev"}, AllowedDomains: []string{"a.example", "b.example"},
			BlockedDomains: []string{"spam.example"}, Language: "zh,en", Localization: "1.2.3.4",
			FetchMaxChars: 5000, TimeoutMs: 2000, MaxRetries: intPtr(0),
		}, o)
	})
	for _, in := range []string{``, `  `, `null`, ` null `, `{}`} {
		t.Run("empty "+in, func(t *testing.T) {
			o, warnings, err := core.ParseOptions([]byte(in))
			require.NoError(t, err)
			require.Empty(t, warnings)
			require.Equal(t, core.Options{}, o)
		})
	}
	t.Run("null values mean default", func(t *testing.T) {
		o, warnings, err := core.ParseOptions([]byte(`{"maxResults":null,"maxRetries":null,"allowUnknownAuthority":null,"search":null}`))
		require.NoError(t, err)
		require.Empty(t, warnings)
		require.Equal(t, core.Options{}, o)
	})
	t.Run("unknown names warn, sorted", func(t *testing.T) {
		o, warnings, err := core.ParseOptions([]byte(`{"maxresults":3,"zeta":1,"BaseUrl":"x","maxResults":4}`))
		require.NoError(t, err)
		require.Equal(t, []string{
			`unknown option "BaseUrl" ignored (did you mean "baseURL"?)`,
			`unknown option "maxresults" ignored (did you mean "maxResults"?)`,
			`unknown option "zeta" ignored`,
		}, warnings)
		require.Equal(t, core.Options{MaxResults: 4}, o)
	})
	t.Run("long unknown name is clipped", func(t *testing.T) {
		_, warnings, err := core.ParseOptions([]byte(`{"` + strings.Repeat("x", 100) + `":1}`))
		require.NoError(t, err)
		require.Equal(t, []string{`unknown option "` + strings.Repeat("x", 60) + `" ignored`}, warnings)
	})
}

func TestParseOptionsTypeErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[1]`, "options: not a JSON object: "},
		{`"x"`, "options: not a JSON object: "},
		{`{"search":1}`, `option "search": want a string, got 1`},
		{`{"fetch":true}`, `option "fetch": want a string, got true`},
		{`{"apiKeyEnv":["A"]}`, `option "apiKeyEnv": want a string, got ["A"]`},
		{`{"baseURL":{}}`, `option "baseURL": want a string, got {}`},
		{`{"maxResults":"10"}`, `option "maxResults": want a whole number, got "10"`},
		{`{"maxResults":2.5}`, `option "maxResults": want a whole number, got 2.5`},
		{`{"maxSummaryChars":1e10}`, `option "maxSummaryChars": want a whole number, got 1e10`},
		{`{"minRerank":"1"}`, `option "minRerank": want a number, got "1"`},
		{`{"minAuthority":[]}`, `option "minAuthority": want a number, got []`},
		{`{"allowUnknownAuthority":"yes"}`, `option "allowUnknownAuthority": want true or false, got "yes"`},
		{`{"includeDomains":3}`, `option "includeDomains": want a list of domain names, got 3`},
		{`{"allowedDomains":[1]}`, `option "allowedDomains": want a list of domain names, got [1]`},
		{`{"blockedDomains":{"a":1}}`, `option "blockedDomains": want a list of domain names, got {"a":1}`},
		{`{"language":1}`, `option "language": want a string, got 1`},
		{`{"localization":1}`, `option "localization": want a string, got 1`},
		{`{"fetchMaxChars":false}`, `option "fetchMaxChars": want a whole number, got false`},
		{`{"timeoutMs":"30s"}`, `option "timeoutMs": want a whole number, got "30s"`},
		{`{"maxRetries":1.5}`, `option "maxRetries": want a whole number, got 1.5`},
		{`{"maxResults":"` + strings.Repeat("9", 60) + `"}`, `option "maxResults": want a whole number, got "` + strings.Repeat("9", 39)},
		// 0 written out is out of range, not "use the default".
		{`{"maxResults":0}`, `option "maxResults": want a whole number from 1 to 50, got 0`},
		{`{"maxSummaryChars":0}`, `option "maxSummaryChars": want a whole number from 20 to 20000, got 0`},
		{`{"fetchMaxChars":0}`, `option "fetchMaxChars": want a whole number from 200 to 1000000, got 0`},
		{`{"timeoutMs":0}`, `option "timeoutMs": want a whole number from 1000 to 120000, got 0`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			o, warnings, err := core.ParseOptions([]byte(tt.in))
			require.Error(t, err)
			require.True(t, strings.HasPrefix(err.Error(), tt.want), "got %q, want prefix %q", err, tt.want)
			require.Equal(t, core.Options{}, o)
			require.Nil(t, warnings)
		})
	}
	t.Run("apiKey of wrong type never echoes the value", func(t *testing.T) {
		_, _, err := core.ParseOptions([]byte(`{"apiKey":["` + testKey + `"]}`))
		require.EqualError(t, err, `option "apiKey": want a string such as "${DEEPSEEK_API_KEY}"`)
		require.NotContains(t, err.Error(), testKey)
	})
}

// ParseOptions and NewConfig together, the path every host takes.
func TestParseOptionsThenNewConfig(t *testing.T) {
	o, warnings, err := core.ParseOptions([]byte(`{"apiKey":"${MY_DS_KEY}","localization":"nowhere","blockedDomains":"a.example,b.example","maxRetries":0}`))
	require.NoError(t, err)
	require.Empty(t, warnings)
	c, warnings, err := core.NewConfig(o)
	require.NoError(t, err)
	require.Equal(t, []string{`option "localization": "nowhere" is not an IPv4 or IPv6 address; it is not sent`}, warnings)
	require.Equal(t, "MY_DS_KEY", c.APIKeyEnv)
	require.Equal(t, []string{"a.example", "b.example"}, c.BlockedDomains)
	require.Equal(t, 0, c.MaxRetries)
}
