package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// helpText is a command's help but its flags: printHelp takes those from
// the command's FlagSet, so no flag is documented without existing or
// exists without being documented.
type helpText struct {
	// usage is the usage line, or lines, after "Usage: ".
	usage string
	// about says what the command does: the prose about no one flag.
	about string
	// examples are command lines, one a line.
	examples []string
	// groups are the flags' sections in order. A flag no group names goes
	// in the group with nil names, else in a last "Flags:" section.
	groups []flagGroup
	// exit says what the exit codes mean.
	exit string
}

// flagGroup is one section of a command's flags.
type flagGroup struct {
	title string
	// names are the flags of the section in order; nil: the flags no
	// other group names, in the FlagSet's (lexical) order.
	names []string
}

// helpColumn is the width of the flag column of a help text.
const helpColumn = 28

// printHelp prints a command's help: the usage line, what it does, the
// examples, each group of the FlagSet's flags and the exit codes. A
// flag's usage string starts with the name of its value in back quotes
// ("`N` results per search"); a boolean flag may have none. Its default,
// unless the zero value of its type, follows the text. It panics when a group names
// a flag fs does not have.
func printHelp(w io.Writer, fs *flag.FlagSet, h helpText) {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s\n\n%s\n", h.usage, h.about)
	if len(h.examples) > 0 {
		b.WriteString("\nExample")
		if len(h.examples) > 1 {
			b.WriteString("s")
		}
		b.WriteString(":\n")
		for _, e := range h.examples {
			b.WriteString("  " + e + "\n")
		}
	}
	for _, g := range flagSections(fs, h.groups) {
		b.WriteString("\n" + g.title + "\n")
		for _, name := range g.names {
			b.WriteString(flagLine(fs.Lookup(name)) + "\n")
		}
	}
	if h.exit != "" {
		b.WriteString("\nExit status: " + h.exit + "\n")
	}
	io.WriteString(w, b.String())
}

// flagSections resolves groups against fs: every flag of fs in exactly
// one section, empty sections left out.
func flagSections(fs *flag.FlagSet, groups []flagGroup) []flagGroup {
	named := map[string]bool{}
	for _, g := range groups {
		for _, n := range g.names {
			if fs.Lookup(n) == nil {
				panic(fmt.Sprintf("help of %s lists --%s, which it does not have", fs.Name(), n))
			}
			named[n] = true
		}
	}
	var rest []string
	fs.VisitAll(func(f *flag.Flag) {
		if !named[f.Name] {
			rest = append(rest, f.Name)
		}
	})
	var out []flagGroup
	restPlaced := false
	for _, g := range groups {
		if g.names == nil {
			g.names, restPlaced = rest, true
		}
		if len(g.names) > 0 {
			out = append(out, g)
		}
	}
	if !restPlaced && len(rest) > 0 {
		out = append(out, flagGroup{"Flags:", rest})
	}
	return out
}

// flagLine is a flag's entry in a help text: "  --max-results N" padded
// to helpColumn, then its usage and default wrapped under it to 79
// columns (a flag wider than the column gets a line of its own).
func flagLine(f *flag.Flag) string {
	arg, text := flagArg(f)
	col := "--" + f.Name
	switch {
	case arg != "" && isBoolFlag(f):
		col += "=" + arg
	case arg != "":
		col += " " + arg
	}
	if !zeroDefault(f) {
		text += " (default " + f.DefValue + ")"
	}
	return columns(col, text, helpColumn)
}

// flagArg splits a flag's usage into the name of its value, the leading
// word in back quotes, and the text after it.
func flagArg(f *flag.Flag) (arg, text string) {
	if rest, ok := strings.CutPrefix(f.Usage, "`"); ok {
		if arg, text, ok = strings.Cut(rest, "`"); ok {
			return arg, strings.TrimSpace(text)
		}
	}
	return "", f.Usage
}

// isBoolFlag reports whether f takes no value (--yes, not --yes=true).
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// zeroDefault reports whether f's default goes unsaid: it is what the
// zero value of its type prints ("", 0, false), as flag.PrintDefaults
// has it. An option's flag prints "" until set, so its defaults, 0 and
// false among them, are said.
func zeroDefault(f *flag.Flag) bool {
	t := reflect.TypeOf(f.Value)
	var z reflect.Value
	if t.Kind() == reflect.Pointer {
		z = reflect.New(t.Elem())
	} else {
		z = reflect.Zero(t)
	}
	return f.DefValue == z.Interface().(flag.Value).String()
}

// columns is "  "+left padded to width, then text wrapped to 79 columns
// and indented under it.
func columns(left, text string, width int) string {
	indent := strings.Repeat(" ", width+2)
	var b strings.Builder
	b.WriteString("  " + left)
	if len(left) < width {
		b.WriteString(strings.Repeat(" ", width-len(left)))
	} else {
		b.WriteString("\n" + indent)
	}
	col := width + 2
	for i, w := range strings.Fields(text) {
		if i > 0 && col+1+len(w) > 79 {
			b.WriteString("\n" + indent)
			col = width + 2
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// optionFlags is the flags of the named options (every flag option when
// none is named), in the table's order.
func optionFlags(names ...string) []string {
	var out []string
	for _, s := range core.OptionSpecs() {
		if !s.NoFlag && (len(names) == 0 || slices.Contains(names, s.Name)) {
			out = append(out, s.FlagName())
		}
	}
	return out
}

// messagesFlags is the flags of the Messages backend's options.
func messagesFlags() []string {
	var out []string
	for _, s := range core.OptionSpecs() {
		if !s.NoFlag && s.Messages {
			out = append(out, s.FlagName())
		}
	}
	return out
}
