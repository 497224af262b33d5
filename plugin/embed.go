// Package plugin carries the OpenCode plugin directory inside Go binaries, so
// `deepseek-web-retrieval init` can install the plugin without a source
// checkout.
//
// The directory is embedded whole (//go:embed *, so the build works before
// core.wasm exists), and [Files] exposes only the files a user installs:
// package.json, README.md, LICENSE, the *.js files and core.wasm at the top
// level. The installer refuses to install a set without core.wasm.
package plugin

import (
	"embed"
	"errors"
	"io/fs"
	"path"
	"strings"
)

//go:embed *
var dir embed.FS

// Files returns the plugin's installable files as a flat, read-only file
// system. Anything else in the directory (Go sources, tests, dot files) is
// invisible through it.
func Files() fs.FS { return filtered{dir} }

// Installable reports whether name, a top-level file of the plugin
// directory, is part of what a user installs.
func Installable(name string) bool {
	if strings.Contains(name, "/") || strings.HasPrefix(name, ".") {
		return false
	}
	switch name {
	case "package.json", "README.md", "LICENSE", "core.wasm":
		return true
	}
	return path.Ext(name) == ".js"
}

type filtered struct{ fsys embed.FS }

func (f filtered) Open(name string) (fs.File, error) {
	if name != "." && !Installable(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if name == "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("use ReadDir")}
	}
	return f.fsys.Open(name)
}

func (f filtered) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	all, err := f.fsys.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var out []fs.DirEntry
	for _, e := range all {
		if !e.IsDir() && Installable(e.Name()) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f filtered) ReadFile(name string) ([]byte, error) {
	if !Installable(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f.fsys.ReadFile(name)
}
