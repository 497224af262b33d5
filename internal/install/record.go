package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// RecordFormat is the version of the install record's format. Format 2 is
// one record type for every host; ReadRecord also takes the format-1
// records earlier versions wrote (one shape for OpenCode, another for the
// MCP hosts), through the adapter's upgrade function.
const RecordFormat = 2

// Record is what init keeps so uninstall can reverse exactly what it did to
// one host's files in one scope. An adapter decides where it lives (OpenCode:
// beside the config it describes; the MCP hosts: in the state directory) and
// checks every path in it before use: a record can come from a cloned
// repository, so it is untrusted input. It is written as indented JSON, mode
// 0600, and holds no copy of any file: a hash-anchored patch of the lines
// init changed, and what init added, so uninstall can also remove that
// structurally when the file changed since.
type Record struct {
	// Format is RecordFormat.
	Format int `json:"format"`
	// Tool is always Name.
	Tool string `json:"tool"`
	// Version is the installer version that last changed the install.
	Version string `json:"version,omitempty"`
	// Host is the adapter's name for the host ("codex", "opencode", …).
	Host string `json:"host"`
	// Scope is "global" or "project"; empty in OpenCode records, whose
	// place (beside the config) tells the scope.
	Scope string `json:"scope,omitempty"`
	// Key is the config member holding the entry, where the host has a
	// choice (OpenCode: "plugins" or "plugin").
	Key string `json:"key,omitempty"`
	// Files are the files init changed or wrote, as the adapter names them
	// (OpenCode: relative to the config directory, slash-separated; the
	// MCP hosts: absolute).
	Files []RecordFile `json:"files"`
	// CreatedDirs are directories init created, parents first.
	CreatedDirs []string `json:"createdDirs,omitempty"`
	// StateDirs are the directories init created to hold the record,
	// parents first; uninstall removes those left empty.
	StateDirs []string `json:"stateDirs,omitempty"`
}

// RecordFile is one file init changed or wrote.
type RecordFile struct {
	// Path names the file (see Record.Files).
	Path string `json:"path"`
	// Existed reports whether the file was there before init. For a file
	// init writes whole (a vendored plugin file), it means the file already
	// held this content, and uninstall leaves it.
	Existed bool `json:"existed,omitempty"`
	// WrittenSHA256 is the hex SHA-256 of what init last left in the file.
	WrittenSHA256 string `json:"writtenSHA256"`
	// Patch turns what init last wrote back into the content before init;
	// nil when unknown or when the replaced lines hold a credential.
	Patch *Patch `json:"patch,omitempty"`
	// PatchExact reports that nothing but this installer changed the file
	// between the content Patch restores and what init wrote (as far as
	// init could tell); OpenCode's uninstall restores through Patch only
	// then.
	PatchExact bool `json:"patchExact,omitempty"`
	// Snapshot is the file's whole content before init, as OpenCode records
	// of format 1 from early versions kept it. This version never writes it
	// (a config can hold credentials).
	Snapshot string `json:"snapshot,omitempty"`
	// Entry is the entry init wrote (plain JSON), when this file holds it.
	// Uninstall refuses to remove an entry that no longer equals it.
	Entry json.RawMessage `json:"entry,omitempty"`
	// EntryCreated is how many elements of the entry's path init created
	// (the containing members), so uninstall removes them again.
	EntryCreated int `json:"entryCreated,omitempty"`
	// EntryExisted reports that an entry of ours was there before init (a
	// committed project file): uninstall leaves it, or puts EntryOriginal
	// back when a later init changed it.
	EntryExisted bool `json:"entryExisted,omitempty"`
	// EntryOriginal is the text of that entry (JSON files); empty when it
	// holds a credential.
	EntryOriginal string `json:"entryOriginal,omitempty"`
	// EntryLayout is the whitespace the entry's insertion moved, so that
	// removing it structurally still gives back the bytes around it.
	EntryLayout *Layout `json:"entryLayout,omitempty"`
	// BlankText is the file's text (after any BOM) when it held only
	// whitespace before init: what uninstall puts back once our parts are
	// gone.
	BlankText *string `json:"blankText,omitempty"`
	// Adds are the strings init added to arrays.
	Adds []RecordAdd `json:"adds,omitempty"`
	// TopKey is the TOML top-level key line init wrote.
	TopKey *RecordTopKey `json:"topKey,omitempty"`
	// TOMLEntry is how init wrote a TOML entry (a table, or a member of an
	// inline table) and the text it put around it.
	TOMLEntry *TOMLEntry `json:"tomlEntry,omitempty"`
	// YAMLEntry is how init wrote a YAML entry (a mapping member or a
	// sequence item), its lines and the text it put before them.
	YAMLEntry *YAMLEntry `json:"yamlEntry,omitempty"`
}

// RecordAdd is one array edit: Items appended at Path.
type RecordAdd struct {
	Path  []string `json:"path"`
	Items []string `json:"items"`
	// Created is how many elements of Path init created.
	Created int `json:"created,omitempty"`
	// Layouts are the whitespace each append moved (see EntryLayout).
	Layouts []Layout `json:"layouts,omitempty"`
}

// RecordTopKey is a TOML top-level key edit: Line written for Key, with the
// line it replaced (Prev) or the text it inserted.
type RecordTopKey struct {
	Key      string `json:"key"`
	Line     string `json:"line"`
	Prev     string `json:"prev,omitempty"`
	Inserted string `json:"inserted,omitempty"`
}

// NewRecord returns an empty record of this format for host.
func NewRecord(version, host, scope, key string) *Record {
	return &Record{Format: RecordFormat, Tool: Name, Version: version, Host: host, Scope: scope, Key: key}
}

// File returns the record's entry for path, nil when it has none (or r is nil).
func (r *Record) File(path string) *RecordFile {
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

// Marshal returns the record as written to disk: indented JSON and a newline.
func (r *Record) Marshal() []byte { return append(Marshal(r, "", "  ", false), '\n') }

// ErrCorruptRecord wraps a record that exists but cannot be read.
var ErrCorruptRecord = errors.New("unreadable install record")

// ReadRecord reads the record at path: nil (and no error) when there is
// none. A record of format 1 is passed to upgrade, which returns it in this
// format; upgrade is the adapter's, since the two hosts' format-1 records
// differ. The record's paths are not checked here: the caller checks them,
// for either format, before using any. A project's record comes with a
// clone, so it is held to a config's bounds (see checkConfig) first.
func ReadRecord(path string, upgrade func([]byte) (*Record, error)) (*Record, []byte, error) {
	data, err := readCapped(path, maxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err == nil {
		err = checkConfig(path, data)
	}
	if err != nil {
		return nil, nil, err
	}
	var head struct {
		Format int    `json:"format"`
		Tool   string `json:"tool"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, nil, fmt.Errorf("%w %s: %v", ErrCorruptRecord, path, err)
	}
	if head.Tool != Name || head.Format != 1 && head.Format != RecordFormat {
		return nil, nil, fmt.Errorf("%w %s: format %d of %q, want format 1 or %d of %q", ErrCorruptRecord, path, head.Format, head.Tool, RecordFormat, Name)
	}
	var r *Record
	if head.Format == 1 {
		r, err = upgrade(data)
	} else {
		r = new(Record)
		err = json.Unmarshal(data, r)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w %s: %v", ErrCorruptRecord, path, err)
	}
	return r, data, nil
}
