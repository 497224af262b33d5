package mcphosts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// RecordFormat is the version of the MCP hosts' install record format.
const RecordFormat = 1

// Record is what init keeps so uninstall can reverse exactly what it did
// to a host's files. It lives in the user's state directory (see
// recordPath), mode 0600, and holds no copy of any file: a hash-anchored
// patch of the lines init changed, and what init added, so uninstall can
// remove that structurally when the file changed since.
type Record struct {
	Format  int          `json:"format"`
	Tool    string       `json:"tool"`
	Version string       `json:"version,omitempty"`
	Host    Host         `json:"host"`
	Scope   string       `json:"scope"`
	Files   []RecordFile `json:"files"`
	// CreatedDirs are directories init created, parents first.
	CreatedDirs []string `json:"createdDirs,omitempty"`
	// StateDirs are the directories init created to hold the record,
	// parents first; uninstall removes those left empty.
	StateDirs []string `json:"stateDirs,omitempty"`
}

// RecordFile is one file init changed.
type RecordFile struct {
	// Path is absolute; it must be one of the files the host's adapter
	// owns for this scope, or the record is refused.
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	// WrittenSHA256 is the SHA-256 of what init last left in the file.
	WrittenSHA256 string `json:"writtenSHA256"`
	// Patch restores the content before init while the file is unchanged;
	// nil when unknown or when the replaced lines hold a credential.
	Patch *install.Patch `json:"patch,omitempty"`
	// Server is the entry init wrote (plain JSON), when this file holds it.
	Server json.RawMessage `json:"server,omitempty"`
	// ServerCreated is how many elements of the entry's path init created.
	ServerCreated int `json:"serverCreated,omitempty"`
	// ServerExisted reports that the same entry was there before init (a
	// committed project file): uninstall leaves it.
	ServerExisted bool `json:"serverExisted,omitempty"`
	// ServerOriginal is the text of that entry (JSON files), for
	// uninstall to put back once a later init changed it (a tier
	// changed); empty when it holds a credential.
	ServerOriginal string `json:"serverOriginal,omitempty"`
	// ServerLayout is the whitespace the entry's insertion moved, so that
	// removing it structurally (no patch, or a patch that no longer
	// applies) still gives back the bytes around it.
	ServerLayout *install.Layout `json:"serverLayout,omitempty"`
	// BlankText is the file's text (after any BOM) when it held only
	// whitespace before init: what uninstall puts back once our parts
	// are gone.
	BlankText *string `json:"blankText,omitempty"`
	// Adds are the strings init added to arrays, with how many path
	// elements it created for each.
	Adds []RecordAdd `json:"adds,omitempty"`
	// TopKey is the TOML top-level key line init wrote, with the line it
	// replaced (Prev) or the text it inserted.
	TopKey *RecordTopKey `json:"topKey,omitempty"`
	// TOMLEntry is how init wrote the TOML entry (a table, or a member of
	// an inline table) and the text it put around it, so uninstall takes
	// out exactly that even when the file changed elsewhere since.
	TOMLEntry *install.TOMLEntry `json:"tomlEntry,omitempty"`
}

// RecordAdd is one array edit.
type RecordAdd struct {
	Path    []string `json:"path"`
	Items   []string `json:"items"`
	Created int      `json:"created,omitempty"`
	// Layouts are the whitespace each append moved (see ServerLayout).
	Layouts []install.Layout `json:"layouts,omitempty"`
}

// RecordTopKey is a TOML top-level key edit.
type RecordTopKey struct {
	Key      string `json:"key"`
	Line     string `json:"line"`
	Prev     string `json:"prev,omitempty"`
	Inserted string `json:"inserted,omitempty"`
}

func (r *Record) file(p string) *RecordFile {
	if r == nil {
		return nil
	}
	for i := range r.Files {
		if r.Files[i].Path == p {
			return &r.Files[i]
		}
	}
	return nil
}

func (r *Record) marshal() []byte { return append(install.Marshal(r, "", "  ", false), '\n') }

// readRecord reads and checks the record: every file it names must be one
// of ts, every directory an ancestor of one inside the root.
func readRecord(p string, rs *resolved, ts []target) (*Record, []byte, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, nil, fmt.Errorf("unreadable install record %s: %v", p, err)
	}
	if r.Format != RecordFormat || r.Tool != install.Name || r.Host != rs.Host || r.Scope != string(rs.Scope) {
		return nil, nil, fmt.Errorf("install record %s is not one of %s for %s", p, install.Name, rs.Host)
	}
	for _, f := range r.Files {
		if !slices.ContainsFunc(ts, func(t target) bool { return t.path == f.Path }) {
			return nil, nil, fmt.Errorf("install record %s names %s, a file this installer never writes for %s", p, f.Path, rs.Host)
		}
	}
	for _, d := range r.StateDirs {
		if rel, err := filepath.Rel(d, p); err != nil || strings.HasPrefix(rel, "..") || d == filepath.Dir(d) {
			return nil, nil, fmt.Errorf("install record %s names the directory %s, which this installer never creates", p, d)
		}
	}
	for _, d := range r.CreatedDirs {
		ok := false
		for _, t := range ts {
			if rel, err := filepath.Rel(d, t.path); err == nil && !strings.HasPrefix(rel, "..") && strings.HasPrefix(d, rs.root+string(filepath.Separator)) {
				ok = true
			}
		}
		if !ok {
			return nil, nil, fmt.Errorf("install record %s names the directory %s, which this installer never creates", p, d)
		}
	}
	return &r, data, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// recordTarget is t with what the record says an earlier run added (the
// parts a check may see changed).
func recordTarget(t target, rf *RecordFile) target {
	for _, old := range rf.Adds {
		t.adds = append(t.adds, addEdit{Path: old.Path, Items: old.Items})
	}
	if rf.TopKey != nil && t.topKey == nil {
		t.topKey = &topKeyEdit{Key: rf.TopKey.Key, Line: rf.TopKey.Line}
	}
	return t
}

func plainOf(t target, data []byte) (any, error) {
	_, body := install.SplitBOM(data)
	if t.toml {
		_, v, err := install.ParseTOML(body)
		return v, err
	}
	if strings.TrimSpace(string(body)) == "" {
		return map[string]any{}, nil
	}
	return install.Normalize(body)
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
