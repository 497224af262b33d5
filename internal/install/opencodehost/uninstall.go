package opencodehost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// planUninstall plans reversing what init applied. It refuses (with a
// *RefusedError saying how to undo by hand) when an exact reversal is not
// possible: no record, the entry changed or removed, a vendored file changed.
// It runs in three steps over one [uninstallPlan]: the config, the vendored
// files with the record, and the directories init created.
func planUninstall(req uninstallRequest) (*install.Plan, error) {
	if req.Scope == "" {
		req.Scope = install.ScopeGlobal
	}
	dir, err := configDir(req.Env, req.Scope, req.Dir)
	if err != nil {
		return nil, err
	}
	recPath := filepath.Join(dir, filepath.FromSlash(recordFile))
	rec, recData, err := readRecord(dir)
	if err != nil {
		return nil, refuse(err.Error(), manualUninstall(dir, "opencode.jsonc (or opencode.json)", "plugins", packagePath)...)
	}
	if rec == nil {
		return planNothing(dir, req.Scope, recPath)
	}
	up := &uninstallPlan{dir: dir, rec: rec, cfg: configOf(rec), recPath: recPath, recData: recData, gone: map[string]bool{recordFile: true}}
	up.plan = newPlan("uninstall", req.Scope, Host(rec.Host), dir)
	up.plan.ConfigFile = up.cfg.Path
	up.cfgPath = filepath.Join(dir, up.cfg.Path)
	for _, step := range []func() error{up.config, up.files, up.dirs} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return up.plan, nil
}

// uninstallPlan is one uninstall being planned, filled in step by step.
type uninstallPlan struct {
	plan             *install.Plan
	dir              string
	rec              *Record
	cfg              *RecordFile // the record's config file
	cfgPath, recPath string
	recData          []byte
	// gone holds the paths (relative to dir) the plan deletes, so that a
	// directory init created is removed only when nothing else is left in it.
	gone map[string]bool
}

// config plans the config edit: the file put back as it was when only init
// touched it, else our entry removed (or the entry that was there before
// init restored), else the file deleted when init created it.
func (up *uninstallPlan) config() error {
	rec, cfg, p := up.rec, up.cfg, up.plan
	var recEntry any
	_ = json.Unmarshal(cfg.Entry, &recEntry)
	name := entryName(recEntry) // the vendored path or the npm spec
	if !isOurPath(name) {
		name = packagePath
	}
	manual := manualUninstall(up.dir, cfg.Path, rec.Key, name)
	data, mode, existed, err := install.ReadConfig(up.cfgPath)
	if err != nil {
		return err
	}
	if !existed {
		return refuse(up.cfgPath+" no longer exists, so the entry init added cannot be removed from it", manual[1:]...)
	}
	mark, body := install.SplitBOM(data)
	c, err := install.ParseJSONC(body)
	if err != nil {
		return refuse(fmt.Sprintf("cannot parse %s (it became invalid since init): %v", up.cfgPath, err), manual...)
	}
	mi := c.Member(rec.Key)
	var arr *hujson.Array
	if mi >= 0 {
		arr, _ = c.Obj.Members[mi].Value.Value.(*hujson.Array)
	}
	idx, found := -1, false
	if arr != nil {
		for _, e := range entries(arr) {
			if !isOurPath(e.name) {
				continue
			}
			found = true
			if reflect.DeepEqual(install.Plain(arr.Elements[e.index]), recEntry) {
				idx = e.index
				break
			}
		}
	}
	switch {
	case idx < 0 && !found:
		return refuse(fmt.Sprintf("the %s entry init added is no longer in %q in %s (removed by hand?)", name, rec.Key, up.cfgPath), manual[1:]...)
	case idx < 0:
		return refuse(fmt.Sprintf("the %s entry in %s was changed since init wrote it (init wrote %s)", name, up.cfgPath, cfg.Entry), manual...)
	}
	if opts, ok := recEntryOptions(recEntry); ok {
		if s, _ := opts["apiKeyEnv"].(string); s != "" {
			p.APIKeyEnv = s
		}
	}

	newData, deleteConfig, restored := []byte(nil), false, false
	if prev, ok := restore(cfg, data); ok && cfg.PatchExact {
		// Nothing but init touched the file: put back what was there, once
		// it is checked to differ from the file only by our entry (the
		// record may be crafted).
		if err := safeRestore(prev, data, rec.Key); err == nil {
			restored = true
			newData, deleteConfig = prev, !cfg.Existed
		}
	}
	if !restored {
		if cfg.EntryExisted {
			v, err := allowedEntryText(cfg.EntryOriginal)
			if err != nil {
				return refuse(fmt.Sprintf("the install record's original %s entry is not one this installer would restore: %v", packagePath, err), manual...)
			}
			arr.Elements[idx].Value = v
		} else {
			removeEntry(c, mi, idx, cfg.EntryCreated > 0, cfg.EntryLayout)
		}
		newBody := c.Pack()
		if err := checkEdit(body, newBody, rec.Key, cfg.EntryExisted); err != nil {
			return fmt.Errorf("internal error editing %s (nothing was written): %w", up.cfgPath, err)
		}
		newData = append(bytes.Clone(mark), newBody...)
		// What is left of a file that was absent or blank before init is
		// an empty object: go back to that.
		if !cfg.EntryExisted && install.EmptyObject(newBody) {
			switch {
			case !cfg.Existed:
				deleteConfig = true
			case cfg.BlankText != nil && install.IsBlank([]byte(*cfg.BlankText)):
				newData = append(bytes.Clone(mark), *cfg.BlankText...)
			case cfg.Snapshot != "" && install.IsBlank([]byte(cfg.Snapshot)):
				newData = []byte(cfg.Snapshot)
			}
		}
	}
	switch {
	case deleteConfig:
		p.Add(install.Change{Op: install.OpDelete, Kind: install.KindConfig, Path: up.cfgPath, Rel: cfg.Path, Old: data})
		up.gone[cfg.Path] = true
	case !bytes.Equal(newData, data):
		p.Add(install.Change{Op: install.OpUpdate, Kind: install.KindConfig, Path: up.cfgPath, Rel: cfg.Path, Old: data, New: newData, Mode: mode})
	}
	return nil
}

// files plans deleting the vendored files init wrote, refusing when one
// was changed since, and the record.
func (up *uninstallPlan) files() error {
	p := up.plan
	for _, f := range vendoredFiles(up.rec) {
		if f.Existed {
			p.Notes = append(p.Notes, f.Path+" was there before init; left in place")
			continue
		}
		abs := filepath.Join(up.dir, filepath.FromSlash(f.Path))
		cur, _, exists, err := install.ReadFile(abs)
		switch {
		case err != nil:
			return err
		case !exists:
			p.Notes = append(p.Notes, f.Path+" is already gone")
		case install.SHA(cur) != f.WrittenSHA256:
			return refuse(abs+" was changed since init wrote it, so uninstall will not delete it",
				"restore or save the file, delete "+filepath.Join(up.dir, filepath.FromSlash(pluginDir))+" and "+up.recPath+" yourself, and remove the entry from "+up.cfgPath+" (or undo your change and run uninstall again)")
		default:
			p.Add(install.Change{Op: install.OpDelete, Kind: install.KindFile, Path: abs, Rel: f.Path, Old: cur})
			up.gone[f.Path] = true
		}
	}
	p.Add(install.Change{Op: install.OpDelete, Kind: install.KindRecord, Path: up.recPath, Rel: recordFile, Old: up.recData})
	return nil
}

// dirs plans removing the directories init created, deepest first, each
// only when nothing but what the plan deletes is left in it.
func (up *uninstallPlan) dirs() error {
	p := up.plan
	for i := len(up.rec.CreatedDirs) - 1; i >= 0; i-- {
		d := up.rec.CreatedDirs[i]
		abs := filepath.Join(up.dir, filepath.FromSlash(d))
		ents, err := os.ReadDir(abs)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		var left []string
		for _, e := range ents {
			if !up.gone[path.Join(d, e.Name())] {
				left = append(left, e.Name())
			}
		}
		if len(left) > 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("%s/ holds files init did not write (%s); left in place", d, strings.Join(left, ", ")))
			continue
		}
		rel := d + "/"
		if d == "." {
			rel = abs + string(filepath.Separator) // the config directory, named as init named it
		}
		p.Add(install.Change{Op: install.OpDelete, Kind: install.KindDir, Path: abs, Rel: rel})
		up.gone[d] = true
	}
	return nil
}

func manualUninstall(dir, cfgFile, key, name string) []string {
	return []string{
		fmt.Sprintf("remove the %s entry from the %q array in %s", name, key, filepath.Join(dir, cfgFile)),
		"delete the directory " + filepath.Join(dir, filepath.FromSlash(pluginDir)),
		"delete " + filepath.Join(dir, filepath.FromSlash(recordFile)),
	}
}

func recEntryOptions(v any) (map[string]any, bool) {
	switch e := v.(type) {
	case map[string]any:
		m, ok := e["options"].(map[string]any)
		return m, ok
	case []any:
		if len(e) > 1 {
			m, ok := e[1].(map[string]any)
			return m, ok
		}
	}
	return nil, false
}

// restore returns the content before init from the record's config file,
// when cur is exactly what init last wrote.
func restore(cfg *RecordFile, cur []byte) ([]byte, bool) {
	if install.SHA(cur) != cfg.WrittenSHA256 {
		return nil, false
	}
	if cfg.Patch != nil {
		return cfg.Patch.Reverse(cur)
	}
	if !cfg.Existed || cfg.Snapshot != "" {
		return []byte(cfg.Snapshot), true // a record of an earlier version
	}
	return nil, false
}

// safeRestore checks content uninstall would put back (from a record, so
// possibly crafted) against the current file: as data, the two must differ
// only by our entries, and any entry of ours in prev must be one this
// installer would write (see allowedEntry).
func safeRestore(prev, cur []byte, key string) error {
	_, pb := install.SplitBOM(prev)
	_, cb := install.SplitBOM(cur)
	if len(bytes.TrimSpace(pb)) == 0 {
		pb = []byte("{}")
	}
	np, _, err := normalized(pb, key)
	if err != nil {
		return err
	}
	nc, _, err := normalized(cb, key)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(np, nc) {
		return errors.New("the recorded content differs from the config by more than the plugin entry")
	}
	var m map[string]any
	if v, err := install.Normalize(pb); err == nil {
		m, _ = v.(map[string]any)
	}
	if arr, ok := m[key].([]any); ok {
		for _, el := range arr {
			if isOurPath(entryName(el)) {
				if err := allowedEntry(el); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// allowedEntryText parses a recorded entry and checks it with allowedEntry.
func allowedEntryText(text string) (hujson.ValueTrimmed, error) {
	v, _, err := install.ParseValue([]byte(text))
	if err != nil {
		return nil, err
	}
	if err := allowedEntry(install.Plain(v)); err != nil {
		return nil, err
	}
	return v.Value, nil
}

// allowedEntry accepts an entry of ours only in a shape this version
// writes, with options it would write: known options with valid values,
// and no baseURL (where the key is sent is never taken from a record).
func allowedEntry(v any) error {
	var opts any
	switch e := v.(type) {
	case string:
		if !isOurPath(e) {
			return fmt.Errorf("names %q", e)
		}
		return nil
	case map[string]any:
		for k := range e {
			if k != "package" && k != "options" {
				return fmt.Errorf("has the member %q", k)
			}
		}
		opts = e["options"]
	case []any:
		if len(e) > 2 {
			return errors.New("has more than two elements")
		}
		if len(e) == 2 {
			opts = e[1]
		}
	default:
		return errors.New("is not a plugin entry")
	}
	if !isOurPath(entryName(v)) {
		return errors.New("does not name " + packagePath)
	}
	if opts == nil {
		return nil
	}
	raw, _ := json.Marshal(opts)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var o install.Options
	if err := dec.Decode(&o); err != nil {
		return fmt.Errorf("options: %v", err)
	}
	if o.BaseURL != "" {
		return errors.New("sets baseURL")
	}
	return install.Validate(o)
}

// planNothing is the uninstall plan when there is no record: nothing to do
// when nothing of ours is there, a refusal with the manual steps when a
// config still lists the plugin or its directory exists (installed by hand,
// or the record was lost).
func planNothing(dir string, scope install.Scope, recPath string) (*install.Plan, error) {
	for _, name := range configNames {
		data, _, ok, err := install.ReadConfig(filepath.Join(dir, name))
		if err != nil || !ok {
			continue
		}
		_, body := install.SplitBOM(data)
		for _, key := range []string{"plugins", "plugin"} {
			if _, n, err := normalized(body, key); err == nil && n > 0 {
				return nil, refuse("no install record at "+recPath+", but "+filepath.Join(dir, name)+" lists "+packagePath+": it was not installed by this tool (or its record was lost), so uninstall cannot reverse it exactly",
					manualUninstall(dir, name, key, packagePath)...)
			}
		}
	}
	if exists(filepath.Join(dir, filepath.FromSlash(pluginDir))) {
		return nil, refuse("no install record at "+recPath+", but "+filepath.Join(dir, filepath.FromSlash(pluginDir))+" exists",
			manualUninstall(dir, "opencode.jsonc (or opencode.json)", "plugins", packagePath)...)
	}
	p := newPlan("uninstall", scope, HostV2, dir)
	p.Host = "OpenCode"
	p.ConfigFile, _ = pickConfig(dir, nil)
	p.UpToDate = "Nothing to uninstall: there is no install by this tool in " + dir + "."
	return p, nil
}
