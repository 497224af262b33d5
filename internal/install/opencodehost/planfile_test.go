package opencodehost

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/opencode"
)

func TestOptionsDigest(t *testing.T) {
	// The text is what the plugin's JSON.stringify of the options object
	// the host parsed writes: members in the order written, no whitespace;
	// tests/js/plugin-stored-plan.test.js hashes the same vectors.
	for _, tc := range []struct{ in, canonical string }{
		{`{}`, `{}`},
		{`{"search":"preferred","fetch":"optional"}`, `{"search":"preferred","fetch":"optional"}`},
		{`{ "b": [3, 1.5, true, null], "a": {"y": "<&>", "x": "é\n"} }`, `{"b":[3,1.5,true,null],"a":{"y":"<&>","x":"é\n"}}`},
		{"{\n  \"fetch\": \"forced\",\n  \"maxResults\": 7\n}", `{"fetch":"forced","maxResults":7}`},
	} {
		got, err := optionsDigest([]byte(tc.in))
		require.NoError(t, err, tc.in)
		sum := sha256.Sum256([]byte(tc.canonical))
		require.Equal(t, hex.EncodeToString(sum[:]), got, tc.in)
	}
	_, err := optionsDigest([]byte(`{`))
	require.Error(t, err)
}

// entryOptions returns the options of our entry in the config as the host
// hands them to the plugin.
func entryOptions(t *testing.T, f *fixture, h Host) []byte {
	t.Helper()
	v, err := hujson.Parse([]byte(f.read("opencode.jsonc")))
	require.NoError(t, err)
	v.Standardize()
	var cfg map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(v.Pack(), &cfg))
	if h == HostV1 {
		var list [][]json.RawMessage
		require.NoError(t, json.Unmarshal(cfg["plugin"], &list))
		require.Len(t, list, 1)
		return list[0][1]
	}
	var list []struct {
		Options json.RawMessage `json:"options"`
	}
	require.NoError(t, json.Unmarshal(cfg["plugins"], &list))
	require.Len(t, list, 1)
	return list[0].Options
}

func TestInitWritesStoredPlan(t *testing.T) {
	tiers := []string{"off", "optional", "preferred", "forced"}
	for _, h := range []Host{HostV2, HostV1} {
		for _, search := range tiers {
			for _, fetch := range tiers {
				t.Run(string(h)+"/"+search+"/"+fetch, func(t *testing.T) {
					f := newFixture(t)
					req := f.request(install.Options{Search: search, Fetch: fetch, MaxResults: intp(7)})
					req.Host = h
					f.init(req)

					var sp planDoc
					require.NoError(t, json.Unmarshal([]byte(f.read(pluginDir+"/"+planFile)), &sp))
					require.Equal(t, planFormat, sp.Format)
					require.Equal(t, map[Host]string{HostV2: "opencode2", HostV1: "opencode1"}[h], sp.Host)
					require.Equal(t, install.SHA([]byte(f.read(pluginDir+"/core.wasm"))), sp.ModuleSHA256)

					// The stamp covers the options exactly as the host will hand them over.
					opts := entryOptions(t, f, h)
					digest, err := optionsDigest(opts)
					require.NoError(t, err)
					require.Equal(t, digest, sp.OptionsSHA256)

					// The plan is what the module answers for those options.
					co, warns, err := core.ParseOptions(opts)
					require.NoError(t, err)
					cfg, more, err := core.NewConfig(co)
					require.NoError(t, err)
					want, err := opencode.NewPlan(sp.Host, cfg, append(warns, more...))
					require.NoError(t, err)
					wantJSON, _ := json.Marshal(want)
					gotJSON, _ := json.Marshal(sp.Plan)
					require.JSONEq(t, string(wantJSON), string(gotJSON))
					require.Empty(t, sp.Plan.Warnings, "init writes only options the plugin uses as they are")

					// Recorded like every vendored file, so uninstall removes exactly it.
					var rec Record
					require.NoError(t, json.Unmarshal([]byte(f.read(recordFile)), &rec))
					rf := rec.File(pluginDir + "/" + planFile)
					require.NotNil(t, rf)
					require.Equal(t, install.SHA([]byte(f.read(pluginDir+"/"+planFile))), rf.WrittenSHA256)
					f.uninstall()
					require.False(t, f.exists(pluginDir+"/"+planFile))
					require.False(t, f.exists(pluginDir))
				})
			}
		}
	}
}

func TestStoredPlanFollowsOptionsAndModule(t *testing.T) {
	f := newFixture(t)
	f.init(f.request(install.Options{MaxResults: intp(3)}))
	first := f.read(pluginDir + "/" + planFile)

	// New options: the plan and its stamp are rewritten, as an update of a recorded file.
	p := f.init(f.request(install.Options{MaxResults: intp(4)}))
	var ops []install.Op
	for _, c := range p.Changes {
		if c.Rel == pluginDir+"/"+planFile {
			ops = append(ops, c.Op)
		}
	}
	require.Equal(t, []install.Op{install.OpUpdate}, ops)
	second := f.read(pluginDir + "/" + planFile)
	require.NotEqual(t, first, second)
	var a, b planDoc
	require.NoError(t, json.Unmarshal([]byte(first), &a))
	require.NoError(t, json.Unmarshal([]byte(second), &b))
	require.NotEqual(t, a.OptionsSHA256, b.OptionsSHA256)
	require.Equal(t, a.ModuleSHA256, b.ModuleSHA256)
	require.Contains(t, string(b.Plan.AppendJSON(nil)), "Returns up to 4 results")

	// A new core.wasm: the module hash follows it.
	req := f.request(install.Options{MaxResults: intp(4)})
	fsys := fakePlugin()
	fsys["core.wasm"].Data = []byte("\x00asm\x01\x00\x00\x00\x00")
	req.Plugin = fsys
	f.init(req)
	var c planDoc
	require.NoError(t, json.Unmarshal([]byte(f.read(pluginDir+"/"+planFile)), &c))
	require.Equal(t, install.SHA(fsys["core.wasm"].Data), c.ModuleSHA256)
	require.Equal(t, b.OptionsSHA256, c.OptionsSHA256)

	// A plan.json edited by hand is not overwritten (nor deleted) silently.
	f.write(pluginDir+"/"+planFile, "{}")
	_, err := planInit(f.request(install.Options{MaxResults: intp(5)}))
	var refused *install.RefusedError
	require.ErrorAs(t, err, &refused)
}
