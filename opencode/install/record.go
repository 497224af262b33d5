package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RecordFormat is the version of the install record's format.
const RecordFormat = 1

// Record is what init keeps so uninstall can reverse exactly what it
// applied. It lives at vendor/deepseek-web-retrieval.install.json beside the
// config file it describes (one record per config directory), is written as
// indented JSON, and is deleted by uninstall.
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
	// File is the config file's name in the config directory.
	File string `json:"file"`
	// Existed reports whether the file existed before init.
	Existed bool `json:"existed"`
	// Snapshot is the file's content before init first changed it; empty
	// when it did not exist.
	Snapshot string `json:"snapshot"`
	// SnapshotExact reports whether only this installer has changed the file
	// since Snapshot was taken (as far as init could tell).
	SnapshotExact bool `json:"snapshotExact"`
	// WrittenSHA256 is the SHA-256 of the content init last left in the file.
	// When the file still has exactly that content and SnapshotExact holds,
	// uninstall puts Snapshot back (or deletes a file init created).
	WrittenSHA256 string `json:"writtenSHA256"`
	// CreatedKey reports whether init created the Key member (so uninstall
	// removes it again once it holds no entries).
	CreatedKey bool `json:"createdKey"`
	// Layout is the whitespace init moved when it appended (the member when
	// CreatedKey, else the entry), so uninstall can restore it byte for byte.
	Layout *layout `json:"layout,omitempty"`
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

func (r *Record) marshal() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// errCorruptRecord wraps a record that exists but cannot be used.
var errCorruptRecord = errors.New("unreadable install record")

// readRecord returns the record in dir, nil when there is none.
func readRecord(dir string) (*Record, []byte, error) {
	path := filepath.Join(dir, filepath.FromSlash(recordFile))
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, nil, fmt.Errorf("%w %s: %v", errCorruptRecord, path, err)
	}
	if r.Format != RecordFormat || r.Tool != Name {
		return nil, nil, fmt.Errorf("%w %s: format %d of %q, want format %d of %q", errCorruptRecord, path, r.Format, r.Tool, RecordFormat, Name)
	}
	return &r, data, nil
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
