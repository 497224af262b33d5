package opencodehost

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// pluginRoundTrip adds our entry to the plugin list of h as init does,
// checks the result, and removes it from a fresh parse as uninstall does
// (the structural removal, with the recorded layout). ok is false when
// data is not a config init edits this way.
func pluginRoundTrip(t *testing.T, data []byte, h Host) (out []byte, ok bool) {
	c, err := install.ParseJSONC(bytes.Clone(data))
	if err != nil {
		return nil, false
	}
	key := h.Key()
	if mi := c.Member(key); mi >= 0 {
		arr, isArr := c.Obj.Members[mi].Value.Value.(*hujson.Array)
		if !isArr {
			return nil, false // refused by planInit
		}
		for _, e := range entries(arr) {
			if isOurPath(e.name) {
				return nil, false // updated in place, not added
			}
		}
	}
	createdKey, lay := addEntry(c, h, packagePath, install.Options{Search: "forced"}.WithDefaults())
	mid := c.Pack()
	require.NoError(t, checkEdit(data, mid, key, true), "%q\n%q", data, mid)
	if install.DetectEOL(data) == "\r\n" {
		require.Equal(t, bytes.Count(data, []byte("\n"))-bytes.Count(data, []byte("\r\n")),
			bytes.Count(mid, []byte("\n"))-bytes.Count(mid, []byte("\r\n")), "bare LFs in %q", mid)
	}

	d, err := install.ParseJSONC(bytes.Clone(mid))
	require.NoError(t, err)
	mi := d.Member(key)
	require.GreaterOrEqual(t, mi, 0)
	idx := -1
	for _, e := range entries(d.Obj.Members[mi].Value.Value.(*hujson.Array)) {
		if isOurPath(e.name) {
			idx = e.index
		}
	}
	require.GreaterOrEqual(t, idx, 0)
	removeEntry(d, mi, idx, createdKey, &lay)
	return d.Pack(), true
}

var pluginSeeds = []string{
	"{}",
	"{\n}\n",
	"{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n",
	"{\r\n\t\"plugins\": []\r\n}",
	"{\n  \"plugins\": [\n    // none\n  ]\n}\n",
	"{\n  \"plugins\": [ /* none */ ]\n}\n",
	"{\"plugins\":[\"a\",{\"package\":\"b\",\"options\":{}},],}",
	"{\n  \"plugins\": [\n    \"a\", // a\n    [\"b\", {}]\n  ] /* after */\n} // end",
	"{\n  \"plugin\": [\n    \"a\"\n\n  ],\n  \"model\": \"x\"\n}\n",
}

func TestPluginRoundTripSeeds(t *testing.T) {
	for _, h := range []Host{HostV2, HostV1} {
		for _, s := range pluginSeeds {
			out, ok := pluginRoundTrip(t, []byte(s), h)
			require.True(t, ok, s)
			require.Equal(t, s, string(out), "%s", h)
		}
	}
}

// FuzzPluginRoundTrip: for any JSONC object whose plugin list (2.x
// "plugins" or 1.x "plugin") is absent or an array without our entry,
// adding the entry keeps everything else (as data) and uses the file's
// line ending, and removing it again gives back the bytes.
func FuzzPluginRoundTrip(f *testing.F) {
	for _, s := range pluginSeeds {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, v1 bool) {
		if len(data) > 4096 {
			return
		}
		h := HostV2
		if v1 {
			h = HostV1
		}
		if out, ok := pluginRoundTrip(t, data, h); ok {
			require.Equal(t, string(data), string(out), "add then remove")
		}
	})
}
