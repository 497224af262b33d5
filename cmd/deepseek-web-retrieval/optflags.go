package main

import (
	"flag"
	"fmt"
	"reflect"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// bindOptionFlags registers one flag per option of core.OptionSpecs but
// apiKey (no literal key on a command line), named in kebab-case
// (OptionSpec.FlagName), filling the field of o with the option's JSON
// name. Its usage is the option's, with its range, and its default the
// option's default. A flag left out leaves its field unset, so the
// option's default applies.
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
		name, usage := s.FlagName(), optionFlagUsage(s)
		switch p := f.Addr().Interface().(type) {
		case *string:
			fl.StringVar(p, name, "", usage)
		case **int:
			fl.Var(intFlag{p}, name, usage)
		case **float64:
			fl.Var(floatFlag{p}, name, usage)
		case **bool:
			fl.Var(boolFlag{p}, name, usage)
		case *[]string:
			fl.Var(listFlag{p}, name, usage)
		default:
			panic("install.Options." + s.Name + " has a type no flag takes")
		}
		fl.Lookup(name).DefValue = s.Default
	}
}

// optionFlagUsage is the usage of an option's flag: "`N` results per
// search, 1-50".
func optionFlagUsage(s core.OptionSpec) string {
	usage := "`" + s.Arg + "` " + s.Usage
	if r := s.Range(); r != "" {
		usage += ", " + r
	}
	return usage
}

// setDefault changes the default help shows for the flag name, for a
// command whose default differs from the option's (serve's --max-calls).
func setDefault(fl *flag.FlagSet, name, value string) {
	fl.Lookup(name).DefValue = value
}

// optionEnv sets each flag of fl not given on the command line from its
// DEEPSEEK_WEB_RETRIEVAL_ variable (envName), and reports which it set. mcp
// and serve read their flags so (optionsFromEnv), and so do the commands
// that run beside the MCP server on the same machine (search, fetch,
// usage, cache, serve usage): a budget or cache bound set in the
// environment holds for them too, and serve usage reads the Redis URL
// serve reads. A variable of an option the command has no flag for is
// not its business, and other variables are left to mcp's warnings.
func optionEnv(fl *flag.FlagSet, getenv func(string) string) (map[string]bool, error) {
	given := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { given[f.Name] = true })
	set := map[string]bool{}
	var err error
	fl.VisitAll(func(f *flag.Flag) {
		v := getenv(envName(f.Name))
		if err != nil || given[f.Name] || strings.TrimSpace(v) == "" {
			return
		}
		if e := fl.Set(f.Name, v); e != nil {
			err = fmt.Errorf("%s: %v", envName(f.Name), e)
			return
		}
		set[f.Name] = true
	})
	if err != nil {
		return nil, err
	}
	return set, nil
}

// optionFlag is the flag of an option, for messages: maxResults →
// --max-results.
func optionFlag(name string) string {
	if s, ok := core.LookupOption(name); ok && !s.NoFlag {
		return "--" + s.FlagName()
	}
	return name
}

// applyMessagesEnv fills the Messages backend's options that flags left
// unset from the seed servers' DEEPSEEK_SEARCH_* environment variables
// (core.ApplyMessagesEnv), when the backend is "messages". Every native
// host (search, the MCP server) calls it on the options it parsed.
func applyMessagesEnv(o *core.Options, getenv func(string) string) error {
	return core.ApplyMessagesEnv(o, getenv)
}
