package tests

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero/api"
	"go.bytecodealliance.org/wit"
)

// witPath is the ABI's WIT description.
const witPath = "../wasm/world.wit"

// exportName maps a WIT name onto the module's export name, as world.wit
// documents: kebab-case becomes snake_case.
func exportName(witName string) string { return strings.ReplaceAll(witName, "-", "_") }

// toolchainExports are exported by every Go reactor and are not part of the
// world.
var toolchainExports = []string{"_initialize"}

// coreType lowers a scalar WIT type to its core wasm value type, the way the
// canonical ABI flattens it. Only scalars cross this ABI.
func coreType(t wit.Type) (api.ValueType, error) {
	switch t.(type) {
	case wit.Bool, wit.U8, wit.S8, wit.U16, wit.S16, wit.U32, wit.S32, wit.Char:
		return api.ValueTypeI32, nil
	case wit.U64, wit.S64:
		return api.ValueTypeI64, nil
	case wit.F32:
		return api.ValueTypeF32, nil
	case wit.F64:
		return api.ValueTypeF64, nil
	}
	return 0, fmt.Errorf("%s is not a scalar; the ABI passes only scalars", t.WIT(nil, ""))
}

func signature(params, results []api.ValueType) string {
	names := func(ts []api.ValueType) string {
		var s []string
		for _, t := range ts {
			s = append(s, api.ValueTypeName(t))
		}
		return "(" + strings.Join(s, ", ") + ")"
	}
	return names(params) + " -> " + names(results)
}

// The exports of the built module are exactly the functions world.wit
// declares, with the same core signatures.
func TestWITMatchesExports(t *testing.T) {
	res, err := wit.LoadWIT(witPath)
	require.NoError(t, err)
	require.Len(t, res.Worlds, 1)
	world := res.Worlds[0]
	require.Equal(t, "core", world.Name)
	require.Equal(t, "deepseek:web-retrieval@0.1.0", world.Package.Name.String())
	require.Zero(t, world.Imports.Len(), "the world imports nothing (WASI is left out on purpose)")

	want := map[string]string{}
	for name, item := range world.Exports.All() {
		f, ok := item.(*wit.Function)
		require.True(t, ok, "export %s is a %T; the world exports only functions", name, item)
		require.True(t, f.IsFreestanding(), name)
		var params, results []api.ValueType
		for _, p := range f.Params {
			ct, err := coreType(p.Type)
			require.NoError(t, err, "%s param %s", name, p.Name)
			params = append(params, ct)
		}
		for _, p := range f.Results {
			ct, err := coreType(p.Type)
			require.NoError(t, err, "%s result", name)
			results = append(results, ct)
		}
		require.LessOrEqual(t, len(results), 1, "%s: core wasm functions here return at most one value", name)
		want[exportName(name)] = signature(params, results)
	}

	got := map[string]string{}
	for _, def := range compiled.ExportedFunctions() {
		for _, name := range def.ExportNames() {
			if slices.Contains(toolchainExports, name) {
				require.Equal(t, "() -> ()", signature(def.ParamTypes(), def.ResultTypes()))
				continue
			}
			got[name] = signature(def.ParamTypes(), def.ResultTypes())
		}
	}
	require.Equal(t, want, got, "world.wit and the module's exports differ")

	// The Go client knows the same exports.
	var names []string
	for name := range want {
		names = append(names, name)
	}
	require.ElementsMatch(t, Exports, names)

	// Memory is the only other export.
	mems := compiled.ExportedMemories()
	require.Len(t, mems, 1)
	require.Contains(t, mems, "memory")
}

// The lowering agrees with the WIT package's own canonical-ABI flattening.
func TestWITCoreFunctions(t *testing.T) {
	res, err := wit.LoadWIT(witPath)
	require.NoError(t, err)
	for name, item := range res.Worlds[0].Exports.All() {
		f := item.(*wit.Function)
		cf := f.CoreFunction(wit.Exported)
		require.Equal(t, len(f.Params), len(cf.Params), name)
		for i, p := range cf.Params {
			want, err := coreType(f.Params[i].Type)
			require.NoError(t, err)
			got, err := coreType(p.Type)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s param %d", name, i)
		}
		require.Equal(t, len(f.Results), len(cf.Results), name)
	}
}
