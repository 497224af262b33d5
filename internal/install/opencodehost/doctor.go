package opencodehost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// check is what doctor found in one OpenCode config directory.
type check struct {
	// Dir is the config directory; File the config file in it.
	Dir, File string
	// Host is the recorded (or found) OpenCode generation.
	Host Host
	// Installed reports whether the config lists the plugin.
	Installed bool
	// Lines are facts, Problems what stops the plugin from loading.
	Lines, Problems []string
	// Options are the entry's options, when installed.
	Options install.Options
	// Unrecorded reports an entry with no install record (written by
	// hand, or by an init that was interrupted): uninstall refuses it
	// until init adopts it.
	Unrecorded bool
	// PluginVersion is the plugin's version: the vendored plugin's (its
	// package.json), or the version NPMSpec pins; "" when unknown.
	PluginVersion string
	// NPMSpec is the npm package spec the entry names (the plugin comes
	// from npm, OpenCode installs it); "" for the vendored plugin.
	NPMSpec string
}

// doctor inspects the config directory an install into scope would use:
// whether the config lists the plugin and parses, whether the vendored
// files are all there and unchanged, and whether the install record is
// usable.
func doctor(env install.Env, scope install.Scope, dir string) check {
	var c check
	d, err := configDir(env, scope, dir)
	if err != nil {
		c.Problems = append(c.Problems, err.Error())
		return c
	}
	c.Dir = d
	rec, _, err := readRecord(d)
	if err != nil {
		c.Problems = append(c.Problems, err.Error())
	}
	c.File, _ = pickConfig(d, rec)
	data, _, ok, err := install.ReadConfig(filepath.Join(d, c.File))
	switch {
	case err != nil:
		c.Problems = append(c.Problems, err.Error())
		return c
	case !ok:
		c.Lines = append(c.Lines, filepath.Join(d, c.File)+" does not exist")
		return c
	}
	_, body := install.SplitBOM(data)
	cfg, err := install.ParseJSONC(body)
	if err != nil {
		c.Problems = append(c.Problems, fmt.Sprintf("%s does not parse: %v", filepath.Join(d, c.File), err))
		return c
	}
	npmSpec := "" // the npm spec the entry names, "" when it names the vendored path
	for _, h := range []Host{HostV2, HostV1} {
		arr, ok := cfg.LookupPlain(h.Key()).([]any)
		if !ok {
			continue
		}
		for _, e := range arr {
			if isOurPath(entryName(e)) {
				c.Installed, c.Host = true, h
				name := entryName(e)
				if !sameName(name, packagePath) {
					npmSpec = name
				}
				c.Lines = append(c.Lines, fmt.Sprintf("%s lists %s under %q (%s)", c.File, name, h.Key(), h.label()))
				if opts, ok := recEntryOptions(e); ok {
					// Each option on its own: one of the wrong type is
					// left out rather than losing the others.
					for k, v := range opts {
						one, _ := json.Marshal(map[string]any{k: v})
						_ = json.Unmarshal(one, &c.Options)
					}
				}
			}
		}
	}
	if !c.Installed {
		c.Lines = append(c.Lines, c.File+" does not list "+packagePath)
		return c
	}
	c.Unrecorded = rec == nil
	if npmSpec != "" {
		// OpenCode installs the package itself; its version is the pin.
		c.NPMSpec = npmSpec
		c.PluginVersion = strings.TrimPrefix(npmSpec, npmPackage+"@")
		if c.PluginVersion == npmSpec {
			c.PluginVersion = ""
		}
		return c
	}
	c.Problems = append(c.Problems, checkPlugin(filepath.Join(d, filepath.FromSlash(pluginDir)))...)
	if v := pluginVersion(filepath.Join(d, filepath.FromSlash(pluginDir))); v != "" {
		c.PluginVersion = v
		c.Lines = append(c.Lines, "the vendored plugin's version: "+v)
	}
	if rec != nil {
		for _, f := range vendoredFiles(rec) {
			cur, _, ok, err := install.ReadFile(filepath.Join(d, filepath.FromSlash(f.Path)))
			if err == nil && ok && install.SHA(cur) != f.WrittenSHA256 {
				c.Problems = append(c.Problems, f.Path+" was changed since init wrote it")
			}
		}
	}
	return c
}

// pluginVersion reads the version of the plugin vendored in dir ("" when
// its package.json has none or does not parse).
func pluginVersion(dir string) string {
	data, _, ok, err := install.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil || !ok {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	return pkg.Version
}

// wasmHeader starts every WebAssembly binary module (magic, version 1).
var wasmHeader = []byte("\x00asm\x01\x00\x00\x00")

// checkPlugin checks what OpenCode would load from the vendored plugin
// directory, without starting OpenCode: package.json parses, the files it
// lists and its main module are there, and core.wasm is a WebAssembly
// module.
func checkPlugin(dir string) []string {
	var probs []string
	want := []string{"package.json", "server.js", "core.wasm"}
	if data, _, ok, err := install.ReadFile(filepath.Join(dir, "package.json")); err == nil && ok {
		var pkg struct {
			Main  string   `json:"main"`
			Files []string `json:"files"`
		}
		if err := json.Unmarshal(data, &pkg); err != nil {
			probs = append(probs, fmt.Sprintf("%s/package.json does not parse (%v): run init again", pluginDir, err))
		}
		for _, f := range append(pkg.Files, pkg.Main) {
			if f = filepath.ToSlash(filepath.Clean(f)); f != "." && !slices.Contains(want, f) {
				want = append(want, f)
			}
		}
	}
	for _, f := range want {
		if !exists(filepath.Join(dir, filepath.FromSlash(f))) {
			probs = append(probs, fmt.Sprintf("%s/%s is missing: run init again", pluginDir, f))
		}
	}
	wasm := filepath.Join(dir, "core.wasm")
	if fi, err := os.Stat(wasm); err == nil && !fi.Mode().IsRegular() {
		probs = append(probs, pluginDir+"/core.wasm is not a regular file: run init again")
	} else if f, err := os.Open(wasm); err == nil {
		head := make([]byte, len(wasmHeader))
		n, _ := f.Read(head)
		f.Close()
		if !bytes.Equal(head[:n], wasmHeader) {
			probs = append(probs, pluginDir+"/core.wasm is not a WebAssembly module: run init again")
		}
	}
	return probs
}
