package install

import (
	"reflect"
	"strings"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/stretchr/testify/require"
)

// jsonNames lists the JSON names of t's fields, in declaration order, with
// the fields of an embedded struct in its place.
func jsonNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			names = append(names, jsonNames(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}

// TestOptionsInStepWithCore holds the installer's one options type, used by
// every host adapter and by the CLI's flags, in step with the core's: the
// same options under the same names in the same (SPEC) order, except the
// literal API key, which the installer never writes.
func TestOptionsInStepWithCore(t *testing.T) {
	var coreNames []string
	for _, n := range jsonNames(reflect.TypeOf(core.Options{})) {
		if n != "apiKey" {
			coreNames = append(coreNames, n)
		}
	}
	require.Equal(t, coreNames, jsonNames(reflect.TypeOf(Options{})), "install.Options against core.Options")
	require.Equal(t, coreNames, optionNames, "optionNames against core.Options")
}

func TestParseScope(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Scope
		err  string
	}{
		{"global", ScopeGlobal, ""},
		{"project", ScopeProject, ""},
		{"Global", "", `unknown scope "Global" (want global or project)`},
		{"", "", `unknown scope "" (want global or project)`},
	} {
		got, err := ParseScope(tc.in)
		if tc.err != "" {
			require.EqualError(t, err, tc.err)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
}
