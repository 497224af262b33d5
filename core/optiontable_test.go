package core_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// jsonNames returns the JSON names of a struct type's fields, embedded
// structs' included, in order.
func jsonNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			out = append(out, jsonNames(f.Type)...)
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

func tableNames(keep func(core.OptionSpec) bool) []string {
	var out []string
	for _, s := range core.OptionSpecs() {
		if keep(s) {
			out = append(out, s.Name)
		}
	}
	return out
}

// The table is the one declaration: core.Options has a field for each
// option and no other, in the table's order.
func TestOptionTableMatchesOptions(t *testing.T) {
	require.Equal(t, tableNames(func(core.OptionSpec) bool { return true }), jsonNames(reflect.TypeFor[core.Options]()))
}

func TestOptionFlagAndEnvNames(t *testing.T) {
	var flags, envs []string
	for _, s := range core.OptionSpecs() {
		if !s.NoFlag {
			flags = append(flags, s.FlagName())
			envs = append(envs, s.EnvName())
		}
	}
	require.Equal(t, []string{"search", "fetch", "api-key-env", "base-url", "max-results", "max-summary-chars",
		"min-rerank", "min-authority", "allow-unknown-authority", "include-domains", "allowed-domains",
		"blocked-domains", "language", "localization", "fetch-max-chars", "timeout-ms", "max-retries",
		"cache-ttl", "cache-max-mb", "max-calls", "max-held-mb", "messages-max-request-mb",
		"disk-cache-max-mb", "disk-page-ttl", "disk-search-ttl", "daily-budget", "search-backend",
		"messages-base-url", "messages-model", "messages-max-tokens", "messages-max-uses", "anthropic-version",
		"messages-summary"}, flags)
	require.Equal(t, "DEEPSEEK_WEB_RETRIEVAL_MAX_RESULTS", envs[4])
	require.Equal(t, "DEEPSEEK_WEB_RETRIEVAL_CACHE_MAX_MB", envs[18])
	spec, ok := core.LookupOption("maxResults")
	require.True(t, ok)
	require.Equal(t, "1-50", spec.Range())
	_, ok = core.LookupOption("MaxResults")
	require.False(t, ok)
}

// sample is a valid value of an option of kind k, as JSON.
func sample(s core.OptionSpec) string {
	switch s.Kind {
	case core.KindTier:
		return `"optional"`
	case core.KindInt, core.KindNumber:
		return strconv.FormatFloat(s.Max, 'f', -1, 64)
	case core.KindBool:
		return "true"
	case core.KindList:
		return `["example.com"]`
	}
	switch s.Name {
	case "baseURL", "messagesBaseURL":
		return `"https://example.com"`
	case "apiKey":
		return `"${DEEPSEEK_API_KEY}"`
	case "localization":
		return `"203.0.113.7"`
	case "searchBackend":
		return `"messages"`
	}
	return `"x"`
}

// ParseOptions knows every option of the table (no unknown-name warning),
// refuses a value of the wrong type naming the option, and holds each
// number to the table's range: its ends accepted, one past them refused
// with the range.
func TestParseOptionsFollowsTheTable(t *testing.T) {
	for _, s := range core.OptionSpecs() {
		t.Run(s.Name, func(t *testing.T) {
			_, warns, err := core.ParseOptions([]byte(`{"` + s.Name + `": ` + sample(s) + `}`))
			require.NoError(t, err)
			require.Empty(t, warns)

			_, _, err = core.ParseOptions([]byte(`{"` + s.Name + `": {"a": 1}}`))
			var oe *core.OptionError
			require.ErrorAs(t, err, &oe)
			require.Equal(t, s.Name, oe.Option)

			if s.Kind != core.KindInt {
				return
			}
			for _, n := range []float64{s.Min, s.Max} {
				o, _, err := core.ParseOptions(fmt.Appendf(nil, `{%q: %d}`, s.Name, int(n)))
				if n == 0 {
					continue // 0 is "off" for the options that take it, checked by NewConfig
				}
				require.NoError(t, err, "%v", n)
				_, _, err = core.NewConfig(o)
				require.NoError(t, err, "%v", n)
			}
			for _, n := range []float64{s.Min - 1, s.Max + 1} {
				_, _, err := core.ParseOptions(fmt.Appendf(nil, `{%q: %d}`, s.Name, int(n)))
				require.ErrorAs(t, err, &oe)
				require.Equal(t, fmt.Sprintf("want a whole number from %d to %d, got %d", int(s.Min), int(s.Max), int(n)), oe.Reason)
			}
		})
	}
}

func TestUnknownOptionSuggestsTheTablesName(t *testing.T) {
	_, warns, err := core.ParseOptions([]byte(`{"MAXRESULTS": 3, "colour": "red"}`))
	require.NoError(t, err)
	require.Equal(t, []string{`unknown option "MAXRESULTS" ignored (did you mean "maxResults"?)`, `unknown option "colour" ignored`}, warns)
}

// The option tables of docs/options.md and docs/messages.md (the Messages
// backend's) hold every option of the table, each with the table's default,
// and no other. (docs/docs_test.go checks that every row of an option table
// is an option.)
func TestDocsOptionTables(t *testing.T) {
	var data []byte
	for _, f := range []string{"options.md", "messages.md"} {
		b, err := os.ReadFile(filepath.Join("..", "docs", f))
		require.NoError(t, err)
		data = append(data, b...)
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Za-z]+)` \\| ([^|]*) \\|")
	got := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(data), -1) {
		if _, ok := core.LookupOption(m[1]); ok {
			got[m[1]] = strings.Trim(strings.TrimSpace(m[2]), "`")
		}
	}
	want := map[string]string{}
	for _, s := range core.OptionSpecs() {
		want[s.Name] = s.Default
		if s.Default == "" {
			want[s.Name] = "—"
		}
	}
	require.Equal(t, want, got)
}
