package opencode

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
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// Request describes an init.
type Request struct {
	// Env locates the config directories.
	Env Env
	// Scope selects the global or a project config. Zero means ScopeGlobal.
	Scope install.Scope
	// Dir is the project directory for ScopeProject; empty means Env.WorkDir.
	Dir string
	// Host selects the config shape. Zero means HostOpenCode (2.x).
	Host Host
	// Options are written into the entry; see [Options].
	Options install.Options
	// Plugin holds the plugin directory's files; its top-level regular
	// files are copied. It must contain package.json and core.wasm.
	Plugin fs.FS
	// Version is this installer's version, kept in the record.
	Version string
	// Found is the version of the OpenCode found on PATH, empty when none
	// was read; the plan warns when Host's shape does not match it.
	Found string
}

// UninstallRequest describes an uninstall.
type UninstallRequest struct {
	// Env locates the config directories.
	Env Env
	// Scope selects the global or a project config. Zero means ScopeGlobal.
	Scope install.Scope
	// Dir is the project directory for ScopeProject; empty means Env.WorkDir.
	Dir string
}

// The change kinds this adapter uses.
const (
	// KindConfig is the OpenCode config file.
	KindConfig = install.KindConfig
	// KindPlugin is a vendored plugin file.
	KindPlugin = install.KindFile
	// KindRecord is the install record.
	KindRecord = install.KindRecord
	// KindDir is a directory.
	KindDir = install.KindDir
)

// Change is one file-system step of a Plan; see [install.Change].
type Change = install.Change

// The operations of a Change.
const (
	OpCreate = install.OpCreate // create a file or directory
	OpUpdate = install.OpUpdate // replace a file's content
	OpDelete = install.OpDelete // delete a file or an empty directory
)

func newPlan(command string, scope install.Scope, host Host, dir string) *Plan {
	return &Plan{Command: command, Scope: string(scope), Host: host.label(), ConfigDir: dir, APIKeyEnv: DefaultAPIKeyEnv}
}

// PlanInit plans installing the plugin. It reads but never writes. Invalid
// options yield an *OptionError; situations it will not handle yield a
// *RefusedError.
func PlanInit(req Request) (*Plan, error) {
	if req.Scope == "" {
		req.Scope = install.ScopeGlobal
	}
	if req.Host == "" {
		req.Host = HostOpenCode
	}
	if _, err := ParseHost(string(req.Host)); err != nil {
		return nil, err
	}
	if err := install.Validate(req.Options); err != nil {
		return nil, err
	}
	opts := req.Options.WithDefaults()
	files, err := pluginFiles(req.Plugin)
	if err != nil {
		return nil, err
	}
	if files, err = withPlan(files, req.Host, opts); err != nil {
		return nil, err
	}
	dir, err := ConfigDir(req.Env, req.Scope, req.Dir)
	if err != nil {
		return nil, err
	}
	rec, _, err := readRecord(dir)
	if err != nil {
		return nil, refuse(err.Error(), "move "+filepath.Join(dir, filepath.FromSlash(recordFile))+" away, undo the previous install by hand, then run init again")
	}
	key := req.Host.key()
	p := newPlan("init", req.Scope, req.Host, dir)
	p.APIKeyEnv = opts.APIKeyVar()
	if rec != nil && (rec.Host != req.Host || rec.Key != key) {
		return nil, refuse(fmt.Sprintf("%s already holds an install for %s in %s", dir, rec.Host.label(), rec.Config.File),
			"run `deepseek-web-retrieval uninstall` first, then init with the other --host")
	}
	cfgName, warns := pickConfig(dir, rec)
	p.ConfigFile = cfgName
	p.UpToDate = fmt.Sprintf("%s already lists %s with these options, and the vendored files are current.", cfgName, PackagePath)
	p.Warnings = append(p.Warnings, warns...)
	cfgPath := filepath.Join(dir, cfgName)

	data, mode, existed, err := install.ReadFile(cfgPath)
	if err != nil {
		return nil, err
	}
	// A UTF-8 byte order mark is kept: the edit works on the body.
	mark, body := install.SplitBOM(data)
	if existed && !utf8.Valid(body) {
		return nil, refuse(cfgPath + " is not valid UTF-8")
	}
	base := body
	if len(bytes.TrimSpace(body)) == 0 {
		eol := install.DetectEOL(body)
		base = []byte("{" + eol + "}" + eol)
	}
	c, err := install.ParseJSONC(base)
	if err != nil {
		return nil, refuse(fmt.Sprintf("cannot parse %s: %v", cfgPath, err), "fix the file so it is valid JSONC, then run init again")
	}
	p.Warnings = append(p.Warnings, configWarnings(c, req.Host, opts)...)
	p.Warnings = append(p.Warnings, shapeWarnings(c, req.Host, req.Found)...)
	p.Warnings = append(p.Warnings, dirWarnings(dir)...)

	// The config edit. The record never holds a copy of the config: it
	// keeps a hash-anchored patch of the lines init changed, and none at
	// all when one of those lines holds a credential (uninstall then
	// relies on the structural removal alone).
	secrets := install.Secrets(cfgPath, data)
	configRecord := RecordConfig{File: cfgName, Existed: existed, SnapshotExact: true}
	if existed && len(bytes.TrimSpace(body)) == 0 {
		configRecord.WasBlank, configRecord.BlankText = true, string(body)
	}
	before := data // the content uninstall should restore
	var arr *hujson.Array
	if mi := c.Member(key); mi >= 0 {
		v := &c.Obj.Members[mi].Value
		a, ok := v.Value.(*hujson.Array)
		if !ok {
			return nil, refuse(fmt.Sprintf("cannot add the plugin to %s: %v", cfgPath, &install.ShapeError{Path: key, Line: c.Line(v), Shape: install.Shape(v.Value), Want: "an array"}),
				fmt.Sprintf("make %q an array (or remove it), then run init again", key))
		}
		arr = a
	}
	var ours []entry
	if arr != nil {
		for _, e := range entries(arr) {
			if isOurPath(e.name) {
				ours = append(ours, e)
			}
		}
	}
	if len(ours) > 1 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s lists %s %d times in %q: OpenCode would load it more than once; init updates only the first", cfgName, PackagePath, len(ours), key))
	}
	want := install.OptionsValue(opts)
	newBody := base
	if len(ours) > 0 {
		e := ours[0]
		if rec != nil && rec.Config.File == cfgName {
			configRecord = rec.Config
			configRecord.Snapshot = ""
			prev, ok := rec.Config.restore(data)
			configRecord.SnapshotExact = rec.Config.SnapshotExact && ok
			before = prev
		} else {
			configRecord.EntryExisted = true
			configRecord.OriginalEntry = string(trimmedText(arr.Elements[e.index]))
			if install.HasSecrets(secrets, configRecord.OriginalEntry) {
				return nil, refuse(fmt.Sprintf("the existing %s entry in %s holds a literal credential, which init will not copy into its record", PackagePath, cfgPath),
					"move the key into an environment variable (the apiKeyEnv option, or \"apiKey\": \"{env:DEEPSEEK_API_KEY}\"), then run init again")
			}
		}
		if e.form != req.Host.form() || !reflect.DeepEqual(e.options, want) {
			setOptions(c, req.Host, arr, e, opts)
			newBody = c.Pack()
		}
	} else {
		createdKey, lay := addEntry(c, req.Host, opts)
		configRecord.CreatedKey, configRecord.Layout = createdKey, &lay
		newBody = c.Pack()
	}
	if err := checkEdit(base, newBody, key, true); err != nil {
		return nil, fmt.Errorf("internal error editing %s (nothing was written): %w", cfgPath, err)
	}
	newData := data
	if !bytes.Equal(newBody, base) || !existed || len(bytes.TrimSpace(body)) == 0 {
		newData = append(bytes.Clone(mark), newBody...)
	}
	configRecord.WrittenSHA256 = install.SHA(newData)
	configRecord.Patch = nil
	if configRecord.SnapshotExact {
		if pt := install.MakePatch(before, newData); !install.HasSecrets(secrets, pt.Old()) {
			configRecord.Patch = pt
		} else {
			configRecord.SnapshotExact = false
		}
	}
	if !bytes.Equal(newData, data) || !existed {
		op := OpUpdate
		if !existed {
			op, mode = OpCreate, 0o644
		}
		p.Add(Change{Op: op, Kind: KindConfig, Path: cfgPath, Rel: cfgName, Old: data, New: newData, Mode: mode})
	}

	// The plugin files and directories.
	newRecord := &Record{Format: RecordFormat, Tool: Name, Version: req.Version, Host: req.Host, Key: key, Config: configRecord}
	var dirChanges []Change
	// A config directory that does not exist yet is created (parents
	// first). Uninstall leaves it: OpenCode keeps other files there.
	var missing []string
	for d := dir; !exists(d); d = filepath.Dir(d) {
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, d := range missing {
		dirChanges = append(dirChanges, Change{Op: OpCreate, Kind: KindDir, Path: d, Rel: d + string(filepath.Separator), Mode: 0o755})
	}
	if rec != nil {
		newRecord.CreatedDirs = rec.CreatedDirs
	} else if len(missing) > 0 {
		// The config directory itself (a project's .opencode/, say): "."
		// sorts first, so uninstall removes it last, once it is empty.
		newRecord.CreatedDirs = []string{"."}
	}
	// A vendor/ or plugin directory that is a symlink out of the config
	// directory is refused: init would write (and uninstall delete) there.
	tree := false
	for _, d := range []string{vendorDir, pluginDir} {
		abs, err := install.Confine(dir, d)
		if err != nil {
			return nil, refuse(err.Error(), "move "+filepath.Join(dir, filepath.FromSlash(d))+" away, then run init again")
		}
		fi, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist) && d == pluginDir:
			// Built under a temporary name and renamed into place, so a
			// concurrent reader never sees it half written.
			tree = true
			c := Change{Op: OpCreate, Kind: install.KindTree, Path: abs, Rel: d + "/", Mode: 0o755}
			for _, f := range files {
				c.Files = append(c.Files, install.TreeFile{Name: f.name, Data: f.data})
			}
			dirChanges = append(dirChanges, c)
			if !slices.Contains(newRecord.CreatedDirs, d) {
				newRecord.CreatedDirs = append(newRecord.CreatedDirs, d)
			}
		case errors.Is(err, fs.ErrNotExist):
			dirChanges = append(dirChanges, Change{Op: OpCreate, Kind: KindDir, Path: abs, Rel: d + "/", Mode: 0o755})
			if !slices.Contains(newRecord.CreatedDirs, d) {
				newRecord.CreatedDirs = append(newRecord.CreatedDirs, d)
			}
		case err != nil:
			return nil, err
		case !fi.IsDir():
			return nil, refuse(abs+" exists and is not a directory", "move it away, then run init again")
		}
	}
	for _, f := range files {
		rel := pluginDir + "/" + f.name
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		rf := RecordFile{Path: rel, SHA256: install.SHA(f.data)}
		if tree {
			newRecord.Files = append(newRecord.Files, rf)
			continue
		}
		cur, _, exists, err := install.ReadFile(abs)
		if err != nil {
			return nil, err
		}
		prev := rec.file(rel)
		switch {
		case !exists:
			dirChanges = append(dirChanges, Change{Op: OpCreate, Kind: KindPlugin, Path: abs, Rel: rel, New: f.data, Mode: 0o644})
		case bytes.Equal(cur, f.data):
			rf.Existed = prev == nil || prev.Existed
		case prev != nil && prev.SHA256 == install.SHA(cur):
			rf.Existed = prev.Existed
			dirChanges = append(dirChanges, Change{Op: OpUpdate, Kind: KindPlugin, Path: abs, Rel: rel, Old: cur, New: f.data, Mode: 0o644})
		default:
			return nil, refuse(abs+" exists and differs from what this installer wrote (changed by hand, or not from this installer)",
				"move "+filepath.Join(dir, filepath.FromSlash(pluginDir))+" away (or restore the file), then run init again")
		}
		newRecord.Files = append(newRecord.Files, rf)
	}
	if rec != nil {
		for _, old := range rec.Files {
			if newRecord.file(old.Path) != nil || old.Existed {
				continue
			}
			abs := filepath.Join(dir, filepath.FromSlash(old.Path))
			cur, _, exists, err := install.ReadFile(abs)
			switch {
			case err != nil:
				return nil, err
			case !exists:
			case install.SHA(cur) == old.SHA256:
				dirChanges = append(dirChanges, Change{Op: OpDelete, Kind: KindPlugin, Path: abs, Rel: old.Path, Old: cur})
			default:
				p.Notes = append(p.Notes, old.Path+" is no longer part of the plugin but was changed by hand; left in place")
			}
		}
	}

	// The record: rewritten whenever anything else changes, or when missing.
	newRecord.Entry = entryText(newBody, key)
	if len(dirChanges) > 0 || len(p.Changes) > 0 || rec == nil {
		recPath := filepath.Join(dir, filepath.FromSlash(recordFile))
		configRecord := Change{Op: OpCreate, Kind: KindRecord, Path: recPath, Rel: recordFile, New: newRecord.marshal(), Mode: 0o600}
		if old, _, exists, err := install.ReadFile(recPath); err != nil {
			return nil, err
		} else if exists {
			configRecord.Op, configRecord.Old = OpUpdate, old
		}
		dirChanges = append(dirChanges, configRecord)
	}
	// Order: directories and plugin files, the record, then the config, so
	// the config never names a plugin that is not there yet.
	p.Changes = append(dirChanges, p.Changes...)
	return p, nil
}

// PlanUninstall plans reversing what init applied. It refuses (with a
// *RefusedError saying how to undo by hand) when an exact reversal is not
// possible: no record, the entry changed or removed, a vendored file changed.
func PlanUninstall(req UninstallRequest) (*Plan, error) {
	if req.Scope == "" {
		req.Scope = install.ScopeGlobal
	}
	dir, err := ConfigDir(req.Env, req.Scope, req.Dir)
	if err != nil {
		return nil, err
	}
	recPath := filepath.Join(dir, filepath.FromSlash(recordFile))
	rec, recData, err := readRecord(dir)
	if err != nil {
		return nil, refuse(err.Error(), manualUninstall(dir, "opencode.jsonc (or opencode.json)", "plugins")...)
	}
	if rec == nil {
		return planNothing(dir, req.Scope, recPath)
	}
	p := newPlan("uninstall", req.Scope, rec.Host, dir)
	p.ConfigFile = rec.Config.File
	cfgPath := filepath.Join(dir, rec.Config.File)
	manual := manualUninstall(dir, rec.Config.File, rec.Key)
	data, mode, existed, err := install.ReadFile(cfgPath)
	if err != nil {
		return nil, err
	}
	if !existed {
		return nil, refuse(cfgPath+" no longer exists, so the entry init added cannot be removed from it", manual[1:]...)
	}
	mark, body := install.SplitBOM(data)
	c, err := install.ParseJSONC(body)
	if err != nil {
		return nil, refuse(fmt.Sprintf("cannot parse %s (it became invalid since init): %v", cfgPath, err), manual...)
	}
	var recEntry any
	_ = json.Unmarshal(rec.Entry, &recEntry)
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
		return nil, refuse(fmt.Sprintf("the %s entry init added is no longer in %q in %s (removed by hand?)", PackagePath, rec.Key, cfgPath), manual[1:]...)
	case idx < 0:
		return nil, refuse(fmt.Sprintf("the %s entry in %s was changed since init wrote it (init wrote %s)", PackagePath, cfgPath, rec.Entry), manual...)
	}
	if opts, ok := recEntryOptions(recEntry); ok {
		if s, _ := opts["apiKeyEnv"].(string); s != "" {
			p.APIKeyEnv = s
		}
	}

	var newData []byte
	deleteConfig, restored := false, false
	if prev, ok := rec.Config.restore(data); ok && rec.Config.SnapshotExact {
		// Nothing but init touched the file: put back what was there, once
		// it is checked to differ from the file only by our entry (the
		// record may be crafted).
		if err := safeRestore(prev, data, rec.Key); err == nil {
			restored = true
			if rec.Config.Existed {
				newData = prev
			} else {
				deleteConfig = true
			}
		}
	}
	if !restored {
		if rec.Config.EntryExisted {
			v, err := allowedEntryText(rec.Config.OriginalEntry)
			if err != nil {
				return nil, refuse(fmt.Sprintf("the install record's original %s entry is not one this installer would restore: %v", PackagePath, err), manual...)
			}
			arr.Elements[idx].Value = v
		} else {
			removeEntry(c, mi, idx, rec.Config.CreatedKey, rec.Config.Layout)
		}
		newBody := c.Pack()
		if err := checkEdit(body, newBody, rec.Key, rec.Config.EntryExisted); err != nil {
			return nil, fmt.Errorf("internal error editing %s (nothing was written): %w", cfgPath, err)
		}
		newData = append(bytes.Clone(mark), newBody...)
		// What is left of a file that was absent or blank before init is
		// an empty object: go back to that.
		if !rec.Config.EntryExisted && install.EmptyObject(newBody) {
			switch {
			case !rec.Config.Existed:
				deleteConfig = true
			case rec.Config.WasBlank:
				newData = append(bytes.Clone(mark), rec.Config.BlankText...)
			case rec.Config.Snapshot != "" && install.IsBlank([]byte(rec.Config.Snapshot)):
				newData = []byte(rec.Config.Snapshot)
			}
		}
	}
	switch {
	case deleteConfig:
		p.Add(Change{Op: OpDelete, Kind: KindConfig, Path: cfgPath, Rel: rec.Config.File, Old: data})
	case !bytes.Equal(newData, data):
		p.Add(Change{Op: OpUpdate, Kind: KindConfig, Path: cfgPath, Rel: rec.Config.File, Old: data, New: newData, Mode: mode})
	}

	gone := map[string]bool{recordFile: true, rec.Config.File: deleteConfig}
	for _, f := range rec.Files {
		if f.Existed {
			p.Notes = append(p.Notes, f.Path+" was there before init; left in place")
			continue
		}
		abs := filepath.Join(dir, filepath.FromSlash(f.Path))
		cur, _, exists, err := install.ReadFile(abs)
		switch {
		case err != nil:
			return nil, err
		case !exists:
			p.Notes = append(p.Notes, f.Path+" is already gone")
		case install.SHA(cur) != f.SHA256:
			return nil, refuse(abs+" was changed since init wrote it, so uninstall will not delete it",
				"restore or save the file, delete "+filepath.Join(dir, filepath.FromSlash(pluginDir))+" and "+recPath+" yourself, and remove the entry from "+cfgPath+" (or undo your change and run uninstall again)")
		default:
			p.Add(Change{Op: OpDelete, Kind: KindPlugin, Path: abs, Rel: f.Path, Old: cur})
			gone[f.Path] = true
		}
	}
	p.Add(Change{Op: OpDelete, Kind: KindRecord, Path: recPath, Rel: recordFile, Old: recData})
	for i := len(rec.CreatedDirs) - 1; i >= 0; i-- {
		d := rec.CreatedDirs[i]
		abs := filepath.Join(dir, filepath.FromSlash(d))
		ents, err := os.ReadDir(abs)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var left []string
		for _, e := range ents {
			if !gone[path.Join(d, e.Name())] {
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
		p.Add(Change{Op: OpDelete, Kind: KindDir, Path: abs, Rel: rel})
		gone[d] = true
	}
	return p, nil
}

func manualUninstall(dir, cfgFile, key string) []string {
	return []string{
		fmt.Sprintf("remove the %s entry from the %q array in %s", PackagePath, key, filepath.Join(dir, cfgFile)),
		"delete the directory " + filepath.Join(dir, filepath.FromSlash(pluginDir)),
		"delete " + filepath.Join(dir, filepath.FromSlash(recordFile)) + " (its \"snapshot\" field holds the config as it was before init)",
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

// form is the entry form h writes.
func (h Host) form() string {
	if h == HostOpenCode1 {
		return "tuple"
	}
	return "object"
}

// pickConfig chooses the config file: the recorded one, else opencode.jsonc
// or opencode.json, whichever exists (.jsonc when both do), else a new
// opencode.jsonc.
func pickConfig(dir string, rec *Record) (string, []string) {
	jsonc := exists(filepath.Join(dir, "opencode.jsonc"))
	json := exists(filepath.Join(dir, "opencode.json"))
	var warns []string
	if jsonc && json {
		warns = append(warns, "both opencode.jsonc and opencode.json exist in "+dir+"; OpenCode reads both, and init edits only one")
	}
	switch {
	case rec != nil && rec.Config.File != "":
		return rec.Config.File, warns
	case jsonc || !json:
		return "opencode.jsonc", warns
	}
	return "opencode.json", warns
}

type pluginFile struct {
	name string
	data []byte
}

// ErrNoPlugin is returned when the plugin files given to init are
// incomplete (typically a binary built before plugin/core.wasm existed).
var ErrNoPlugin = errors.New("the plugin files are incomplete")

func pluginFiles(fsys fs.FS) ([]pluginFile, error) {
	if fsys == nil {
		return nil, fmt.Errorf("%w: none given", ErrNoPlugin)
	}
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read plugin files: %w", err)
	}
	var out []pluginFile
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read plugin files: %w", err)
		}
		out = append(out, pluginFile{e.Name(), b})
	}
	have := func(name string) []byte {
		for _, f := range out {
			if f.name == name {
				return f.data
			}
		}
		return nil
	}
	if w := have("core.wasm"); !bytes.HasPrefix(w, []byte("\x00asm")) {
		return nil, fmt.Errorf("%w: core.wasm is missing or not WebAssembly (build it into plugin/ before building this binary)", ErrNoPlugin)
	}
	if have("package.json") == nil {
		return nil, fmt.Errorf("%w: package.json is missing", ErrNoPlugin)
	}
	return out, nil
}

// trimmedText is a value's text without the whitespace and comments around it.
func trimmedText(v hujson.Value) []byte {
	v.BeforeExtra, v.AfterExtra = nil, nil
	return v.Pack()
}

// entryText returns our entry in data's key array as compact standard JSON.
func entryText(data []byte, key string) json.RawMessage {
	c, err := install.ParseJSONC(data)
	if err != nil {
		return nil
	}
	if mi := c.Member(key); mi >= 0 {
		if arr, ok := c.Obj.Members[mi].Value.Value.(*hujson.Array); ok {
			for _, e := range entries(arr) {
				if isOurPath(e.name) {
					var out bytes.Buffer
					if json.Compact(&out, plainBytes(hujson.Value{Value: arr.Elements[e.index].Value})) != nil {
						return nil
					}
					return out.Bytes()
				}
			}
		}
	}
	return nil
}

// checkEdit verifies that an edit kept everything but our entries: both
// sides, with our entries (and a then-empty key) removed, must be equal as
// JSON, and after must (or must not) hold our entry.
func checkEdit(before, after []byte, key string, wantOurs bool) error {
	nb, _, err := normalized(before, key)
	if err != nil {
		return fmt.Errorf("before: %w", err)
	}
	na, ours, err := normalized(after, key)
	if err != nil {
		return fmt.Errorf("after: %w", err)
	}
	if !reflect.DeepEqual(nb, na) {
		return errors.New("the edit changed more than the plugin entry")
	}
	if wantOurs != (ours > 0) {
		return fmt.Errorf("the edit left %d plugin entries", ours)
	}
	return nil
}

func normalized(data []byte, key string) (any, int, error) {
	v, _, err := install.ParseValue(data)
	if err != nil {
		return nil, 0, err
	}
	var m map[string]any
	if err := json.Unmarshal(plainBytes(v), &m); err != nil {
		return nil, 0, err
	}
	ours := 0
	if arr, ok := m[key].([]any); ok {
		var keep []any
		for _, el := range arr {
			if isOurPath(entryName(el)) {
				ours++
				continue
			}
			keep = append(keep, el)
		}
		if len(keep) == 0 {
			delete(m, key)
		} else {
			m[key] = keep
		}
	}
	return m, ours, nil
}

func plainBytes(v hujson.Value) []byte {
	v = v.Clone()
	v.Standardize()
	return v.Pack()
}

func entryName(v any) string {
	switch e := v.(type) {
	case string:
		return e
	case map[string]any:
		s, _ := e["package"].(string)
		return s
	case []any:
		if len(e) > 0 {
			s, _ := e[0].(string)
			return s
		}
	}
	return ""
}

// addEntry appends the entry for h to the config, creating the key when
// needed. It returns whether it created the key and the layout to restore.
func addEntry(c *install.JSONC, h Host, o install.Options) (createdKey bool, lay install.Layout) {
	key := h.key()
	root := install.ObjItems{O: c.Obj}
	if mi := c.Member(key); mi >= 0 {
		m := &c.Obj.Members[mi]
		arr := m.Value.Value.(*hujson.Array)
		it := install.ArrItems{A: arr}
		outer, _ := install.LineIndent(m.Name.BeforeExtra)
		multi := install.IsMultiline(it, c.Multiline)
		ind := install.ItemIndent(it, outer, c.Unit)
		text := c.Lines(entryJSON(h, o, ind, c.Unit, !multi))
		old := string(arr.AfterExtra)
		lead, trail, tail := c.AppendLayout(it, multi, ind, outer)
		arr.Elements = append(arr.Elements, hujson.Value{BeforeExtra: lead, Value: install.ParseTrimmed(text), AfterExtra: trail})
		arr.AfterExtra = tail
		return false, install.Layout{Lead: string(lead), TailBefore: old, TailAfter: string(tail)}
	}
	multi := install.IsMultiline(root, true) && c.Multiline
	memberInd := install.ItemIndent(root, "", c.Unit)
	var arrText string
	if multi {
		elemInd := memberInd + c.Unit
		arrText = "[\n" + elemInd + string(entryJSON(h, o, elemInd, c.Unit, false)) + "\n" + memberInd + "]"
	} else {
		arrText = "[" + string(entryJSON(h, o, "", "", true)) + "]"
	}
	keyJSON, _ := json.Marshal(key)
	wrap, err := hujson.Parse(c.Lines([]byte("{" + string(keyJSON) + ": " + arrText + "}")))
	if err != nil {
		panic(err)
	}
	m := wrap.Value.(*hujson.Object).Members[0]
	old := string(c.Obj.AfterExtra)
	lead, trail, tail := c.AppendLayout(root, multi, memberInd, "")
	m.Name.BeforeExtra, m.Value.AfterExtra = lead, trail
	c.Obj.Members = append(c.Obj.Members, m)
	c.Obj.AfterExtra = tail
	return true, install.Layout{Lead: string(lead), TailBefore: old, TailAfter: string(tail)}
}

// removeEntry removes element idx of the plugin list (member mi of the
// root), and the list with it when init created it and it is now empty.
// lay is what addEntry returned: the element's layout, or the list's when
// createdKey.
func removeEntry(c *install.JSONC, mi, idx int, createdKey bool, lay *install.Layout) {
	arr := c.Obj.Members[mi].Value.Value.(*hujson.Array)
	var elemLayout, keyLayout *install.Layout
	if createdKey {
		keyLayout = lay
	} else {
		elemLayout = lay
	}
	install.RemoveItem(install.ArrItems{A: arr}, idx, elemLayout)
	if createdKey && len(arr.Elements) == 0 {
		install.RemoveItem(install.ObjItems{O: c.Obj}, mi, keyLayout)
	}
}

// setOptions rewrites entry e of arr so it carries options o, in h's form,
// touching as little text as possible.
func setOptions(c *install.JSONC, h Host, arr *hujson.Array, e entry, o install.Options) {
	el := &arr.Elements[e.index]
	ind, ok := install.LineIndent(el.BeforeExtra)
	compact := !ok
	if e.form != h.form() {
		el.Value = install.ParseTrimmed(c.Lines(entryJSON(h, o, ind, c.Unit, compact)))
		return
	}
	switch v := el.Value.(type) {
	case *hujson.Object:
		for i := len(v.Members) - 1; i >= 0; i-- {
			m := &v.Members[i]
			if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == "options" {
				oi, ok := install.LineIndent(m.Name.BeforeExtra)
				m.Value.Value = install.ParseTrimmed(c.Marshal(o, oi, !ok))
				return
			}
		}
		it := install.ObjItems{O: v}
		multi := install.IsMultiline(it, !compact)
		mi := install.ItemIndent(it, ind, c.Unit)
		lead, trail, tail := c.AppendLayout(it, multi, mi, ind)
		m := hujson.ObjectMember{
			Name:  hujson.Value{BeforeExtra: lead, Value: hujson.String("options")},
			Value: hujson.Value{BeforeExtra: hujson.Extra(" "), Value: install.ParseTrimmed(c.Marshal(o, mi, !multi)), AfterExtra: trail},
		}
		v.Members = append(v.Members, m)
		v.AfterExtra = tail
	case *hujson.Array:
		if len(v.Elements) >= 2 {
			oi, ok := install.LineIndent(v.Elements[1].BeforeExtra)
			if !ok {
				oi = ind
			}
			v.Elements[1].Value = install.ParseTrimmed(c.Marshal(o, oi, compact))
			return
		}
		it := install.ArrItems{A: v}
		multi := install.IsMultiline(it, false)
		ei := install.ItemIndent(it, ind, c.Unit)
		lead, trail, tail := c.AppendLayout(it, multi, ei, ind)
		v.Elements = append(v.Elements, hujson.Value{BeforeExtra: lead, Value: install.ParseTrimmed(c.Marshal(o, ind, compact)), AfterExtra: trail})
		v.AfterExtra = tail
	}
}

// restore returns the content before init from the record, when cur is
// exactly what init last wrote.
func (configRecord RecordConfig) restore(cur []byte) ([]byte, bool) {
	if install.SHA(cur) != configRecord.WrittenSHA256 {
		return nil, false
	}
	if configRecord.Patch != nil {
		return configRecord.Patch.Reverse(cur)
	}
	if !configRecord.Existed || configRecord.Snapshot != "" {
		return []byte(configRecord.Snapshot), true // a record of an earlier version
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
	v, err := hujson.Parse([]byte(text))
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
		return errors.New("does not name " + PackagePath)
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
func planNothing(dir string, scope install.Scope, recPath string) (*Plan, error) {
	for _, name := range configNames {
		data, _, ok, err := install.ReadFile(filepath.Join(dir, name))
		if err != nil || !ok {
			continue
		}
		_, body := install.SplitBOM(data)
		for _, key := range []string{"plugins", "plugin"} {
			if _, n, err := normalized(body, key); err == nil && n > 0 {
				return nil, refuse("no install record at "+recPath+", but "+filepath.Join(dir, name)+" lists "+PackagePath+": it was not installed by this tool (or its record was lost), so uninstall cannot reverse it exactly",
					manualUninstall(dir, name, key)...)
			}
		}
	}
	if exists(filepath.Join(dir, filepath.FromSlash(pluginDir))) {
		return nil, refuse("no install record at "+recPath+", but "+filepath.Join(dir, filepath.FromSlash(pluginDir))+" exists",
			manualUninstall(dir, "opencode.jsonc (or opencode.json)", "plugins")...)
	}
	p := newPlan("uninstall", scope, HostOpenCode, dir)
	p.Host = "OpenCode"
	p.ConfigFile, _ = pickConfig(dir, nil)
	p.UpToDate = "Nothing to uninstall: there is no install by this tool in " + dir + "."
	return p, nil
}
