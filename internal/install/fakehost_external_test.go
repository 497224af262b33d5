package install_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"reflect"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// toyHost is a host written only against package install's exported API,
// the way the adapters in internal/install/mcphosts and opencodehost are:
// its config is <home>/.toy/config.json (<project>/.toy/config.json in the
// project scope), the entry goes under "mcpServers", and the install record
// sits in the config directory (under RecordDir when set).
type toyHost struct {
	// RecordDir is the directory of the record, relative to the config
	// directory; empty means the config directory itself.
	RecordDir string
	// Vendor, when set, are plugin files init writes whole into
	// vendor/deepseek-web-retrieval/ beside the config.
	Vendor []install.TreeFile
}

var _ install.Host = toyHost{}

const (
	toyConfig = "config.json"
	toyRecord = install.Name + ".install.json"
)

var toyEntryPath = []string{"mcpServers", install.Name}

func (toyHost) Name() string { return "toy" }
func (toyHost) Remote() bool { return false }
func (h toyHost) Detect(req install.Request) (install.Host, string, error) {
	dir, err := h.ConfigDir(req)
	if err != nil || !install.Exists(dir) {
		return nil, "", err
	}
	return h, "", nil
}

func (toyHost) ConfigDir(req install.Request) (string, error) {
	if req.Scope == install.ScopeProject {
		dir := req.Dir
		if dir == "" {
			dir = req.Env.WorkDir
		}
		return filepath.Join(dir, ".toy"), nil
	}
	return filepath.Join(req.Env.Home, ".toy"), nil
}

func (h toyHost) Installed(req install.Request) bool {
	dir, err := h.ConfigDir(req)
	return err == nil && install.Exists(filepath.Join(dir, h.recordRel()))
}

func (h toyHost) recordRel() string { return path.Join(h.RecordDir, toyRecord) }

func scopeOf(req install.Request) install.Scope {
	if req.Scope == "" {
		return install.ScopeGlobal
	}
	return req.Scope
}

func (h toyHost) newPlan(command string, req install.Request, dir string) *install.Plan {
	return &install.Plan{
		Command:    command,
		Host:       "toy (config.json)",
		Scope:      string(scopeOf(req)),
		ConfigDir:  dir,
		ConfigFile: toyConfig,
		APIKeyEnv:  req.Options.APIKeyVar(),
		Reader:     "The MCP server",
		Next:       []string{"restart toy"},
	}
}

// rel names p relative to dir, slash-separated, as a plan's Rel.
func rel(dir, p string) string {
	r, err := filepath.Rel(dir, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// entry is the server entry the host writes, members in order.
func toyEntry(req install.Request) json.RawMessage {
	args := append([]string{"mcp"}, install.OptionFlags(req.Options)...)
	b, err := json.Marshal(struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}{req.Binary, args})
	if err != nil {
		panic(err)
	}
	return b
}

func (h toyHost) PlanInit(req install.Request) (*install.Plan, error) {
	dir, err := h.ConfigDir(req)
	if err != nil {
		return nil, err
	}
	if err := install.Validate(req.Options); err != nil {
		return nil, err
	}
	p := h.newPlan("init", req, dir)
	p.UpToDate = "toy already starts deepseek-web-retrieval with these options."
	cfg := filepath.Join(dir, toyConfig)
	data, _, exists, err := install.ReadConfig(cfg)
	if err != nil {
		return nil, err
	}
	src := data
	if !exists {
		src = []byte("{}\n")
	}
	doc, err := install.ParseJSONC(src)
	if err != nil {
		return nil, install.Refuse(fmt.Sprintf("%s is not valid JSONC (%v), so init cannot edit it", cfg, err),
			"fix the file and run the command again")
	}
	entry := toyEntry(req)
	var want any
	if err := json.Unmarshal(entry, &want); err != nil {
		return nil, err
	}
	if reflect.DeepEqual(doc.LookupPlain(toyEntryPath...), want) {
		return p, nil // up to date
	}
	created, lay, err := doc.Set(toyEntryPath, entry)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg, err)
	}
	out := doc.Pack()

	rec := install.NewRecord(req.Version, h.Name(), string(scopeOf(req)), "")
	rf := install.RecordFile{Path: toyConfig, Existed: exists, WrittenSHA256: install.SHA(out),
		Entry: entry, EntryCreated: created, EntryLayout: lay}
	if exists {
		rf.Patch, rf.PatchExact = install.MakePatch(data, out), true
		if install.HasSecrets(install.Secrets(cfg, data), rf.Patch.Old()) {
			// The record never holds a credential: uninstall then takes
			// the entry out structurally.
			rf.Patch, rf.PatchExact = nil, false
		}
	}
	rec.Files = []install.RecordFile{rf}
	made := map[string]bool{}
	for _, d := range install.MissingDirs(dir) {
		p.Add(install.Change{Op: install.OpCreate, Kind: install.KindDir, Path: d, Rel: rel(dir, d) + "/"})
		rec.CreatedDirs = append(rec.CreatedDirs, rel(dir, d))
		made[d] = true
	}
	if exists {
		p.Add(install.Change{Op: install.OpUpdate, Kind: install.KindConfig, Path: cfg, Rel: toyConfig, Old: data, New: out})
	} else {
		p.Add(install.Change{Op: install.OpCreate, Kind: install.KindConfig, Path: cfg, Rel: toyConfig, New: out, Mode: 0o644})
	}
	if len(h.Vendor) > 0 {
		for _, d := range install.MissingDirs(filepath.Join(dir, "vendor")) {
			if !made[d] {
				p.Add(install.Change{Op: install.OpCreate, Kind: install.KindDir, Path: d, Rel: rel(dir, d) + "/"})
				rec.CreatedDirs = append(rec.CreatedDirs, rel(dir, d))
				made[d] = true
			}
		}
		p.Add(install.Change{Op: install.OpCreate, Kind: install.KindTree, Path: filepath.Join(dir, "vendor", install.Name), Rel: "vendor/" + install.Name + "/", Files: h.Vendor})
		rec.CreatedDirs = append(rec.CreatedDirs, "vendor/"+install.Name)
		for _, f := range h.Vendor {
			rec.Files = append(rec.Files, install.RecordFile{Path: "vendor/" + install.Name + "/" + f.Name, WrittenSHA256: install.SHA(f.Data)})
		}
	}
	recPath := filepath.Join(dir, filepath.FromSlash(h.recordRel()))
	for _, d := range install.MissingDirs(filepath.Dir(recPath)) {
		if !made[d] {
			p.Add(install.Change{Op: install.OpCreate, Kind: install.KindDir, Path: d, Rel: rel(dir, d) + "/"})
			rec.StateDirs = append(rec.StateDirs, rel(dir, d))
		}
	}
	p.Add(install.Change{Op: install.OpCreate, Kind: install.KindRecord, Path: recPath, Rel: h.recordRel(), New: rec.Marshal(), Mode: 0o600})
	return p, nil
}

func (h toyHost) PlanUninstall(req install.Request) (*install.Plan, error) {
	dir, err := h.ConfigDir(req)
	if err != nil {
		return nil, err
	}
	p := h.newPlan("uninstall", req, dir)
	recPath := filepath.Join(dir, filepath.FromSlash(h.recordRel()))
	rec, recData, err := install.ReadRecord(recPath, nil)
	if err != nil || rec == nil {
		return p, err
	}
	rf := rec.File(toyConfig)
	if rf == nil {
		return nil, fmt.Errorf("%s: %w: no entry for %s", recPath, install.ErrCorruptRecord, toyConfig)
	}
	cfg, err := install.Confine(dir, rf.Path)
	if err != nil {
		return nil, err
	}
	cur, _, exists, err := install.ReadConfig(cfg)
	if err != nil {
		return nil, err
	}
	switch {
	case !exists:
	case install.SHA(cur) == rf.WrittenSHA256 && !rf.Existed:
		p.Add(install.Change{Op: install.OpDelete, Kind: install.KindConfig, Path: cfg, Rel: toyConfig, Old: cur})
	case install.SHA(cur) == rf.WrittenSHA256 && rf.Patch != nil:
		before, ok := rf.Patch.Reverse(cur)
		if !ok {
			return nil, fmt.Errorf("%s: the record's patch does not apply", cfg)
		}
		p.Add(install.Change{Op: install.OpUpdate, Kind: install.KindConfig, Path: cfg, Rel: toyConfig, Old: cur, New: before})
	default: // changed since init: take the entry out structurally
		doc, err := install.ParseJSONC(cur)
		if err != nil {
			return nil, install.Refuse(fmt.Sprintf("%s is not valid JSONC (%v)", cfg, err),
				"remove the "+install.Name+" entry by hand")
		}
		var lays []install.Layout
		if rf.EntryLayout != nil {
			lays = append(lays, *rf.EntryLayout)
		}
		if doc.Remove(toyEntryPath, rf.EntryCreated, lays...) {
			if out := doc.Pack(); !bytes.Equal(out, cur) {
				p.Add(install.Change{Op: install.OpUpdate, Kind: install.KindConfig, Path: cfg, Rel: toyConfig, Old: cur, New: out})
			}
		}
	}
	for _, f := range rec.Files {
		if f.Path == toyConfig {
			continue
		}
		fp, err := install.Confine(dir, f.Path)
		if err != nil {
			return nil, err
		}
		if data, _, ok, err := install.ReadFile(fp); err == nil && ok && install.SHA(data) == f.WrittenSHA256 {
			p.Add(install.Change{Op: install.OpDelete, Kind: install.KindFile, Path: fp, Rel: f.Path, Old: data})
		}
	}
	p.Add(install.Change{Op: install.OpDelete, Kind: install.KindRecord, Path: recPath, Rel: h.recordRel(), Old: recData})
	dirs := append(append([]string{}, rec.CreatedDirs...), rec.StateDirs...)
	for i := len(dirs) - 1; i >= 0; i-- {
		d, err := install.Confine(filepath.Dir(dir), path.Join(filepath.Base(dir), dirs[i]))
		if err != nil {
			return nil, err
		}
		p.Add(install.Change{Op: install.OpDelete, Kind: install.KindDir, Path: d, Rel: dirs[i] + "/", IfEmpty: true})
	}
	return p, nil
}

func (h toyHost) Doctor(_ context.Context, req install.Request) []install.Check {
	c := install.Check{Title: "toy (" + string(scopeOf(req)) + ")", Installed: h.Installed(req)}
	if !c.Installed {
		c.Absent = true
	}
	return []install.Check{c}
}
