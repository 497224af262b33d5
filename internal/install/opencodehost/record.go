package opencodehost

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// Record and RecordFile are the engine's: one record format for every
// host. OpenCode's lives at vendor/deepseek-web-retrieval.install.json
// beside the config file it describes (one record per config directory),
// and is deleted by uninstall. Its Files are the config file (Path
// opencode.jsonc or opencode.json, holding the entry) and the vendored
// plugin files, relative to the config directory; Key is the config
// member holding the entry ("plugins" or "plugin").
//
// A project install is meant to be committed, so a cloned repository can
// carry a crafted record: readRecord treats it as untrusted input. Every
// path in it must be one this installer writes (confined to the config
// directory after resolving symlinks), the config file is one of the two
// names OpenCode reads in that directory, and what uninstall puts back is
// checked against what this version would write (see safeRestore).
type (
	Record     = install.Record
	RecordFile = install.RecordFile
)

// recordV1 is OpenCode's record of format 1, which readRecord upgrades.
type recordV1 struct {
	Version string          `json:"version"`
	Host    string          `json:"host"`
	Key     string          `json:"key"`
	Entry   json.RawMessage `json:"entry"`
	Config  struct {
		File          string          `json:"file"`
		Existed       bool            `json:"existed"`
		Snapshot      string          `json:"snapshot"`
		Patch         *install.Patch  `json:"patch"`
		SnapshotExact bool            `json:"snapshotExact"`
		WrittenSHA256 string          `json:"writtenSHA256"`
		CreatedKey    bool            `json:"createdKey"`
		Layout        *install.Layout `json:"layout"`
		WasBlank      bool            `json:"wasBlank"`
		BlankText     string          `json:"blankText"`
		EntryExisted  bool            `json:"entryExisted"`
		OriginalEntry string          `json:"originalEntry"`
	} `json:"config"`
	Files []struct {
		Path    string `json:"path"`
		SHA256  string `json:"sha256"`
		Existed bool   `json:"existed"`
	} `json:"files"`
	CreatedDirs []string `json:"createdDirs"`
}

// upgradeV1 reads a format-1 record as this format: the config first among
// the files, then the plugin files.
func upgradeV1(data []byte) (*Record, error) {
	var v recordV1
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	c := v.Config
	r := install.NewRecord(v.Version, v.Host, "", v.Key)
	cfg := RecordFile{
		Path: c.File, Existed: c.Existed, WrittenSHA256: c.WrittenSHA256, Patch: c.Patch, PatchExact: c.SnapshotExact, Snapshot: c.Snapshot,
		Entry: v.Entry, EntryExisted: c.EntryExisted, EntryOriginal: c.OriginalEntry, EntryLayout: c.Layout,
	}
	if c.CreatedKey {
		cfg.EntryCreated = 1
	}
	if c.WasBlank {
		cfg.BlankText = &c.BlankText
	}
	r.Files = append(r.Files, cfg)
	for _, f := range v.Files {
		r.Files = append(r.Files, RecordFile{Path: f.Path, WrittenSHA256: f.SHA256, Existed: f.Existed})
	}
	r.CreatedDirs = v.CreatedDirs
	return r, nil
}

// configOf returns the record's config file; readRecord made sure there is
// exactly one.
func configOf(r *Record) *RecordFile {
	for i := range r.Files {
		if slices.Contains(configNames, r.Files[i].Path) {
			return &r.Files[i]
		}
	}
	return &RecordFile{}
}

// vendoredFiles returns the record's vendored plugin files.
func vendoredFiles(r *Record) []RecordFile {
	return slices.DeleteFunc(slices.Clone(r.Files), func(f RecordFile) bool { return slices.Contains(configNames, f.Path) })
}

// errUntrustedRecord wraps a record naming something this installer never writes.
var errUntrustedRecord = errors.New("install record names files this installer never writes")

// configNames are the config files OpenCode reads in a directory.
var configNames = []string{"opencode.jsonc", "opencode.json"}

// createdDirNames are the only directories init creates, relative to the
// config directory ("." is the config directory itself).
var createdDirNames = []string{".", vendorDir, pluginDir}

// readRecord returns the record in dir (of either format), nil when there
// is none. A record that names a path this installer would not write, or
// one that leaves dir once symlinks are resolved, is refused whole.
func readRecord(dir string) (*Record, []byte, error) {
	p := filepath.Join(dir, filepath.FromSlash(recordFile))
	if _, err := install.Confine(dir, recordFile); err != nil {
		return nil, nil, fmt.Errorf("%w %s: %v", errUntrustedRecord, p, err)
	}
	r, data, err := install.ReadRecord(p, upgradeV1)
	if r == nil || err != nil {
		return nil, nil, err
	}
	if err := validate(r, dir); err != nil {
		return nil, nil, fmt.Errorf("%w (%s): %v", errUntrustedRecord, p, err)
	}
	return r, data, nil
}

// validate checks every path and name in the record against what this
// installer writes.
func validate(r *Record, dir string) error {
	h := Host(r.Host)
	if h != HostV2 && h != HostV1 {
		return fmt.Errorf("host %q", r.Host)
	}
	if r.Key != h.Key() {
		return fmt.Errorf("key %q for host %q", r.Key, r.Host)
	}
	if n := len(r.Files) - len(vendoredFiles(r)); n != 1 {
		return fmt.Errorf("%d config files (want one: opencode.jsonc or opencode.json)", n)
	}
	for _, f := range vendoredFiles(r) {
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

// hasInstall reports whether the config directory for scope holds an
// install record of this installer (the plugin's).
func hasInstall(env install.Env, scope install.Scope, dir string) bool {
	d, err := configDir(env, scope, dir)
	return err == nil && install.Exists(filepath.Join(d, filepath.FromSlash(recordFile)))
}
