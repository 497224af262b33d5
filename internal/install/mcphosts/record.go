package mcphosts

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// Record, RecordFile, RecordAdd and RecordTopKey are the engine's: one
// record format for every host. An MCP host's record lives in the user's
// state directory (see recordPath).
type (
	Record       = install.Record
	RecordFile   = install.RecordFile
	RecordAdd    = install.RecordAdd
	RecordTopKey = install.RecordTopKey
)

// recordV1 is the MCP hosts' record of format 1, which ReadRecord upgrades.
type recordV1 struct {
	Format      int      `json:"format"`
	Tool        string   `json:"tool"`
	Version     string   `json:"version,omitempty"`
	Host        string   `json:"host"`
	Scope       string   `json:"scope"`
	CreatedDirs []string `json:"createdDirs"`
	StateDirs   []string `json:"stateDirs"`
	Files       []struct {
		Path           string             `json:"path"`
		Existed        bool               `json:"existed"`
		WrittenSHA256  string             `json:"writtenSHA256"`
		Patch          *install.Patch     `json:"patch"`
		Server         json.RawMessage    `json:"server"`
		ServerCreated  int                `json:"serverCreated"`
		ServerExisted  bool               `json:"serverExisted"`
		ServerOriginal string             `json:"serverOriginal"`
		ServerLayout   *install.Layout    `json:"serverLayout"`
		BlankText      *string            `json:"blankText"`
		Adds           []RecordAdd        `json:"adds"`
		TopKey         *RecordTopKey      `json:"topKey"`
		TOMLEntry      *install.TOMLEntry `json:"tomlEntry"`
	} `json:"files"`
}

// upgradeV1 reads a format-1 record as this format.
func upgradeV1(data []byte) (*Record, error) {
	var v recordV1
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	r := &Record{Format: install.RecordFormat, Tool: v.Tool, Version: v.Version, Host: v.Host, Scope: v.Scope, CreatedDirs: v.CreatedDirs, StateDirs: v.StateDirs}
	for _, f := range v.Files {
		r.Files = append(r.Files, RecordFile{
			Path: f.Path, Existed: f.Existed, WrittenSHA256: f.WrittenSHA256, Patch: f.Patch,
			Entry: f.Server, EntryCreated: f.ServerCreated, EntryExisted: f.ServerExisted, EntryOriginal: f.ServerOriginal, EntryLayout: f.ServerLayout,
			BlankText: f.BlankText, Adds: f.Adds, TopKey: f.TopKey, TOMLEntry: f.TOMLEntry,
		})
	}
	return r, nil
}

// readRecord reads and checks the record (of either format): every file it
// names must be one of ts, every directory an ancestor of one inside the
// root, or of the record inside the state directory.
func readRecord(p string, rs *resolved, ts []target) (*Record, []byte, error) {
	r, data, err := install.ReadRecord(p, upgradeV1)
	if r == nil || err != nil {
		return nil, nil, err
	}
	if r.Host != string(rs.Host) || r.Scope != string(rs.Scope) {
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
	return r, data, nil
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
	if t.yaml != "" {
		_, v, err := install.ParseYAML(body)
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

// hasInstall reports whether an install record exists for the request's
// host and scope.
func hasInstall(req request) bool {
	rs, err := resolve(req)
	if err != nil {
		return false
	}
	return exists(rs.recordPath(adapters[req.Host].targets(rs)[0].path))
}
