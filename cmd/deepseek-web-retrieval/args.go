package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// parseInterspersed parses flags anywhere on the command line, as git, go and
// curl do: `search "wasi preview 2 status" --max-results 5` works. A `--`
// ends the flags; everything after it is an argument, even when it starts
// with a dash (`search -- "-site:pinterest.com cats"`). It returns the
// arguments in order, or done with the exit code when parsing ended the
// command (help or a usage error, already reported).
func parseInterspersed(fl *flag.FlagSet, args []string, usage func(io.Writer), stdout, stderr io.Writer) (positional []string, code int, done bool) {
	for {
		if code, done := parse(fl, args, usage, stdout, stderr); done {
			return nil, code, true
		}
		rest := fl.Args()
		if len(rest) == 0 {
			return positional, 0, false
		}
		// flag.Parse stops at the first argument, or just after a "--" it
		// consumed: then the rest are all arguments.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" && !valueOfFlag(fl, args[:n-1]) {
			return append(positional, rest...), 0, false
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// valueOfFlag reports whether the argument after before is the value of a
// flag given as the last element of before ("--language --" passes "--" as
// the value, not as the end of flags).
func valueOfFlag(fl *flag.FlagSet, before []string) bool {
	if len(before) == 0 {
		return false
	}
	last := before[len(before)-1]
	name := last
	for len(name) > 0 && name[0] == '-' {
		name = name[1:]
	}
	if name == last || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '=' {
			return false
		}
	}
	f := fl.Lookup(name)
	if f == nil {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return false
	}
	return true
}

// wantOneArgument is the usage error of search or fetch given no argument or
// several: an unquoted query is the usual cause, so say how to quote it.
func wantOneArgument(cmd string, got []string) string {
	what := map[string]string{"search": "QUERY", "fetch": "URL"}[cmd]
	if len(got) == 0 {
		return fmt.Sprintf("missing the %s argument", what)
	}
	quoted := make([]string, len(got))
	for i, a := range got {
		quoted[i] = strconv.Quote(a)
	}
	if cmd == "search" {
		return fmt.Sprintf("want one QUERY, got %d arguments (%s); quote a query of several words: deepseek-web-retrieval search %s",
			len(got), strings.Join(quoted, " "), strconv.Quote(strings.Join(got, " ")))
	}
	return fmt.Sprintf("want one %s, got %d arguments (%s)", what, len(got), strings.Join(quoted, " "))
}
