package opencode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// RecordFormat is the version of the install record's format.
const RecordFormat = 1

// Record is what init keeps so uninstall can reverse exactly what it
// applied. It lives at vendor/deepseek-web-retrieval.install.json beside the
// config file it describes (one record per config directory), is written as
// indented JSON with mode 0600, and is deleted by uninstall.
//
// A project install is meant to be committed, so a cloned repository can
// carry a crafted record: readRecord treats it as untrusted input. Every
// path in it must be one this installer writes (confined to the config
// directory after resolving symlinks), the config file is one of the two
// names OpenCode reads in that directory, and what uninstall puts back is
// checked against what this version would write (see safeRestore).
type Record struct {
	// Format is RecordFormat.
	Format int `json:"format"`
	// Tool is always "deepseek-web-retrieval".
	Tool string `json:"tool"`
	// Version is the installer version that last changed the install.
	Version string `json:"version,omitempty"`
	// Host is the OpenCode generation the entry was written for.
	Host Host `json:"host"`
	// Key is the config key holding the entry: "plugins" or "plugin".
	Key string `json:"key"`
	// Config describes the config file and the edit made to it.
	Config RecordConfig `json:"config"`
	// Entry is the plugin entry as init last wrote it (standard JSON).
	// Uninstall refuses when the config's entry no longer equals it.
	Entry json.RawMessage `json:"entry"`
	// Files are the plugin files, relative to the config directory.
	Files []RecordFile `json:"files"`
	// CreatedDirs are the directories init created, relative to the config
	// directory, parents first.
	CreatedDirs []string `json:"createdDirs,omitempty"`
}

// RecordConfig describes the config file init edited.
type RecordConfig struct {
	// File is the config file's name in the config directory:
	// opencode.jsonc or opencode.json.
	File string `json:"file"`
	// Existed reports whether the file existed before init.
	Existed bool `json:"existed"`
	// Snapshot is the file's content before init, as records of earlier
	// versions kept it. This version never writes it (a config can hold
	// credentials); it writes Patch instead.
	Snapshot string `json:"snapshot,omitempty"`
	// Patch turns the content init last wrote back into the content before
	// init; nil when the lines it would hold contain a credential.
	Patch *install.Patch `json:"patch,omitempty"`
	// SnapshotExact reports whether only this installer has changed the file
	// since the content Patch (or Snapshot) restores (as far as init could tell).
	SnapshotExact bool `json:"snapshotExact"`
	// WrittenSHA256 is the SHA-256 of the content init last left in the file.
	WrittenSHA256 string `json:"writtenSHA256"`
	// CreatedKey reports whether init created the Key member (so uninstall
	// removes it again once it holds no entries).
	CreatedKey bool `json:"createdKey"`
	// Layout is the whitespace init moved when it appended (the member when
	// CreatedKey, else the entry), so uninstall can restore it byte for byte.
	Layout *install.Layout `json:"layout,omitempty"`
	// WasBlank reports whether the file held only whitespace before init;
	// BlankText is that whitespace.
	WasBlank  bool   `json:"wasBlank,omitempty"`
	BlankText string `json:"blankText,omitempty"`
	// EntryExisted reports whether an entry for the plugin was already there
	// (init then only changed its options); uninstall restores OriginalEntry
	// instead of removing the entry.
	EntryExisted bool `json:"entryExisted,omitempty"`
	// OriginalEntry is that pre-existing entry's text.
	OriginalEntry string `json:"originalEntry,omitempty"`
}

// RecordFile is one vendored plugin file.
type RecordFile struct {
	// Path is relative to the config directory, slash-separated.
	Path string `json:"path"`
	// SHA256 is the hex SHA-256 of the content init wrote.
	SHA256 string `json:"sha256"`
	// Existed reports whether the file was already there with this content
	// before init; uninstall leaves such files alone.
	Existed bool `json:"existed,omitempty"`
}

func (r *Record) file(path string) *RecordFile {
	if r == nil {
		return nil
	}
	for i := range r.Files {
		if r.Files[i].Path == path {
			return &r.Files[i]
		}
	}
	return nil
}

func (r *Record) marshal() []byte { return append(install.Marshal(r, "", "  ", false), '\n') }

// errCorruptRecord wraps a record that exists but cannot be used.
var errCorruptRecord = errors.New("unreadable install record")

// errUntrustedRecord wraps a record naming something this installer never writes.
var errUntrustedRecord = errors.New("install record names files this installer never writes")

// configNames are the config files OpenCode reads in a directory.
var configNames = []string{"opencode.jsonc", "opencode.json"}

// createdDirNames are the only directories init creates, relative to the
// config directory ("." is the config directory itself).
var createdDirNames = []string{".", vendorDir, pluginDir}

// readRecord returns the record in dir, nil when there is none. A record
// that names a path this installer would not write, or one that leaves dir
// once symlinks are resolved, is refused whole.
func readRecord(dir string) (*Record, []byte, error) {
	p := filepath.Join(dir, filepath.FromSlash(recordFile))
	if _, err := install.Confine(dir, recordFile); err != nil {
		return nil, nil, fmt.Errorf("%w %s: %v", errUntrustedRecord, p, err)
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, nil, fmt.Errorf("%w %s: %v", errCorruptRecord, p, err)
	}
	if r.Format != RecordFormat || r.Tool != Name {
		return nil, nil, fmt.Errorf("%w %s: format %d of %q, want format %d of %q", errCorruptRecord, p, r.Format, r.Tool, RecordFormat, Name)
	}
	if err := r.validate(dir); err != nil {
		return nil, nil, fmt.Errorf("%w (%s): %v", errUntrustedRecord, p, err)
	}
	return &r, data, nil
}

// validate checks every path and name in the record against what this
// installer writes.
func (r *Record) validate(dir string) error {
	if r.Host != HostOpenCode && r.Host != HostOpenCode1 {
		return fmt.Errorf("host %q", r.Host)
	}
	if r.Key != r.Host.Key() {
		return fmt.Errorf("key %q for host %q", r.Key, r.Host)
	}
	if !slices.Contains(configNames, r.Config.File) {
		return fmt.Errorf("config file %q (want opencode.jsonc or opencode.json)", r.Config.File)
	}
	for _, f := range r.Files {
		name, ok := strings.CutPrefix(f.Path, pluginDir+"/")
		if !ok || name == "" || name != path.Base(name) || name == "." || name == ".." || strings.ContainsAny(name, `\`) {
			return fmt.Errorf("file %q (want %s/<name>)", f.Path, pluginDir)
		}
		if _, err := install.Confine(dir, f.Path); err != nil {
			return err
		}
	}
	for _, d := range r.CreatedDirs {
		if !slices.Contains(createdDirNames, d) {
			return fmt.Errorf("created directory %q (want one of %s)", d, strings.Join(createdDirNames, ", "))
		}
		if _, err := install.Confine(dir, d); err != nil {
			return err
		}
	}
	for _, p := range []string{vendorDir, pluginDir} {
		if _, err := install.Confine(dir, p); err != nil {
			return err
		}
	}
	return nil
}
