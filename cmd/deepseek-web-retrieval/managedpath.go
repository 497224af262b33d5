package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// packageManaged says why p, an absolute path, is inside a directory that
// a JavaScript package manager owns and may empty at any time, or "" when it
// is not. A host told to start a binary there fails once it is gone.
//
// The rule: a path with a node_modules or _npx component (npx, npm exec,
// pnpm dlx and bunx all run packages from a node_modules under a cache or
// temporary directory; npm i -g and nvm switches replace them too), or a
// path under npm's cache directory ($npm_config_cache, else ~/.npm, on
// Windows %LocalAppData%\npm-cache). A binary installed with npm is run
// from its platform package, node_modules/@deepseek-web-retrieval/cli-…/bin,
// so every npm install is caught by the first half.
func packageManaged(p string) string {
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		switch c {
		case "_npx":
			return "inside npx's cache (_npx), which npm empties"
		case "node_modules":
			return "inside a node_modules directory, which npm, npx, pnpm and Bun replace or delete"
		}
	}
	if dir := npmCacheDir(); dir != "" {
		if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "inside npm's cache (" + dir + "), which npm empties"
		}
	}
	return ""
}

// npmCacheDir is npm's cache directory, or "" when it cannot be told.
func npmCacheDir() string {
	if d := os.Getenv("npm_config_cache"); d != "" {
		return filepath.Clean(d)
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "npm-cache")
		}
		return ""
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".npm")
	}
	return ""
}

// stableBinary refuses a binary path that a package manager may remove
// (packageManaged), saying to run install instead.
func stableBinary(p string) error {
	why := packageManaged(p)
	if why == "" {
		return nil
	}
	return fmt.Errorf("%s is %s: a host told to start it would fail once it is gone. "+
		"Run \"deepseek-web-retrieval install\" instead (same flags): it copies the binary to %s and installs that copy, or pass --binary with a path outside it",
		p, why, defaultBinDirText())
}

// defaultPluginSource is install's --plugin-source when none is given: npm
// when the binary at exe was installed by npm (packageManaged: the
// launcher's platform package), since the plugin package of the same
// version is then in the same registry; else vendor.
func defaultPluginSource(exe string) string {
	if packageManaged(exe) != "" {
		return "npm"
	}
	return "vendor"
}
