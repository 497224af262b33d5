package main

import (
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// bindOptionFlags registers one flag per option of core.OptionSpecs but
// apiKey (no literal key on a command line), named in kebab-case
// (OptionSpec.FlagName), filling the field of o with the option's JSON
// name. A flag left out leaves its field unset, so the option's default
// applies.
func bindOptionFlags(fl *flag.FlagSet, o *install.Options) {
	v := reflect.ValueOf(o).Elem()
	fields := map[string]reflect.Value{}
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		fields[name] = v.Field(i)
	}
	for _, s := range core.OptionSpecs() {
		if s.NoFlag {
			continue
		}
		f, ok := fields[s.Name]
		if !ok {
			panic("install.Options has no field for the option " + s.Name)
		}
		switch p := f.Addr().Interface().(type) {
		case *string:
			fl.StringVar(p, s.FlagName(), "", "")
		case **int:
			fl.Var(intFlag{p}, s.FlagName(), "")
		case **float64:
			fl.Var(floatFlag{p}, s.FlagName(), "")
		case **bool:
			fl.Var(boolFlag{p}, s.FlagName(), "")
		case *[]string:
			fl.Var(listFlag{p}, s.FlagName(), "")
		default:
			panic("install.Options." + s.Name + " has a type no flag takes")
		}
	}
}

// optionEnv sets each option flag not given on the command line from its
// DEEPSEEK_WEB_RETRIEVAL_ variable (OptionSpec.EnvName), as mcp does, for
// the commands that run beside the MCP server on the same machine
// (search, fetch, usage, cache): a budget or cache bound set in the
// environment holds for them too. Other variables are left to mcp's
// warnings.
func optionEnv(fl *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, s := range core.OptionSpecs() {
		if s.NoFlag || given[s.FlagName()] {
			continue
		}
		v := getenv(s.EnvName())
		if strings.TrimSpace(v) == "" {
			continue
		}
		if err := fl.Set(s.FlagName(), v); err != nil {
			return fmt.Errorf("%s: %v", s.EnvName(), err)
		}
	}
	return nil
}

// optionFlag is the flag of an option, for messages: maxResults →
// --max-results.
func optionFlag(name string) string {
	if s, ok := core.LookupOption(name); ok && !s.NoFlag {
		return "--" + s.FlagName()
	}
	return name
}

// optionUsage is the usage text of the named options' flags (every flag
// option when none is named), one line each, from core.OptionSpecs.
func optionUsage(names ...string) string {
	var b strings.Builder
	for _, s := range core.OptionSpecs() {
		if s.NoFlag || (len(names) > 0 && !slices.Contains(names, s.Name)) {
			continue
		}
		b.WriteString(s.UsageLine(28))
		b.WriteByte('\n')
	}
	return b.String()
}

// applyMessagesEnv fills the Messages backend's options that flags left
// unset from the seed servers' DEEPSEEK_SEARCH_* environment variables
// (core.ApplyMessagesEnv), when the backend is "messages". Every native
// host (search, the MCP server) calls it on the options it parsed.
func applyMessagesEnv(o *core.Options, getenv func(string) string) error {
	return core.ApplyMessagesEnv(o, getenv)
}
