package install

import (
	"fmt"
	"path/filepath"

	shared "github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// Check is what doctor found in one OpenCode config directory.
type Check struct {
	// Dir is the config directory; File the config file in it.
	Dir, File string
	// Host is the recorded (or found) OpenCode generation.
	Host Host
	// Installed reports whether the config lists the plugin.
	Installed bool
	// Lines are facts, Problems what stops the plugin from loading.
	Lines, Problems []string
	// Options are the entry's options (tiers and apiKeyEnv), when installed.
	Options Options
}

// Doctor inspects the config directory an install into scope would use:
// whether the config lists the plugin and parses, whether the vendored
// files are all there and unchanged, and whether the install record is
// usable.
func Doctor(env Env, scope Scope, dir string) Check {
	var c Check
	d, err := ConfigDir(env, scope, dir)
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
	data, _, ok, err := shared.ReadFile(filepath.Join(d, c.File))
	switch {
	case err != nil:
		c.Problems = append(c.Problems, err.Error())
		return c
	case !ok:
		c.Lines = append(c.Lines, filepath.Join(d, c.File)+" does not exist")
		return c
	}
	_, body := shared.SplitBOM(data)
	cfg, err := shared.ParseJSONC(body)
	if err != nil {
		c.Problems = append(c.Problems, fmt.Sprintf("%s does not parse: %v", filepath.Join(d, c.File), err))
		return c
	}
	for _, h := range []Host{HostOpenCode, HostOpenCode1} {
		arr, ok := cfg.LookupPlain(h.key()).([]any)
		if !ok {
			continue
		}
		for _, e := range arr {
			if isOurPath(entryName(e)) {
				c.Installed, c.Host = true, h
				c.Lines = append(c.Lines, fmt.Sprintf("%s lists %s under %q (%s)", c.File, PackagePath, h.key(), h.label()))
				if opts, ok := recEntryOptions(e); ok {
					c.Options.Search, _ = opts["search"].(string)
					c.Options.Fetch, _ = opts["fetch"].(string)
					c.Options.APIKeyEnv, _ = opts["apiKeyEnv"].(string)
				}
			}
		}
	}
	if !c.Installed {
		c.Lines = append(c.Lines, c.File+" does not list "+PackagePath)
		return c
	}
	if rec == nil {
		c.Lines = append(c.Lines, "no install record: uninstall will refuse (installed by hand?)")
	}
	for _, f := range []string{"package.json", "server.js", "core.wasm"} {
		if !exists(filepath.Join(d, filepath.FromSlash(pluginDir), f)) {
			c.Problems = append(c.Problems, fmt.Sprintf("%s/%s is missing: run init again", pluginDir, f))
		}
	}
	if rec != nil {
		for _, f := range rec.Files {
			cur, _, ok, err := shared.ReadFile(filepath.Join(d, filepath.FromSlash(f.Path)))
			if err == nil && ok && shared.SHA(cur) != f.SHA256 {
				c.Problems = append(c.Problems, f.Path+" was changed since init wrote it")
			}
		}
	}
	return c
}
