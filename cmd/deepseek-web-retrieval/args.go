package main

import (
	"errors"
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
// command (help, printed from fl, or a usage error, already reported).
func parseInterspersed(fl *flag.FlagSet, args []string, help helpText, stdout, stderr io.Writer) (positional []string, code int, done bool) {
	for {
		if code, done := parse(fl, args, help, stdout, stderr); done {
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

// errBasePrefix is the error of a number written with a base prefix.
var errBasePrefix = errors.New("want a decimal number: 0x, 0b and 0o prefixes are not read")

// parseDecimalInt reads a whole number written in decimal digits, with an
// optional sign: "010" is ten. A base prefix (0x10, 0b11, 0o7), an
// underscore or anything else is an error; flag.IntVar would read 0x10 as
// sixteen and 010 as eight.
func parseDecimalInt(s string) (int, error) {
	if hasBasePrefix(s) {
		return 0, errBasePrefix
	}
	n, err := strconv.ParseInt(s, 10, 0)
	if err != nil {
		return 0, errors.New("want a whole number")
	}
	return int(n), nil
}

// parseDecimalFloat reads a decimal number ("0.5", "2", "1e3"); a base
// prefix (strconv.ParseFloat reads 0x1p4 as 16), Inf, NaN or an underscore
// is an error.
func parseDecimalFloat(s string) (float64, error) {
	if hasBasePrefix(s) {
		return 0, errBasePrefix
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("0123456789.eE+-", s[i]) < 0 {
			return 0, errors.New("want a number")
		}
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errors.New("want a number")
	}
	return x, nil
}

// hasBasePrefix reports whether s, after an optional sign, starts with
// 0x, 0b or 0o in either case.
func hasBasePrefix(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return len(s) >= 2 && s[0] == '0' && strings.IndexByte("xXbBoO", s[1]) >= 0
}

// decimalFlag is an int flag read by parseDecimalInt.
type decimalFlag struct{ p *int }

func (f decimalFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.Itoa(*f.p)
}

func (f decimalFlag) Set(s string) error {
	n, err := parseDecimalInt(s)
	if err != nil {
		return err
	}
	*f.p = n
	return nil
}
