package main

import (
	"encoding/json"
	"flag"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// flagSample is a valid flag value for an option of kind k.
func flagSample(s core.OptionSpec) string {
	switch s.Kind {
	case core.KindTier:
		return "forced"
	case core.KindInt, core.KindNumber:
		return strconv.FormatFloat(s.Max, 'f', -1, 64)
	case core.KindBool:
		return "true"
	case core.KindList:
		return "a.example,b.example"
	}
	return "x"
}

// The flags are core.OptionSpecs's: one per option but apiKey, named
// FlagName, each filling the option of that name (its JSON name in
// install.Options), and no other.
func TestOptionFlagsAreTheTables(t *testing.T) {
	fl := flag.NewFlagSet("t", flag.ContinueOnError)
	var o install.Options
	bindOptionFlags(fl, &o)
	var got []string
	fl.VisitAll(func(f *flag.Flag) { got = append(got, f.Name) })
	var want []string
	for _, s := range core.OptionSpecs() {
		if s.NoFlag {
			continue
		}
		want = append(want, s.FlagName())
		require.Equal(t, "--"+s.FlagName(), optionFlag(s.Name))

		one := flag.NewFlagSet("t", flag.ContinueOnError)
		var o install.Options
		bindOptionFlags(one, &o)
		require.NoError(t, one.Set(s.FlagName(), flagSample(s)))
		var m map[string]any
		require.NoError(t, json.Unmarshal(install.Marshal(o, "", "", true), &m))
		require.Contains(t, m, s.Name, "--%s fills %s", s.FlagName(), s.Name)
	}
	require.ElementsMatch(t, want, got)
	require.Equal(t, "apiKey", optionFlag("apiKey"), "apiKey has no flag")
}

// Every option a command's help shows comes from the table, with its
// range and default.
func TestOptionUsage(t *testing.T) {
	fl := flag.NewFlagSet("t", flag.ContinueOnError)
	var o install.Options
	bindOptionFlags(fl, &o)
	require.Equal(t, "  --max-results N             results per search, 1-50 (default 10)", flagLine(fl.Lookup("max-results")))
	require.Equal(t, "  --allow-unknown-authority=BOOL\n                              let unknown authority pass --min-authority\n                              (default true)", flagLine(fl.Lookup("allow-unknown-authority")))
	for _, s := range core.OptionSpecs() {
		if s.NoFlag {
			continue
		}
		want := "--" + s.FlagName() + " " + s.Arg + " " + s.Usage
		if s.Kind == core.KindBool {
			want = "--" + s.FlagName() + "=" + s.Arg + " " + s.Usage
		}
		if r := s.Range(); r != "" {
			want += ", " + r
		}
		if s.Default != "" {
			want += " (default " + s.Default + ")"
		}
		require.Equal(t, want, strings.Join(strings.Fields(flagLine(fl.Lookup(s.FlagName()))), " "))
	}
}
