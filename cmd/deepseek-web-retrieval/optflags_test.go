package main

import (
	"flag"
	"regexp"
	"strings"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
	"github.com/stretchr/testify/require"
)

// TestOptionFlagsCoverEveryOption holds the CLI's flags in step with the
// installer's one options type (itself held in step with the core's by
// install.TestOptionsInStepWithCore): every option has exactly one flag, its
// name in kebab-case, and there is no other.
func TestOptionFlagsCoverEveryOption(t *testing.T) {
	fl := flag.NewFlagSet("t", flag.ContinueOnError)
	var o install.Options
	bindOptionFlags(fl, &o)
	var got []string
	fl.VisitAll(func(f *flag.Flag) { got = append(got, f.Name) })
	upper := regexp.MustCompile(`[A-Z]+`)
	want := map[string]bool{}
	for _, name := range install.OptionNames {
		kebab := upper.ReplaceAllStringFunc(name, func(s string) string {
			if len(s) > 1 && s != "URL" && s != "MB" && s != "TTL" {
				return "-" + strings.ToLower(s[:len(s)-1]) + "-" + strings.ToLower(s[len(s)-1:])
			}
			return "-" + strings.ToLower(s)
		})
		want[kebab] = true
		require.Equal(t, "--"+kebab, optionFlags[name], "optionFlags names the flag of %s, for errors", name)
	}
	require.Len(t, optionFlags, len(install.OptionNames))
	gotSet := map[string]bool{}
	for _, g := range got {
		gotSet[g] = true
	}
	require.Equal(t, want, gotSet)
}
