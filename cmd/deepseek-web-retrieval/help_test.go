package main

import (
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// helpCommands is every command and subcommand with a FlagSet.
func helpCommands(t *testing.T) []command {
	var out []command
	for _, c := range append(commands(), subcommands()...) {
		if c.flags != nil {
			require.NotNil(t, c.help, "%s has flags but no help", c.name)
			out = append(out, c)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// Every flag of every command says what it does, and one that takes a
// value names it: help is made of these strings.
func TestFlagsHaveUsage(t *testing.T) {
	for _, c := range helpCommands(t) {
		c.flags().VisitAll(func(f *flag.Flag) {
			arg, text := flagArg(f)
			require.NotEmpty(t, strings.TrimSpace(text), "%s --%s has no usage", c.name, f.Name)
			if !isBoolFlag(f) {
				require.NotEmpty(t, arg, "%s --%s does not name its value (a leading `WORD` in its usage)", c.name, f.Name)
			}
		})
	}
}

// A command's help lists every flag it has, each once, with its usage;
// --help, -h and "help COMMAND" print the same text.
func TestHelpListsEveryFlag(t *testing.T) {
	for _, c := range helpCommands(t) {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			c.printHelp(&b)
			help := b.String()
			require.True(t, strings.HasPrefix(help, "Usage: deepseek-web-retrieval "+c.name), help)
			c.flags().VisitAll(func(f *flag.Flag) {
				entry := regexp.MustCompile(`(?m)^  --` + regexp.QuoteMeta(f.Name) + `[ =\n]`)
				require.Len(t, entry.FindAllString(help, -1), 1, "--%s in the help of %s:\n%s", f.Name, c.name, help)
				_, text := flagArg(f)
				first := strings.Fields(text)[0]
				require.Contains(t, help, first)
			})

			args := strings.Fields(c.name)
			for _, h := range []string{"--help", "-h"} {
				code, out, errs := runCLI(append(args, h)...)
				require.Equal(t, exitOK, code, errs)
				require.Empty(t, errs)
				require.Equal(t, help, out, "%s %s", c.name, h)
			}
			code, out, _ := runCLI(append([]string{"help"}, args...)...)
			require.Equal(t, exitOK, code)
			require.Equal(t, help, out, "help %s", c.name)
		})
	}
}

// A help that lists a flag its command does not have is a bug: printing
// it panics, so TestHelpListsEveryFlag fails.
func TestHelpRefusesAFlagThatDoesNotExist(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Bool("yes", false, "apply")
	require.PanicsWithValue(t, "help of x lists --no, which it does not have", func() {
		printHelp(io.Discard, fs, helpText{groups: []flagGroup{{"Flags:", []string{"no"}}}})
	})
}

// The layout: usage, about, examples, the groups (flags no group names in
// the group without names, in lexical order), each flag's value and
// default, and the exit codes.
func TestHelpLayout(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("since", "7d", "`N` how far back")
	fs.Bool("json", false, "the report as JSON")
	fs.Int("max", 0, "`N` at most N (0: no limit)")
	fs.String("name", "", "`NAME` a name long enough to wrap under its flag, at seventy-nine columns, as every usage does")
	var b strings.Builder
	printHelp(&b, fs, helpText{
		usage:    "deepseek-web-retrieval x [flags]",
		about:    "Does x.",
		examples: []string{"deepseek-web-retrieval x --json"},
		groups:   []flagGroup{{"Report:", []string{"since", "json"}}, {"Other:", nil}},
		exit:     "0 done.",
	})
	require.Equal(t, `Usage: deepseek-web-retrieval x [flags]

Does x.

Example:
  deepseek-web-retrieval x --json

Report:
  --since N                   how far back (default 7d)
  --json                      the report as JSON

Other:
  --max N                     at most N (0: no limit)
  --name NAME                 a name long enough to wrap under its flag, at
                              seventy-nine columns, as every usage does

Exit status: 0 done.
`, b.String())
}

// serve's help shows serve's defaults of the options it sets otherwise.
func TestServeHelpShowsItsDefaults(t *testing.T) {
	_, out, _ := runCLI("help", "serve")
	require.Regexp(t, `(?m)^  --max-calls N +calls running at once \(more wait\), 1-256 \(default\n +64\)$`, out)
	require.Regexp(t, `\(default 256\)`, out)
	_, out, _ = runCLI("help", "mcp")
	require.Regexp(t, `(?m)^  --max-calls N +calls running at once \(more wait\), 1-256 \(default\n +16\)$`, out)
}
